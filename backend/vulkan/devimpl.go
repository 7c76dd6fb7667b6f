//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/kcgo/kc/backend"
)

// device is the backend.DeviceImpl of the Vulkan driver. Package backend
// serialises every call into it, so it has no locking of its own.
type device struct {
	l      *logical
	info   backend.AdapterInfo
	cmdFns *cmdFns

	cmdPool   uintptr
	pipeCache uintptr
	setPools  []uintptr // pools for cached descriptor sets (FREE_DESCRIPTOR_SET)

	frames   []*frame // every frame, for Close
	free     []*frame
	inflight []*frame // submitted, in submission order
	open     *frame   // the open encoder's frame, not submitted
	upl      *frame   // pending uploads (fills, staged writes), not submitted

	serial  uint64 // serial of the newest frame submitted
	done    uint64 // every frame with serial <= done has completed
	garbage []garbage

	uniAlign uint64
	tsPeriod float64
	tsMask   uint64

	graphs    map[*graph]struct{} // recorded graphs not released
	graphFree []*frame            // released graphs' frames, for new graphs
	buffers   map[uintptr]*buffer // live buffers by VkBuffer, for descriptor-cache eviction
	pipes     []*pipeline
	stats     struct{ submits, dispatches, setAllocs, setHits, graphs int }

	bufferBarrierMode bool // KC_VULKAN_BARRIER=buffer (hazard.go)
	sharedPool        bool // KC_VULKAN_POOLS=shared: frames' command buffers from cmdPool (frame.go)
	noCopyCache       bool // KC_VULKAN_COPYCACHE=off (copycache.go)
	copies            []copyFrame
	copyTick          uint64
	resetCmdPool      uintptr  // vkResetCommandPool
	scratch           *scratch // C memory for the hot paths (mem.go)
	cmds              *cmdList // pending batch of recorded commands (cmdlist.go)

	capture uint32     // pipeline create flags capturing statistics (inspect.go)
	inspect inspectFns // their entry points

	cachePath   string // pipeline-cache file ("" when off)
	cacheLoaded int    // bytes of cache data loaded at open
	isLost      bool
	closed      bool
}

// openDevice creates the logical device and its command pool and pipeline
// cache.
func openDevice(in *instance, p *physical, index int) (*device, error) {
	p = queueChoice(in, p)
	l, err := in.createDevice(p)
	if err != nil {
		return nil, err
	}
	return newDeviceOn(l, p, index)
}

// newDeviceOn sets up kc's device on a logical device (kc's own, or a
// host's: FromHost): command pool, pipeline cache, function tables.
func newDeviceOn(l *logical, p *physical, index int) (*device, error) {
	d := &device{
		l:        l,
		info:     p.info(index),
		uniAlign: max(p.props.limits.minUniformBufferOffsetAlignment, 16),
		tsPeriod: float64(p.props.limits.timestampPeriod),
		buffers:  map[uintptr]*buffer{},
		graphs:   map[*graph]struct{}{},

		bufferBarrierMode: os.Getenv(envBarrier) == "buffer",
		sharedPool:        os.Getenv(envPools) == "shared",
		noCopyCache:       copyCacheOff(),
		scratch:           newScratch(),
		cmds:              newCmdList(cmdListCap, cmdArenaSize),
	}
	if bits := p.qfamily.timestampValidBits; bits > 0 && bits < 64 {
		d.tsMask = 1<<bits - 1
	} else {
		d.tsMask = ^uint64(0)
	}
	d.cmdFns = newCmdFns(l.fn.CmdPipelineBarrier, l.fn.CmdBindPipeline, l.fn.CmdBindDescriptorSets, l.fn.CmdDispatch)
	if os.Getenv(envBarrier) == "sync2" && p.hasV13 && p.v13.f[v13Synchronization2] != 0 {
		setBarrier2(d.cmdFns, procAddr(l.in.fn.getDeviceProcAddr, l.handle, "vkCmdPipelineBarrier2"))
	}
	d.loadInspect(p)
	if d.resetCmdPool = procAddr(l.in.fn.getDeviceProcAddr, l.handle, "vkResetCommandPool"); d.resetCmdPool == 0 {
		d.sharedPool = true
	}
	var a arena
	defer a.free()
	pci := newIn[vkCommandPoolCreateInfo](&a)
	pci.sType = stCommandPoolCreateInfo
	pci.flags = cmdPoolResetCommandBuffer
	pci.queueFamilyIndex = uint32(p.family)
	ph := newIn[uintptr](&a)
	if err := check("vkCreateCommandPool", call(l.fn.CreateCommandPool, l.handle, addr(pci), 0, addr(ph))); err != nil {
		d.destroy()
		return nil, err
	}
	d.cmdPool = *ph
	cci := newIn[vkPipelineCacheCreateInfo](&a)
	cci.sType = stPipelineCacheCreateInfo
	d.cachePath = cacheFile(p)
	if data, err := os.ReadFile(d.cachePath); err == nil && len(data) > 0 {
		cci.initialDataSize = uintptr(len(data))
		cci.pInitialData = a.bytes(data)
		d.cacheLoaded = len(data)
	}
	if err := check("vkCreatePipelineCache", call(l.fn.CreatePipelineCache, l.handle, addr(cci), 0, addr(ph))); err != nil {
		d.destroy()
		return nil, err
	}
	d.pipeCache = *ph
	return d, nil
}

