//go:build linux && cgo

package vulkan

import (
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
)

// TestContract runs the backend contract (internal/backendtest) on the
// Vulkan driver.
func TestContract(t *testing.T) {
	backendtest.Run(t, func(t testing.TB) *backend.Device { return openTest(t) })
}
