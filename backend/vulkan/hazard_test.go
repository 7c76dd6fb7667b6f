//go:build linux && cgo

package vulkan

import (
	"context"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/kcgo/kc/backend"
)

// TestHazardRules checks the barrier placement rules on their own.
func TestHazardRules(t *testing.T) {
	var h hazards
	h.reset()
	w := func(buf uintptr, off, size uint64) access { return access{buf, off, size, true} }
	r := func(buf uintptr, off, size uint64) access { return access{buf, off, size, false} }
	steps := []struct {
		name    string
		acc     []access
		compute bool
		want    int
	}{
		{"first command of a frame", []access{w(1, 0, 64)}, true, barrierFull},
		{"disjoint buffer", []access{w(2, 0, 64)}, true, barrierNone},
		{"disjoint range of a written buffer", []access{w(1, 64, 64)}, true, barrierNone},
		{"read of another buffer, twice", []access{r(3, 0, 64), r(3, 0, 64)}, true, barrierNone},
		{"read after write (RAW)", []access{r(1, 32, 8), w(4, 0, 4)}, true, barrierCompute},
		{"write after read (WAR)", []access{w(1, 36, 4)}, true, barrierCompute},
		{"write after write (WAW)", []access{w(1, 36, 4)}, true, barrierCompute},
		{"transfer reading a fresh range", []access{r(5, 0, 4), w(6, 0, 4)}, false, barrierNone},
		{"dispatch after a transfer, dependent", []access{r(6, 0, 4)}, true, barrierFull},
		{"transfer after dispatches, dependent", []access{r(7, 0, 4), w(6, 0, 4)}, false, barrierFull},
	}
	for _, s := range steps {
		if got := h.barrierFor(s.acc, s.compute); got != s.want {
			t.Errorf("%s: barrier %d, want %d", s.name, got, s.want)
		}
	}
	if h.barriers != 6 {
		t.Errorf("%d barriers counted, want 6", h.barriers)
	}
	// Many ranges of one buffer merge into a covering one: still caught.
	h.reset()
	h.barrierFor([]access{w(9, 0, 4)}, true)
	for i := uint64(1); i < 3*maxRangesPerBuffer; i++ {
		if got := h.barrierFor([]access{w(9, 8*i, 4)}, true); got != barrierNone {
			t.Fatalf("disjoint write %d: barrier %d", i, got)
		}
	}
	if got := h.barrierFor([]access{r(9, 8*20, 4)}, true); got != barrierCompute {
		t.Errorf("read of a merged written range: barrier %d, want compute", got)
	}
	// More buffers than a linear scan covers (the span sets switch to a
	// map), over several barriers: every dependency is still caught and
	// nothing cleared by a barrier is remembered.
	h.reset()
	h.barrierFor([]access{w(1000, 0, 4)}, true)
	for round := 0; round < 3; round++ {
		for b := uintptr(0); b < 3*spanSetScan; b++ {
			if got := h.barrierFor([]access{w(b, 0, 4), r(100+b, 0, 4)}, true); got != barrierNone {
				t.Fatalf("round %d: independent write of buffer %d: barrier %d", round, b, got)
			}
		}
		b := uintptr(spanSetScan + 7*round) // found through the map
		if got := h.barrierFor([]access{r(b, 0, 4)}, true); got != barrierCompute {
			t.Fatalf("round %d: read of buffer %d after its write: barrier %d, want compute", round, b, got)
		}
		// The barrier cleared everything: the other buffers are free.
		if got := h.barrierFor([]access{w(b+1, 0, 4), w(100+b+2, 0, 4)}, true); got != barrierNone {
			t.Fatalf("round %d: writes after a barrier: barrier %d", round, got)
		}
		// WAR on a buffer read since the barrier.
		if got := h.barrierFor([]access{w(b, 0, 4)}, true); got != barrierCompute {
			t.Fatalf("round %d: WAR on buffer %d: barrier %d, want compute", round, b, got)
		}
		h.barrierFor([]access{w(1000, 0, 4)}, true)
		if got := h.barrierFor([]access{r(1000, 0, 4)}, true); got != barrierCompute { // start the next round clean
			t.Fatalf("round %d: RAW on buffer 1000: barrier %d", round, got)
		}
	}
}

