//go:build linux && cgo

package vulkan

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/kcgo/kc/backend"
)

// encoder records one frame (backend.EncoderImpl).
type encoder struct {
	d        *device
	f        *frame
	lastPipe *pipeline
	lastSet  uintptr
	ts       int
	done     bool
	acc      []access // scratch for Dispatch
	lastOff  uint64   // dynamic offset the bound set was bound with

	// The last params block written, for reuse by an identical one.
	lastParams []byte
	lastUni    *rawBuffer
	lastUOff   uint64
	graph      *graph // recording a graph (graph.go), or nil

	// The graph set the last dispatch bound, and its key.
	lastGP *pipeline
	lastGK setKey
	lastGS uintptr
}

// NewEncoder implements backend.DeviceImpl. Pending uploads are submitted
// first; uploads made while it is open go to a frame of their own, so that
// discarding the encoder cannot drop them.
func (d *device) NewEncoder() (backend.EncoderImpl, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if d.open != nil {
		return nil, errors.New("vulkan: an encoder is already open")
	}
	if err := d.flushUploads(); err != nil {
		return nil, err
	}
	f, err := d.newRecording()
	if err != nil {
		return nil, err
	}
	d.open = f
	return &encoder{d: d, f: f}, nil
}

func (e *encoder) usable() error {
	if e.done {
		return errors.New("vulkan: encoder used after Submit or Discard")
	}
	return e.d.usable()
}

// Dispatch implements backend.EncoderImpl.
func (e *encoder) Dispatch(pi backend.PipelineImpl, params []byte, bufs []backend.Range, groups [3]uint32) error {
	if err := e.usable(); err != nil {
		return err
	}
	p, ok := pi.(*pipeline)
	if !ok || p.handle == 0 {
		return errors.New("vulkan: Dispatch of a released or foreign pipeline")
	}
	if len(params) != p.params || len(bufs) != p.nbufs {
		return fmt.Errorf("vulkan: Dispatch with %d params bytes and %d buffers; the pipeline has %d and %d", len(params), len(bufs), p.params, p.nbufs)
	}
	d, f := e.d, e.f
	var uni *rawBuffer
	var uoff uint64
	if p.params > 0 {
		if e.lastUni != nil && bytes.Equal(params, e.lastParams) {
			// The previous dispatch's params block serves again (the set
			// stays bound). In a graph the block is then shared: replays
			// write it in place only while its users' params stay equal
			// (graph.inPlace).
			uni, uoff = e.lastUni, e.lastUOff
			if g := e.graph; g != nil {
				g.share(uni, uoff)
			}
		} else {
			var err error
			if uni, uoff, err = d.params(f, params); err != nil {
				return err
			}
			e.lastParams = append(e.lastParams[:0], params...)
			e.lastUni, e.lastUOff = uni, uoff
		}
	}
	if e.graph != nil {
		e.graph.params = append(e.graph.params, paramLoc{uni, uoff, len(params)})
	}
	set, err := e.descriptorSet(p, uni, bufs)
	if err != nil {
		return err
	}
	var pipe uintptr
	if p != e.lastPipe {
		pipe = p.handle
		e.lastPipe = p
	}
	// The set stays bound across dispatches; rebind it when it, the
	// pipeline or the params' dynamic offset changes.
	bindSet := set
	if set == e.lastSet && pipe == 0 && uoff == e.lastOff {
		bindSet = 0
	}
	e.lastSet, e.lastOff = set, uoff
	acc := e.acc[:0]
	for i, r := range bufs {
		b := r.Buf.(*buffer)
		acc = append(acc, access{b.raw.handle, uint64(r.Off), uint64(r.Size), !p.readOnly[i]})
		f.hostRead = f.hostRead || (b.mapped && !p.readOnly[i])
	}
	e.acc = acc
	barrier := f.haz.barrierFor(acc, true)
	if barrier == barrierCompute && f.haz.collect {
		d.bufferBarriers(f, f.haz.pend)
		barrier = barrierNone
	}
	d.cmds.dispatch(d.cmdFns, f.cmd, barrier, pipe, p.layout, bindSet, p.params > 0, uint32(uoff), groups[0], groups[1], groups[2])
	f.commands++
	d.stats.dispatches++
	return nil
}

