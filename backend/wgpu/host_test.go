//go:build !js

package wgpu

import (
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

// TestFromDevice shares one wgpu device between a host program, which
// created it with WebGPU's default limits, and kc: kc's limits are the
// device's, not the adapter's higher ones; kc runs saxpy on it; the host
// uses the device during and after kc's life.
func TestFromDevice(t *testing.T) {
	if err := instance(); err != nil || len(adapters) == 0 {
		kctest.Missing(t, "no wgpu adapter: %v", err)
	}
	ad := adapters[0]
	dev, err := ad.RequestDevice(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Release()
	kd, err := FromDevice(dev, ad)
	if err != nil {
		t.Fatal(err)
	}
	got, want, adl := kd.Info().Limits, limitsOf(dev.GetLimits().Limits), limitsOf(ad.GetLimits().Limits)
	// The loop budget is no WebGPU limit but a fact of the adapter's
	// compiler (llvmpipe), carried over from the adapter: kc's own.
	if backend.IsLLVMPipe(kd.Info().Name) {
		want.MaxLoopIterations = backend.LLVMPipeLoopIterations
	}
	t.Logf("device limits %+v; adapter's %+v", got, adl)
	if got != want {
		t.Errorf("kc's limits %+v, the device's %+v", got, want)
	}
	if got == adl {
		t.Log("the adapter's limits equal WebGPU's defaults here: the inheritance check is vacuous")
	}
	if got.MaxBufferSize < adl.MaxBufferSize {
		if _, err := kd.AllocZeroed(got.MaxBufferSize + 16); err == nil {
			t.Errorf("a buffer over the device's maximum %d (the adapter allows %d) was allocated", got.MaxBufferSize, adl.MaxBufferSize)
		}
	}
	// The host's own buffer, written on the shared queue while kc works.
	hb, err := dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: wgpu.BufferUsageCopyDst | wgpu.BufferUsageStorage, Size: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer hb.Release()
	r := rng(t)
	p := loadSaxpy(t, kd)
	n := 64 + r.IntN(2000)
	a, x, y := r.Float32(), randF32(r, n), randF32(r, n)
	xb, _ := kd.Upload(bytesOf(x))
	yb, _ := kd.Upload(bytesOf(y))
	if err := dev.GetQueue().WriteBuffer(hb, 0, make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	if err := kd.Dispatch(p, saxpyArgs(a, n, xb.View(), yb.View()), groupsFor(n)); err != nil {
		t.Fatal(err)
	}
	out, err := kd.Read(ctx, yb.View())
	if err != nil {
		t.Fatal(err)
	}
	checkSaxpy(t, out, a, x, y)
	if err := kd.Close(); err != nil {
		t.Fatal(err)
	}
	// The device is still the host's.
	q := dev.GetQueue()
	defer q.Release()
	if err := q.WriteBuffer(hb, 0, make([]byte, 4096)); err != nil {
		t.Fatalf("host write after kc's Close: %v", err)
	}
	q.Submit()
	dev.Poll(true, nil)
}