// Info implements backend.DeviceImpl.
func (d *device) Info() backend.AdapterInfo { return d.info }

// usable reports a closed or lost device.
func (d *device) usable() error {
	if d.closed {
		return errClosed
	}
	if d.isLost {
		return fmt.Errorf("%w: an earlier call lost the device", backend.ErrDeviceLost)
	}
	return nil
}

// buffer is a device-local storage buffer (backend.BufferImpl).
type buffer struct {
	d    *device
	raw  *rawBuffer
	size int64
	refs []setRef // cached descriptor sets that bind it
	// pruneAt: addRef prunes refs of uncached sets when refs reaches it
	// (or minRefPrune)
	pruneAt int
	// mapped: host-visible (NewMappedBuffer); device writes to it need a
	// barrier to the host before the frame's fence.
	mapped bool
}

// Size implements backend.BufferImpl.
func (b *buffer) Size() int64 { return b.size }

// Release implements backend.BufferImpl: the buffer and the descriptor sets
// that bind it are freed once the work recorded so far has completed.
func (b *buffer) Release() {
	d := b.d
	if b.raw == nil || d.closed {
		return
	}
	delete(d.buffers, b.raw.handle)
	if len(d.copies) > 0 {
		d.dropCopies(b.raw.handle)
	}
	for _, r := range b.refs {
		r.p.evict(r.key)
	}
	raw := b.raw
	b.raw, b.refs = nil, nil
	d.deferFree(func() { d.l.freeRawBuffer(raw) })
}

// NewBuffer implements backend.DeviceImpl. The zero fill is recorded into
// the pending upload frame.
func (d *device) NewBuffer(size int64) (backend.BufferImpl, error) {
	if err := d.usable(); err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("vulkan: buffer size %d", size)
	}
	raw, err := d.l.newRawBuffer(uint64(size), bufUsageStorage|bufUsageTransferSrc|bufUsageTransferDst, memDevice)
	if err != nil {
		return nil, err
	}
	f, err := d.uploadFrame()
	if err != nil {
		d.l.freeRawBuffer(raw)
		return nil, err
	}
	d.transferBarrier(f, access{raw.handle, 0, uint64(size), true})
	d.cmds.call(d.l.fn.CmdFillBuffer, f.cmd, raw.handle, 0, uintptr(size), 0)
	f.commands++
	b := &buffer{d: d, raw: raw, size: size}
	d.buffers[raw.handle] = b
	return b, nil
}

// uploadFrame returns the pending-uploads frame, beginning one when there
// is none. Uploads may be made while an encoder is open (package backend
// guarantees that its recorded work does not use the buffer): they are
// submitted before the encoder, which is the order later commands need.
func (d *device) uploadFrame() (*frame, error) {
	if d.upl != nil {
		return d.upl, nil
	}
	f, err := d.newRecording()
	if err != nil {
		return nil, err
	}
	d.upl = f
	return f, nil
}

// flushUploads submits pending uploads.
func (d *device) flushUploads() error {
	if d.upl == nil {
		return nil
	}
	return d.submit(d.upl)
}