// descriptorSet returns a set binding uni (when non-nil) and bufs for p: a
// cached one when p has few enough buffers, else a fresh one from the
// frame's pools.
func (e *encoder) descriptorSet(p *pipeline, uni *rawBuffer, bufs []backend.Range) (uintptr, error) {
	d := e.d
	var k setKey
	cacheable := len(bufs) <= maxCachedBufs
	g := e.graph
	var rawArr [maxCachedBufs]*buffer
	raws := rawArr[:0]
	if !cacheable {
		raws = make([]*buffer, 0, len(bufs))
	}
	for i, r := range bufs {
		b, ok := r.Buf.(*buffer)
		if !ok || b.raw == nil {
			return 0, fmt.Errorf("vulkan: Dispatch binds a released or foreign buffer at binding %d", i+1)
		}
		raws = append(raws, b)
		if cacheable {
			k.r[i].buf, k.r[i].off, k.r[i].size = b.raw.handle, r.Off, r.Size
		}
	}
	if cacheable {
		if uni != nil {
			k.uniform = uni.handle
		}
		k.n = len(bufs)
		if g != nil {
			// A graph's sets are its own (the device cache may free a set
			// while the graph still binds it), shared within the graph.
			// A chain binding what the previous dispatch bound skips the
			// map.
			if p == e.lastGP && k == e.lastGK {
				d.stats.setHits++
				return e.lastGS, nil
			}
			if s, ok := g.sets.get(p, &k); ok {
				d.stats.setHits++
				e.lastGP, e.lastGK, e.lastGS = p, k, s
				return s, nil
			}
		} else if s, ok := p.sets[k]; ok {
			d.stats.setHits++
			return s.set, nil
		}
	}
	var set, pool uintptr
	var err error
	if g != nil {
		set, err = d.frameSet(e.f, p.setLayout)
		if err != nil {
			return 0, err
		}
		d.writeSet(set, p, uni, raws, bufs)
		if cacheable {
			g.sets.put(p, &k, set)
			e.lastGP, e.lastGK, e.lastGS = p, k, set
		}
		return set, nil
	}
	if cacheable {
		n := len(d.setPools)
		set, pool, err = d.allocSet(&d.setPools, &n, p.setLayout, true)
	} else {
		set, err = d.frameSet(e.f, p.setLayout)
	}
	if err != nil {
		return 0, err
	}
	d.writeSet(set, p, uni, raws, bufs)
	if cacheable {
		if len(p.sets) >= maxSetsPerPipeline {
			for old := range p.sets {
				p.evict(old)
			}
		}
		p.sets[k] = cachedSet{set: set, pool: pool}
		for _, b := range raws {
			b.addRef(setRef{p: p, key: k})
		}
	}
	return set, nil
}

// writeSet fills a descriptor set.
func (d *device) writeSet(set uintptr, p *pipeline, uni *rawBuffer, raws []*buffer, bufs []backend.Range) {
	a := d.cmds
	a.reserve()
	n := len(bufs)
	if uni != nil {
		n++
	}
	writes := sliceIn[vkWriteDescriptorSet](a, n)
	infos := sliceIn[vkDescriptorBufferInfo](a, n)
	i := 0
	if uni != nil {
		infos[0] = vkDescriptorBufferInfo{buffer: uni.handle, offset: 0, rng: uint64(p.params)}
		writes[0] = vkWriteDescriptorSet{sType: stWriteDescriptorSet, dstSet: set, dstBinding: 0, descriptorCount: 1, descriptorType: descUniformBufferDynamic, pBufferInfo: addr(&infos[0])}
		i = 1
	}
	for j, r := range bufs {
		infos[i] = vkDescriptorBufferInfo{buffer: raws[j].raw.handle, offset: uint64(r.Off), rng: uint64(r.Size)}
		writes[i] = vkWriteDescriptorSet{sType: stWriteDescriptorSet, dstSet: set, dstBinding: p.bindings[j], descriptorCount: 1, descriptorType: descStorageBuffer, pBufferInfo: addr(&infos[i])}
		i++
	}
	a.call(d.l.fn.UpdateDescriptorSets, d.l.handle, uintptr(n), saddr(writes), 0, 0)
}

// Copy implements backend.EncoderImpl.
func (e *encoder) Copy(src backend.BufferImpl, srcOff int64, dst backend.BufferImpl, dstOff int64, size int64) error {
	if err := e.usable(); err != nil {
		return err
	}
	s, ok1 := src.(*buffer)
	t, ok2 := dst.(*buffer)
	if !ok1 || !ok2 || s.raw == nil || t.raw == nil {
		return errors.New("vulkan: Copy with a released or foreign buffer")
	}
	e.d.copyCmd(e.f, s.raw.handle, uint64(srcOff), t.raw.handle, uint64(dstOff), uint64(size))
	e.f.hostRead = e.f.hostRead || t.mapped
	return nil
}

