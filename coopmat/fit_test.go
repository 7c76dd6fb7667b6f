package coopmat

import (
	"testing"

	"github.com/kcgo/kc/backend"
)

// h200Reported is the H200 as its driver reports it (docs/PERF.md's `kc
// devices` listing and cooperative_matrix2 section, driver 580.159.04):
// unlike h200, bf16 only through VK_KHR_cooperative_matrix and only with
// f32 accumulate.
func h200Reported() backend.AdapterInfo {
	info := h200cm2()
	var shapes []backend.CoopMatShape
	for _, fl := range []string{"khr", "nv"} {
		for _, acc := range []string{"f16", "f32"} {
			for _, mnk := range [][3]int{{16, 16, 16}, {16, 8, 16}, {16, 8, 8}} {
				shapes = append(shapes, backend.CoopMatShape{M: mnk[0], N: mnk[1], K: mnk[2], A: "f16", B: "f16", C: acc, Result: acc, Scope: "subgroup", Flavor: fl})
			}
		}
		for _, t := range []string{"u8", "s8"} {
			for _, n := range []int{16, 8} {
				shapes = append(shapes, backend.CoopMatShape{M: 16, N: n, K: 32, A: t, B: t, C: t[:1] + "32", Result: t[:1] + "32", Scope: "subgroup", Flavor: fl})
			}
		}
		if fl == "khr" {
			shapes = append(shapes, backend.CoopMatShape{M: 16, N: 16, K: 16, A: "bf16", B: "bf16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: fl})
		}
	}
	info.CoopMat = shapes
	info.F16, info.BF16, info.Int8 = true, true, true
	return info
}

// TestPlansFitDevice: every kernel the generators build for the H200, for
// each input and output type, transposition and shape class, uses only
// cooperative-matrix types the device reports (backend.SupportsKernel, the
// check Load makes, against the flavour the plan is loaded with), so the
// backend's check refuses none of kc's own kernels there.
func TestPlansFitDevice(t *testing.T) {
	info := h200Reported()
	nvOnly := info
	nvOnly.CoopMat = nil
	for _, s := range info.CoopMat {
		if s.Flavor == "nv" {
			nvOnly.CoopMat = append(nvOnly.CoopMat, s)
		}
	}
	n := 0
	for _, dt := range []string{"f16", "bf16"} {
		for _, ct := range []string{"f16", "bf16", "f32"} {
			for _, mnk := range [][3]int{{8192, 8192, 8192}, {16, 4096, 4096}, {17, 33, 65}} {
				for _, tb := range []bool{false, true} {
					o := Options{M: mnk[0], N: mnk[1], K: mnk[2], TransB: tb, DType: dt, CType: ct}
					cs, err := Candidates(info, o)
					if err != nil {
						t.Fatalf("%s: %v", o, err)
					}
					for _, p := range append(cs, Coop2Candidates(info, o)...) {
						m, kernel, err := generators[p.Generator](p)
						if err != nil {
							t.Fatalf("%s: %v", p, err)
						}
						dev := info
						if p.Shape != nil && p.Shape.Flavor == "nv" {
							dev = nvOnly
						}
						if err := backend.SupportsKernel(dev, m.Kernel(kernel)); err != nil {
							t.Errorf("%s: %v", p, err)
						}
						n++
					}
				}
			}
		}
	}
	t.Logf("%d plans", n)
}
