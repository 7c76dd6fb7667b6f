package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Replayable graphs: record a sequence of dispatches and copies once, then
// submit it many times, changing scalar params and rebinding buffers
// between replays, the way a CUDA graph is captured once and launched
// many times.
//
// A driver that implements GraphDevice (Vulkan) records one command buffer
// and resubmits it: a replay costs one queue submit, whatever the number
// of dispatches. New params are written into the graph's own params memory
// without re-recording. Rebinding a buffer re-records the command buffer at
// the next replay: core Vulkan invalidates a recorded command buffer when a
// descriptor set it binds is updated. A driver without GraphDevice (wgpu:
// WebGPU has render bundles but no compute bundles, so nothing recorded can
// be resubmitted) re-records the ops into one encoder at every replay,
// which is what Run does; the API and its checks are the same.

// GraphDevice is implemented by a DeviceImpl that can record work once and
// submit it many times.
type GraphDevice interface {
	// NewGraph starts recording a graph. Its Dispatch and Copy calls have
	// the EncoderImpl contract (package backend checks them the same way);
	// nothing is submitted until the GraphImpl that Finish returns is
	// replayed.
	NewGraph() (GraphEncoderImpl, error)
}

// GraphEncoderImpl records a graph.
type GraphEncoderImpl interface {
	Dispatch(p PipelineImpl, params []byte, bufs []Range, groups [3]uint32) error
	Copy(src BufferImpl, srcOff int64, dst BufferImpl, dstOff int64, size int64) error
	// Finish ends recording.
	Finish() (GraphImpl, error)
	// Discard drops the recording (after an error).
	Discard()
}

// ParamUpdate replaces the params block of the dispatch with index
// Dispatch (counting dispatches only, in recording order).
type ParamUpdate struct {
	Dispatch int
	Params   []byte
}

// GraphImpl is a recorded graph.
type GraphImpl interface {
	// Replay writes the params updates and submits the graph, ordered after
	// all work submitted before the call (package backend submits its open
	// encoder first) and before all work submitted after it; it does not
	// wait for the graph to complete. If the previous replay of this graph
	// is still running it waits for it first (honouring ctx), since the
	// params memory and the command buffer are the graph's own. A driver
	// that gave dispatches with equal params one params block returns
	// ErrRerecord, before writing or submitting anything, when the updates
	// would give them different ones; package backend then records the
	// graph again (with the params as they now are) and replays that.
	Replay(ctx context.Context, updates []ParamUpdate) error
	// Release frees the graph once its last replay has completed.
	Release()
}

// ErrRerecord is a GraphImpl's answer to params updates it cannot write in
// place (GraphImpl.Replay).
var ErrRerecord = errors.New("backend: graph must be recorded again for these params")

// Graph is recorded work, replayable many times (Device.Record).
type Graph struct {
	d        *Device
	ops      []graphOp
	impl     GraphImpl     // nil: re-recorded at each replay
	updates  []ParamUpdate // params changed since the last replay
	dirty    bool          // buffers rebound: impl must be re-recorded
	released bool
}

// graphOp is a recorded op, with copies of its arguments.
type graphOp struct {
	p        *Pipeline // nil for a copy
	args     Args
	groups   [3]uint32
	dispatch int // index among the dispatches (-1 for copies)
	dst, src View
}

// Record checks ops (as Dispatch and Copy check them) and records them
// into a graph that Replay submits. The ops' arguments are copied; the
// buffers they bind must stay alive (not Released) while the graph is
// replayed: a replay that binds a released buffer is an error. Ops with a
// zero workgroup count are kept and do nothing, as in Run.
func (d *Device) Record(ops ...Op) (*Graph, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	g := &Graph{d: d, ops: make([]graphOp, 0, len(ops))}
	// The ops' arguments are copied into two slabs (one allocation each,
	// not two per dispatch).
	np, nb := 0, 0
	for _, op := range ops {
		if o, ok := op.(*DispatchOp); ok {
			np, nb = np+len(o.Args.Params), nb+len(o.Args.Buffers)
		}
	}
	params, views := make([]uint32, 0, np), make([]View, 0, nb)
	n := 0
	for i, op := range ops {
		switch o := op.(type) {
		case *DispatchOp:
			if err := d.checkDispatch(o.Pipeline, o.Args, o.Groups); err != nil {
				return nil, fmt.Errorf("backend: record op %d: %w", i, err)
			}
			p0, v0 := len(params), len(views)
			params, views = append(params, o.Args.Params...), append(views, o.Args.Buffers...)
			args := Args{Params: params[p0:len(params):len(params)], Buffers: views[v0:len(views):len(views)]}
			if len(args.Params) == 0 && o.Args.Params == nil {
				args.Params = nil
			}
			g.ops = append(g.ops, graphOp{p: o.Pipeline, args: args, groups: o.Groups, dispatch: n})
			n++
		case *CopyOp:
			if err := d.checkCopy(o.Dst, o.Src); err != nil {
				return nil, fmt.Errorf("backend: record op %d: %w", i, err)
			}
			g.ops = append(g.ops, graphOp{dispatch: -1, dst: o.Dst, src: o.Src})
		default:
			return nil, fmt.Errorf("backend: record op %d: unknown op type %T", i, op)
		}
	}
	if err := g.recordLocked(); err != nil {
		return nil, err
	}
	return g, nil
}

// Len is the number of ops in the graph.
func (g *Graph) Len() int { return len(g.ops) }

