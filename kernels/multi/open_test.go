package multi_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
	"github.com/kcgo/kc/kernels/multi"
)

// TestOpen opens every Vulkan-API adapter named llvmpipe (lavapipe
// through both drivers here), runs a product over them, and checks that
// Close closes the devices Open opened.
func TestOpen(t *testing.T) {
	setXDG()
	ctx := context.Background()
	g, err := multi.Open(ctx, multi.Policy{Name: "llvmpipe", APIs: []string{"Vulkan"}})
	if err != nil {
		if as, _ := backend.Adapters(ctx); len(multi.Policy{Name: "llvmpipe"}.Filter(as)) == 0 {
			kctest.Missing(t, "no lavapipe adapter (install mesa-vulkan-drivers): %v", err)
		}
		t.Fatal(err)
	}
	var drivers []string
	for _, w := range g.Workers() {
		drivers = append(drivers, w.Device.Info().Driver)
		w.Context.SetPoison(true)
	}
	t.Logf("opened %d devices: %v", g.Len(), drivers)
	if !slices.Contains(drivers, "vulkan") || !slices.Contains(drivers, "wgpu") {
		t.Errorf("drivers %v: want lavapipe through both", drivers)
	}
	rng := kctest.NewRand(t)
	const k, n, batch, m = 16, 8, 5, 3
	w := kctest.Randn(rng, k*n, -1, 1)
	mm, err := g.NewMatMul(ctx, w, k, n)
	if err != nil {
		t.Fatal(err)
	}
	a := kctest.Randn(rng, batch*m*k, -1, 1)
	got, err := mm.Run(ctx, a, batch, m)
	if err != nil {
		t.Fatal(err)
	}
	kctest.Compare(t, "matmul", got, matmulRef(a, w, batch*m, k, n), kctest.Tol{Abs: 1e-5, Rel: 0})
	mm.Close()
	devs := g.Workers()
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	for _, w := range devs {
		if _, err := w.Device.Alloc(4); !errors.Is(err, backend.ErrClosed) {
			t.Errorf("device %v after Close: %v, want ErrClosed", w, err)
		}
	}
	if _, err := multi.Open(ctx, multi.Policy{Name: "no such GPU"}); err == nil {
		t.Error("Open with a policy nobody passes succeeded")
	}
}

// TestOpenAll: the same adapter listed twice opens as two devices; an
// adapter that cannot open fails the call with an error naming it.
func TestOpenAll(t *testing.T) {
	setXDG()
	ctx := context.Background()
	as, _ := backend.Adapters(ctx)
	lp := multi.Policy{Name: "llvmpipe", APIs: []string{"Vulkan"}}.Filter(as)
	if len(lp) == 0 {
		kctest.Missing(t, "no lavapipe adapter (install mesa-vulkan-drivers)")
	}
	devs, err := multi.OpenAll(ctx, []backend.AdapterInfo{lp[0], lp[0]})
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 || devs[0] == devs[1] {
		t.Errorf("opened %v, want two devices", devs)
	}
	for _, d := range devs {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	}
	bad := backend.AdapterInfo{Driver: "no such driver", Name: "nowhere"}
	if _, err := multi.OpenAll(ctx, []backend.AdapterInfo{lp[0], bad}); err == nil || !strings.Contains(err.Error(), "multi: open "+bad.String()) {
		t.Errorf("OpenAll with an adapter of no driver: %v, want an error naming it", err)
	}
}

// TestTransfer moves a tensor between devices of the two drivers
// through the host.
func TestTransfer(t *testing.T) {
	ctx := context.Background()
	g := group(t, openDev(t, "vulkan"), openDev(t, "wgpu"))
	ws := g.Workers()
	rng := kctest.NewRand(t)
	xs := kctest.Randn(rng, 6*7, -10, 10)
	src, err := ws[0].Context.Tensor(xs, 6, 7)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := multi.Transfer(ctx, ws[1].Context, src)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dst.Shape(), []int{6, 7}) {
		t.Errorf("shape %v", dst.Shape())
	}
	// An op on the destination proves the tensor is its device's.
	y, err := ws[1].Context.Add(dst, dst)
	if err != nil {
		t.Fatal(err)
	}
	got, err := y.ToHost(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		if got[i] != 2*x {
			t.Fatalf("after transfer, 2x[%d] = %g, want %g", i, got[i], 2*x)
		}
	}
}

