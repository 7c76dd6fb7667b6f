package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestExample copies examples/saxpy to a temporary directory, runs go
// generate and go build there as a user would, checks that the committed
// kernels_kc.go is what go generate writes, and runs the program on the
// machine's GPU (lavapipe in CI), which checks its own results.
func TestExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module (-short)")
	}
	src := filepath.Join(kctest.Root(t), "examples", "saxpy")
	dir := tempModule(t, "github.com/kcgo/kc/examples/saxpy")
	for _, name := range []string{"main.go", "saxpy.kc"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd(t, dir, "generate", ".")
	got, err := os.ReadFile(filepath.Join(dir, "kernels_kc.go"))
	if err != nil {
		t.Fatalf("go generate wrote no kernels_kc.go: %v", err)
	}
	committed, err := os.ReadFile(filepath.Join(src, "kernels_kc.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Error("examples/saxpy/kernels_kc.go is stale: run go generate in examples/saxpy")
	}
	bin := buildProgram(t, dir, "saxpy")
	runProgram(t, bin, "example", "no GPU adapters found", func(out string) bool { return strings.Contains(out, "\nok\n") }, "-n", "50000")
}