// openImpl opens the driver's device on the test adapter directly, for
// tests that look inside the driver.
func openImpl(t *testing.T) *device {
	t.Helper()
	a := testAdapter(t)
	di, err := theDriver.Open(context.Background(), a.DriverIndex)
	if err != nil {
		t.Fatal(err)
	}
	d := di.(*device)
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// TestIndependentDispatchesNoBarriers records dispatches that share no
// written memory (each its own buffer, or disjoint slices of one buffer,
// all reading one shared input) and checks that one barrier (the frame's
// first) is recorded, while a dependent chain gets one per dispatch; the
// results are checked against the CPU in both cases.
func TestIndependentDispatchesNoBarriers(t *testing.T) {
	d := openImpl(t)
	ctx := context.Background()
	pi, err := d.NewPipeline(ctx, artifact(glsl(t, saxpyGLSL), "saxpy", 64, []string{"a", "n"}, "x:ro", "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	const n, parts = 256, 32
	x := make([]float32, n)
	for i := range x {
		x[i] = rand.Float32()*2 - 1
	}
	upload := func(v []float32) *buffer {
		b, err := d.NewBuffer(int64(4 * len(v)))
		if err != nil {
			t.Fatal(err)
		}
		if err := d.WriteBuffer(b, 0, f32bytes(v)); err != nil {
			t.Fatal(err)
		}
		return b.(*buffer)
	}
	xb := upload(x)
	ys := make([]float32, n*parts) // one buffer, parts disjoint slices
	for i := range ys {
		ys[i] = rand.Float32()
	}
	yb := upload(ys)
	align := d.info.Limits.MinStorageBufferOffsetAlignment
	if 4*n%align != 0 {
		t.Skipf("slices of %d bytes are not aligned to %d", 4*n, align)
	}
	params := func(a float32) []byte { return append(f32bytes([]float32{a}), u32bytes([]uint32{n, 0, 0})...) }
	as := make([]float32, parts)
	e, err := d.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	enc := e.(*encoder)
	for j := range as {
		as[j] = rand.Float32()
		bufs := []backend.Range{{Buf: xb, Size: 4 * n}, {Buf: yb, Off: int64(4 * n * j), Size: 4 * n}}
		if err := e.Dispatch(pi, params(as[j]), bufs, [3]uint32{n / 64, 1, 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := enc.f.haz.barriers; got != 1 {
		t.Errorf("%d independent dispatches: %d barriers, want 1", parts, got)
	}
	// Now a chain on slice 0: each dispatch reads what the last wrote.
	const chain = 8
	before := enc.f.haz.barriers
	cs := make([]float32, chain)
	for j := range cs {
		cs[j] = rand.Float32()
		bufs := []backend.Range{{Buf: xb, Size: 4 * n}, {Buf: yb, Size: 4 * n}}
		if err := e.Dispatch(pi, params(cs[j]), bufs, [3]uint32{n / 64, 1, 1}); err != nil {
			t.Fatal(err)
		}
	}
	if got := enc.f.haz.barriers - before; got != chain {
		t.Errorf("chain of %d: %d barriers, want %d", chain, got, chain)
	}
	res, err := e.Submit(ctx, []backend.Range{{Buf: yb, Size: int64(4 * len(ys))}})
	if err != nil {
		t.Fatal(err)
	}
	got := bytesF32(res.Reads[0])
	for j := 0; j < parts; j++ {
		for i := 0; i < n; i++ {
			want := float64(as[j])*float64(x[i]) + float64(ys[j*n+i])
			if j == 0 {
				for _, c := range cs {
					want = float64(c)*float64(x[i]) + want
				}
			}
			if diff := float64(got[j*n+i]) - want; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("slice %d element %d: got %g, want %g", j, i, got[j*n+i], want)
			}
		}
	}
}

// TestBufferBarrierLayout checks vkBufferMemoryBarrier against
// VkBufferMemoryBarrier's C layout on 64-bit Linux.
func TestBufferBarrierLayout(t *testing.T) {
	var b vkBufferMemoryBarrier
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size", unsafe.Sizeof(b), 56},
		{"srcAccessMask", unsafe.Offsetof(b.srcAccessMask), 16},
		{"srcQueueFamilyIndex", unsafe.Offsetof(b.srcQueueFamilyIndex), 24},
		{"buffer", unsafe.Offsetof(b.buffer), 32},
		{"offset", unsafe.Offsetof(b.offset), 40},
		{"size field", unsafe.Offsetof(b.size), 48},
	} {
		if c.got != c.want {
			t.Errorf("VkBufferMemoryBarrier %s: %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestBufferBarrierMode runs a dependent chain with buffer memory barriers
// (KC_VULKAN_BARRIER=buffer) instead of global ones and checks the result.
func TestBufferBarrierMode(t *testing.T) {
	d := openImpl(t)
	d.bufferBarrierMode = true
	ctx := context.Background()
	pi, err := d.NewPipeline(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	y := make([]uint32, n)
	for i := range y {
		y[i] = rand.Uint32()
	}
	bi, err := d.NewBuffer(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteBuffer(bi, 0, u32bytes(y)); err != nil {
		t.Fatal(err)
	}
	e, err := d.NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	if !e.(*encoder).f.haz.collect {
		t.Fatal("the frame does not collect ranges for buffer barriers")
	}
	ks := make([]uint32, 40)
	for j := range ks {
		ks[j] = rand.Uint32()
		if err := e.Dispatch(pi, u32bytes([]uint32{ks[j], n, 0, 0}), []backend.Range{{Buf: bi, Size: 4 * n}}, [3]uint32{(n + 63) / 64, 1, 1}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.Submit(ctx, []backend.Range{{Buf: bi, Size: 4 * n}})
	if err != nil {
		t.Fatal(err)
	}
	addkRef(y, ks...)
	checkU32(t, "chain with buffer barriers", res.Reads[0], y)
}
