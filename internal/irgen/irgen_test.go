package irgen_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// TestGenerate: kernels for fresh seeds check, run in the interpreter with
// race detection without error, and are the same for the same seed.
func TestGenerate(t *testing.T) {
	base := rand.Uint64()
	t.Logf("base seed %d", base)
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		seed := base + uint64(i)
		for _, cfg := range []irgen.Config{{}, {Subgroups: true}, {F16: true, Subgroups: true}, {Lang: true}, {Lang: true, F16: true, Subgroups: true}} {
			k, err := irgen.Generate(seed, cfg)
			if err != nil {
				t.Fatalf("seed %d %+v: %v\n%s", seed, cfg, err, ir.Print(k.Module))
			}
			k2, _ := irgen.Generate(seed, cfg)
			if !bytes.Equal(ir.Print(k.Module), ir.Print(k2.Module)) {
				t.Fatalf("seed %d: two generations differ", seed)
			}
			params, bufs := k.Inputs()
			err = interp.Run(k.Module, k.Name, [3]int{k.Groups, 1, 1}, &interp.Args{Params: params, Buffers: bufs}, interp.Options{SubgroupSize: 8, Races: true})
			if err != nil {
				t.Fatalf("seed %d %+v: interp: %v\n%s", seed, cfg, err, ir.Print(k.Module))
			}
		}
	}
}
