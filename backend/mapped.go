package backend

import (
	"errors"
	"fmt"
)

// MapMode says where a mapped buffer's memory lives.
type MapMode int

const (
	// MapDevice: device-local memory the host can write, where the device
	// offers it (a resizable-BAR window on a discrete GPU: the H200's
	// Vulkan driver maps all of its memory so; all memory on a unified
	// one), else host memory. Kernels read it at device-memory speed; host
	// writes cross the bus as they happen. It may be write-combined: the
	// host should write it sequentially and not read it.
	MapDevice MapMode = iota
	// MapHost: host memory (cached where offered) that the device reaches
	// over the bus: the pinned-memory staging buffer of copies in both
	// directions, and where results the host reads should land.
	MapHost
)

func (m MapMode) String() string {
	switch m {
	case MapDevice:
		return "device"
	case MapHost:
		return "host"
	}
	return fmt.Sprintf("MapMode(%d)", int(m))
}

// MappedDevice is implemented by a DeviceImpl that can create buffers in
// host-visible, coherent memory that stays mapped for the buffer's life.
type MappedDevice interface {
	// NewMappedBuffer creates such a buffer (usable as storage binding and
	// copy source and destination, like NewBuffer's) and returns it with
	// its mapped bytes (len == size). Device writes to it are made visible
	// to the host by the time a Wait or a read's submission completes.
	// Package backend guarantees what it guarantees for NewBuffer.
	NewMappedBuffer(size int64, mode MapMode) (BufferImpl, []byte, error)
}

// AllocMapped returns a buffer that stays mapped into host memory: the
// host reads or writes it through Mapped with no staging copy (the
// counterpart of CUDA's pinned host memory, and zero-copy on unified
// memory). It binds and copies like any buffer. The host must not touch
// the mapped bytes while submitted work uses the buffer: write before the
// work is submitted, read after Wait. Its contents start undefined. Not
// every driver has it (wgpu does not: WebGPU maps buffers asynchronously
// and never as storage).
func (d *Device) AllocMapped(size int64, mode MapMode) (*Buffer, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	md, ok := d.impl.(MappedDevice)
	if !ok {
		return nil, fmt.Errorf("backend: %s device %q has no mapped buffers", d.info.Driver, d.info.Name)
	}
	if mode != MapDevice && mode != MapHost {
		return nil, fmt.Errorf("backend: bad map mode %v", mode)
	}
	if size <= 0 {
		return nil, fmt.Errorf("backend: buffer size %d must be positive", size)
	}
	alloc := roundUp(size, 16)
	if max := d.info.Limits.MaxBufferSize; max > 0 && alloc > max {
		return nil, fmt.Errorf("backend: buffer size %d exceeds the device's maximum %d", size, max)
	}
	impl, mem, err := md.NewMappedBuffer(alloc, mode)
	if err != nil {
		return nil, fmt.Errorf("backend: new mapped buffer of %d bytes: %w", size, err)
	}
	if int64(len(mem)) < size {
		impl.Release()
		return nil, errors.New("backend: driver mapped fewer bytes than asked")
	}
	b := &Buffer{dev: d, impl: impl, size: size, mapped: mem[:size:size]}
	d.live[b] = struct{}{}
	return b, nil
}

// Mapped returns the host view of a buffer from AllocMapped (nil for other
// buffers, and once the buffer is released).
func (b *Buffer) Mapped() []byte {
	d := b.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	if b.released {
		return nil
	}
	return b.mapped
}
