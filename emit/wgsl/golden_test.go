package wgsl_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
)

// TestGolden emits every test kernel that wants WGSL and compares the text with
// testdata/golden/NAME.wgsl (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		if !c.Wants("wgsl") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			a, err := wgsl.Emit(c.Module(t), wgsl.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Lines) != strings.Count(string(a.Code), "\n") {
				t.Errorf("Lines has %d entries for %d lines", len(a.Lines), strings.Count(string(a.Code), "\n"))
			}
			golden.Check(t, kctest.Golden(t, c.Name, "wgsl"), a.Code)
		})
	}
}

// TestNoOrphanGoldens fails on a .wgsl golden file without a test kernel
// that wants WGSL.
func TestNoOrphanGoldens(t *testing.T) {
	want := map[string]bool{}
	for _, c := range kctest.Cases(t) {
		if c.Wants("wgsl") {
			want[c.Name+".wgsl"] = true
		}
	}
	paths, err := filepath.Glob(filepath.Join(kctest.Root(t), "testdata", "golden", "*.wgsl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if !want[filepath.Base(p)] {
			t.Errorf("orphan golden %s: no testdata/kernels case wants wgsl (delete it or add the kernel)", p)
		}
	}
}
