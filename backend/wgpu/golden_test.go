//go:build !js

package wgpu

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestGoldenWGSLNaga validates every golden WGSL file with this binding's
// naga: a shader module is created for each testdata/golden/*.wgsl whose
// kernels use neither f16 nor subgroups (which this naga predates) and whose
// case has no //kc:skip-naga directive; a rejection fails with naga's
// message.
func TestGoldenWGSLNaga(t *testing.T) {
	openDevice(t) // the same adapter checks and Missing policy
	as, err := driver{}.Adapters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vk := -1
	for i, a := range as {
		if a.API == "Vulkan" {
			vk = i
			break
		}
	}
	impl, err := driver{}.Open(ctx, vk)
	if err != nil {
		t.Fatal(err)
	}
	defer impl.Close()
	d := impl.(*device)
	root := kctest.Root(t)
	paths, _ := filepath.Glob(filepath.Join(root, "testdata", "golden", "*.wgsl"))
	if len(paths) == 0 {
		kctest.Missing(t, "no testdata/golden/*.wgsl yet (emit/wgsl writes them)")
	}
	cases := map[string]kctest.Case{}
	for _, c := range kctest.Cases(t) {
		cases[c.Name] = c
	}
	checked := 0
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".wgsl")
		name = strings.TrimSuffix(name, ".chromium") // Chromium's cooperative-matrix dialect (emit/wgsl)
		t.Run(name, func(t *testing.T) {
			c, ok := cases[name]
			if !ok {
				t.Fatalf("golden %s has no test kernel testdata/kernels/%s.kc", path, name)
			}
			if c.SkipNaga != "" {
				t.Skipf("//kc:skip-naga %s", c.SkipNaga)
			}
			m := c.Module(t)
			for _, k := range m.Kernels {
				if k.Features&(ir.FeatureF16|ir.FeatureSubgroups|ir.FeatureCoopMat) != 0 {
					t.Skipf("kernel %s uses features this naga predates", k.Name)
				}
			}
			code, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			mod, err := d.shaderModule(&emit.Artifact{Target: emit.WGSL, File: name, Code: code})
			if err != nil {
				t.Fatalf("naga rejects %s:\n%v", path, err)
			}
			mod.Release()
			checked++
		})
	}
	t.Logf("%d of %d golden WGSL files validated by naga", checked, len(paths))
}
