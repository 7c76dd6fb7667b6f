//go:build !js

package browser

import (
	"os"
	"os/exec"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestBuildJS builds and vets, for GOOS=js GOARCH=wasm, what the browser
// needs: package backend with the wgpu driver's browser side, the runtime
// of kc gen's launchers (precompiled), the generator, the Tensor API
// (kernels) and its matmul (coopmat), and examples/web, whose
// kernels_kc.go is kc gen's output.
func TestBuildJS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds for js/wasm (-short)")
	}
	track(t)
	pkgs := []string{"./backend/...", "./precompiled", "./gen", "./examples/web", "./kernels", "./coopmat", "./internal/kctest", "./ir/..."}
	for _, verb := range []string{"build", "vet"} {
		cmd := exec.Command(goTool(t), append([]string{verb}, pkgs...)...)
		cmd.Dir = kctest.Root(t)
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=js GOARCH=wasm go %s: %v\n%s", verb, err, out)
		}
	}
}