// WriteBuffer implements backend.DeviceImpl: the data is staged and its copy
// recorded into the pending-uploads frame, submitted before the next
// encoder submission (or by Wait).
func (d *device) WriteBuffer(bi backend.BufferImpl, off int64, data []byte) error {
	if err := d.usable(); err != nil {
		return err
	}
	b, ok := bi.(*buffer)
	if !ok || b.raw == nil {
		return errors.New("vulkan: WriteBuffer to a released or foreign buffer")
	}
	if off < 0 || len(data) == 0 || off+int64(len(data)) > b.size {
		return fmt.Errorf("vulkan: WriteBuffer of %d bytes at %d outside a %d-byte buffer", len(data), off, b.size)
	}
	f, err := d.uploadFrame()
	if err != nil {
		return err
	}
	// Large writes go in pieces, each submitted as soon as it is staged:
	// the device copies piece k while the host stages piece k+1, and the
	// frames in flight (at most maxInflight, recycled with their staging
	// memory) form a bounded staging ring.
	for len(data) > 0 {
		piece := data[:min(len(data), maxStagingPiece)]
		src, soff, err := d.stage(f, piece)
		if err != nil {
			return err
		}
		d.copyCmd(f, src.handle, soff, b.raw.handle, uint64(off), uint64(len(piece)))
		data, off = data[len(piece):], off+int64(len(piece))
		if len(data) > 0 {
			if err := d.flushUploads(); err != nil {
				return err
			}
			if f, err = d.uploadFrame(); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyCmd records a barrier and a buffer copy.
func (d *device) copyCmd(f *frame, src uintptr, soff uint64, dst uintptr, doff, size uint64) {
	d.transferBarrier(f, access{src, soff, size, false}, access{dst, doff, size, true})
	l := d.cmds
	l.reserve()
	r := newIn[vkBufferCopy](l)
	*r = vkBufferCopy{srcOffset: soff, dstOffset: doff, size: size}
	l.call(d.l.fn.CmdCopyBuffer, f.cmd, src, dst, 1, addr(r))
	f.commands++
}

// Wait implements backend.DeviceImpl.
func (d *device) Wait(ctx context.Context) error {
	if d.closed {
		return errClosed
	}
	if err := d.flushUploads(); err != nil {
		return err
	}
	for len(d.inflight) > 0 {
		if err := d.waitFrame(ctx, d.inflight[len(d.inflight)-1]); err != nil {
			return err
		}
		if err := d.reclaim(false); err != nil {
			return err
		}
	}
	d.idle()
	return nil
}

// idle notes that nothing is in flight or recording: everything submitted
// has completed and nothing else can use a resource, so all garbage goes.
func (d *device) idle() {
	if len(d.inflight) == 0 && d.open == nil && d.upl == nil {
		d.done = d.serial
		for _, g := range d.garbage {
			g.free()
		}
		d.garbage = nil
	}
}

// Close implements backend.DeviceImpl.
func (d *device) Close() error {
	if d.closed {
		return nil
	}
	err := d.flushUploads()
	d.cmds.flush()
	if d.l.borrowed { // the host's device: wait for kc's work only
		for _, f := range d.inflight {
			if werr := d.waitFrame(context.Background(), f); werr != nil && err == nil {
				err = werr
			}
		}
	} else if d.l.handle != 0 {
		call(d.l.fn.DeviceWaitIdle, d.l.handle)
	}
	d.saveCache()
	d.inflight = nil
	d.open, d.upl = nil, nil
	d.idle()
	d.destroy()
	d.closed = true
	return err
}

// destroy frees everything the device owns and the device itself.
func (d *device) destroy() {
	l := d.l
	if d.cmds != nil {
		d.cmds.destroy()
		d.cmds = nil
	}
	for _, p := range d.pipes {
		p.destroy()
	}
	d.pipes = nil
	for _, b := range d.buffers {
		l.freeRawBuffer(b.raw)
		b.raw = nil
	}
	d.buffers = nil
	for _, g := range d.garbage {
		g.free()
	}
	d.garbage = nil
	for _, f := range d.frames {
		d.destroyFrame(f)
	}
	for g := range d.graphs {
		d.destroyFrame(g.f)
	}
	d.graphs = nil
	for _, f := range d.graphFree {
		d.destroyFrame(f)
	}
	d.graphFree = nil
	d.frames, d.free = nil, nil
	for _, p := range d.setPools {
		call(l.fn.DestroyDescriptorPool, l.handle, p, 0)
	}
	d.setPools = nil
	if d.pipeCache != 0 {
		call(l.fn.DestroyPipelineCache, l.handle, d.pipeCache, 0)
	}
	if d.cmdPool != 0 {
		call(l.fn.DestroyCommandPool, l.handle, d.cmdPool, 0)
	}
	if d.cmdFns != nil {
		freeCmdFns(d.cmdFns)
		d.cmdFns = nil
	}
	if d.scratch != nil {
		d.scratch.destroy()
		d.scratch = nil
	}
	l.destroy()
}

// envCache names the directory of the pipeline-cache files; "off" disables
// them. The default is kc/ under os.UserCacheDir.
const envCache = "KC_VULKAN_CACHE"

// cacheFile is the pipeline-cache file of a device: one per vendor, device
// and pipelineCacheUUID (which changes with the driver build), or "".
func cacheFile(p *physical) string {
	dir := os.Getenv(envCache)
	switch dir {
	case "off":
		return ""
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "kc")
	}
	return filepath.Join(dir, fmt.Sprintf("vulkan-%04x-%04x-%x.bin", p.props.vendorID, p.props.deviceID, p.props.pipelineCacheUUID[:]))
}

// saveCache writes the pipeline cache's data to its file (atomically; a
// failure only costs compile time next run).
func (d *device) saveCache() {
	if d.cachePath == "" || d.pipeCache == 0 {
		return
	}
	var a arena
	defer a.free()
	n := newIn[uintptr](&a)
	if call(d.l.fn.GetPipelineCacheData, d.l.handle, d.pipeCache, addr(n), 0) != 0 || *n == 0 {
		return
	}
	buf := a.alloc(*n)
	if call(d.l.fn.GetPipelineCacheData, d.l.handle, d.pipeCache, addr(n), uintptr(buf)) != 0 {
		return
	}
	data := append([]byte(nil), unsafe.Slice((*byte)(buf), *n)...)
	if os.MkdirAll(filepath.Dir(d.cachePath), 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(d.cachePath), ".vulkan-cache-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil && cerr == nil {
		os.Rename(tmp.Name(), d.cachePath)
	}
	os.Remove(tmp.Name())
}
