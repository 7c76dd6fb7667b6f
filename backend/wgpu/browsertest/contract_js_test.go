package browsertest

import (
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
)

// TestContract runs the backend contract (internal/backendtest), the
// suite the native drivers run, on the browser side of the wgpu driver.
// Each case gets a fresh device (Closed closes its own), not the shared
// one of device(t).
func TestContract(t *testing.T) {
	device(t) // a browser without WebGPU is a missing tool, reported once
	backendtest.Run(t, func(t testing.TB) *backend.Device {
		d, err := backend.Open(ctx, "")
		if err != nil {
			kctest.Missing(t, "no WebGPU device in this browser: %v", err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	})
}
