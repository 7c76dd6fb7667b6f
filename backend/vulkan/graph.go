//go:build linux && cgo

package vulkan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/kcgo/kc/backend"
)

// graph is a command buffer recorded once and resubmitted by every replay
// (backend.GraphImpl). It owns its frame: the command buffer and fence,
// the params memory its dispatches read (rewritten in place by replays
// that change params) and the descriptor sets it binds. It is not recorded
// with ONE_TIME_SUBMIT; it is never in flight twice (a replay waits for
// the previous one), so SIMULTANEOUS_USE is not needed either.
type graph struct {
	d        *device
	f        *frame
	params   []paramLoc // per dispatch, in recording order
	sets     *graphSets
	users    map[paramKey]int // dispatches sharing a params block, where more than one
	run      paramKey         // the block the last dispatches share (share)
	runN     int              // how many share it
	pending  bool             // submitted and not yet seen complete
	released bool
}

// paramLoc is where a dispatch's params block lives in the graph's memory.
type paramLoc struct {
	b   *rawBuffer // nil when the pipeline has no params
	off uint64
	n   int
}

// paramKey names a params block.
type paramKey struct {
	b   *rawBuffer
	off uint64
}

// share notes one more dispatch using the params block at (b, off). The
// sharing dispatches are consecutive, so they are counted in a run and
// noted in users when the run ends (endShare).
func (g *graph) share(b *rawBuffer, off uint64) {
	k := paramKey{b, off}
	if g.run != k {
		g.endShare()
		g.run, g.runN = k, 1
	}
	g.runN++
}

// endShare notes the current run of dispatches sharing a block in users.
func (g *graph) endShare() {
	if g.runN > 1 {
		if g.users == nil {
			g.users = map[paramKey]int{}
		}
		g.users[g.run] = max(g.users[g.run], 1) + g.runN - 1
	}
	g.run, g.runN = paramKey{}, 0
}

// inPlace reports whether updates can be written into the params blocks as
// recorded: every shared block touched gets one content, and either all its
// users are updated or that content is what it holds already.
func (g *graph) inPlace(updates []backend.ParamUpdate) bool {
	if len(g.users) == 0 {
		return true
	}
	type touch struct {
		data []byte
		n    int
	}
	touched := map[paramKey]*touch{}
	seen := map[int]bool{}
	for i := len(updates) - 1; i >= 0; i-- { // the last update of a dispatch wins
		u := updates[i]
		if seen[u.Dispatch] {
			continue
		}
		seen[u.Dispatch] = true
		loc := g.params[u.Dispatch]
		k := paramKey{loc.b, loc.off}
		if g.users[k] < 2 {
			continue
		}
		switch t := touched[k]; {
		case t == nil:
			touched[k] = &touch{u.Params, 1}
		case !bytes.Equal(t.data, u.Params):
			return false
		default:
			t.n++
		}
	}
	for k, t := range touched {
		if t.n < g.users[k] && !bytes.Equal(t.data, k.b.bytes()[k.off:k.off+uint64(len(t.data))]) {
			return false
		}
	}
	return true
}

// graphSets maps what a set binds (pipeline and setKey) to the graph's set
// for it. The key is too large for a Go map to hold inline (every insert
// would allocate), so the map holds a hash and the entries live in a
// slice, chained by hash; the next graph recorded on the frame reuses both.
type graphSets struct {
	idx  map[uint64]int32 // hash -> 1 + index of the last entry with it
	ents []graphSetEnt
}

type graphSetEnt struct {
	p    *pipeline
	k    setKey
	set  uintptr
	next int32 // 1 + index of the previous entry with the same hash, 0: none
}

func (t *graphSets) reset() {
	clear(t.idx)
	t.ents = t.ents[:0]
}

func (t *graphSets) get(p *pipeline, k *setKey) (uintptr, bool) {
	for i := t.idx[hashSet(p, k)]; i != 0; i = t.ents[i-1].next {
		if e := &t.ents[i-1]; e.p == p && e.k == *k {
			return e.set, true
		}
	}
	return 0, false
}

func (t *graphSets) put(p *pipeline, k *setKey, set uintptr) {
	if t.idx == nil {
		t.idx = map[uint64]int32{}
	}
	h := hashSet(p, k)
	t.ents = append(t.ents, graphSetEnt{p: p, k: *k, set: set, next: t.idx[h]})
	t.idx[h] = int32(len(t.ents))
}

