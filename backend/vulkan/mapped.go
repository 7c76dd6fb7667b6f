//go:build linux && cgo

package vulkan

import (
	"fmt"

	"github.com/kcgo/kc/backend"
)

// NewMappedBuffer implements backend.MappedDevice: a buffer in memory of
// its own, host-visible and coherent, mapped for its life. MapDevice
// prefers device-local host-visible memory (the BAR window a discrete GPU
// exposes; all memory on a unified-memory device), MapHost host memory,
// cached where the device offers a cached coherent type.
func (d *device) NewMappedBuffer(size int64, mode backend.MapMode) (backend.BufferImpl, []byte, error) {
	if err := d.usable(); err != nil {
		return nil, nil, err
	}
	if size <= 0 {
		return nil, nil, fmt.Errorf("vulkan: buffer size %d", size)
	}
	kind := memUpload
	if mode == backend.MapHost {
		kind = memHostMapped
	}
	raw, err := d.l.newRawBuffer(uint64(size), bufUsageStorage|bufUsageTransferSrc|bufUsageTransferDst, kind)
	if err != nil {
		return nil, nil, err
	}
	if !raw.coherent {
		d.l.freeRawBuffer(raw)
		return nil, nil, fmt.Errorf("vulkan: %s has no host-coherent memory for a mapped buffer", d.info.Name)
	}
	b := &buffer{d: d, raw: raw, size: size, mapped: true}
	d.buffers[raw.handle] = b
	return b, raw.bytes()[:size:size], nil
}
