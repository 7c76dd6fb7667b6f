//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/kcgo/kc/backend"
)

// frame is one command buffer with everything its recording needs: the
// fence of its submission, the params ring, upload staging, the readback
// buffer and the timestamp query pool. Frames are recycled once their fence
// has signalled.
type frame struct {
	cmd    uintptr
	pool   uintptr // the command pool cmd comes from, when the frame has its own
	fence  uintptr
	serial uint64 // submission order; assigned at submit

	uniforms []*rawBuffer // params ring chunks of uniformChunk bytes
	uniIdx   int
	uniOff   uint64

	staging  []*rawBuffer // upload staging chunks
	stageIdx int
	stageOff uint64

	readback *rawBuffer
	query    uintptr
	tsUsed   int // timestamps recorded (0: pool not reset yet)

	pools []uintptr             // descriptor pools for sets not worth caching
	poolN int                   // pools in use
	spare map[uintptr][]uintptr // sets allocated ahead from pools[poolN-1], by layout (frameSet)

	// A graph's bookkeeping, kept with its frame so that the next graph
	// recorded on the frame reuses the memory.
	gsets   graphSets
	gparams []paramLoc

	commands int    // commands recorded since begin
	owner    *graph // the graph whose command buffer this is, or nil
	hostRead bool   // a command wrote a mapped buffer the host may read
	hold     bool   // completed work whose memory is still being read: not recycled yet

	copyKept    bool    // a kept standalone copy (copycache.go): not recycled to the free list
	pendingCopy bool    // a kept copy submitted and not yet seen complete
	haz         hazards // what needs a barrier before the next command (hazard.go)
}

const (
	uniformChunk  = 256 << 10 // bytes per params ring chunk
	stagingChunk  = 4 << 20   // minimum bytes per staging chunk
	maxInflight   = 8         // frames in flight before NewEncoder waits for the oldest
	fenceSlice    = 1_000_000 // ns per vkWaitForFences call while a context can be cancelled
	vkTimeout     = 2
	vkDeviceLost  = -4
	maxCachedBufs = 8
	// maxStagingPiece bounds one staged copy; a frame keeps at most
	// keepStaging bytes of staging and readback memory once recycled.
	maxStagingPiece = 16 << 20
	keepStaging     = 64 << 20
	// maxSetsPerPipeline bounds a pipeline's descriptor-set cache; when
	// full it is emptied (the sets freed once the work using them is done).
	maxSetsPerPipeline = 4096
)

// newRecording starts recording a frame: a recycled one or a new one. The
// caller makes it d.open (an encoder) or d.upl (pending uploads).
func (d *device) newRecording() (*frame, error) {
	if err := d.reclaim(false); err != nil {
		return nil, err
	}
	if len(d.inflight) >= maxInflight {
		if err := d.waitFrame(context.Background(), d.inflight[0]); err != nil {
			return nil, err
		}
		if err := d.reclaim(false); err != nil {
			return nil, err
		}
	}
	f, err := d.beginFrame(cmdBufferOneTimeSubmit)
	if err != nil {
		return nil, err
	}
	f.serial = 0
	f.uniIdx, f.uniOff, f.stageIdx, f.stageOff, f.tsUsed, f.commands = 0, 0, 0, 0, 0, 0
	f.haz.reset()
	f.haz.collect = d.bufferBarrierMode
	f.hostRead = false
	d.resetPools(f)
	return f, nil
}

// beginFrame begins recording a recycled frame, or a new one when none is
// free, with the command-buffer usage flags given; on failure the frame
// goes back to the free list.
func (d *device) beginFrame(flags uint32) (*frame, error) {
	var f *frame
	if n := len(d.free); n > 0 {
		f, d.free = d.free[n-1], d.free[:n-1]
	} else {
		var err error
		if f, err = d.newFrame(); err != nil {
			return nil, err
		}
	}
	if err := d.begin(f, flags); err != nil {
		d.free = append(d.free, f)
		return nil, err
	}
	return f, nil
}

// envPools selects where frames' command buffers come from: "shared" is
// one command pool for all (created with RESET_COMMAND_BUFFER, each
// buffer reset implicitly when it is begun again); otherwise each frame
// has a pool of its own, reset as a whole before each recording, which
// drivers can do without freeing and reallocating (NVIDIA advises against
// RESET_COMMAND_BUFFER pools). It exists to measure the two on a device
// (scripts/h200-runtime.sh).
const envPools = "KC_VULKAN_POOLS"