// TestTransferKeepsBits: f32, f16 and bf16 tensors of odd and even
// lengths arrive with their element type, shape and every bit (random
// patterns, NaN payloads included), between two devices of one adapter
// and from Vulkan to wgpu.
func TestTransferKeepsBits(t *testing.T) {
	ctx := context.Background()
	rng := kctest.NewRand(t)
	for _, pair := range [][2]string{{"vulkan", "vulkan"}, {"vulkan", "wgpu"}} {
		g := group(t, openDev(t, pair[0]), openDev(t, pair[1]))
		from, to := g.Workers()[0].Context, g.Workers()[1].Context
		for _, d := range []kernels.DType{kernels.F32, kernels.F16, kernels.BF16} {
			for _, shape := range [][]int{{1}, {3, 5}, {4, 6}, {1001}} {
				n := 1
				for _, s := range shape {
					n *= s
				}
				src, want := randomBits(t, rng, from, d, n, shape)
				dst, err := multi.Transfer(ctx, to, src)
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("%s→%s %s%v", pair[0], pair[1], d, shape)
				if dst.DType() != d || !slices.Equal(dst.Shape(), shape) {
					t.Fatalf("%s arrived as %s", what, dst)
				}
				if got := tensorBits(t, dst); !slices.Equal(got, want) {
					t.Fatalf("%s: bits changed: %x..., want %x...", what, got[:min(n, 4)], want[:min(n, 4)])
				}
			}
		}
	}
}

// randomBits uploads n random bit patterns as a tensor of type d on c and
// returns them widened to uint32.
func randomBits(t *testing.T, rng *rand.Rand, c *kernels.Context, d kernels.DType, n int, shape []int) (*kernels.Tensor, []uint32) {
	t.Helper()
	want := make([]uint32, n)
	var x *kernels.Tensor
	var err error
	if d == kernels.F32 {
		xs := make([]float32, n)
		for i := range xs {
			want[i] = rng.Uint32()
			xs[i] = math.Float32frombits(want[i])
		}
		x, err = c.TensorOf(d, xs, shape...)
	} else {
		hs := make([]uint16, n)
		for i := range hs {
			hs[i] = uint16(rng.Uint32())
			want[i] = uint32(hs[i])
		}
		x, err = c.TensorBits(d, hs, shape...)
	}
	if err != nil {
		t.Fatal(err)
	}
	return x, want
}

// tensorBits reads x's elements back as bit patterns widened to uint32.
func tensorBits(t *testing.T, x *kernels.Tensor) []uint32 {
	t.Helper()
	ctx := context.Background()
	out := make([]uint32, x.Len())
	if x.DType() == kernels.F32 {
		xs, err := x.ToHost(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range xs {
			out[i] = math.Float32bits(v)
		}
		return out
	}
	hs, err := x.Bits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hs {
		out[i] = uint32(h)
	}
	return out
}

// TestCalibrate measures a probe on each device and makes the measured
// rates the weights.
func TestCalibrate(t *testing.T) {
	ctx := context.Background()
	g := group(t, openDev(t, "vulkan"), openDev(t, "vulkan"))
	rng := kctest.NewRand(t)
	const k, n, m = 32, 32, 32
	w := kctest.Randn(rng, k*n, -1, 1)
	mm, err := g.NewMatMul(ctx, w, k, n)
	if err != nil {
		t.Fatal(err)
	}
	defer mm.Close()
	a := kctest.Randn(rng, m*k, -1, 1)
	rates, err := g.Calibrate(ctx, 3, func(ctx context.Context, w multi.Worker) error {
		x, err := w.Context.Tensor(a, m, k)
		if err != nil {
			return err
		}
		defer x.Release()
		_, err = w.Context.ToHost(ctx, x)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rates %v", rates)
	if len(rates) != 2 || !(rates[0] > 0) || !(rates[1] > 0) || math.IsInf(rates[0], 0) || !slices.Equal(rates, g.Weights()) {
		t.Errorf("rates %v, weights %v", rates, g.Weights())
	}
	if err := g.SetWeights([]float64{1, -1}); err == nil {
		t.Error("a negative weight was accepted")
	}
	if err := g.SetWeights([]float64{0, 0}); err == nil {
		t.Error("all-zero weights were accepted")
	}
	if err := g.SetWeights([]float64{3, 1}); err != nil {
		t.Fatal(err)
	}
	// With weights 3:1, 8 items go 6 and 2: the products still gather in order.
	const batch = 8
	as := kctest.Randn(rng, batch*m*k, -1, 1)
	before := stats(g.Workers())
	got, err := mm.Run(ctx, as, batch, m)
	if err != nil {
		t.Fatal(err)
	}
	kctest.Compare(t, "matmul 3:1", got, matmulRef(as, w, batch*m, k, n), kctest.Tol{Abs: 1e-4, Rel: 0})
	checkShares(t, g.Workers(), before, []int{6, 2}, m*k*4)
}
