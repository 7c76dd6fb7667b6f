package wgpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"syscall/js"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// encoder is a backend.EncoderImpl: consecutive dispatches share one
// compute pass; a copy or the submit ends it.
type encoder struct {
	d     *device
	enc   *wgpu.CommandEncoder
	pass  js.Value // the open GPUComputePassEncoder, or undefined
	cur   *pipeline
	arena int
	nts   int // timestamps written
}

// Dispatch records through the JavaScript objects directly rather than
// the binding's pass methods, which build Go slices and JavaScript arrays
// on every call: the dynamic offset goes through one reused Uint32Array
// (setBindGroup's typed-array form).
func (e *encoder) Dispatch(pi backend.PipelineImpl, params []byte, bufs []backend.Range, groups [3]uint32) error {
	p := pi.(*pipeline)
	var ab *wgpu.Buffer
	var off uint32
	if p.params > 0 {
		var err error
		if ab, off, err = e.pushParams(params); err != nil {
			return err
		}
	}
	bg, err := e.bindGroup(p, ab, bufs)
	if err != nil {
		return err
	}
	if e.pass.IsUndefined() {
		e.pass = jsOf(e.enc).Call("beginComputePass")
		e.cur = nil
	}
	if e.cur != p {
		e.pass.Call("setPipeline", jsOf(p.pipe))
		e.cur = p
	}
	if ab != nil {
		e.d.dynOff.SetIndex(0, off)
		e.pass.Call("setBindGroup", 0, jsOf(bg), e.d.dynOff, 0, 1)
	} else {
		e.pass.Call("setBindGroup", 0, jsOf(bg))
	}
	e.pass.Call("dispatchWorkgroups", groups[0], groups[1], groups[2])
	return nil
}

// bindGroup returns the bind group of a dispatch (bindGroupFor); one
// outside the cache is left to the garbage collector.
func (e *encoder) bindGroup(p *pipeline, ab *wgpu.Buffer, bufs []backend.Range) (*wgpu.BindGroup, error) {
	bg, _, err := e.d.bindGroupFor(p, ab, bufs)
	return bg, err
}

func (e *encoder) endPass() {
	if !e.pass.IsUndefined() {
		e.pass.Call("end")
		e.pass, e.cur = js.Undefined(), nil
	}
}

func (e *encoder) Copy(src backend.BufferImpl, srcOff int64, dst backend.BufferImpl, dstOff int64, size int64) error {
	e.endPass()
	return e.enc.CopyBufferToBuffer(src.(*buffer).buf, uint64(srcOff), dst.(*buffer).buf, uint64(dstOff), uint64(size))
}

// Timestamp writes a timestamp with an empty compute pass whose end is
// stamped: WebGPU has timestamps only at pass boundaries (the encoder-level
// writeTimestamp is an extension), and the end of a pass is written after
// the commands before it.
func (e *encoder) Timestamp() (int, error) {
	if e.nts >= backend.MaxTimestamps {
		return 0, fmt.Errorf("more than %d timestamps in one submission", backend.MaxTimestamps)
	}
	e.endPass()
	qs, _, err := e.d.timestampQueries()
	if err != nil {
		return 0, err
	}
	pass := jsOf(e.enc).Call("beginComputePass", map[string]any{
		"timestampWrites": map[string]any{"querySet": qs, "endOfPassWriteIndex": e.nts},
	})
	pass.Call("end")
	e.nts++
	return e.nts - 1, nil
}

func (e *encoder) Discard() { e.endPass() }

func (e *encoder) Submit(ctx context.Context, reads []backend.Range) (*backend.Result, error) {
	d := e.d
	e.endPass()
	total := int64(8 * e.nts) // timestamps first, then each read
	offs := make([]int64, len(reads))
	for i, r := range reads {
		offs[i] = total
		total += (r.Size + 7) &^ 7
	}
	var stage *wgpu.Buffer
	if total > 0 {
		var err error
		if stage, err = d.stagingFor(total); err != nil {
			return nil, err
		}
	}
	if err := e.recordReadback(stage, reads, offs); err != nil {
		return nil, err
	}
	cb, err := e.enc.Finish(nil)
	if err != nil {
		return nil, err
	}
	if err := d.st.check(); err != nil {
		return nil, err
	}
	for _, a := range d.arenas[:min(e.arena+1, len(d.arenas))] {
		if len(a.data) > 0 {
			d.write(a.buf, 0, a.data)
		}
	}
	d.dev.GetQueue().Submit(cb)
	if total == 0 {
		return &backend.Result{}, nil
	}
	return e.mapBack(ctx, stage, total, reads, offs)
}

// recordReadback resolves the timestamps and copies them and every read
// range into stage.
func (e *encoder) recordReadback(stage *wgpu.Buffer, reads []backend.Range, offs []int64) error {
	if e.nts > 0 {
		qs, rb, err := e.d.timestampQueries()
		if err != nil {
			return err
		}
		jsOf(e.enc).Call("resolveQuerySet", qs, 0, e.nts, jsOf(rb), 0)
		if err := e.enc.CopyBufferToBuffer(rb, 0, stage, 0, uint64(8*e.nts)); err != nil {
			return err
		}
	}
	for i, r := range reads {
		if err := e.enc.CopyBufferToBuffer(r.Buf.(*buffer).buf, uint64(r.Off), stage, uint64(offs[i]), uint64(r.Size)); err != nil {
			return err
		}
	}
	return nil
}

// mapBack maps the staging buffer once the submission is done and copies
// each region out.
func (e *encoder) mapBack(ctx context.Context, stage *wgpu.Buffer, total int64, reads []backend.Range, offs []int64) (*backend.Result, error) {
	sj := jsOf(stage)
	const mapRead = 1 // GPUMapMode.READ
	if _, err := await(ctx, sj.Call("mapAsync", mapRead, 0, total)); err != nil {
		if ctx.Err() != nil {
			// Abandon the pending map (its promise rejects with an
			// AbortError nobody waits for) so that the next read can map
			// the staging buffer again; the submitted work still runs.
			sj.Call("unmap")
		}
		if cerr := e.d.st.check(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("wgpu: map staging buffer: %w", err)
	}
	defer sj.Call("unmap")
	mapped := js.Global().Get("Uint8Array").New(sj.Call("getMappedRange", 0, total))
	res := &backend.Result{Reads: make([][]byte, len(reads))}
	if e.nts > 0 {
		stamps := make([]byte, 8*e.nts)
		js.CopyBytesToGo(stamps, mapped.Call("subarray", 0, len(stamps)))
		for i := 0; i < e.nts; i++ {
			res.Timestamps = append(res.Timestamps, binary.LittleEndian.Uint64(stamps[8*i:]))
		}
	}
	for i, r := range reads {
		res.Reads[i] = make([]byte, r.Size)
		js.CopyBytesToGo(res.Reads[i], mapped.Call("subarray", offs[i], offs[i]+r.Size))
	}
	return res, e.d.st.check()
}