// begin resets f's command buffer (through its pool, when it has its own)
// and begins recording with flags.
func (d *device) begin(f *frame, flags uint32) error {
	if f.pool != 0 {
		if err := check("vkResetCommandPool", call(d.resetCmdPool, d.l.handle, f.pool, 0)); err != nil {
			return err
		}
	}
	a := d.scratch
	defer a.reset()
	bi := newIn[vkCommandBufferBeginInfo](a)
	bi.sType = stCommandBufferBeginInfo
	bi.flags = flags
	return check("vkBeginCommandBuffer", call(d.l.fn.BeginCommandBuffer, f.cmd, addr(bi)))
}

// resetPools frees every descriptor set allocated from f's pools.
func (d *device) resetPools(f *frame) {
	for _, p := range f.pools[:f.poolN] {
		call(d.l.fn.ResetDescriptorPool, d.l.handle, p, 0)
	}
	f.poolN = 0
	clear(f.spare)
}

// newFrame allocates a command buffer (from a pool of the frame's own
// unless KC_VULKAN_POOLS=shared) and a fence.
func (d *device) newFrame() (*frame, error) {
	var a arena
	defer a.free()
	pool, own := d.cmdPool, uintptr(0)
	if !d.sharedPool {
		pci := newIn[vkCommandPoolCreateInfo](&a)
		pci.sType = stCommandPoolCreateInfo
		pci.queueFamilyIndex = uint32(d.l.phys.family)
		ph := newIn[uintptr](&a)
		if err := check("vkCreateCommandPool", call(d.l.fn.CreateCommandPool, d.l.handle, addr(pci), 0, addr(ph))); err != nil {
			return nil, err
		}
		pool, own = *ph, *ph
	}
	ai := newIn[vkCommandBufferAllocateInfo](&a)
	ai.sType = stCommandBufferAllocateInfo
	ai.commandPool = pool
	ai.level = cmdBufferLevelPrimary
	ai.commandBufferCount = 1
	pc := newIn[uintptr](&a)
	if err := check("vkAllocateCommandBuffers", call(d.l.fn.AllocateCommandBuffers, d.l.handle, addr(ai), addr(pc))); err != nil {
		if own != 0 {
			call(d.l.fn.DestroyCommandPool, d.l.handle, own, 0)
		}
		return nil, err
	}
	fi := newIn[vkFenceCreateInfo](&a)
	fi.sType = stFenceCreateInfo
	pf := newIn[uintptr](&a)
	if err := check("vkCreateFence", call(d.l.fn.CreateFence, d.l.handle, addr(fi), 0, addr(pf))); err != nil {
		if own != 0 {
			call(d.l.fn.DestroyCommandPool, d.l.handle, own, 0)
		} else {
			call(d.l.fn.FreeCommandBuffers, d.l.handle, d.cmdPool, 1, addr(pc))
		}
		return nil, err
	}
	f := &frame{cmd: *pc, pool: own, fence: *pf}
	d.frames = append(d.frames, f)
	return f, nil
}

// destroyFrame frees everything a frame owns (its work has completed).
func (d *device) destroyFrame(f *frame) {
	var a arena
	defer a.free()
	if f.pool != 0 {
		call(d.l.fn.DestroyCommandPool, d.l.handle, f.pool, 0) // frees f.cmd
	} else {
		pc := newIn[uintptr](&a)
		*pc = f.cmd
		call(d.l.fn.FreeCommandBuffers, d.l.handle, d.cmdPool, 1, addr(pc))
	}
	call(d.l.fn.DestroyFence, d.l.handle, f.fence, 0)
	for _, b := range f.uniforms {
		d.l.freeRawBuffer(b)
	}
	for _, b := range f.staging {
		d.l.freeRawBuffer(b)
	}
	d.l.freeRawBuffer(f.readback)
	if f.query != 0 {
		call(d.l.fn.DestroyQueryPool, d.l.handle, f.query, 0)
	}
	for _, p := range f.pools {
		call(d.l.fn.DestroyDescriptorPool, d.l.handle, p, 0)
	}
}

