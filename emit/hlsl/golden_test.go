package hlsl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// issue12Kernels are the corpus kernels written for issue 12's constructs.
var issue12Kernels = []string{"blur_const", "boids_struct", "helpers", "precise_diff", "switch_ops"}

// issue12Case finds one of issue12Kernels in testdata/kernels.
func issue12Case(t testing.TB, name string) kctest.Case {
	t.Helper()
	for _, c := range kctest.Cases(t) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("kernel %s is not in testdata/kernels", name)
	return kctest.Case{}
}

// Issue12Case and Issue12Kernels serve the execution tests (package
// hlsl_test).
var (
	Issue12Case    = issue12Case
	Issue12Kernels = issue12Kernels
)

// TestGolden emits every test kernel that wants "hlsl", compares it with
// testdata/golden/NAME.hlsl, compiles every entry point with glslang and
// validates the SPIR-V with spirv-val (vulkan1.1).
func TestGolden(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		if !c.Wants("hlsl") {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			m := c.Module(t)
			a, err := Emit(m, Options{})
			if err != nil {
				t.Fatalf("Emit: %v", err)
			}
			golden.Check(t, kctest.Golden(t, c.Name, "hlsl"), a.Code)
			kctest.Tool(t, GlslangTool)
			kctest.Tool(t, SpirvValTool)
			for _, ent := range a.Entries {
				words, err := CompileSPIRV(context.Background(), a, ent.Kernel, CompileOptions{Compiler: Glslang})
				if ent.Restricted != "" {
					// shader model 6.4 (dot4add_*), cooperative matrices: dxc only
					var ue *ir.UnsupportedError
					if !errors.As(err, &ue) || ue.Target != "hlsl via glslang" || !strings.Contains(err.Error(), ent.Restricted+" (") || !strings.Contains(err.Error(), "dxc") {
						t.Errorf("%s: glslang compile of a kernel calling %s: got %v, want an UnsupportedError naming it", ent.Name, ent.Restricted, err)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s: %v", ent.Name, err)
					continue
				}
				if len(words.Words) < 5 || words.Words[0] != 0x07230203 || words.Entries[0].Name != ent.Name {
					t.Errorf("%s: not a SPIR-V module", ent.Name)
				}
			}
		})
	}
}

// TestGoldenNoOrphans fails for a golden .hlsl file without its test kernel.
func TestGoldenNoOrphans(t *testing.T) {
	want := map[string]bool{}
	for _, c := range kctest.Cases(t) {
		if c.Wants("hlsl") {
			want[c.Name] = true
		}
	}
	files, err := filepath.Glob(filepath.Join(kctest.Root(t), "testdata", "golden", "*.hlsl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".hlsl")
		if !want[name] {
			t.Errorf("%s has no test kernel wanting hlsl in testdata/kernels", f)
		}
	}
	if _, err := os.Stat(filepath.Join(kctest.Root(t), "testdata", "golden")); err != nil {
		t.Fatal(err)
	}
}
