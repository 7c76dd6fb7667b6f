//go:build !js

package wgpu

import (
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
)

// TestContract runs the backend contract (internal/backendtest) on the
// wgpu driver.
func TestContract(t *testing.T) {
	backendtest.Run(t, func(t testing.TB) *backend.Device { return openDevice(t) })
}
