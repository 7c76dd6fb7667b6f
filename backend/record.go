package backend

import (
	"context"
	"encoding/binary"
	"fmt"
)

// Scope groups recorded work into few submissions, none of which waits
// for the device. Dispatches and copies made while any scope is open are
// recorded into one command encoder and submitted when the outermost
// scope ends, except that the first few dispatches, then chunks twice as
// large each time, are submitted as soon as they are recorded
// (SetScopeFlush; 0 makes it one submit), so that the device starts on a
// long scope while the host records the rest; outside any scope each
// dispatch is submitted on its own. Scopes nest: a function may open its
// own scope without knowing whether its caller has one. A readback inside
// a scope flushes what has been recorded so far first (see Read), so
// reads always see program order.
type Scope struct {
	d     *Device
	ended bool
}

// Begin opens a scope; End it (typically deferred) to close it.
func (d *Device) Begin() *Scope {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.depth == 0 {
		d.flushNext = d.flushFirst
	}
	d.depth++
	return &Scope{d: d}
}

// maxFlushChunk bounds the dispatches of one early submit (SetScopeFlush).
const maxFlushChunk = 1024

// nextFlushChunk is the early submit's chunk after one of n dispatches:
// twice as many, up to maxFlushChunk.
func nextFlushChunk(n int) int { return min(2*n, maxFlushChunk) }

// SetScopeFlush sets how a scope submits its work while it records it:
// the first n dispatches as soon as they are recorded, then chunks of
// twice as many as the one before (up to maxFlushChunk dispatches), the
// rest at the outermost End, so that the device runs the first ops while
// the host records the later ones instead of idling until the whole
// scope is recorded (ScopeSubmits counts the submits). n = 0 submits
// once, at the outermost End. A new device starts at DefaultScopeFlush,
// 0 on a CPU device (KC_SCOPE_FLUSH overrides both). Program order holds
// either way: each submission's first command waits for everything
// submitted before it, and no early submit waits for the device. It
// applies from the next outermost Begin.
func (d *Device) SetScopeFlush(n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.flushFirst = max(n, 0)
}

// ScopeFlush returns the setting of SetScopeFlush.
func (d *Device) ScopeFlush() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.flushFirst
}

// ScopeSubmits is the number of submits of a scope that records n
// dispatches (and nothing that submits on its own, such as a read) under
// SetScopeFlush(first): 1 when first is 0 (0 when n is).
func ScopeSubmits(n, first int) int {
	s, chunk := 0, first
	for first > 0 && n >= chunk {
		n -= chunk
		s++
		chunk = nextFlushChunk(chunk)
	}
	if n > 0 {
		s++
	}
	return s
}

// flushEarly submits the open encoder inside a scope when it holds the
// chunk of dispatches SetScopeFlush asks for.
func (d *Device) flushEarly() error {
	if d.depth == 0 || d.flushFirst == 0 {
		return nil
	}
	d.encDisp++
	if d.encDisp < d.flushNext {
		return nil
	}
	d.flushNext = nextFlushChunk(d.flushNext)
	return d.flushLocked(context.Background())
}

// End closes the scope. When it is the outermost scope, the recorded work
// is submitted (without waiting for it) and the first error recorded inside
// the scopes, if any, is returned. Ending a scope twice is a no-op.
func (s *Scope) End() error {
	d := s.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.ended {
		return nil
	}
	s.ended = true
	d.depth--
	if d.depth > 0 {
		return nil
	}
	err := d.scopeErr
	d.scopeErr = nil
	if d.closed {
		return ErrClosed
	}
	if ferr := d.flushLocked(context.Background()); err == nil {
		err = ferr
	}
	return err
}

// Do runs fn inside a scope and ends it, returning fn's error or End's.
func (d *Device) Do(fn func() error) error {
	s := d.Begin()
	err := fn()
	if eerr := s.End(); err == nil {
		err = eerr
	}
	return err
}

// Flush submits the work recorded so far without closing any scope.
func (d *Device) Flush() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	return d.flushLocked(context.Background())
}

