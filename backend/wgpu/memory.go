package wgpu

// Buffers and params arenas, one for both sides of the driver (the
// binding's JavaScript half has the native half's Buffer and
// BufferDescriptor; each side's device holds dev, slot and arenas).

import "github.com/cogentcore/webgpu/wgpu"

// buffer is a backend.BufferImpl.
type buffer struct {
	d    *device
	buf  *wgpu.Buffer
	size int64
}

func (b *buffer) Size() int64 { return b.size }

const storageUsage = wgpu.BufferUsageStorage | wgpu.BufferUsageCopySrc | wgpu.BufferUsageCopyDst

// arena is one params uniform buffer and the bytes the open encoder put in it.
type arena struct {
	buf  *wgpu.Buffer
	cap  int64
	data []byte
}

const arenaMin = 64 << 10

// pushParams copies a params block into the params arenas and returns the
// arena buffer and the dynamic offset it sits at.
func (e *encoder) pushParams(params []byte) (*wgpu.Buffer, uint32, error) {
	d := e.d
	stride := (int64(len(params)) + d.slot - 1) / d.slot * d.slot
	for {
		if e.arena == len(d.arenas) {
			size := int64(arenaMin)
			if n := len(d.arenas); n > 0 {
				size = 2 * d.arenas[n-1].cap
			}
			size = max(size, stride)
			buf, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: wgpu.BufferUsageUniform | wgpu.BufferUsageCopyDst, Size: uint64(size)})
			if err != nil {
				return nil, 0, err
			}
			d.arenas = append(d.arenas, &arena{buf: buf, cap: size})
		}
		a := d.arenas[e.arena]
		off := int64(len(a.data))
		if off+stride <= a.cap {
			a.data = append(a.data, params...)
			for int64(len(a.data)) < off+stride {
				a.data = append(a.data, 0)
			}
			return a.buf, uint32(off), nil
		}
		e.arena++
	}
}
