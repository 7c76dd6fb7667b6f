package difftest

import (
	"context"
	"errors"
	"testing"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestCoop runs irgen's cooperative-matrix kernels (GenerateCoop) from
// fresh seeds on the interpreter (subgroups of 32, race detection on)
// against the generator's float64 reference, emits each as SPIR-V in its
// flavour (the NV modules through spirv-val), and loads it on the Vulkan
// device: a device without cooperative matrices (lavapipe) must refuse it
// with an *ir.UnsupportedError. Running the kernels on a cooperative-matrix
// device needs the generator to keep to the device's shapes and element
// types (it uses f32 input matrices and shapes no device offers); that is
// not done, and the test says so there.
func TestCoop(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	d := device(t, "vulkan")
	info := d.Info()
	hasCoop := len(info.CoopMat) > 0
	if hasCoop {
		t.Logf("NOT RUN on %s: generated cooperative-matrix kernels are not restricted to the device's shapes", info.Name)
	}
	for _, cfg := range []irgen.CoopConfig{{BF16: true, Int8: true}, {NV: true, Int8: true}} {
		for _, seed := range seeds(t) {
			k, err := irgen.GenerateCoop(seed, cfg)
			if err != nil {
				t.Fatalf("seed %d %+v: %v\n%s", seed, cfg, err, k.Source)
			}
			params, bufs := k.Inputs()
			want, tol := k.Reference(params, bufs)
			err = interp.Run(k.Module, k.Name, [3]int{k.Groups, 1, 1}, &interp.Args{Params: params, Buffers: bufs}, interp.Options{SubgroupSize: 32, Races: true})
			if err == nil {
				err = irgen.CompareCoop(bufs, want, tol)
			}
			if err != nil {
				t.Fatalf("seed %d %+v: interpreter: %v\n%s", seed, cfg, err, k.Source)
			}
			flavor := spirv.CoopMatKHR
			if cfg.NV {
				flavor = spirv.CoopMatNV
			}
			a, err := spirv.Emit(k.Module, spirv.Options{CoopMat: flavor})
			if err != nil {
				t.Fatalf("seed %d %+v: emit: %v\n%s", seed, cfg, err, k.Source)
			}
			if cfg.NV {
				if err := spirv.ValidateArtifact(context.Background(), a); err != nil {
					t.Fatalf("seed %d %+v: %v\n%s", seed, cfg, err, k.Source)
				}
			}
			if !hasCoop {
				_, err := d.Load(context.Background(), a)
				var unsup *ir.UnsupportedError
				if !errors.As(err, &unsup) {
					t.Fatalf("seed %d: loading on %s (no cooperative matrices): %v, want an *ir.UnsupportedError", seed, info.Name, err)
				}
			}
		}
	}
}
