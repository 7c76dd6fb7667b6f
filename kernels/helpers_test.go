package kernels_test

import (
	"context"
	"math/rand"
	"os"
	"sync"
	"testing"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

var xdgOnce sync.Once

// open returns a poisoning Context on lavapipe through one driver
// ("vulkan" or "wgpu").
func open(t *testing.T, driver string) *kernels.Context {
	t.Helper()
	setXDG()
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
	d, err := backend.OpenAdapter(context.Background(), mine[backend.Choose(mine)])
	if err != nil {
		t.Fatal(err)
	}
	c := kernels.New(d)
	c.SetPoison(true)
	t.Cleanup(func() {
		c.Close()
		d.Close()
	})
	return c
}

// sample is what one run checks of configurations xs (kctest.Sample):
// every one on a GPU, where device calls check what they then time; n of
// them, drawn afresh, on a CPU device.
func sample[T any](t *testing.T, c *kernels.Context, rng *rand.Rand, xs []T, n int) []T {
	t.Helper()
	return kctest.Sample(t, rng, xs, n, checkAll(c))
}

// checkAll reports whether a run checks every configuration of the
// sampled lists: on a GPU, or with KC_TEST_ALL=1.
func checkAll(c *kernels.Context) bool {
	return c.Device().Info().Type != backend.TypeCPU || kctest.CheckAll()
}

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

func upload(t *testing.T, c *kernels.Context, xs []float32, shape ...int) *kernels.Tensor {
	t.Helper()
	x, err := c.Tensor(xs, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func host(t *testing.T, x *kernels.Tensor) []float32 {
	t.Helper()
	got, err := x.ToHost(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// f64 widens a slice.
func f64(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
