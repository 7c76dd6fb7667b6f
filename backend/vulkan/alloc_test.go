//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// fakeMem hands out fake memory handles and counts them.
type fakeMem struct {
	next  uintptr
	live  map[uintptr]uint64
	fail  bool // refuse every request (a full heap)
	limit uint64
}

func newFakeMem() *fakeMem { return &fakeMem{next: 1, live: map[uintptr]uint64{}} }

func (f *fakeMem) newMem(_ uint32, size uint64) (uintptr, error) {
	if f.fail || (f.limit > 0 && size > f.limit) {
		return 0, errors.New("out of device memory")
	}
	f.next++
	f.live[f.next] = size
	return f.next, nil
}

func (f *fakeMem) freeMem(m uintptr) {
	if _, ok := f.live[m]; !ok {
		panic("free of unknown or freed memory")
	}
	delete(f.live, m)
}

// checkAllocator verifies the allocator's invariants against the live
// allocations: each inside its memory, aligned, no two overlapping, every
// block's free list sorted, coalesced and disjoint from what is handed out,
// and used + free = size.
func checkAllocator(t *testing.T, s *suballocator, fm *fakeMem, live map[int]allocation, aligns map[int]uint64) {
	t.Helper()
	if s.objects != len(fm.live) {
		t.Fatalf("allocator counts %d memory objects, %d live", s.objects, len(fm.live))
	}
	if s.live != len(live) {
		t.Fatalf("allocator counts %d allocations, %d live", s.live, len(live))
	}
	type iv struct{ off, end uint64 }
	byMem := map[uintptr][]iv{}
	for id, a := range live {
		size, ok := fm.live[a.mem]
		if !ok {
			t.Fatalf("allocation %d in freed memory", id)
		}
		if a.off%aligns[id] != 0 || a.off+a.size > size {
			t.Fatalf("allocation %d [%d,+%d) misaligned (%d) or outside its %d-byte memory", id, a.off, a.size, aligns[id], size)
		}
		byMem[a.mem] = append(byMem[a.mem], iv{a.off, a.off + a.size})
	}
	for _, p := range s.pools {
		for _, b := range p.blocks {
			var free uint64
			for i, f := range b.free {
				free += f.size
				if f.size == 0 || (i > 0 && b.free[i-1].off+b.free[i-1].size >= f.off) {
					t.Fatalf("free list %v not sorted, coalesced and disjoint", b.free)
				}
				byMem[b.mem] = append(byMem[b.mem], iv{f.off, f.off + f.size})
			}
			var used uint64
			for _, a := range live {
				if a.block == b {
					used += a.size
				}
			}
			if used != b.used {
				t.Fatalf("block used %d, live allocations in it %d", b.used, used)
			}
			if b.used+free > b.size {
				t.Fatalf("block of %d: used %d + free %d", b.size, b.used, free)
			}
		}
	}
	for m, ivs := range byMem {
		sort.Slice(ivs, func(i, j int) bool { return ivs[i].off < ivs[j].off })
		for i := 1; i < len(ivs); i++ {
			if ivs[i].off < ivs[i-1].end {
				t.Fatalf("memory %d: ranges %v and %v overlap", m, ivs[i-1], ivs[i])
			}
		}
	}
}

