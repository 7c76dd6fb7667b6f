//go:build linux && cgo

package vulkan

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// TestMappedBuffers: a kernel reads a MapDevice buffer the host filled
// through Mapped and writes a MapHost buffer the host reads through Mapped
// (zero copy both ways); copies to and from mapped buffers work too.
func TestMappedBuffers(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 13))
	p, err := d.Load(ctx, artifact(glsl(t, saxpyGLSL), "saxpy", 64, []string{"a", "n"}, "x:ro", "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	n := 64 + r.IntN(4000)
	in, err := d.AllocMapped(int64(4*n), backend.MapDevice)
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.AllocMapped(int64(4*n), backend.MapHost)
	if err != nil {
		t.Fatal(err)
	}
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = r.Float32()*2-1, r.Float32()*2-1
	}
	copy(in.Mapped(), f32bytes(x))
	copy(out.Mapped(), f32bytes(y))
	a := r.Float32()
	if err := d.Dispatch(p, backend.Args{Params: []uint32{math.Float32bits(a), uint32(n)}, Buffers: []backend.View{in.View(), out.View()}}, backend.Groups(uint32((n+63)/64))); err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	got := bytesF32(out.Mapped())
	for i := range x {
		want := float64(a)*float64(x[i]) + float64(y[i])
		if d := float64(got[i]) - want; d > 1e-5 || d < -1e-5 {
			t.Fatalf("y[%d] = %g, want %g", i, got[i], want)
		}
	}
	// Staging-style use: mapped -> device copy, device -> mapped copy.
	dev, err := d.Alloc(int64(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	w := make([]uint32, n)
	for i := range w {
		w[i] = r.Uint32()
	}
	copy(in.Mapped(), u32bytes(w))
	if err := d.Copy(dev.View(), in.View()); err != nil {
		t.Fatal(err)
	}
	for i := range out.Mapped() {
		out.Mapped()[i] = 0xa5 // poison
	}
	if err := d.Copy(out.View(), dev.View()); err != nil {
		t.Fatal(err)
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	checkU32(t, "round trip through mapped buffers", out.Mapped(), w)
	out.Release()
	if out.Mapped() != nil {
		t.Error("Mapped of a released buffer is not nil")
	}
}

// TestMemoryTypes logs the device's memory heaps and types and the type
// each kind of buffer lands in (for the record of a device: on the H200 it
// shows whether mapped buffers are device-local).
func TestMemoryTypes(t *testing.T) {
	d := openImpl(t)
	m := d.l.phys.mem
	for i := 0; i < int(m.memoryHeapCount); i++ {
		t.Logf("heap %d: %d MiB, flags %#x", i, m.memoryHeaps[i].size>>20, m.memoryHeaps[i].flags)
	}
	for i := 0; i < int(m.memoryTypeCount); i++ {
		t.Logf("type %d: heap %d, flags %#x", i, m.memoryTypes[i].heapIndex, m.memoryTypes[i].propertyFlags)
	}
	for _, mode := range []backend.MapMode{backend.MapDevice, backend.MapHost} {
		b, mem, err := d.NewMappedBuffer(1<<20, mode)
		if err != nil {
			t.Fatal(err)
		}
		ti := b.(*buffer).raw.typeIndex
		t.Logf("mapped %v buffer: type %d (flags %#x)", mode, ti, m.memoryTypes[ti].propertyFlags)
		if len(mem) != 1<<20 {
			t.Errorf("mapped %d bytes", len(mem))
		}
		b.Release()
	}
}
