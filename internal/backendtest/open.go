package backendtest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

var xdgOnce sync.Once

// Adapter returns backend.Choose's pick among the adapters of driver
// ("vulkan", or "wgpu" on Vulkan only: the adapters lavapipe gives in CI),
// whose package the caller registers with a blank import. Mesa warns
// without a private XDG_RUNTIME_DIR, so Adapter makes one for the process
// first when there is none. With no such adapter it fails t in CI and
// skips it elsewhere (kctest.Missing).
func Adapter(t testing.TB, driver string) backend.AdapterInfo {
	t.Helper()
	xdgOnce.Do(func() {
		if os.Getenv("XDG_RUNTIME_DIR") == "" {
			if dir, err := os.MkdirTemp("", "kc-xdg"); err == nil && os.Chmod(dir, 0o700) == nil {
				os.Setenv("XDG_RUNTIME_DIR", dir)
			}
		}
	})
	as, err := backend.Adapters(context.Background())
	var mine []backend.AdapterInfo
	for _, a := range as {
		if a.Driver == driver && (driver != "wgpu" || a.API == "Vulkan") {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 {
		kctest.Missing(t, "no %s adapter (install mesa-vulkan-drivers for lavapipe): %v", driver, err)
	}
	return mine[backend.Choose(mine)]
}

// Open opens Adapter(t, driver) and closes the device when t ends.
func Open(t testing.TB, driver string) *backend.Device {
	t.Helper()
	d, err := backend.OpenAdapter(context.Background(), Adapter(t, driver))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}