// Args are a dispatch's arguments.
type Args struct {
	// Params holds one 32-bit word per scalar parameter, in
	// Layout().ParamNames() order (u32 as is, i32 as uint32(x), f32 as
	// math.Float32bits(x)).
	Params []uint32
	// Buffers binds Layout().Buffers in order.
	Buffers []View
}

// Groups returns the workgroup counts {x, y, z}, with missing values 1.
func Groups(n ...uint32) [3]uint32 {
	g := [3]uint32{1, 1, 1}
	copy(g[:], n)
	return g
}

// BindError is a dispatch, copy or readback refused on the host before
// anything was recorded.
type BindError struct {
	Kernel  string // "" for copies and reads
	Binding int    // -1 when not about one binding
	Name    string // the binding's parameter name
	Msg     string
}

func (e *BindError) Error() string {
	s := "backend: "
	if e.Kernel != "" {
		s += "dispatch " + e.Kernel + ": "
	}
	if e.Binding >= 0 {
		s += fmt.Sprintf("binding %d (%s): ", e.Binding, e.Name)
	}
	return s + e.Msg
}

// Dispatch records kernel p with args over groups workgroups. Every binding
// is checked on the host first (count, bounds, alignment, element stride,
// read-only/read-write aliasing, workgroup limits); a bad one is a
// *BindError and nothing is recorded. Outside a scope the dispatch is
// submitted at once; inside one it waits for the outermost End. A dispatch
// with a zero workgroup count does nothing.
func (d *Device) Dispatch(p *Pipeline, args Args, groups [3]uint32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if err := d.checkDispatch(p, args, groups); err != nil {
		return err
	}
	if groups[0] == 0 || groups[1] == 0 || groups[2] == 0 {
		return nil
	}
	if err := d.recordDispatch(p, args, groups); err != nil {
		return err
	}
	return d.flushEarly()
}

func (d *Device) recordDispatch(p *Pipeline, args Args, groups [3]uint32) error {
	params, ranges := d.packArgs(p, args, groups)
	e, err := d.encoder()
	if err != nil {
		return d.failLocked(fmt.Errorf("backend: new encoder: %w", err))
	}
	if err := e.Dispatch(p.impl, params, ranges, groups); err != nil {
		return d.failLocked(fmt.Errorf("backend: dispatch %s: %w", p.name, err))
	}
	d.encUsed = true
	for _, v := range args.Buffers {
		v.Buf.gen = d.encGen
	}
	d.stats.Dispatches++
	if d.depth == 0 {
		return d.submitLocked(context.Background())
	}
	return nil
}

// packArgs returns the params block and the driver ranges of a dispatch,
// in scratch space reused by the next call.
func (d *Device) packArgs(p *Pipeline, args Args, groups [3]uint32) ([]byte, []Range) {
	params := d.params[:0]
	for _, w := range args.Params {
		params = binary.LittleEndian.AppendUint32(params, w)
	}
	for len(params) < p.layout.ParamsSize() {
		params = append(params, 0)
	}
	if pr := p.layout.Params; pr != nil && pr.NumWorkgroups != nil {
		// the hidden num_workgroups field (ir.NumWorkgroupsOffset)
		at := *pr.NumWorkgroups
		for i, n := range groups {
			binary.LittleEndian.PutUint32(params[at+4*i:], n)
		}
	}
	d.params = params
	ranges := d.ranges[:0]
	for _, v := range args.Buffers {
		ranges = append(ranges, Range{Buf: v.Buf.impl, Off: v.Off, Size: v.Size})
	}
	d.ranges = ranges
	if p.layout.Params == nil {
		params = nil
	}
	return params, ranges
}

