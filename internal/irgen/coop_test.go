package irgen_test

import (
	"bytes"
	"fmt"
	"regexp"
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

// h200Shapes are the cooperative-matrix shapes the H200's Vulkan driver
// reports (coopmat's h200 helper, docs/PERF.md), in irgen's names.
func h200Shapes() []irgen.CoopShape {
	var s []irgen.CoopShape
	for _, t := range []string{"f16", "bf16"} {
		for _, mnk := range [][3]int{{16, 8, 8}, {16, 8, 16}, {16, 16, 16}} {
			s = append(s, irgen.CoopShape{M: mnk[0], N: mnk[1], K: mnk[2], A: t, C: "f32"}, irgen.CoopShape{M: mnk[0], N: mnk[1], K: mnk[2], A: t, C: t})
		}
	}
	return append(s, irgen.CoopShape{M: 16, N: 16, K: 32, A: "i8", C: "i32"})
}

var coopTypeRE = regexp.MustCompile(`coopmat<(\w+), (\d+), (\d+), (\w+)>`)

// TestGenerateCoopShapes: kernels restricted to the H200's shapes declare
// only matrix types those shapes name (as A, B or accumulator), still run
// in the interpreter to the reference, and DeviceReference's bounds are
// never below Reference's.
func TestGenerateCoopShapes(t *testing.T) {
	shapes := h200Shapes()
	allowed := map[string]bool{}
	for _, s := range shapes {
		for _, m := range [][4]any{{s.A, s.M, s.K, "a"}, {s.A, s.K, s.N, "b"}, {s.C, s.M, s.N, "acc"}} {
			allowed[fmt.Sprintf("coopmat<%s, %d, %d, %s>", m[:]...)] = true
		}
	}
	seen := map[string]bool{}
	for _, seed := range irgen.Seeds(t, 60, 15) {
		for _, cfg := range []irgen.CoopConfig{{Shapes: shapes}, {BF16: true, Int8: true, Shapes: shapes}, {NV: true, Int8: true, Ops: 20, Shapes: shapes}} {
			k, err := irgen.GenerateCoop(seed, cfg)
			if err != nil {
				t.Fatalf("seed %#x %+v: %v\n%s", seed, cfg, err, k.Source)
			}
			for _, m := range coopTypeRE.FindAllStringSubmatch(k.Source, -1) {
				if !allowed[m[0]] {
					t.Fatalf("seed %#x %+v: %s is no H200 shape's matrix\n%s", seed, cfg, m[0], k.Source)
				}
				if (m[1] == "bf16" && !cfg.BF16) || (m[1] == "i8" && !cfg.Int8) || m[1] == "u8" || m[1] == "u32" || (m[1] == "f32" && m[4] != "acc") {
					t.Fatalf("seed %#x %+v: %s not allowed\n%s", seed, cfg, m[0], k.Source)
				}
				seen[m[0]] = true
			}
			params, bufs := k.Inputs()
			want, tol := k.Reference(params, bufs)
			dwant, dtol := k.DeviceReference(params, bufs)
			for name, b := range want {
				if !bytes.Equal(b, dwant[name]) {
					t.Fatalf("seed %#x: DeviceReference's %s differs from Reference's", seed, name)
				}
				for i := range tol[name] {
					if dtol[name][i] < tol[name][i] {
						t.Fatalf("seed %#x: %s[%d] device bound %g below %g", seed, name, i, dtol[name][i], tol[name][i])
					}
				}
			}
			err = interp.Run(k.Module, k.Name, [3]int{k.Groups, 1, 1}, &interp.Args{Params: params, Buffers: bufs}, interp.Options{SubgroupSize: 32, Races: true})
			if err == nil {
				err = irgen.CompareCoop(bufs, want, tol)
			}
			if err != nil {
				t.Fatalf("seed %#x %+v: interpreter: %v\n%s", seed, cfg, err, k.Source)
			}
		}
	}
	if !seen["coopmat<f16, 16, 16, a>"] && !seen["coopmat<f16, 16, 8, a>"] {
		t.Errorf("no f16 A matrix in any kernel (types seen: %v)", seen)
	}
	if _, err := irgen.GenerateCoop(1, irgen.CoopConfig{Shapes: []irgen.CoopShape{{M: 16, N: 16, K: 32, A: "i8", C: "i32"}}}); err == nil {
		t.Error("GenerateCoop with only an 8-bit shape: no error, want one (no 16-bit float shape to build on)")
	}
}
