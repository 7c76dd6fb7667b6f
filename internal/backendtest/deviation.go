package backendtest

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
)

// A Deviation is a measured difference between one adapter and kc's
// semantics (docs/semantics.md) that the target language allows, accepted
// by Corpus on that adapter only and only where it can occur: elements
// Slots of one output buffer of one kernel are compared as f32 under Tol
// instead of as the kernel's //kc:run says. Every other adapter, kernel,
// buffer and element keeps the directive's comparison.
type Deviation struct {
	Adapter      string // a substring of backend.AdapterInfo.Name
	Case, Kernel string // the corpus file (without .kc) and the kernel
	Buffer       string
	Slots        directive.Slots
	Tol          runspec.Tol
	Why          string // what differs, where it is documented
}

// Deviations is every deviation Corpus accepts. Add one only with a
// measurement and a line in the adapter's documentation.
var Deviations = []Deviation{{
	// conversions' slot 5 is f32(bitcast<u32>(k[i])) of any 32-bit k.
	// Measured 2026-12-01, Chromium 156: 132 of 1,451 random values (five
	// runs) one ulp off round-to-nearest-even, slot 4 (i32 -> f32) never;
	// lavapipe has none in either (120 runs). docs/browser.md.
	Adapter: "swiftshader", Case: "conversions", Kernel: "conversions", Buffer: "out",
	Slots: directive.Slots{In: []int{5}, Period: 8}, Tol: runspec.Tol{ULP: 1},
	Why: "SwiftShader rounds some u32 -> f32 conversions to the other neighbour (WGSL allows either; kc asks for nearest-even)",
}}

// deviationsFor are the Deviations for buffer b of kernel k of case c on
// the adapter info describes.
func deviationsFor(info backend.AdapterInfo, c kctest.Case, k *ir.Kernel, b *ir.Param) []Deviation {
	var out []Deviation
	for _, dv := range Deviations {
		if strings.Contains(strings.ToLower(info.Name), strings.ToLower(dv.Adapter)) &&
			dv.Case == c.Name && dv.Kernel == k.Name && dv.Buffer == b.Name {
			out = append(out, dv)
		}
	}
	return out
}

// check compares output b as run says, with the adapter's deviations for
// it applied; when only a deviation makes it pass, t logs what it
// accepted.
func check(t testing.TB, info backend.AdapterInfo, c kctest.Case, k *ir.Kernel, run *directive.Run, b *ir.Param, got, want []byte) string {
	strict := runspec.Check(run, b, got, want)
	devs := deviationsFor(info, c, k, b)
	if strict == "" || len(devs) == 0 {
		return strict
	}
	tol, bits := runspec.Rules(run, b)
	for _, dv := range devs {
		tol0, bits0 := tol, bits
		tol = func(i int) runspec.Tol {
			if dv.Slots.Has(i) {
				return dv.Tol
			}
			return tol0(i)
		}
		bits = func(i int) bool { return dv.Slots.Has(i) || bits0 != nil && bits0(i) }
	}
	msg := runspec.CompareBuffer(b.Type, got, want, tol, bits)
	if msg == "" {
		for _, dv := range devs {
			t.Logf("accepted on %s: %s", info.Name, dv.Why)
		}
		t.Logf("without that: %s: %s", b.Name, strict)
	}
	return msg
}