// hashSet mixes the words of a set's identity.
func hashSet(p *pipeline, k *setKey) uint64 {
	h := uint64(uintptr(unsafe.Pointer(p)))
	mix := func(x uint64) {
		h = (h ^ x) * 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	mix(uint64(k.uniform))
	mix(uint64(k.n))
	for _, r := range k.r[:k.n] {
		mix(uint64(r.buf))
		mix(uint64(r.off))
		mix(uint64(r.size))
	}
	return h
}

// graphRecorder records a graph through an encoder in graph mode
// (backend.GraphEncoderImpl).
type graphRecorder struct{ e *encoder }

// NewGraph implements backend.GraphDevice.
func (d *device) NewGraph() (backend.GraphEncoderImpl, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	f, err := d.graphFrame()
	if err != nil {
		return nil, err
	}
	f.gsets.reset()
	g := &graph{d: d, f: f, sets: &f.gsets, params: f.gparams[:0]}
	f.owner = g
	if err := d.begin(f, 0); err != nil {
		d.putGraphFrame(f)
		return nil, err
	}
	f.haz.reset()
	f.haz.collect = d.bufferBarrierMode
	d.graphs[g] = struct{}{}
	d.stats.graphs++
	return &graphRecorder{e: &encoder{d: d, f: f, graph: g}}, nil
}

// Dispatch implements backend.GraphEncoderImpl.
func (r *graphRecorder) Dispatch(p backend.PipelineImpl, params []byte, bufs []backend.Range, groups [3]uint32) error {
	return r.e.Dispatch(p, params, bufs, groups)
}

// Copy implements backend.GraphEncoderImpl.
func (r *graphRecorder) Copy(src backend.BufferImpl, srcOff int64, dst backend.BufferImpl, dstOff int64, size int64) error {
	return r.e.Copy(src, srcOff, dst, dstOff, size)
}

// Finish implements backend.GraphEncoderImpl.
func (r *graphRecorder) Finish() (backend.GraphImpl, error) {
	e := r.e
	if err := e.usable(); err != nil {
		r.Discard()
		return nil, err
	}
	e.done = true
	g := e.graph
	g.endShare()
	if g.f.hostRead {
		g.d.hostBarrier(g.f)
	}
	if err := check("vkEndCommandBuffer", g.d.end(g.f.cmd)); err != nil {
		g.Release()
		return nil, err
	}
	return g, nil
}

// Discard implements backend.GraphEncoderImpl.
func (r *graphRecorder) Discard() {
	if r.e.done {
		return
	}
	r.e.done = true
	g := r.e.graph
	g.d.end(g.f.cmd)
	g.Release()
}

// Replay implements backend.GraphImpl.
func (g *graph) Replay(ctx context.Context, updates []backend.ParamUpdate) error {
	d := g.d
	if g.released {
		return errors.New("vulkan: replay of a released graph")
	}
	if err := d.usable(); err != nil {
		return err
	}
	for _, u := range updates {
		if u.Dispatch < 0 || u.Dispatch >= len(g.params) || len(u.Params) != g.params[u.Dispatch].n || g.params[u.Dispatch].b == nil {
			return fmt.Errorf("vulkan: graph params update for dispatch %d (%d bytes) does not match the recording", u.Dispatch, len(u.Params))
		}
	}
	if !g.inPlace(updates) {
		return backend.ErrRerecord
	}
	// The params memory and the command buffer are the graph's own: the
	// previous replay must be done with them.
	for g.pending && len(d.inflight) > 0 {
		if err := d.waitFrame(ctx, d.inflight[0]); err != nil {
			return err
		}
		if err := d.reclaim(false); err != nil {
			return err
		}
	}
	for _, u := range updates {
		loc := g.params[u.Dispatch]
		copy(loc.b.bytes()[loc.off:loc.off+uint64(loc.n)], u.Params)
	}
	if err := d.flushUploads(); err != nil {
		return err
	}
	if err := d.queueSubmit(g.f); err != nil {
		return err
	}
	g.pending = true
	return nil
}

// Release implements backend.GraphImpl: the frame goes once the last
// replay has completed.
func (g *graph) Release() {
	if g.released {
		return
	}
	g.released = true
	d := g.d
	g.f.gparams = g.params[:0]
	delete(d.graphs, g)
	if d.closed {
		return
	}
	if g.pending {
		d.deferFree(func() { d.putGraphFrame(g.f) })
	} else {
		d.putGraphFrame(g.f)
	}
}

// maxGraphFrames bounds the released graph frames kept for new graphs.
const maxGraphFrames = 4

// graphFrame returns a frame for a new graph: a released graph's (its
// params memory, descriptor pools, command buffer and fence reused; the
// fixed cost of a recording is then a few pool resets) or a new one.
func (d *device) graphFrame() (*frame, error) {
	if n := len(d.graphFree); n > 0 {
		f := d.graphFree[n-1]
		d.graphFree = d.graphFree[:n-1]
		d.resetPools(f)
		f.uniIdx, f.uniOff, f.commands, f.serial = 0, 0, 0, 0
		f.hostRead = false
		return f, nil
	}
	f, err := d.newFrame()
	if err != nil {
		return nil, err
	}
	d.frames = d.frames[:len(d.frames)-1] // the graph's, not the free list's
	return f, nil
}

// putGraphFrame keeps a released graph's frame for the next graph (its
// work has completed), or destroys it.
func (d *device) putGraphFrame(f *frame) {
	f.owner = nil
	if d.closed || len(d.graphFree) >= maxGraphFrames {
		d.destroyFrame(f)
		return
	}
	d.graphFree = append(d.graphFree, f)
}