// TestSuballocatorRandom drives the allocator with random sizes,
// alignments, memory types and frees (fresh seed each run), checking the
// invariants throughout; at the end everything is freed and at most one
// empty block per pool remains, holding one span.
func TestSuballocatorRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	fm := newFakeMem()
	const block = 1 << 20
	s := newSuballocator(block, fm.newMem, fm.freeMem)
	live, aligns := map[int]allocation{}, map[int]uint64{}
	id := 0
	for step := 0; step < 20000; step++ {
		if len(live) > 0 && r.IntN(100) < 45 {
			for k := range live { // a random live one
				s.release(live[k])
				delete(live, k)
				break
			}
		} else {
			size := uint64(1 + r.IntN(4096))
			if r.IntN(20) == 0 {
				size = uint64(1 + r.IntN(block)) // some large, some dedicated
			}
			align := uint64(1) << r.IntN(9)
			a, err := s.alloc(uint32(r.IntN(3)), size, align)
			if err != nil {
				t.Fatal(err)
			}
			if a.size != size {
				t.Fatalf("asked %d bytes, got %d", size, a.size)
			}
			id++
			live[id], aligns[id] = a, align
		}
		if step%997 == 0 {
			checkAllocator(t, s, fm, live, aligns)
		}
	}
	checkAllocator(t, s, fm, live, aligns)
	for k, a := range live {
		s.release(a)
		delete(live, k)
	}
	checkAllocator(t, s, fm, live, aligns)
	for ti, p := range s.pools {
		if len(p.blocks) > 1 {
			t.Errorf("pool %d keeps %d empty blocks", ti, len(p.blocks))
		}
		for _, b := range p.blocks {
			if len(b.free) != 1 || b.free[0] != (span{0, block}) {
				t.Errorf("pool %d: empty block's free list %v", ti, b.free)
			}
		}
	}
	s.trim()
	if s.objects != 0 || len(fm.live) != 0 {
		t.Errorf("after trim: %d objects, %d live", s.objects, len(fm.live))
	}
}

