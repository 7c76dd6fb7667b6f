package main

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestRunKeywordNames runs each kernel of keyword_names.kc (named sampler,
// texture, float, Buffer, main: words the targets reserve, so their entry
// points are renamed in WGSL or HLSL) with kc run on the interpreter and on
// both drivers, and checks that all three print the same checksums for the
// same seed.
func TestRunKeywordNames(t *testing.T) {
	mesaEnv(t)
	devs, _, _ := kc(t, "", "devices", "-json")
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "keyword_names.kc")
	seed := itoa(int(rand.Uint32()))
	for _, k := range []string{"sampler", "texture", "float", "Buffer", "main"} {
		onCPU, errs, code := kc(t, "", "run", "-interp", "-kernel", k, "-seed", seed, src)
		if code != exitOK {
			t.Fatalf("kc run -interp -kernel %s: exit %d\n%s", k, code, errs)
		}
		want := checksums(onCPU)
		if want == "" {
			t.Fatalf("kc run -interp -kernel %s printed no checksums:\n%s", k, onCPU)
		}
		for _, driver := range []string{"vulkan", "wgpu"} {
			t.Run(k+"/"+driver, func(t *testing.T) {
				if !strings.Contains(devs, `"`+driver+`"`) {
					kctest.Missing(t, "no %s adapter (install mesa-vulkan-drivers for lavapipe)", driver)
				}
				out, errs, code := kc(t, "", "run", "-device", driver, "-kernel", k, "-seed", seed, src)
				if code != exitOK {
					t.Fatalf("kc run -device %s -kernel %s: exit %d\n%s", driver, k, code, errs)
				}
				if got := checksums(out); got != want {
					t.Errorf("seed %s: %s disagrees with the interpreter:\n%s\n%s", seed, driver, out, onCPU)
				}
			})
		}
	}
}
