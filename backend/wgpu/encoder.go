//go:build !js

package wgpu

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// encoder is a backend.EncoderImpl. Consecutive dispatches share one
// compute pass (wgpu orders dispatches of a pass and inserts the barriers
// between them); a copy, a timestamp or the submit ends the pass.
type encoder struct {
	d       *device
	enc     *wgpu.CommandEncoder
	pass    *wgpu.ComputePassEncoder
	cur     *pipeline // pipeline set in the open pass
	arena   int       // index of the params arena in use
	nts     int       // timestamps written
	dynOff  [1]uint32
	scratch []*wgpu.BindGroup // uncached bind groups, released after submit
}

func (e *encoder) Dispatch(pi backend.PipelineImpl, params []byte, bufs []backend.Range, groups [3]uint32) error {
	p := pi.(*pipeline)
	var ab *wgpu.Buffer
	if p.params > 0 {
		var err error
		ab, e.dynOff[0], err = e.pushParams(params)
		if err != nil {
			return err
		}
	}
	bg, err := e.bindGroup(p, ab, bufs)
	if err != nil {
		return err
	}
	if e.pass == nil {
		e.pass = e.enc.BeginComputePass(nil)
		e.cur = nil
	}
	if e.cur != p {
		e.pass.SetPipeline(p.pipe)
		e.cur = p
	}
	if ab != nil {
		e.pass.SetBindGroup(0, bg, e.dynOff[:])
	} else {
		e.pass.SetBindGroup(0, bg, nil)
	}
	e.pass.DispatchWorkgroups(groups[0], groups[1], groups[2])
	return nil
}

// bindGroup returns the bind group of a dispatch (bindGroupFor); one
// outside the cache is released after the submit.
func (e *encoder) bindGroup(p *pipeline, ab *wgpu.Buffer, bufs []backend.Range) (*wgpu.BindGroup, error) {
	bg, cached, err := e.d.bindGroupFor(p, ab, bufs)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "wgpu.(*Device).CreateBindGroup(): "))
	}
	if !cached {
		e.scratch = append(e.scratch, bg)
	}
	return bg, nil
}

// endPass closes the open compute pass, returning wgpu's validation error.
func (e *encoder) endPass() error {
	if e.pass == nil {
		return nil
	}
	err := e.pass.End()
	e.pass.Release()
	e.pass, e.cur = nil, nil
	if err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "wgpu.(*ComputePassEncoder).End(): "))
	}
	return nil
}

func (e *encoder) Copy(src backend.BufferImpl, srcOff int64, dst backend.BufferImpl, dstOff int64, size int64) error {
	if err := e.endPass(); err != nil {
		return err
	}
	return e.enc.CopyBufferToBuffer(src.(*buffer).buf, uint64(srcOff), dst.(*buffer).buf, uint64(dstOff), uint64(size))
}

func (e *encoder) Timestamp() (int, error) {
	if e.nts >= backend.MaxTimestamps {
		return 0, fmt.Errorf("more than %d timestamps in one submission", backend.MaxTimestamps)
	}
	if err := e.endPass(); err != nil {
		return 0, err
	}
	qs, _, err := e.d.timestampQueries()
	if err != nil {
		return 0, err
	}
	if err := e.enc.WriteTimestamp(qs, uint32(e.nts)); err != nil {
		return 0, err
	}
	e.nts++
	return e.nts - 1, nil
}

func (e *encoder) Discard() {
	_ = e.endPass()
	e.enc.Release()
	e.releaseScratch()
}

func (e *encoder) releaseScratch() {
	for _, bg := range e.scratch {
		bg.Release()
	}
	e.scratch = nil
}

func (e *encoder) Submit(ctx context.Context, reads []backend.Range) (*backend.Result, error) {
	d := e.d
	defer e.releaseScratch()
	if err := e.endPass(); err != nil {
		e.enc.Release()
		return nil, err
	}
	// Stage timestamps first, then each read, 8-byte aligned.
	total := int64(8 * e.nts)
	offs := make([]int64, len(reads))
	for i, r := range reads {
		offs[i] = total
		total += (r.Size + 7) &^ 7
	}
	var stage *wgpu.Buffer
	if total > 0 {
		var err error
		if stage, err = d.stagingFor(total); err != nil {
			e.enc.Release()
			return nil, err
		}
	}
	if err := e.recordReadback(stage, reads, offs); err != nil {
		e.enc.Release()
		return nil, err
	}
	cb, err := e.enc.Finish(nil)
	e.enc.Release()
	if err != nil {
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "wgpu.(*CommandEncoder).Finish(): "))
	}
	// An error raised outside a scope while recording (or a lost device)
	// must stop the submit: Queue.Submit aborts on invalid work.
	if err := d.state.check(); err != nil {
		cb.Release()
		return nil, err
	}
	for _, a := range d.arenas[:min(e.arena+1, len(d.arenas))] {
		if len(a.data) > 0 {
			if err := d.queue.WriteBuffer(a.buf, 0, a.data); err != nil {
				cb.Release()
				return nil, err
			}
		}
	}
	d.queue.Submit(cb)
	cb.Release()
	if total == 0 {
		return &backend.Result{}, nil
	}
	return e.mapBack(ctx, stage, total, reads, offs)
}

// recordReadback resolves timestamps and copies every read range into stage.
func (e *encoder) recordReadback(stage *wgpu.Buffer, reads []backend.Range, offs []int64) error {
	if e.nts > 0 {
		qs, rb, err := e.d.timestampQueries()
		if err != nil {
			return err
		}
		if err := e.enc.ResolveQuerySet(qs, 0, uint32(e.nts), rb, 0); err != nil {
			return err
		}
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

// mapBack waits for the submission, maps the staging buffer and copies the
// timestamps and regions out.
func (e *encoder) mapBack(ctx context.Context, stage *wgpu.Buffer, total int64, reads []backend.Range, offs []int64) (*backend.Result, error) {
	d := e.d
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var status wgpu.BufferMapAsyncStatus
	done := false
	if err := stage.MapAsync(wgpu.MapModeRead, 0, uint64(total), func(s wgpu.BufferMapAsyncStatus) { status, done = s, true }); err != nil {
		return nil, err
	}
	// Poll(wait) returns when the queue is idle; the map callback runs
	// inside it. (wgpu-native offers no cancellable wait.)
	for i := 0; !done && i < 1000; i++ {
		d.dev.Poll(true, nil)
	}
	if !done {
		return nil, fmt.Errorf("map staging buffer: no callback after waiting for the queue")
	}
	if status != wgpu.BufferMapAsyncStatusSuccess {
		return nil, fmt.Errorf("map staging buffer: %v", status)
	}
	mapped := stage.GetMappedRange(0, uint(total))
	res := &backend.Result{Reads: make([][]byte, len(reads))}
	for i := 0; i < e.nts; i++ {
		res.Timestamps = append(res.Timestamps, uint64(float64(binary.LittleEndian.Uint64(mapped[8*i:]))*e.d.info.TimestampNs))
	}
	for i, r := range reads {
		res.Reads[i] = append([]byte(nil), mapped[offs[i]:offs[i]+r.Size]...)
	}
	if err := stage.Unmap(); err != nil {
		return nil, err
	}
	return res, nil
}
