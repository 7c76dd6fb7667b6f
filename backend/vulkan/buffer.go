//go:build linux && cgo

package vulkan

import (
	"unsafe"
)

// rawBuffer is a VkBuffer bound to memory: device-local buffers to a range
// of a sub-allocated block (alloc.go), host-visible ones (staging, params,
// readback: few and large) to memory of their own, mapped.
type rawBuffer struct {
	handle    uintptr
	memory    uintptr // own memory; 0 when sub-allocated
	sub       allocation
	size      uint64
	typeIndex uint32
	mapped    unsafe.Pointer // nil for device-local memory
	coherent  bool
}

// Memory classes for newRawBuffer.
const (
	memDevice     = iota // device-local
	memUpload            // host-visible, coherent: staging for uploads and params
	memReadback          // host-visible, cached preferred: readback
	memStaging           // host-visible, coherent, host memory preferred: upload staging
	memHostMapped        // host-visible, coherent, host memory, cached preferred: MapHost buffers
)

// newRawBuffer creates a buffer of size bytes with the given usage in memory
// of class kind.
func (l *logical) newRawBuffer(size uint64, usage uint32, kind int) (*rawBuffer, error) {
	var a arena
	defer a.free()
	ci := newIn[vkBufferCreateInfo](&a)
	ci.sType = stBufferCreateInfo
	ci.size = size
	ci.usage = usage
	ph := newIn[uintptr](&a)
	if err := check("vkCreateBuffer", call(l.fn.CreateBuffer, l.handle, addr(ci), 0, addr(ph))); err != nil {
		return nil, err
	}
	b := &rawBuffer{handle: *ph, size: size}
	req := newIn[vkMemoryRequirements](&a)
	call(l.fn.GetBufferMemoryRequirements, l.handle, b.handle, addr(req))
	var want, prefer uint32
	switch kind {
	case memDevice:
		want = memDeviceLocal
	case memUpload:
		want, prefer = memHostVisible|memHostCoherent, memDeviceLocal
	case memReadback:
		want, prefer = memHostVisible, memHostCached|memHostCoherent
	case memStaging:
		want = memHostVisible | memHostCoherent
	case memHostMapped:
		want, prefer = memHostVisible|memHostCoherent, memHostCached
	}
	ti, err := l.phys.memoryType(req.memoryTypeBits, want, prefer)
	if kind == memHostMapped {
		// Host memory, cached where there is such a type.
		if alt, ok := l.phys.memoryTypeWithout(req.memoryTypeBits, want|memHostCached, memDeviceLocal); ok {
			ti, err = alt, nil
		} else if alt, ok := l.phys.memoryTypeWithout(req.memoryTypeBits, want, memDeviceLocal); ok {
			ti, err = alt, nil
		}
	}
	if kind == memStaging {
		// Host memory the copy engine reads over the bus: the host writes
		// it at memory speed, where a device-local (BAR) window costs a
		// PCIe write per cache line (10-14 GB/s for uploads staged there
		// on the H200, 2026-12-01).
		if alt, ok := l.phys.memoryTypeWithout(req.memoryTypeBits, want, memDeviceLocal); ok {
			ti, err = alt, nil
		}
	}
	if err != nil {
		if kind == memDevice { // a device without device-local memory (rare): any memory
			ti, err = l.phys.memoryType(req.memoryTypeBits, 0, 0)
		}
		if err != nil {
			call(l.fn.DestroyBuffer, l.handle, b.handle, 0)
			return nil, err
		}
	}
	mem, off := uintptr(0), uint64(0)
	if kind == memDevice {
		sub, err := l.sub.alloc(ti, req.size, req.alignment)
		if err != nil {
			call(l.fn.DestroyBuffer, l.handle, b.handle, 0)
			return nil, err
		}
		b.sub, mem, off = sub, sub.mem, sub.off
	} else {
		m, err := l.allocMemory(ti, req.size)
		if err != nil && prefer != 0 {
			// The preferred heap may be small (a 256 MiB BAR window
			// without resizable BAR): any type with the wanted flags.
			if alt, ok := l.phys.memoryTypeAvoiding(req.memoryTypeBits, want, l.phys.mem.memoryTypes[ti].heapIndex); ok {
				ti = alt
				m, err = l.allocMemory(ti, req.size)
			}
		}
		if err != nil {
			call(l.fn.DestroyBuffer, l.handle, b.handle, 0)
			return nil, err
		}
		b.memory, mem = m, m
	}
	b.typeIndex = ti
	if err := check("vkBindBufferMemory", call(l.fn.BindBufferMemory, l.handle, b.handle, mem, uintptr(off))); err != nil {
		l.freeRawBuffer(b)
		return nil, err
	}
	if kind != memDevice {
		b.coherent = l.phys.mem.memoryTypes[ti].propertyFlags&memHostCoherent != 0
		pp := newIn[unsafe.Pointer](&a)
		if err := check("vkMapMemory", call(l.fn.MapMemory, l.handle, b.memory, 0, ^uintptr(0), 0, addr(pp))); err != nil {
			l.freeRawBuffer(b)
			return nil, err
		}
		b.mapped = *pp
	}
	return b, nil
}

// bytes views a mapped buffer's memory.
func (b *rawBuffer) bytes() []byte { return unsafe.Slice((*byte)(b.mapped), b.size) }

// invalidate makes device writes to a non-coherent mapped buffer visible to
// the host.
func (l *logical) invalidate(b *rawBuffer) error {
	if b.coherent {
		return nil
	}
	var a arena
	defer a.free()
	r := newIn[vkMappedMemoryRange](&a)
	r.sType = stMappedMemoryRange
	r.memory = b.memory
	r.size = ^uint64(0)
	return check("vkInvalidateMappedMemoryRanges", call(l.fn.InvalidateMappedMemoryRanges, l.handle, 1, addr(r)))
}

// freeRawBuffer destroys the buffer and frees its memory.
func (l *logical) freeRawBuffer(b *rawBuffer) {
	if b == nil {
		return
	}
	if b.handle != 0 {
		call(l.fn.DestroyBuffer, l.handle, b.handle, 0)
	}
	if b.memory != 0 {
		l.freeMemory(b.memory)
	}
	if b.sub.mem != 0 {
		l.sub.release(b.sub)
	}
	*b = rawBuffer{}
}

// allocMemory allocates size bytes of memory type ti as one VkDeviceMemory.
func (l *logical) allocMemory(ti uint32, size uint64) (uintptr, error) {
	var a arena
	defer a.free()
	ai := newIn[vkMemoryAllocateInfo](&a)
	ai.sType = stMemoryAllocateInfo
	ai.allocationSize = size
	ai.memoryTypeIndex = ti
	pm := newIn[uintptr](&a)
	if err := check("vkAllocateMemory", call(l.fn.AllocateMemory, l.handle, addr(ai), 0, addr(pm))); err != nil {
		return 0, err
	}
	l.memObjects++
	return *pm, nil
}

// freeMemory frees memory from allocMemory.
func (l *logical) freeMemory(mem uintptr) {
	call(l.fn.FreeMemory, l.handle, mem, 0)
	l.memObjects--
}
