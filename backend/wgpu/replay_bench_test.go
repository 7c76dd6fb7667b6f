//go:build !js

package wgpu

import (
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/backendtest"
)

// BenchmarkGraph replays a recorded graph of 1,000 tiny dependent saxpy
// dispatches (y += 1*x, x = 1, 1,024 floats) and waits: the wgpu driver
// re-records the ops into one encoder at every replay (WebGPU has no
// compute bundles). Compare with the Vulkan driver's BenchmarkGraph and
// PyTorch's CUDA graph (docs/PERF.md).
func BenchmarkGraph(b *testing.B) {
	d := openDevice(b)
	p := loadSaxpy(b, d)
	const n, count = 1024, 1000
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	x, _ := d.Upload(bytesOf(ones))
	y, _ := d.AllocZeroed(4 * n)
	ops := make([]backend.Op, count)
	for i := range ops {
		ops[i] = &backend.DispatchOp{Pipeline: p, Args: saxpyArgs(1, n, x.View(), y.View()), Groups: groupsFor(n)}
	}
	g, err := d.Record(ops...)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Release()
	replays := backendtest.TimeReplays(b, d, g)
	got, err := d.Read(ctx, y.View())
	if err != nil {
		b.Fatal(err)
	}
	want := float32(count * replays)
	for i, v := range f32s(got) {
		if v != want {
			b.Fatalf("y[%d] = %g, want %g", i, v, want)
		}
	}
}