func (d *Device) checkDispatch(p *Pipeline, args Args, groups [3]uint32) error {
	if p == nil || p.dev != d {
		return &BindError{Binding: -1, Msg: "pipeline is nil or belongs to another device"}
	}
	l := &p.layout
	bad := func(binding int, name, format string, a ...any) error {
		return &BindError{Kernel: p.name, Binding: binding, Name: name, Msg: fmt.Sprintf(format, a...)}
	}
	if len(args.Params) != l.NumParams() || len(args.Params)*4 > l.ParamsSize() {
		return bad(-1, "", "got %d params, kernel has %d scalar parameters %v", len(args.Params), l.NumParams(), l.ParamNames())
	}
	if len(args.Buffers) != len(l.Buffers) {
		return bad(-1, "", "got %d buffers, kernel has %d", len(args.Buffers), len(l.Buffers))
	}
	lim := &d.info.Limits
	for i, g := range groups {
		if lim.MaxWorkgroupsPerDimension > 0 && g > lim.MaxWorkgroupsPerDimension {
			return bad(-1, "", "workgroup count %d in dimension %c exceeds the device's %d", g, "xyz"[i], lim.MaxWorkgroupsPerDimension)
		}
	}
	align := lim.MinStorageBufferOffsetAlignment
	if len(l.CoopMats) > 0 && align < 16 {
		// Cooperative loads and stores need 16-byte aligned addresses
		// (ir.CoopAlign counts from the binding's start), which a device
		// with a smaller offset alignment (4 on some) would not give.
		align = 16
	}
	for i, v := range args.Buffers {
		s := &l.Buffers[i]
		if err := d.checkView(v, align); err != "" {
			return bad(s.Binding, s.Name, "%s", err)
		}
		if max := lim.MaxStorageBufferBindingSize; max > 0 && v.Size > max {
			return bad(s.Binding, s.Name, "range of %d bytes exceeds the device's maximum storage binding of %d", v.Size, max)
		}
		if s.Stride > 0 && v.Size%int64(s.Stride) != 0 {
			return bad(s.Binding, s.Name, "size %d is not a multiple of the element stride %d", v.Size, s.Stride)
		}
		if s.ReadOnly() {
			continue
		}
		for j, w := range args.Buffers {
			if j != i && w.Buf == v.Buf && l.Buffers[j].ReadOnly() {
				return bad(s.Binding, s.Name, "buffer is bound read_write here and read-only at binding %d (%s)", l.Buffers[j].Binding, l.Buffers[j].Name)
			}
		}
	}
	return nil
}

// checkView returns "" when v is a usable range of a live buffer of this
// device with offset a multiple of align, else what is wrong.
func (d *Device) checkView(v View, align int64) string {
	switch {
	case v.Buf == nil:
		return "no buffer"
	case v.Buf.dev != d:
		return "buffer belongs to another device"
	case v.Buf.released:
		return "buffer was released"
	case v.Size <= 0:
		return fmt.Sprintf("empty range (size %d)", v.Size)
	case v.Off < 0 || v.Off+v.Size > v.Buf.size || v.Off+v.Size < v.Off:
		return fmt.Sprintf("range %v is out of bounds", v)
	case align > 0 && v.Off%align != 0:
		return fmt.Sprintf("offset %d is not a multiple of %d", v.Off, align)
	}
	return ""
}

// Copy records a device-to-device copy of src into dst (equal sizes,
// offsets and size multiples of 4, no overlap within one buffer). Like
// Dispatch it is submitted at once outside a scope.
func (d *Device) Copy(dst, src View) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if err := d.checkCopy(dst, src); err != nil {
		return err
	}
	return d.copyLocked(dst, src)
}

// CopyDevice is implemented by a DeviceImpl that submits a copy made
// outside any scope by itself, faster than through an encoder (the Vulkan
// driver resubmits the command buffer it recorded for the same copy
// before). SubmitCopy has Copy's contract followed by a submit: ordered
// after all work submitted before it, not waited for.
type CopyDevice interface {
	SubmitCopy(src BufferImpl, srcOff int64, dst BufferImpl, dstOff int64, size int64) error
}

