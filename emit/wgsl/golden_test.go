package wgsl_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// chromiumExt is the golden extension of a kernel's WGSL in Chromium's
// cooperative-matrix dialect (the plain .wgsl holds wgpu's).
const chromiumExt = "chromium.wgsl"

// usesCoopMat reports whether a module uses cooperative matrices, whose
// WGSL has a golden per dialect.
func usesCoopMat(m *ir.Module) bool {
	for _, k := range m.Kernels {
		if k.Features&ir.FeatureCoopMat != 0 {
			return true
		}
	}
	return false
}

// TestGolden emits every test kernel that wants WGSL and compares the text with
// testdata/golden/NAME.wgsl (go test -update rewrites them); a kernel with
// cooperative matrices also in Chromium's dialect, NAME.chromium.wgsl.
func TestGolden(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		if !c.Wants("wgsl") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			m := c.Module(t)
			check := func(opts wgsl.Options, ext string) {
				a, err := wgsl.Emit(m, opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(a.Lines) != strings.Count(string(a.Code), "\n") {
					t.Errorf("Lines has %d entries for %d lines", len(a.Lines), strings.Count(string(a.Code), "\n"))
				}
				golden.Check(t, kctest.Golden(t, c.Name, ext), a.Code)
			}
			check(wgsl.Options{}, "wgsl")
			if usesCoopMat(m) {
				check(wgsl.Options{CoopMat: wgsl.CoopMatChromium}, chromiumExt)
			}
		})
	}
}

// TestNoOrphanGoldens fails on a .wgsl golden file without a test kernel
// that wants WGSL (and, for a .chromium.wgsl, uses cooperative matrices).
func TestNoOrphanGoldens(t *testing.T) {
	want := map[string]bool{}
	for _, c := range kctest.Cases(t) {
		if c.Wants("wgsl") {
			want[c.Name+".wgsl"] = true
			if usesCoopMat(c.Module(t)) {
				want[c.Name+"."+chromiumExt] = true
			}
		}
	}
	paths, err := filepath.Glob(filepath.Join(kctest.Root(t), "testdata", "golden", "*.wgsl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if !want[filepath.Base(p)] {
			t.Errorf("orphan golden %s: no testdata/kernels case wants it (delete it or add the kernel)", p)
		}
	}
}
