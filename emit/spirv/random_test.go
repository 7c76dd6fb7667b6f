package spirv

import (
	"context"
	"fmt"
	"testing"

	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/internal/kctest"
)

// TestRandomKernels emits random well-typed kernels from internal/irgen (nested
// control flow, arithmetic, conversions, shared memory, atomics, subgroup
// operations), fresh seeds every run, as SPIR-V 1.3 and 1.6, and runs
// spirv-val on each. The seed of a failure is printed for reproduction.
func TestRandomKernels(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for i, seed := range irgen.Seeds(t, 40, 8) {
		cfg := irgen.Config{Subgroups: i%2 == 1}
		k, err := irgen.Generate(seed, cfg)
		if err != nil {
			t.Fatalf("irgen seed %#x: %v", seed, err)
		}
		for _, v := range []Version{V1_3, V1_6} {
			mod, err := Emit(k.Module, Options{Version: v})
			if err != nil {
				t.Fatalf("seed %#x %+v, v%s: %v", seed, cfg, v, err)
			}
			if err := ValidateArtifact(context.Background(), mod); err != nil {
				t.Fatalf("seed %#x %+v, v%s: %v", seed, cfg, v, err)
			}
		}
	}
}

// TestRandomCoopKernels emits random cooperative-matrix kernels from
// internal/irgen (GenerateCoop: fills, loads and stores through buffers
// and shared arrays with random offsets, strides and layouts,
// multiply-adds, element-wise operations, scaling, conversions; f16, f32,
// bf16, i8/u8), fresh seeds every run, as SPIR-V 1.3 and 1.6 in both
// flavours. The NV modules pass spirv-val; the KHR ones (which spirv-val
// 2023.1 rejects) disassemble and assemble back to the same words with the
// package's assembler. internal/irgen's tests run the same kernels on the
// interpreter against a float64 reference.
func TestRandomCoopKernels(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for _, seed := range irgen.Seeds(t, 20, 5) {
		for _, cfg := range []irgen.CoopConfig{{BF16: true, Int8: true, Ops: 16}, {NV: true, Int8: true, Ops: 16}} {
			k, err := irgen.GenerateCoop(seed, cfg)
			if err != nil {
				t.Fatalf("irgen seed %#x %+v: %v", seed, cfg, err)
			}
			flavor := CoopMatKHR
			if cfg.NV {
				flavor = CoopMatNV
			}
			for _, v := range []Version{V1_3, V1_6} {
				mod, err := Emit(k.Module, Options{Version: v, CoopMat: flavor})
				if err != nil {
					t.Fatalf("seed %#x %+v, v%s: %v\n%s", seed, cfg, v, err, k.Source)
				}
				if flavor == CoopMatNV {
					if err := ValidateArtifact(context.Background(), mod); err != nil {
						t.Fatalf("seed %#x %+v, v%s: %v\n%s", seed, cfg, v, err, k.Source)
					}
					continue
				}
				if err := roundTrip(mod.Words); err != nil {
					t.Fatalf("seed %#x %+v, v%s: %v\n%s", seed, cfg, v, err, k.Source)
				}
			}
		}
	}
}

// roundTrip disassembles words and assembles them back: the same words
// (but the id bound) or an error.
func roundTrip(words []uint32) error {
	text, err := Disassemble(words)
	if err != nil {
		return err
	}
	got, err := assemble(text)
	if err != nil {
		return fmt.Errorf("assemble: %v", err)
	}
	if len(got) != len(words) {
		return fmt.Errorf("assembled %d words, emitted %d", len(got), len(words))
	}
	for i := range words {
		if i != 2 && got[i] != words[i] {
			return fmt.Errorf("word %d: assembled %#x, emitted %#x\n%s", i, got[i], words[i], contextAt(words, i))
		}
	}
	return nil
}