// Timestamp implements backend.EncoderImpl.
func (e *encoder) Timestamp() (int, error) {
	if err := e.usable(); err != nil {
		return 0, err
	}
	d, f := e.d, e.f
	if e.ts >= backend.MaxTimestamps {
		return 0, fmt.Errorf("vulkan: more than %d timestamps in one encoder", backend.MaxTimestamps)
	}
	if f.query == 0 {
		var a arena
		defer a.free()
		ci := newIn[vkQueryPoolCreateInfo](&a)
		ci.sType = stQueryPoolCreateInfo
		ci.queryType = queryTypeTimestamp
		ci.queryCount = backend.MaxTimestamps
		ph := newIn[uintptr](&a)
		if err := check("vkCreateQueryPool", call(d.l.fn.CreateQueryPool, d.l.handle, addr(ci), 0, addr(ph))); err != nil {
			return 0, err
		}
		f.query = *ph
	}
	if e.ts == 0 {
		d.cmds.call(d.l.fn.CmdResetQueryPool, f.cmd, f.query, 0, backend.MaxTimestamps)
	}
	d.cmds.call(d.l.fn.CmdWriteTimestamp, f.cmd, pipelineStageBottomOfPipe, f.query, uintptr(e.ts))
	e.ts++
	f.tsUsed = e.ts
	return e.ts - 1, nil
}

// Discard implements backend.EncoderImpl.
func (e *encoder) Discard() {
	if e.done {
		return
	}
	e.done = true
	d := e.d
	if d.open == e.f {
		d.end(e.f.cmd)
		d.open = nil
		d.free = append(d.free, e.f)
		d.idle()
	}
}

// Submit implements backend.EncoderImpl. Reads go through host-visible
// readback memory in groups of at most readGroup bytes: the first group in
// the encoder's own command buffer, the others each in a command buffer of
// its own submitted right behind it (up to readAhead in flight), so the
// device copies group k+1 while the host copies group k out.
func (e *encoder) Submit(ctx context.Context, reads []backend.Range) (*backend.Result, error) {
	if err := e.usable(); err != nil {
		e.Discard()
		return nil, err
	}
	d, f := e.d, e.f
	e.done = true
	if f.commands == 0 && len(reads) == 0 && e.ts == 0 {
		e.done = false
		e.Discard()
		return &backend.Result{}, nil
	}
	groups, err := planReads(reads)
	if err == nil && len(groups) > 0 {
		err = d.recordGroup(f, groups[0])
	}
	if err == nil {
		err = d.flushUploads()
	}
	if err != nil {
		e.done = false
		e.Discard()
		return nil, err
	}
	if err := d.submit(f); err != nil {
		return nil, err
	}
	if len(reads) == 0 && e.ts == 0 {
		return &backend.Result{}, nil
	}
	res := &backend.Result{}
	for _, r := range reads {
		if int64(len(r.Dst)) == r.Size {
			res.Reads = append(res.Reads, r.Dst)
		} else {
			res.Reads = append(res.Reads, make([]byte, r.Size))
		}
	}
	f.hold = true
	queue := []*frame{f}
	defer func() { // on an early return: let reclaim have them
		for _, q := range queue {
			q.hold = false
		}
	}()
	next := 1
	for i := 0; i < max(1, len(groups)); i++ {
		for next < len(groups) && len(queue) < readAhead {
			g, err := d.newRecording()
			if err == nil {
				if err = d.recordGroup(g, groups[next]); err == nil {
					err = d.submit(g)
				} else {
					d.end(g.cmd)
					d.free = append(d.free, g)
				}
			}
			if err != nil {
				return nil, err
			}
			g.hold = true
			queue = append(queue, g)
			next++
		}
		g := queue[0]
		if err := d.waitFrame(ctx, g); err != nil {
			return nil, err
		}
		if len(groups) > 0 {
			if err := d.l.invalidate(g.readback); err != nil {
				return nil, err
			}
			mem := g.readback.bytes()
			for _, p := range groups[i] {
				parallelCopy(res.Reads[p.read][p.dstOff:p.dstOff+p.size], mem[p.rbOff:p.rbOff+p.size])
			}
		}
		if i == 0 && e.ts > 0 {
			ts, err := d.timestamps(f, e.ts)
			if err != nil {
				return nil, err
			}
			res.Timestamps = ts
		}
		g.hold = false
		queue = queue[1:]
	}
	return res, d.reclaim(false)
}

