package coopmat

import (
	"testing"

	"github.com/kcgo/kc/backend"
)

// TestPlansFitDevice: every kernel the generators build for the H200, for
// each input and output type, transposition and shape class, uses only
// cooperative-matrix types the device reports (backend.SupportsKernel, the
// check Load makes, against the flavour the plan is loaded with), so the
// backend's check refuses none of kc's own kernels there.
func TestPlansFitDevice(t *testing.T) {
	info := h200cm2()
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
