package wgpu

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall/js"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// device is the backend.DeviceImpl over one GPUDevice.
type device struct {
	info  backend.AdapterInfo
	js    js.Value // the GPUDevice
	dev   *wgpu.Device
	queue js.Value
	st    *deviceState

	// Params arenas: uniform buffers holding the params blocks of one
	// encoder's dispatches, bound at a dynamic offset (as natively).
	arenas   []*arena
	slot     int64
	dynOff   js.Value // a Uint32Array(1) for setBindGroup's dynamic offset
	staging  *wgpu.Buffer
	stageCap int64

	queries js.Value // GPUQuerySet of MaxTimestamps timestamps, made on first use
	resolve *wgpu.Buffer

	bgs     map[bgKey]*wgpu.BindGroup
	bgByBuf map[*wgpu.Buffer][]bgKey
	closed  bool
}

// deviceState records what the device's events report: uncaptured
// validation errors and loss. They arrive on the event loop, so a fault is
// seen at the next submit or wait after it happened.
type deviceState struct {
	mu       sync.Mutex
	lost     string
	errs     int
	first    string
	reported int
	onError  js.Func
	onLost   js.Func
}

func (s *deviceState) check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost != "" {
		return fmt.Errorf("wgpu: %w: %s", backend.ErrDeviceLost, s.lost)
	}
	if s.errs > s.reported {
		s.reported = s.errs
		msg := s.first
		s.first = ""
		return fmt.Errorf("wgpu: uncaptured error: %s", msg)
	}
	return nil
}

// open requests a device with every optional feature the adapter offers
// that kc uses (shader-f16, subgroups) and the adapter's compute limits.
func open(ctx context.Context, a js.Value, info backend.AdapterInfo) (backend.DeviceImpl, error) {
	var feats []any
	if info.F16 {
		feats = append(feats, "shader-f16")
	}
	if info.Subgroups {
		feats = append(feats, "subgroups")
	}
	if info.Timestamps {
		feats = append(feats, "timestamp-query")
	}
	limits := map[string]any{}
	for _, k := range computeLimits {
		if v := a.Get("limits").Get(k); v.Type() == js.TypeNumber {
			limits[k] = v
		}
	}
	desc := map[string]any{"label": "kc", "requiredFeatures": feats, "requiredLimits": limits}
	jd, err := await(ctx, a.Call("requestDevice", desc))
	if err != nil {
		return nil, fmt.Errorf("wgpu: requestDevice: %w", err)
	}
	wd := wgpu.NewDevice(jd)
	d := &device{
		info:    info,
		js:      jd,
		dev:     &wd,
		queue:   jd.Get("queue"),
		dynOff:  js.Global().Get("Uint32Array").New(1),
		st:      &deviceState{},
		bgs:     map[bgKey]*wgpu.BindGroup{},
		bgByBuf: map[*wgpu.Buffer][]bgKey{},
	}
	d.info.Limits = limitsOf(jd.Get("limits"))
	d.slot = max(d.info.Limits.MinUniformBufferOffsetAlignment, 16)
	d.watch()
	return d, nil
}

// watch installs the uncaptured-error handler and the device-lost callback.
func (d *device) watch() {
	s := d.st
	s.onError = js.FuncOf(func(_ js.Value, args []js.Value) any {
		msg := jsError(arg0(args).Get("error")).Error()
		s.mu.Lock()
		s.errs++
		if s.first == "" {
			s.first = msg
		}
		s.mu.Unlock()
		return nil
	})
	d.js.Call("addEventListener", "uncapturederror", s.onError)
	s.onLost = js.FuncOf(func(_ js.Value, args []js.Value) any {
		info := arg0(args)
		msg := strings.TrimSpace(info.Get("reason").String() + ": " + info.Get("message").String())
		s.mu.Lock()
		if s.lost == "" {
			s.lost = msg
		}
		s.mu.Unlock()
		s.onLost.Release() // the promise settles once
		return nil
	})
	d.js.Get("lost").Call("then", s.onLost)
}

func (d *device) Info() backend.AdapterInfo { return d.info }

// Release destroys the buffer: WebGPU defers the free until submitted work
// that uses it has completed, and nothing is submitted with it afterwards
// (package backend's guarantee).
func (b *buffer) Release() {
	if b.buf == nil {
		return
	}
	b.d.dropBindGroups(b.buf)
	b.buf.Destroy()
	b.buf = nil
}

func (d *device) NewBuffer(size int64) (backend.BufferImpl, error) {
	if err := d.st.check(); err != nil {
		return nil, err
	}
	buf, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: storageUsage, Size: uint64(size)})
	if err != nil {
		return nil, err
	}
	return &buffer{d: d, buf: buf, size: size}, nil
}

// WriteBuffer copies data into a fresh Uint8Array and queues the write
// (queue.writeBuffer copies again, so data is free on return).
func (d *device) WriteBuffer(b backend.BufferImpl, off int64, data []byte) error {
	d.write(b.(*buffer).buf, off, data)
	return nil
}

func (d *device) write(buf *wgpu.Buffer, off int64, data []byte) {
	u8 := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(u8, data)
	d.queue.Call("writeBuffer", jsOf(buf), off, u8)
}

func (d *device) NewEncoder() (backend.EncoderImpl, error) {
	enc, err := d.dev.CreateCommandEncoder(nil)
	if err != nil {
		return nil, err
	}
	for _, a := range d.arenas {
		a.data = a.data[:0]
	}
	return &encoder{d: d, enc: enc, pass: js.Undefined()}, nil
}

// Wait waits for the queue: onSubmittedWorkDone resolves after every
// submission and queue write made before it.
func (d *device) Wait(ctx context.Context) error {
	if err := d.st.check(); err != nil {
		return err
	}
	if _, err := await(ctx, d.queue.Call("onSubmittedWorkDone")); err != nil {
		return fmt.Errorf("wgpu: wait: %w", err)
	}
	return d.st.check()
}

func (d *device) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	_, err := await(context.Background(), d.queue.Call("onSubmittedWorkDone"))
	for _, a := range d.arenas {
		a.buf.Destroy()
	}
	if d.staging != nil {
		d.staging.Destroy()
	}
	if d.resolve != nil {
		d.resolve.Destroy()
		d.queries.Call("destroy")
	}
	d.bgs, d.bgByBuf = nil, nil
	d.js.Call("removeEventListener", "uncapturederror", d.st.onError)
	d.js.Call("destroy") // the lost callback then runs and releases itself
	d.st.onError.Release()
	return err
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
		d.staging.Destroy()
	}
	d.staging, d.stageCap = buf, size
	return buf, nil
}

// timestampQueries returns the device's query set and its resolve buffer.
func (d *device) timestampQueries() (js.Value, *wgpu.Buffer, error) {
	if d.resolve != nil {
		return d.queries, d.resolve, nil
	}
	qs := d.js.Call("createQuerySet", map[string]any{"type": "timestamp", "count": backend.MaxTimestamps})
	rb, err := d.dev.CreateBuffer(&wgpu.BufferDescriptor{Usage: wgpu.BufferUsageQueryResolve | wgpu.BufferUsageCopySrc, Size: 8 * backend.MaxTimestamps})
	if err != nil {
		qs.Call("destroy")
		return js.Undefined(), nil, err
	}
	d.queries, d.resolve = qs, rb
	return qs, rb, nil
}
