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
	for _, seed := range irgen.Seeds(t, 300, 50) {
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

// TestLangConstructs: with Config.Lang most kernels use each of issue 12's
// constructs, and without it none does.
func TestLangConstructs(t *testing.T) {
	base := rand.Uint64()
	const n = 100
	kinds := map[string]ir.Constructs{"functions": ir.ConstructFunctions, "structs": ir.ConstructStructs, "switch": ir.ConstructSwitch, "constant arrays": ir.ConstructArrayLits}
	count := map[string]int{}
	for i := uint64(0); i < n; i++ {
		for _, lang := range []bool{false, true} {
			k, err := irgen.Generate(base+i, irgen.Config{Lang: lang})
			if err != nil {
				t.Fatalf("seed %d: %v", base+i, err)
			}
			for name, c := range kinds {
				used := ir.FindConstruct(k.Module.Kernels[0], "test", c) != nil
				if used && !lang {
					t.Fatalf("seed %d: %s without Config.Lang", base+i, name)
				}
				if used {
					count[name]++
				}
			}
		}
	}
	for name := range kinds {
		if count[name] < n/2 {
			t.Errorf("%s in %d of %d Lang kernels; want at least half (base seed %d)", name, count[name], n, base)
		}
	}
	t.Logf("of %d kernels: %v", n, count)
}
