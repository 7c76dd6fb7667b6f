package kctest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// NextCases reads every testdata/kernels-next/*.kc in name order: kernels
// using issue 12's constructs that not every emitter lowers yet. They move
// to testdata/kernels once all do; until then an emitter that lowers them
// runs its golden, validator and driver tests on them as well (goldens in
// testdata/golden, as for Cases).
func NextCases(t testing.TB) []Case {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(Root(t), "testdata", "kernels-next", "*.kc"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []Case
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseDirectives(p, src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}
