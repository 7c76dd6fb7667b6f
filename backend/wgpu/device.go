//go:build !js

package wgpu

import (
	"context"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// device is the backend.DeviceImpl over one wgpu device.
type device struct {
	state *deviceState // uncaptured errors and device loss, from C callbacks
	info  backend.AdapterInfo
	dev   *wgpu.Device
	queue *wgpu.Queue

	// Params arenas: uniform buffers that hold the params blocks of one
	// encoder's dispatches, bound at a dynamic offset. Reused by every
	// encoder (queue writes are ordered after earlier submissions).
	arenas   []*arena
	slot     int64 // params slot alignment (MinUniformBufferOffsetAlignment)
	staging  *wgpu.Buffer
	stageCap int64

	queries  *wgpu.QuerySet
	resolve  *wgpu.Buffer
	bgs      map[bgKey]*wgpu.BindGroup
	bgByBuf  map[*wgpu.Buffer][]bgKey
	pipes    []*pipeline
	released bool
	borrowed bool // the host's device (FromDevice): not released by Close
}

func open(a *wgpu.Adapter, info backend.AdapterInfo) (backend.DeviceImpl, error) {
	var feats []wgpu.FeatureName
	if info.Timestamps {
		feats = append(feats, wgpu.FeatureNameTimestampQuery)
	}
	dev, st, err := requestDevice(a, feats, true)
	if err != nil {
		// Retry with WebGPU's default limits.
		if dev, st, err = requestDevice(a, feats, false); err != nil {
			return nil, err
		}
	}
	info.Limits = deviceLimits(info.Limits, dev.GetLimits().Limits)
	d := &device{
		state:   st,
		info:    info,
		dev:     dev,
		queue:   dev.GetQueue(),
		slot:    max(info.Limits.MinUniformBufferOffsetAlignment, 16),
		bgs:     map[bgKey]*wgpu.BindGroup{},
		bgByBuf: map[*wgpu.Buffer][]bgKey{},
	}
	return d, nil
}

func (d *device) Info() backend.AdapterInfo { return d.info }

// Release drops the buffer and the cached bind groups that name it; wgpu
// keeps the memory alive while submitted work still uses it.
func (b *buffer) Release() {
	if b.buf == nil {
		return
	}
	b.d.dropBindGroups(b.buf)
	b.buf.Release()
	b.buf = nil
}

func (d *device) NewBuffer(size int64) (backend.BufferImpl, error) {
	if err := d.state.check(); err != nil {
		return nil, err
	}
	buf, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: storageUsage, Size: uint64(size)})
	if err != nil {
		return nil, err
	}
	return &buffer{d: d, buf: buf, size: size}, nil
}

func (d *device) WriteBuffer(b backend.BufferImpl, off int64, data []byte) error {
	return d.queue.WriteBuffer(b.(*buffer).buf, uint64(off), data)
}

func (d *device) NewEncoder() (backend.EncoderImpl, error) {
	enc, err := d.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, err
	}
	for _, a := range d.arenas {
		a.data = a.data[:0]
	}
	return &encoder{d: d, enc: enc}, nil
}

func (d *device) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := d.state.check(); err != nil {
		return err
	}
	d.queue.Submit() // flush pending queue writes
	d.dev.Poll(true, nil)
	return d.state.check()
}

func (d *device) Close() error {
	if d.released {
		return nil
	}
	// An empty submit flushes queue writes not yet followed by a submit;
	// dropping the device with writes pending corrupts wgpu-native's
	// resource ids for the next device (measured: "Attempt to use a
	// resource with a different device" at the next device's submit).
	d.queue.Submit()
	d.dev.Poll(true, nil)
	d.released = true
	for k, bg := range d.bgs {
		bg.Release()
		delete(d.bgs, k)
	}
	for _, p := range d.pipes {
		p.release()
	}
	for _, a := range d.arenas {
		a.buf.Release()
	}
	if d.staging != nil {
		d.staging.Release()
	}
	if d.resolve != nil {
		d.resolve.Release()
	}
	if d.queries != nil {
		d.queries.Release()
	}
	d.queue.Release()
	if !d.borrowed {
		d.dev.Release()
	}
	d.state.free()
	return nil
}

// stagingFor returns a mappable buffer of at least n bytes.
func (d *device) stagingFor(n int64) (*wgpu.Buffer, error) {
	if d.staging != nil && d.stageCap >= n {
		return d.staging, nil
	}
	size := max(n, 64<<10, 2*d.stageCap)
	size = (size + 255) &^ 255
	buf, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: wgpu.BufferUsageMapRead | wgpu.BufferUsageCopyDst, Size: uint64(size)})
	if err != nil {
		return nil, err
	}
	if d.staging != nil {
		d.staging.Release()
	}
	d.staging, d.stageCap = buf, size
	return buf, nil
}

// timestampQueries returns the device's query set and its resolve buffer.
func (d *device) timestampQueries() (*wgpu.QuerySet, *wgpu.Buffer, error) {
	if d.queries != nil {
		return d.queries, d.resolve, nil
	}
	qs, err := d.dev.CreateQuerySet(&wgpu.QuerySetDescriptor{Type: wgpu.QueryTypeTimestamp, Count: backend.MaxTimestamps})
	if err != nil {
		return nil, nil, err
	}
	rb, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: wgpu.BufferUsageQueryResolve | wgpu.BufferUsageCopySrc, Size: 8 * backend.MaxTimestamps})
	if err != nil {
		qs.Release()
		return nil, nil, err
	}
	d.queries, d.resolve = qs, rb
	return qs, rb, nil
}