// transferBarrier records the barrier a transfer command with the given
// accesses needs, if any.
func (d *device) transferBarrier(f *frame, acc ...access) {
	if f.haz.barrierFor(acc, false) != barrierNone {
		d.cmds.barrier(d.cmdFns, f.cmd)
	}
}

// params copies a dispatch's params block into the frame's ring and returns
// the chunk and the offset.
func (d *device) params(f *frame, data []byte) (*rawBuffer, uint64, error) {
	n := uint64(len(data))
	for {
		if f.uniIdx == len(f.uniforms) {
			b, err := d.l.newRawBuffer(max(uniformChunk, n), bufUsageUniform, memUpload)
			if err != nil {
				return nil, 0, err
			}
			f.uniforms = append(f.uniforms, b)
		}
		b := f.uniforms[f.uniIdx]
		off := alignUp(f.uniOff, d.uniAlign)
		if off+n <= b.size {
			copy(b.bytes()[off:off+n], data)
			f.uniOff = off + n
			return b, off, nil
		}
		f.uniIdx++
		f.uniOff = 0
	}
}

// stage copies upload data into the frame's staging memory and returns the
// staging buffer and offset.
func (d *device) stage(f *frame, data []byte) (*rawBuffer, uint64, error) {
	n := uint64(len(data))
	for {
		if f.stageIdx == len(f.staging) {
			b, err := d.l.newRawBuffer(max(stagingChunk, alignUp(n, 1<<20)), bufUsageTransferSrc, memStaging)
			if err != nil {
				return nil, 0, err
			}
			f.staging = append(f.staging, b)
		}
		b := f.staging[f.stageIdx]
		off := alignUp(f.stageOff, 16)
		if off+n <= b.size {
			parallelCopy(b.bytes()[off:off+n], data)
			f.stageOff = off + n
			return b, off, nil
		}
		f.stageIdx++
		f.stageOff = 0
	}
}

func alignUp(x, a uint64) uint64 {
	if a <= 1 {
		return x
	}
	return (x + a - 1) / a * a
}

// submit ends a recording frame (d.open or d.upl) and submits it with its
// fence. Serials follow submission order, so frames complete in serial
// order on the one queue.
func (d *device) submit(f *frame) error {
	if d.open == f {
		d.open = nil
	}
	if d.upl == f {
		d.upl = nil
	}
	if f.hostRead {
		d.hostBarrier(f)
	}
	if err := check("vkEndCommandBuffer", d.end(f.cmd)); err != nil {
		d.free = append(d.free, f)
		return err
	}
	if err := d.queueSubmit(f); err != nil {
		d.free = append(d.free, f)
		return err
	}
	return nil
}

// queueSubmit submits a recorded frame's command buffer with its fence.
func (d *device) queueSubmit(f *frame) error {
	a := d.scratch
	defer a.reset()
	pc := newIn[uintptr](a)
	*pc = f.cmd
	si := newIn[vkSubmitInfo](a)
	si.sType = stSubmitInfo
	si.commandBufferCount = 1
	si.pCommandBuffers = addr(pc)
	if lk := d.l.queueLock; lk != nil {
		lk.Lock()
		defer lk.Unlock()
	}
	if err := d.lost("vkQueueSubmit", call(d.l.fn.QueueSubmit, d.l.queue, 1, addr(si), f.fence)); err != nil {
		return err
	}
	d.serial++
	f.serial = d.serial
	d.inflight = append(d.inflight, f)
	d.stats.submits++
	return nil
}

// lost wraps VK_ERROR_DEVICE_LOST in backend.ErrDeviceLost.
func (d *device) lost(name string, r int32) error {
	err := check(name, r)
	if r == vkDeviceLost {
		d.isLost = true
		return fmt.Errorf("%w: %w", backend.ErrDeviceLost, err)
	}
	return err
}

// fenceSpin is how long waitFrame polls a fence before blocking in
// vkWaitForFences. A blocking wait on the H200 costs about 40 µs of wake-up
// latency (a one-dispatch submit and wait took 46 µs there on 2026-12-01),
// more than most of the waits kc does; polling, as CUDA's default
// synchronisation does, returns within a poll's time of the signal. Not on
// a CPU device (lavapipe), whose own threads need the core a poll would
// take.
const fenceSpin = 2 * time.Millisecond

