package multi_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels/multi"
)

// TestClosedDeviceNamed: a device of the group fails (closed under the
// group: every call on it is an error) and the call returns that device's
// error, named, while the other device's part succeeds.
func TestClosedDeviceNamed(t *testing.T) {
	ctx := context.Background()
	d0, d1 := openDev(t, "vulkan"), openDev(t, "vulkan")
	g := multi.New(d0, d1)
	defer g.Close()
	rng := kctest.NewRand(t)
	mm, err := g.NewMatMul(ctx, kctest.Randn(rng, 8*4, -1, 1), 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer mm.Close()
	if err := d1.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = mm.Run(ctx, kctest.Randn(rng, 4*3*8, -1, 1), 4, 3)
	t.Logf("error: %v", err)
	var de *multi.DeviceError
	if !errors.As(err, &de) || de.Index != 1 || !errors.Is(err, backend.ErrClosed) {
		t.Fatalf("got %v, want device 1's ErrClosed as a *multi.DeviceError", err)
	}
	if !strings.HasPrefix(err.Error(), "multi: device 1 (llvmpipe") || strings.Contains(err.Error(), "device 0") {
		t.Errorf("error %q does not name device 1 (and only it)", err)
	}
	// The same group's block refuses the closed device at NewBlock.
	_, err = g.NewBlock(ctx, blockCfg, newBlockWeights(rng, blockCfg))
	if !errors.As(err, &de) || de.Index != 1 || !strings.Contains(err.Error(), "upload Norm1") {
		t.Errorf("NewBlock on a closed device: %v", err)
	}
}

var errBoom = errors.New("boom")

// TestRunErrors: the failing device is named, its sibling is cancelled
// and its cancellation not reported; a panic is an error; a context done
// before the call starts nothing.
func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	g := group(t, openDev(t, "vulkan"), openDev(t, "vulkan"))
	var sawCancel atomic.Bool
	err := g.Run(ctx, 2, func(ctx context.Context, w multi.Worker, lo, hi int) error {
		if w.Index == 0 {
			return errBoom
		}
		select {
		case <-ctx.Done():
			sawCancel.Store(true)
			return ctx.Err()
		case <-time.After(20 * time.Second):
			return errors.New("never cancelled")
		}
	})
	var de *multi.DeviceError
	if !errors.Is(err, errBoom) || !errors.As(err, &de) || de.Index != 0 || errors.Is(err, context.Canceled) || !sawCancel.Load() {
		t.Errorf("got %v (sibling cancelled: %v), want only device 0's boom", err, sawCancel.Load())
	}

	err = g.Run(ctx, 2, func(ctx context.Context, w multi.Worker, lo, hi int) error {
		if w.Index == 1 {
			var m map[string]int
			m["x"]++ // a nil-map write: a runtime panic
		}
		return nil
	})
	if !errors.As(err, &de) || de.Index != 1 || !strings.Contains(err.Error(), "panic: assignment to entry in nil map") {
		t.Errorf("panic came back as %v", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	called := false
	err = g.Run(cctx, 2, func(context.Context, multi.Worker, int, int) error { called = true; return nil })
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("cancelled before the call: %v (work called: %v)", err, called)
	}
}

// TestBlockCancel cancels a long block call once the first device has
// started recording: the call returns context.Canceled (each device stops
// at its next sequence or in its wait) instead of finishing.
func TestBlockCancel(t *testing.T) {
	d0, d1 := openDev(t, "vulkan"), openDev(t, "vulkan")
	g := group(t, d0, d1)
	rng := kctest.NewRand(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, err := g.NewBlock(ctx, blockCfg, newBlockWeights(rng, blockCfg))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const batch, seq = 400, 6
	before := d0.Stats()
	go func() {
		for d0.Stats().Dispatches == before.Dispatches {
			time.Sleep(50 * time.Microsecond)
		}
		cancel()
	}()
	_, err = b.Run(ctx, kctest.Randn(rng, batch*seq*blockCfg.Dim, -1, 1), batch, seq)
	t.Logf("%d dispatches recorded on device 0 for its %d sequences before: %v", d0.Stats().Since(before).Dispatches, batch/2, err)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestBlockOpError: an op refused in the middle of the block (a head
// dimension beyond the attention kernel's 256) fails the call with that
// op's error, named per device, after the ops before it were recorded;
// the ops after it see nil operands and refuse them without a panic.
// Record refuses a worker of another group.
func TestBlockOpError(t *testing.T) {
	ctx := context.Background()
	g := group(t, openDev(t, "vulkan"), openDev(t, "wgpu"))
	rng := kctest.NewRand(t)
	cfg := multi.BlockConfig{Dim: 8, Heads: 1, KVHeads: 1, HeadDim: 260, FFN: 8}
	b, err := g.NewBlock(ctx, cfg, newBlockWeights(rng, cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = b.Run(ctx, kctest.Randn(rng, 2*3*cfg.Dim, -1, 1), 2, 3)
	t.Logf("error: %v", err)
	// Each device fails at the attention unless the first failure
	// cancelled it before it began (a cancellation left out of the error).
	var de *multi.DeviceError
	if !errors.As(err, &de) || !strings.Contains(de.Error(), "causalattention") || errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want the attention's error, named", err)
	}
	// The mistake is the caller's: a matmul against a wrong worker.
	other := group(t, openDev(t, "vulkan"))
	mm, err := g.NewMatMul(ctx, kctest.Randn(rng, 4, -1, 1), 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer mm.Close()
	w := other.Workers()[0]
	x, err := w.Context.Tensor(kctest.Randn(rng, 2, -1, 1), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.Record(w, x); err == nil || !strings.Contains(err.Error(), "not of this product's group") {
		t.Errorf("Record with another group's worker: %v", err)
	}
}

// TestPoisoned: in the tests every tensor starts as NaN before it is
// written (group's SetPoison), Empty ones too (Block's output), so a
// device part that writes nothing, or only some rows, reads back as NaN
// there and fails the comparisons with the references.
func TestPoisoned(t *testing.T) {
	ctx := context.Background()
	g := group(t, openDev(t, "vulkan"), openDev(t, "vulkan"))
	const rows, cols = 4, 5
	got := make([][]float32, g.Len())
	err := g.Run(ctx, 2, func(ctx context.Context, w multi.Worker, lo, hi int) error {
		out, err := w.Context.Empty(rows, cols)
		if err != nil {
			return err
		}
		defer out.Release()
		if w.Index == 1 { // rows 1 and 2 written, 0 and 3 not
			one, err := w.Context.Tensor(make([]float32, 2*cols), 2, cols)
			if err != nil {
				return err
			}
			defer one.Release()
			if err := w.Context.SetRows(out, 1, one); err != nil {
				return err
			}
		}
		got[w.Index], err = out.ToHost(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, xs := range got {
		for j, x := range xs {
			if written := i == 1 && j/cols >= 1 && j/cols <= 2; written != (x == x) {
				t.Errorf("device %d element %d = %g (written: %v)", i, j, x, written)
			}
		}
	}
}

// TestRunConcurrent: Run calls each device's work in its own goroutine,
// all at once: each part waits until every part has started, which
// serial calls would never reach.
func TestRunConcurrent(t *testing.T) {
	ctx := context.Background()
	g := group(t, openDev(t, "vulkan"), openDev(t, "vulkan"), openDev(t, "vulkan"))
	var started sync.WaitGroup
	started.Add(g.Len())
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	err := g.Run(ctx, 3, func(ctx context.Context, w multi.Worker, lo, hi int) error {
		started.Done()
		select {
		case <-all:
			return nil
		case <-time.After(20 * time.Second):
			return errors.New("the other devices' parts did not start while this one ran")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}
