package irgen_test

import (
	"bytes"
	"testing"

	"github.com/kcgo/kc/internal/irgen"
	"github.com/kcgo/kc/ir/interp"
)

// TestGenerateCoop: cooperative-matrix kernels for fresh seeds check, are
// the same for the same seed, and run in the interpreter (subgroups of 32,
// race detection on) to the generator's own float64 reference within its
// bounds, in every configuration.
func TestGenerateCoop(t *testing.T) {
	for _, seed := range irgen.Seeds(t, 60, 15) {
		for _, cfg := range []irgen.CoopConfig{{}, {BF16: true}, {Int8: true}, {BF16: true, Int8: true, Ops: 20}, {NV: true, Int8: true}} {
			k, err := irgen.GenerateCoop(seed, cfg)
			if err != nil {
				t.Fatalf("seed %#x %+v: %v\n%s", seed, cfg, err, k.Source)
			}
			if k2, _ := irgen.GenerateCoop(seed, cfg); k2.Source != k.Source {
				t.Fatalf("seed %#x: two generations differ", seed)
			}
			params, bufs := k.Inputs()
			want, tol := k.Reference(params, bufs)
			in := map[string][]byte{}
			for name, b := range bufs {
				in[name] = bytes.Clone(b)
			}
			err = interp.Run(k.Module, k.Name, [3]int{k.Groups, 1, 1}, &interp.Args{Params: params, Buffers: bufs}, interp.Options{SubgroupSize: 32, Races: true})
			if err != nil {
				t.Fatalf("seed %#x %+v: interp: %v\n%s", seed, cfg, err, k.Source)
			}
			if err := irgen.CompareCoop(bufs, want, tol); err != nil {
				t.Fatalf("seed %#x %+v: interpreter against the reference: %v\n%s", seed, cfg, err, k.Source)
			}
			for name, b := range in {
				if _, out := k.OutLen[name]; !out && !bytes.Equal(b, bufs[name]) {
					t.Fatalf("seed %#x: input %s changed", seed, name)
				}
			}
			if w2, _ := k.Reference(params, in); !bytes.Equal(w2["out_f"], want["out_f"]) {
				t.Fatalf("seed %#x: Reference modified its inputs", seed)
			}
		}
	}
}
