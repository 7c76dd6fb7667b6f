package multi_test

import (
	"context"
	"math"
	"os"
	"sync"
	"testing"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels/multi"
)

var xdgOnce sync.Once

// setXDG gives Mesa the private runtime directory it wants.
func setXDG() {
	xdgOnce.Do(func() {
		if os.Getenv("XDG_RUNTIME_DIR") == "" {
			if dir, err := os.MkdirTemp("", "kc-xdg"); err == nil && os.Chmod(dir, 0o700) == nil {
				os.Setenv("XDG_RUNTIME_DIR", dir)
			}
		}
	})
}

// lavapipe is the Vulkan-API adapter of one driver ("vulkan", or "wgpu"
// over Vulkan): lavapipe here.
var lavapipe = map[string]multi.Policy{
	"vulkan": {Drivers: []string{"vulkan"}},
	"wgpu":   {Drivers: []string{"wgpu"}, APIs: []string{"Vulkan"}},
}

// openDev opens the first adapter of a driver that lavapipe[driver]
// accepts; the device is closed when the test ends.
func openDev(t *testing.T, driver string) *backend.Device {
	t.Helper()
	setXDG()
	as, err := backend.Adapters(context.Background())
	mine := lavapipe[driver].Filter(as)
	if len(mine) == 0 {
		kctest.Missing(t, "no %s adapter over Vulkan (install mesa-vulkan-drivers for lavapipe): %v", driver, err)
	}
	d, err := backend.OpenAdapter(context.Background(), mine[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// group is a group over devs, closed when the test ends, whose Contexts
// poison every tensor before it is written (kernels.Context.SetPoison):
// an element a device's kernels fail to write reads back as NaN.
func group(t *testing.T, devs ...*backend.Device) *multi.Group {
	g := multi.New(devs...)
	for _, w := range g.Workers() {
		w.Context.SetPoison(true)
	}
	t.Cleanup(func() {
		if err := g.Close(); err != nil {
			t.Error(err)
		}
	})
	return g
}

// same checks that two devices' results agree within tl of each other
// (bit for bit when tl is zero), and reports how many differ at all.
func same(t *testing.T, what string, got, want []float32, tl kctest.Tol) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	diff, bad := 0, 0
	for i := range got {
		if math.Float32bits(got[i]) == math.Float32bits(want[i]) {
			continue
		}
		diff++
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if !(d <= tl.Abs+tl.Rel*math.Abs(float64(want[i]))) {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, single device %g", what, i, got[i], want[i])
			}
			bad++
		}
	}
	if diff > 0 {
		t.Logf("%s: %d of %d values differ from the single device's in their bits", what, diff, len(got))
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values out of tolerance of the single device's", what, bad, len(got))
	}
}

// poisoned returns n NaNs: a host result slice that shows any element
// the gather fails to write.
func poisoned(n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(math.NaN())
	}
	return xs
}
