package spirv

import (
	"context"
	"math/rand/v2"
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
	n := 40
	if testing.Short() {
		n = 8
	}
	base := rand.Uint64()
	t.Logf("base seed %#x", base)
	for i := 0; i < n; i++ {
		seed := base + uint64(i)
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