// waitFrame blocks until f's fence signals or ctx is done.
func (d *device) waitFrame(ctx context.Context, f *frame) error {
	if start := time.Now(); d.info.Type != backend.TypeCPU {
		for i := 0; ; i++ {
			switch r := call(d.l.fn.GetFenceStatus, d.l.handle, f.fence); r {
			case 0:
				return nil
			case 1: // VK_NOT_READY
			default:
				return d.lost("vkGetFenceStatus", r)
			}
			if i%64 == 63 {
				if time.Since(start) > fenceSpin || ctx.Err() != nil {
					break
				}
				runtime.Gosched()
			}
		}
	}
	var a arena
	defer a.free()
	pf := newIn[uintptr](&a)
	*pf = f.fence
	timeout := ^uintptr(0)
	if ctx.Done() != nil {
		timeout = fenceSlice
	}
	for {
		r := call(d.l.fn.WaitForFences, d.l.handle, 1, addr(pf), 1, timeout)
		switch r {
		case 0:
			return nil
		case vkTimeout:
			if err := ctx.Err(); err != nil {
				return err
			}
		default:
			return d.lost("vkWaitForFences", r)
		}
	}
}

// reclaim recycles the in-flight frames whose fences have signalled (all of
// them, waiting, when all is set) and frees garbage whose work is done.
func (d *device) reclaim(all bool) error {
	var err error
	i := 0
	for ; i < len(d.inflight); i++ {
		f := d.inflight[i]
		if f.hold {
			break
		}
		if all {
			if err = d.waitFrame(context.Background(), f); err != nil {
				break
			}
		} else {
			r := call(d.l.fn.GetFenceStatus, d.l.handle, f.fence)
			if r == 1 { // VK_NOT_READY
				break
			}
			if r != 0 {
				err = d.lost("vkGetFenceStatus", r)
				break
			}
		}
		d.recycle(f)
	}
	d.inflight = d.inflight[:copy(d.inflight, d.inflight[i:])]
	d.collect()
	return err
}

// recycle returns a completed frame to the free list.
func (d *device) recycle(f *frame) {
	a := d.scratch
	defer a.reset()
	pf := newIn[uintptr](a)
	*pf = f.fence
	call(d.l.fn.ResetFences, d.l.handle, 1, addr(pf))
	d.done = max(d.done, f.serial)
	if f.owner != nil { // a graph's: it stays the graph's
		f.owner.pending = false
		return
	}
	if f.pendingCopy {
		f.pendingCopy = false
		if f.copyKept { // kept for the next such copy
			return
		}
	}
	d.trimFrame(f)
	d.free = append(d.free, f)
}

// trimFrame frees the staging and readback memory a frame holds beyond
// keepStaging bytes (after a large upload or read).
func (d *device) trimFrame(f *frame) {
	var kept uint64
	keep := f.staging[:0]
	for _, b := range f.staging {
		if kept+b.size <= keepStaging {
			kept += b.size
			keep = append(keep, b)
		} else {
			d.l.freeRawBuffer(b)
		}
	}
	f.staging = keep
	if f.readback != nil && f.readback.size > keepStaging {
		d.l.freeRawBuffer(f.readback)
		f.readback = nil
	}
}

// garbage is an object to destroy once the frame with serial has completed.
type garbage struct {
	serial uint64
	free   func()
}

// deferFree schedules free for when all work recorded so far has
// completed: the frames in flight and the (at most two) recording frames,
// which will be submitted with the next serials.
func (d *device) deferFree(free func()) {
	pending := uint64(0)
	if d.open != nil {
		pending++
	}
	if d.upl != nil {
		pending++
	}
	if pending == 0 && len(d.inflight) == 0 {
		d.cmds.flush() // no batched command may refer to what goes
		free()
		return
	}
	d.garbage = append(d.garbage, garbage{d.serial + pending, free})
}

// collect frees the garbage whose frames have completed.
func (d *device) collect() {
	keep := d.garbage[:0]
	for _, g := range d.garbage {
		if g.serial <= d.done {
			g.free()
		} else {
			keep = append(keep, g)
		}
	}
	d.garbage = keep
}

var errClosed = errors.New("vulkan: device is closed")