// copyLocked records a checked copy. Outside a scope, with no encoder
// open, a driver that implements CopyDevice submits it directly.
func (d *Device) copyLocked(dst, src View) error {
	if cd, ok := d.impl.(CopyDevice); ok && d.depth == 0 && d.enc == nil && len(d.deferred) == 0 {
		if err := cd.SubmitCopy(src.Buf.impl, src.Off, dst.Buf.impl, dst.Off, roundUp(src.Size, 4)); err != nil {
			return fmt.Errorf("backend: copy: %w", err)
		}
		d.stats.Copies++
		d.stats.Submits++
		return nil
	}
	e, err := d.encoder()
	if err != nil {
		return d.failLocked(fmt.Errorf("backend: new encoder: %w", err))
	}
	if err := e.Copy(src.Buf.impl, src.Off, dst.Buf.impl, dst.Off, roundUp(src.Size, 4)); err != nil {
		return d.failLocked(fmt.Errorf("backend: copy: %w", err))
	}
	d.encUsed = true
	src.Buf.gen, dst.Buf.gen = d.encGen, d.encGen
	d.stats.Copies++
	if d.depth == 0 {
		return d.submitLocked(context.Background())
	}
	return nil
}

func (d *Device) checkCopy(dst, src View) error {
	bad := func(format string, a ...any) error {
		return &BindError{Binding: -1, Msg: "copy: " + fmt.Sprintf(format, a...)}
	}
	if e := d.checkView(src, 4); e != "" {
		return bad("source: %s", e)
	}
	if e := d.checkView(dst, 4); e != "" {
		return bad("destination: %s", e)
	}
	if src.Size != dst.Size {
		return bad("source has %d bytes, destination %d", src.Size, dst.Size)
	}
	if src.Size%4 != 0 && (src.Off+src.Size != src.Buf.size || dst.Off+dst.Size != dst.Buf.size) {
		return bad("size %d is not a multiple of 4", src.Size)
	}
	if src.Buf == dst.Buf && src.Off < dst.Off+dst.Size && dst.Off < src.Off+src.Size {
		return bad("source %v and destination %v overlap", src, dst)
	}
	return nil
}

// Read returns the bytes of v. Work recorded so far (in any open scope) is
// submitted first, in the same submission as the read, so the bytes reflect
// every dispatch recorded before the call.
func (d *Device) Read(ctx context.Context, v View) ([]byte, error) {
	out, err := d.ReadMany(ctx, v)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// ReadMany reads several regions back with one submit and one fence wait,
// together with any recorded work, and returns them in the order given.
func (d *Device) ReadMany(ctx context.Context, vs ...View) ([][]byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.readLocked(ctx, vs, nil)
}

// ReadInto reads v into dst (len(dst) == v.Size) as Read does, without
// allocating: the driver copies straight into dst where it can. Reusing
// dst across reads, like a pinned host tensor in PyTorch, spares the page
// faults of fresh memory.
func (d *Device) ReadInto(ctx context.Context, dst []byte, v View) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if int64(len(dst)) != v.Size {
		return &BindError{Binding: -1, Msg: fmt.Sprintf("read into %d bytes of a %d-byte view", len(dst), v.Size)}
	}
	out, err := d.readLocked(ctx, []View{v}, [][]byte{dst})
	if err != nil {
		return err
	}
	if len(out[0]) > 0 && &out[0][0] != &dst[0] {
		copy(dst, out[0])
	}
	return nil
}

// readLocked reads vs, into dsts[i] where given and possible.
func (d *Device) readLocked(ctx context.Context, vs []View, dsts [][]byte) ([][]byte, error) {
	if d.closed {
		return nil, ErrClosed
	}
	if len(vs) == 0 {
		return nil, nil
	}
	reads := make([]Range, len(vs))
	for i, v := range vs {
		if e := d.checkView(v, 4); e != "" {
			return nil, &BindError{Binding: -1, Msg: fmt.Sprintf("read %d: %s", i, e)}
		}
		reads[i] = Range{Buf: v.Buf.impl, Off: v.Off, Size: roundUp(v.Size, 4)}
		if i < len(dsts) && int64(len(dsts[i])) == reads[i].Size {
			reads[i].Dst = dsts[i]
		}
	}
	res, err := d.submitReads(ctx, reads)
	if err != nil {
		return nil, err
	}
	if len(res.Reads) != len(vs) {
		return nil, fmt.Errorf("backend: driver returned %d regions for %d reads", len(res.Reads), len(vs))
	}
	out := res.Reads
	for i, v := range vs {
		out[i] = out[i][:v.Size]
		d.stats.BytesDown += uint64(v.Size)
	}
	d.stats.Readbacks++
	return out, nil
}
