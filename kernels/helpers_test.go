package kernels_test

import (
	"context"
	"math"
	"math/rand"
	"os"
	"sync"
	"testing"
	"time"

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

// newRand returns a fresh generator, its seed logged for reproduction.
func newRand(t *testing.T) *rand.Rand {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewSource(seed))
}

// randn returns n values uniform in [lo, hi).
func randn(rng *rand.Rand, n int, lo, hi float64) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return xs
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

// tol is an error bound: |got - want| <= abs + rel·|want|.
type tol struct{ abs, rel float64 }

// compare checks got against the float64 reference want within tl; NaN
// (the poison) always fails.
func compare(t *testing.T, what string, got []float32, want []float64, tl tol) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i, g := range got {
		d := math.Abs(float64(g) - want[i])
		if !(d <= tl.abs+tl.rel*math.Abs(want[i])) {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, want %g (|diff| %.3g > %.3g + %.3g·|want|)", what, i, g, want[i], d, tl.abs, tl.rel)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values out of tolerance", what, bad, len(got))
	}
}

// f64 widens a slice.
func f64(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
