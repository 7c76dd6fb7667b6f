// Package golden compares test output with golden files, the way kc's own
// tests do and the way users' tests of kc-generated artifacts can.
//
// Run `go test ./... -update` to rewrite the golden files from the current
// output; review the diff like code.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Check compares got with the file at path. With -update it writes got to
// path instead (creating directories) and passes. A mismatch fails t with a
// line diff; a missing file fails t and says how to create it.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		old, err := os.ReadFile(path)
		if err == nil && bytes.Equal(old, got) {
			return
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("updated %s", path)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test -update to create it)", path, err)
	}
	if bytes.Equal(want, got) {
		return
	}
	diff := cmp.Diff(strings.Split(string(want), "\n"), strings.Split(string(got), "\n"))
	t.Errorf("%s differs from the output (-golden +got):\n%s\nrun go test -update to accept the new output", path, diff)
}
