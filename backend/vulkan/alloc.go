//go:build linux && cgo

package vulkan

import (
	"fmt"
	"slices"
	"sort"

	"github.com/kcgo/kc/backend"
)

// Sub-allocation. Drivers cap the number of live VkDeviceMemory objects
// (maxMemoryAllocationCount: 4096 on NVIDIA) and each vkAllocateMemory is
// a kernel call, so device-local buffers are placed in large blocks, one
// pool of blocks per memory type. A block keeps its free space as a sorted
// list of disjoint, coalesced spans; an allocation takes the best-fitting
// span (the smallest that holds it once aligned), so small and large
// tensors mixed over a model's life fragment little. Requests larger than
// half a block get memory of their own ("dedicated"), as do requests when
// a new block cannot be had. A block that becomes empty is freed unless it
// is its pool's only empty block (kept to absorb alloc/free churn).
//
// The allocator knows nothing of Vulkan: it calls newMem and freeMem, so
// its bookkeeping is tested on its own (alloc_test.go). Reuse is safe
// because the device frees a buffer's range only once the work recorded
// before its Release has completed (device.deferFree).

// defaultBlockSize is the size of one block of a pool.
const defaultBlockSize = 64 << 20

// span is a free range of a block.
type span struct{ off, size uint64 }

// memBlock is one VkDeviceMemory carved into allocations.
type memBlock struct {
	mem  uintptr
	size uint64
	free []span // sorted by off, disjoint, never adjacent
	used uint64 // bytes handed out (alignment padding stays free)
	n    int    // live allocations
}

// memPool is the blocks of one memory type.
type memPool struct {
	blocks []*memBlock
}

// allocation is a range handed out by the suballocator.
type allocation struct {
	mem       uintptr
	off, size uint64
	typeIndex uint32
	block     *memBlock // nil for dedicated memory
}

// suballocator places allocations in per-memory-type pools of blocks.
type suballocator struct {
	blockSize uint64
	newMem    func(typeIndex uint32, size uint64) (uintptr, error)
	freeMem   func(mem uintptr)
	pools     map[uint32]*memPool
	objects   int // live memory objects: blocks plus dedicated allocations
	live      int // live allocations
}

func newSuballocator(blockSize uint64, newMem func(uint32, uint64) (uintptr, error), freeMem func(uintptr)) *suballocator {
	return &suballocator{blockSize: blockSize, newMem: newMem, freeMem: freeMem, pools: map[uint32]*memPool{}}
}

// alloc returns size bytes of memory type typeIndex at an offset that is a
// multiple of align (a power of two, as Vulkan's alignments are).
func (s *suballocator) alloc(typeIndex uint32, size, align uint64) (allocation, error) {
	if size == 0 {
		return allocation{}, fmt.Errorf("vulkan: allocation of 0 bytes")
	}
	align = max(align, 1)
	if align&(align-1) != 0 {
		return allocation{}, fmt.Errorf("vulkan: alignment %d is not a power of two", align)
	}
	if size > s.blockSize/2 {
		return s.dedicated(typeIndex, size)
	}
	p := s.pools[typeIndex]
	if p == nil {
		p = &memPool{}
		s.pools[typeIndex] = p
	}
	for _, b := range p.blocks {
		if off, ok := b.take(size, align); ok {
			s.live++
			return allocation{mem: b.mem, off: off, size: size, typeIndex: typeIndex, block: b}, nil
		}
	}
	mem, err := s.newMem(typeIndex, s.blockSize)
	if err != nil {
		// No room for a whole block (a small heap, or memory nearly full):
		// the request alone may still fit.
		return s.dedicated(typeIndex, size)
	}
	s.objects++
	b := &memBlock{mem: mem, size: s.blockSize, free: []span{{0, s.blockSize}}}
	p.blocks = append(p.blocks, b)
	off, _ := b.take(size, align)
	s.live++
	return allocation{mem: b.mem, off: off, size: size, typeIndex: typeIndex, block: b}, nil
}