// recordLocked records the ops into a driver graph (when the driver has
// them), replacing the previous one.
func (g *Graph) recordLocked() error {
	d := g.d
	gd, ok := d.impl.(GraphDevice)
	if !ok {
		return nil
	}
	if g.impl != nil {
		g.impl.Release()
		g.impl = nil
	}
	ge, err := gd.NewGraph()
	if err != nil {
		return fmt.Errorf("backend: new graph: %w", err)
	}
	for i := range g.ops {
		op := &g.ops[i]
		if op.p == nil {
			err = ge.Copy(op.src.Buf.impl, op.src.Off, op.dst.Buf.impl, op.dst.Off, roundUp(op.src.Size, 4))
		} else if op.groups[0] != 0 && op.groups[1] != 0 && op.groups[2] != 0 {
			params, ranges := d.packArgs(op.p, op.args, op.groups)
			err = ge.Dispatch(op.p.impl, params, ranges, op.groups)
		}
		if err != nil {
			ge.Discard()
			return fmt.Errorf("backend: record graph op %d: %w", i, err)
		}
	}
	impl, err := ge.Finish()
	if err != nil {
		return fmt.Errorf("backend: record graph: %w", err)
	}
	g.impl, g.dirty, g.updates = impl, false, g.updates[:0]
	return nil
}

// dispatchOp returns op i, which must be a dispatch.
func (g *Graph) dispatchOp(i int) (*graphOp, error) {
	if g.released {
		return nil, errors.New("backend: graph was released")
	}
	if i < 0 || i >= len(g.ops) {
		return nil, fmt.Errorf("backend: graph has no op %d (it has %d)", i, len(g.ops))
	}
	if g.ops[i].p == nil {
		return nil, fmt.Errorf("backend: graph op %d is a copy, not a dispatch", i)
	}
	return &g.ops[i], nil
}

// SetParams replaces the scalar params of op i (a dispatch) for the
// following replays. They are checked like Dispatch's; no re-recording is
// needed.
func (g *Graph) SetParams(i int, params ...uint32) error {
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	op, err := g.dispatchOp(i)
	if err != nil {
		return err
	}
	args := Args{Params: params, Buffers: op.args.Buffers}
	if err := d.checkDispatch(op.p, args, op.groups); err != nil {
		return err
	}
	op.args.Params = append(op.args.Params[:0], params...)
	if g.impl != nil && !g.dirty {
		pb, _ := d.packArgs(op.p, op.args, op.groups)
		g.updates = append(g.updates, ParamUpdate{Dispatch: op.dispatch, Params: slices.Clone(pb)})
	}
	return nil
}

// SetBuffers rebinds the buffers of op i (a dispatch) for the following
// replays; they are checked like Dispatch's. On the Vulkan driver the next
// replay re-records the graph (about a microsecond per dispatch).
func (g *Graph) SetBuffers(i int, bufs ...View) error {
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	op, err := g.dispatchOp(i)
	if err != nil {
		return err
	}
	args := Args{Params: op.args.Params, Buffers: bufs}
	if err := d.checkDispatch(op.p, args, op.groups); err != nil {
		return err
	}
	op.args.Buffers = append(op.args.Buffers[:0], bufs...)
	g.dirty = true
	return nil
}

// Replay submits the graph after the work recorded or submitted before it
// (an open scope's work is submitted first) and returns without waiting;
// Device.Wait or a Read waits. Every buffer the graph binds must still be
// alive: one that was released is an error (nothing is submitted), not a
// fault on the device.
func (g *Graph) Replay(ctx context.Context) error {
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if g.released {
		return errors.New("backend: replay of a released graph")
	}
	for i := range g.ops {
		op := &g.ops[i]
		var views []View
		if op.p == nil {
			views = []View{op.src, op.dst}
		} else {
			views = op.args.Buffers
		}
		for _, v := range views {
			if v.Buf.released {
				return &BindError{Binding: -1, Msg: fmt.Sprintf("replay: op %d binds a released buffer", i)}
			}
		}
	}
	if err := d.flushLocked(ctx); err != nil {
		return err
	}
	if _, ok := d.impl.(GraphDevice); !ok {
		return g.rerecordLocked(ctx)
	}
	if g.dirty || g.impl == nil {
		if err := g.recordLocked(); err != nil {
			return err
		}
	}
	err := g.impl.Replay(ctx, g.updates)
	if errors.Is(err, ErrRerecord) {
		if err = g.recordLocked(); err == nil {
			err = g.impl.Replay(ctx, nil)
		}
	}
	g.updates = g.updates[:0]
	d.stats.Submits++
	d.stats.Replays++
	d.stats.Dispatches += uint64(g.dispatches())
	if err != nil {
		return fmt.Errorf("backend: replay: %w", err)
	}
	return nil
}

func (g *Graph) dispatches() int {
	n := 0
	for _, op := range g.ops {
		if op.p != nil {
			n++
		}
	}
	return n
}

// rerecordLocked is the replay of a driver without GraphDevice: the ops go
// into one encoder, submitted at once.
func (g *Graph) rerecordLocked(ctx context.Context) error {
	d := g.d
	d.depth++
	var err error
	for i := range g.ops {
		op := &g.ops[i]
		if op.p == nil {
			err = d.copyLocked(op.dst, op.src)
		} else if op.groups[0] != 0 && op.groups[1] != 0 && op.groups[2] != 0 {
			err = d.recordDispatch(op.p, op.args, op.groups)
		}
		if err != nil {
			break
		}
	}
	d.depth--
	if err != nil {
		if d.depth == 0 {
			d.scopeErr = nil
		}
		return fmt.Errorf("backend: replay: %w", err)
	}
	d.stats.Replays++
	return d.flushLocked(ctx)
}

// Release frees the graph (once its last replay has completed); it cannot
// be replayed afterwards. Releasing twice is a no-op.
func (g *Graph) Release() {
	d := g.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if g.released {
		return
	}
	g.released = true
	if g.impl != nil && !d.closed {
		g.impl.Release()
	}
	g.impl = nil
}
