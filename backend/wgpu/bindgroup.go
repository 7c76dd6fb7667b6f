package wgpu

// The bind group cache, one for both sides of the driver: the binding's
// JavaScript half has the native half's types (Buffer, BindGroup,
// BindGroupDescriptor), and each side's device, pipeline and buffer hold
// the fields used here (bgs and bgByBuf, params and bgl, buf).

import (
	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// bgKey identifies a cached bind group: pipeline, params arena and ranges.
type bgKey struct {
	p     *pipeline
	arena *wgpu.Buffer
	n     int
	r     [maxCachedBindings]rangeKey
}

type rangeKey struct {
	buf       *wgpu.Buffer
	off, size int64
}

// maxCachedBindings is the most storage bindings a cached bind group has;
// kernels with more get a fresh bind group per dispatch.
const maxCachedBindings = 8

// bindGroupFor returns a bind group for a dispatch of p with params arena
// ab (nil: no params) and storage ranges bufs, from the cache when the same
// pipeline, arena and ranges were bound before. cached is false for a
// fresh bind group of more than maxCachedBindings buffers, which the
// caller owns.
func (d *device) bindGroupFor(p *pipeline, ab *wgpu.Buffer, bufs []backend.Range) (bg *wgpu.BindGroup, cached bool, err error) {
	cacheable := len(bufs) <= maxCachedBindings
	var k bgKey
	if cacheable {
		k = bgKey{p: p, arena: ab, n: len(bufs)}
		for i, r := range bufs {
			k.r[i] = rangeKey{r.Buf.(*buffer).buf, r.Off, r.Size}
		}
		if bg, ok := d.bgs[k]; ok {
			return bg, true, nil
		}
	}
	entries := make([]wgpu.BindGroupEntry, 0, len(bufs)+1)
	if ab != nil {
		entries = append(entries, wgpu.BindGroupEntry{Binding: 0, Buffer: ab, Size: uint64(p.params)})
	}
	for i, r := range bufs {
		entries = append(entries, wgpu.BindGroupEntry{Binding: uint32(i + 1), Buffer: r.Buf.(*buffer).buf, Offset: uint64(r.Off), Size: uint64(r.Size)})
	}
	bg, err = d.dev.CreateBindGroup(&wgpu.BindGroupDescriptor{Layout: p.bgl, Entries: entries})
	if err != nil || !cacheable {
		return bg, false, err
	}
	d.bgs[k] = bg
	seen := map[*wgpu.Buffer]bool{}
	for _, r := range k.r[:k.n] {
		if !seen[r.buf] {
			seen[r.buf] = true
			d.bgByBuf[r.buf] = append(d.bgByBuf[r.buf], k)
		}
	}
	return bg, true, nil
}

// dropBindGroups releases the cached bind groups that bind buf (in the
// browser Release does nothing: the garbage collector frees them).
func (d *device) dropBindGroups(buf *wgpu.Buffer) {
	for _, k := range d.bgByBuf[buf] {
		if bg, ok := d.bgs[k]; ok {
			bg.Release()
			delete(d.bgs, k)
		}
	}
	delete(d.bgByBuf, buf)
}