const (
	readGroup = 16 << 20 // bytes of reads per command buffer
	readAhead = 4        // read command buffers in flight
)

// readPiece is the part of a read range copied by one group.
type readPiece struct {
	read          int // index among the reads
	buf           uintptr
	srcOff, size  uint64
	dstOff, rbOff uint64 // offsets in the result and in the readback memory
}

// planReads splits the reads into groups of at most readGroup bytes.
func planReads(reads []backend.Range) ([][]readPiece, error) {
	var groups [][]readPiece
	var cur []readPiece
	var used uint64
	for i, r := range reads {
		b, ok := r.Buf.(*buffer)
		if !ok || b.raw == nil {
			return nil, errors.New("vulkan: read of a released or foreign buffer")
		}
		for done := uint64(0); done < uint64(r.Size); {
			if used >= readGroup {
				groups, cur, used = append(groups, cur), nil, 0
			}
			n := min(uint64(r.Size)-done, readGroup-used)
			cur = append(cur, readPiece{read: i, buf: b.raw.handle, srcOff: uint64(r.Off) + done, size: n, dstOff: done, rbOff: used})
			used = alignUp(used+n, 16)
			done += n
		}
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	return groups, nil
}

// recordGroup records the copies of one read group into f's readback
// memory and the barrier that makes them visible to the host.
func (d *device) recordGroup(f *frame, group []readPiece) error {
	last := group[len(group)-1]
	total := last.rbOff + last.size
	if f.readback == nil || f.readback.size < total {
		d.l.freeRawBuffer(f.readback)
		f.readback = nil
		rb, err := d.l.newRawBuffer(max(total, 1<<20), bufUsageTransferDst, memReadback)
		if err != nil {
			return err
		}
		f.readback = rb
	}
	for _, p := range group {
		d.copyCmd(f, p.buf, p.srcOff, f.readback.handle, p.rbOff, p.size)
	}
	d.hostBarrier(f)
	return nil
}

// hostBarrier records a barrier making transfer and shader writes visible
// to host reads (after the fence wait).
func (d *device) hostBarrier(f *frame) {
	a := d.cmds
	a.reserve()
	mb := newIn[vkMemoryBarrier](a)
	*mb = vkMemoryBarrier{sType: stMemoryBarrier, srcAccessMask: accessTransferWrite | accessShaderWrite, dstAccessMask: accessHostRead}
	a.call(d.l.fn.CmdPipelineBarrier, f.cmd, pipelineStageTransfer|pipelineStageComputeShader, pipelineStageHost, 0, 1, addr(mb), 0, 0, 0, 0)
}

// timestamps reads n timestamps of a completed frame, in nanoseconds.
func (d *device) timestamps(f *frame, n int) ([]uint64, error) {
	var a arena
	defer a.free()
	raw := sliceIn[uint64](&a, n)
	r := call(d.l.fn.GetQueryPoolResults, d.l.handle, f.query, 0, uintptr(n), uintptr(8*n), saddr(raw), 8, queryResult64|queryResultWait)
	if err := d.lost("vkGetQueryPoolResults", r); err != nil {
		return nil, err
	}
	out := make([]uint64, n)
	for i, t := range raw {
		out[i] = uint64(float64(t&d.tsMask) * d.tsPeriod)
	}
	return out, nil
}

// minRefPrune is the length of a buffer's set notes below which addRef
// never prunes them.
const minRefPrune = 64

// addRef notes a cached set that binds b, dropping notes of sets that are
// no longer cached when the list has doubled since the last pruning (at
// least minRefPrune long). Pruning looks each note's key up in its
// pipeline's cache; doing it on every call once the list held 64 notes of
// live sets cost 64 hashes of a 208-byte key a binding, 15% of the host's
// time recording the example decoder (CPU profile on lavapipe), where
// the doubling makes it a constant few a call.
func (b *buffer) addRef(r setRef) {
	if len(b.refs) >= max(b.pruneAt, minRefPrune) {
		keep := b.refs[:0]
		for _, q := range b.refs {
			if _, ok := q.p.sets[q.key]; ok {
				keep = append(keep, q)
			}
		}
		clear(b.refs[len(keep):]) // let the dropped pipelines go
		b.refs = keep
		b.pruneAt = 2 * len(keep)
	}
	b.refs = append(b.refs, r)
}
