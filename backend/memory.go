package backend

// MemoryStats describes how a driver holds device memory for buffers.
type MemoryStats struct {
	// Objects is the number of live driver memory objects (VkDeviceMemory):
	// the figure drivers cap (maxMemoryAllocationCount, 4096 on NVIDIA).
	Objects int
	// Allocations is the number of live buffer allocations, sub-allocated
	// or not; Allocations > Objects means sub-allocation is at work.
	Allocations int
	// Blocks and BlockBytes are the sub-allocation blocks and their size.
	Blocks     int
	BlockBytes int64
	// UsedBytes is what the blocks hand out (alignment padding excluded).
	UsedBytes int64
}

// MemoryReporter is implemented by a DeviceImpl that can describe its
// memory (the Vulkan driver's sub-allocator).
type MemoryReporter interface {
	Memory() MemoryStats
}

// Memory returns the driver's memory statistics, and false when the driver
// does not report them (wgpu, whose allocator is its own).
func (d *Device) Memory() (MemoryStats, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if r, ok := d.impl.(MemoryReporter); ok && !d.closed {
		return r.Memory(), true
	}
	return MemoryStats{}, false
}