func (s *suballocator) dedicated(typeIndex uint32, size uint64) (allocation, error) {
	mem, err := s.newMem(typeIndex, size)
	if err != nil {
		return allocation{}, err
	}
	s.objects++
	s.live++
	return allocation{mem: mem, size: size, typeIndex: typeIndex}, nil
}

// release gives an allocation back.
func (s *suballocator) release(a allocation) {
	s.live--
	b := a.block
	if b == nil {
		s.freeMem(a.mem)
		s.objects--
		return
	}
	b.give(a.off, a.size)
	if b.n > 0 {
		return
	}
	// Keep one empty block per pool; free any other.
	p := s.pools[a.typeIndex]
	for _, o := range p.blocks {
		if o != b && o.n == 0 {
			s.dropBlock(p, b)
			return
		}
	}
}

func (s *suballocator) dropBlock(p *memPool, b *memBlock) {
	for i, o := range p.blocks {
		if o == b {
			p.blocks = append(p.blocks[:i], p.blocks[i+1:]...)
			break
		}
	}
	s.freeMem(b.mem)
	s.objects--
}

// trim frees every empty block.
func (s *suballocator) trim() {
	for _, p := range s.pools {
		for i := len(p.blocks) - 1; i >= 0; i-- {
			if p.blocks[i].n == 0 {
				s.dropBlock(p, p.blocks[i])
			}
		}
	}
}

// destroy frees every block; dedicated allocations are the owners' to free.
func (s *suballocator) destroy() {
	for _, p := range s.pools {
		for _, b := range p.blocks {
			s.freeMem(b.mem)
			s.objects--
		}
	}
	s.pools = map[uint32]*memPool{}
}

// take carves size bytes aligned to align out of the best-fitting free span.
func (b *memBlock) take(size, align uint64) (uint64, bool) {
	best, bestWaste := -1, uint64(0)
	for i, f := range b.free {
		at := alignUp(f.off, align)
		if at+size > f.off+f.size || at < f.off {
			continue
		}
		if waste := f.size - size; best < 0 || waste < bestWaste {
			best, bestWaste = i, waste
			if waste == 0 {
				break
			}
		}
	}
	if best < 0 {
		return 0, false
	}
	f := b.free[best]
	at := alignUp(f.off, align)
	var keepArr [2]span
	keep := keepArr[:0]
	if at > f.off {
		keep = append(keep, span{f.off, at - f.off})
	}
	if end := at + size; end < f.off+f.size {
		keep = append(keep, span{end, f.off + f.size - end})
	}
	b.free = slices.Replace(b.free, best, best+1, keep...)
	b.used += size
	b.n++
	return at, true
}

// give returns [off, off+size) to the free list, merging it with the spans
// next to it.
func (b *memBlock) give(off, size uint64) {
	i := sort.Search(len(b.free), func(i int) bool { return b.free[i].off > off })
	merged := span{off, size}
	lo, hi := i, i
	if i > 0 && b.free[i-1].off+b.free[i-1].size == off {
		lo = i - 1
		merged.off = b.free[i-1].off
		merged.size += b.free[i-1].size
	}
	if i < len(b.free) && off+size == b.free[i].off {
		hi = i + 1
		merged.size += b.free[i].size
	}
	b.free = slices.Replace(b.free, lo, hi, merged)
	b.used -= size
	b.n--
}

// largestFree is the largest free span of the pools of typeIndex (for
// fragmentation tests and diagnostics).
func (s *suballocator) largestFree(typeIndex uint32) uint64 {
	var m uint64
	if p := s.pools[typeIndex]; p != nil {
		for _, b := range p.blocks {
			for _, f := range b.free {
				m = max(m, f.size)
			}
		}
	}
	return m
}

// Memory implements backend.MemoryReporter.
func (d *device) Memory() backend.MemoryStats {
	s := d.l.sub
	m := backend.MemoryStats{Objects: d.l.memObjects, Allocations: s.live}
	for _, p := range s.pools {
		for _, b := range p.blocks {
			m.Blocks++
			m.BlockBytes += int64(b.size)
			m.UsedBytes += int64(b.used)
		}
	}
	return m
}