// TestSuballocatorFragmentation fills a block with small allocations,
// frees every other one (a checkerboard), and checks that a request larger
// than any hole takes a new block, that freeing the rest coalesces the
// block back into one span, and that the holes are reused first.
func TestSuballocatorFragmentation(t *testing.T) {
	fm := newFakeMem()
	const block, n = 1 << 16, 64
	s := newSuballocator(block, fm.newMem, fm.freeMem)
	var as []allocation
	for i := 0; i < n; i++ {
		a, err := s.alloc(0, block/n, 256)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	if s.objects != 1 || s.largestFree(0) != 0 {
		t.Fatalf("full block: %d objects, largest free %d", s.objects, s.largestFree(0))
	}
	for i := 0; i < n; i += 2 {
		s.release(as[i])
	}
	if got := s.largestFree(0); got != block/n {
		t.Fatalf("checkerboard: largest free %d, want %d", got, block/n)
	}
	// A hole-sized request reuses a hole: no new memory.
	h, err := s.alloc(0, block/n, 256)
	if err != nil || s.objects != 1 || h.block == nil {
		t.Fatalf("hole reuse: %v, %d objects", err, s.objects)
	}
	// Twice a hole does not fit anywhere: a second block.
	big, err := s.alloc(0, 2*block/n, 256)
	if err != nil || s.objects != 2 {
		t.Fatalf("big request: %v, %d objects", err, s.objects)
	}
	s.release(h)
	s.release(big) // its block is empty but the only empty one: kept
	if s.objects != 2 {
		t.Fatalf("after freeing the big one: %d objects, want 2 (one empty block kept)", s.objects)
	}
	for i := 1; i < n; i += 2 {
		s.release(as[i])
	}
	// Both blocks empty: one is freed, the other is one span again.
	if s.objects != 1 {
		t.Fatalf("all freed: %d objects, want 1", s.objects)
	}
	b := s.pools[0].blocks[0]
	if len(b.free) != 1 || b.free[0] != (span{0, block}) || b.used != 0 || b.n != 0 {
		t.Fatalf("all freed: block %+v", b)
	}
}

// TestSuballocatorDedicated: large requests and requests when no block can
// be had get memory of their own; errors of the memory source come back.
func TestSuballocatorDedicated(t *testing.T) {
	fm := newFakeMem()
	s := newSuballocator(1<<20, fm.newMem, fm.freeMem)
	a, err := s.alloc(0, 600<<10, 64)
	if err != nil || a.block != nil || fm.live[a.mem] != 600<<10 {
		t.Fatalf("large request: %+v %v", a, err)
	}
	fm.limit = 1 << 19 // blocks no longer fit
	b, err := s.alloc(1, 4096, 64)
	if err != nil || b.block != nil {
		t.Fatalf("request without room for a block: %+v %v", b, err)
	}
	fm.fail = true
	if _, err := s.alloc(1, 4096, 64); err == nil {
		t.Fatal("allocation with no memory left succeeded")
	}
	if _, err := s.alloc(1, 4096, 48); err == nil {
		t.Fatal("alignment 48 accepted")
	}
	s.release(a)
	s.release(b)
	if s.objects != 0 || len(fm.live) != 0 || s.live != 0 {
		t.Fatalf("after release: %d objects, %d live memory, %d allocations", s.objects, len(fm.live), s.live)
	}
}

// TestTenThousandBuffers uploads 10,000 buffers of random sizes and
// contents (more than NVIDIA's 4,096 memory objects), runs a kernel over a
// few of them, reads every one back and checks that the driver used a
// handful of memory objects; then frees them all and checks the blocks go.
func TestTenThousandBuffers(t *testing.T) {
	d := openTest(t)
	ctx := context.Background()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	const n = 10000
	bufs := make([]*backend.Buffer, n)
	want := make([][]uint32, n)
	for i := range bufs {
		w := make([]uint32, 1+r.IntN(1024))
		for j := range w {
			w[j] = r.Uint32()
		}
		b, err := d.Upload(u32bytes(w))
		if err != nil {
			t.Fatalf("buffer %d: %v", i, err)
		}
		bufs[i], want[i] = b, w
	}
	m, ok := d.Memory()
	if !ok {
		t.Fatal("the Vulkan driver reports no memory statistics")
	}
	t.Logf("%d buffers: %+v", n, m)
	if m.Allocations < n || m.Objects > 64 {
		t.Errorf("%d buffers in %d memory objects (%d allocations): not sub-allocated", n, m.Objects, m.Allocations)
	}
	// A kernel on sub-allocated buffers at non-zero offsets in their block.
	p, err := d.Load(ctx, artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, n / 2, n - 1} {
		k := r.Uint32()
		nw := len(want[i])
		if err := d.Dispatch(p, backend.Args{Params: []uint32{k, uint32(nw)}, Buffers: []backend.View{bufs[i].View()}}, backend.Groups(uint32((nw+63)/64))); err != nil {
			t.Fatal(err)
		}
		for j := range want[i] {
			want[i][j] = want[i][j]*3 + k
		}
	}
	for lo := 0; lo < n; lo += 500 {
		vs := make([]backend.View, 0, 500)
		for _, b := range bufs[lo:min(n, lo+500)] {
			vs = append(vs, b.View())
		}
		got, err := d.ReadMany(ctx, vs...)
		if err != nil {
			t.Fatal(err)
		}
		for k, g := range got {
			i := lo + k
			gw := bytesU32(g)
			for j := range gw {
				if gw[j] != want[i][j] {
					t.Fatalf("buffer %d word %d: got %#x, want %#x", i, j, gw[j], want[i][j])
				}
			}
		}
	}
	for _, b := range bufs {
		b.Release()
	}
	if err := d.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	after, _ := d.Memory()
	t.Logf("after release: %+v", after)
	if after.Allocations != 0 || after.Blocks > 1 || after.UsedBytes != 0 {
		t.Errorf("after releasing every buffer: %+v", after)
	}
}

// BenchmarkAllocFree is the host cost of a fresh device buffer (AllocZeroed:
// a sub-allocation, a VkBuffer, its zero fill recorded) and its release,
// 1,000 live at a time (compare with PyTorch's caching allocator,
// torch.empty + del, in docs/PERF.md).
func BenchmarkAllocFree(b *testing.B) {
	d := openTest(b)
	live := make([]*backend.Buffer, 0, 1000)
	for i := 0; i < b.N; i++ {
		buf, err := d.AllocZeroed(int64(4096 + 256*(i%64)))
		if err != nil {
			b.Fatal(err)
		}
		live = append(live, buf)
		if len(live) == cap(live) {
			for _, x := range live {
				x.Release()
			}
			live = live[:0]
		}
	}
	for _, x := range live {
		x.Release()
	}
}
