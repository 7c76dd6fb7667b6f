//go:build linux && cgo

package vulkan

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
)

// BenchmarkLink measures what one link of a dependent chain costs on the
// device under each way of recording it, outside kc's encoder: a command
// buffer of 1,000 add1 dispatches over 1,024 floats (the chain of
// BenchmarkGraph and of PyTorch's CUDA graph) recorded once with raw
// Vulkan calls and replayed; GPU timestamps around the whole chain give
// gpu_us/disp, the replay's submit-to-fence wall time wall_us/disp. Knobs:
//
//   - barrier: global (VkMemoryBarrier, compute->compute, shader write ->
//     read|write: kc's), buffer (a VkBufferMemoryBarrier on x), full (kc's
//     compute|transfer barrier), sync2 / sync2buf (vkCmdPipelineBarrier2
//     with COMPUTE_SHADER and SHADER_STORAGE_WRITE -> STORAGE_READ|WRITE),
//     exec (an execution dependency without memory barrier: not enough by
//     the spec), event (vkCmdSetEvent after each dispatch,
//     vkCmdWaitEvents with a memory barrier before the next), none (no
//     ordering at all: wrong, a floor);
//   - bind: each (the set rebound per dispatch with its own dynamic
//     uniform offset: kc's graphs), once (bound once), push (params as
//     push constants, the set bound once);
//   - pipe: the pipeline rebound per dispatch;
//   - wg: the workgroup size (1,024 floats in 1024/wg groups).
//
// Variants that order the chain check x afterwards; exec and none report
// whether their result happened to be right (ok=1).
func BenchmarkLink(b *testing.B) {
	type cfg struct {
		barrier, bind string
		pipe          bool
		wg            int
	}
	all := []cfg{
		{"global", "each", false, 64}, {"global", "once", false, 64}, {"global", "push", false, 64},
		{"buffer", "each", false, 64}, {"full", "each", false, 64},
		{"sync2", "each", false, 64}, {"sync2", "once", false, 64}, {"sync2", "push", false, 64}, {"sync2buf", "each", false, 64},
		{"event", "each", false, 64}, {"exec", "each", false, 64}, {"exec", "once", false, 64},
		{"none", "each", false, 64}, {"none", "once", false, 64},
		{"global", "each", true, 64}, {"global", "each", false, 256}, {"global", "each", false, 1024},
		{"sync2", "once", false, 1024},
	}
	// On a compute-only queue family, the forms that differed on the
	// universal one.
	some := []cfg{
		{"global", "each", false, 64}, {"global", "once", false, 64}, {"sync2", "each", false, 64},
		{"exec", "each", false, 64}, {"none", "each", false, 64}, {"global", "each", false, 1024},
	}
	for _, fam := range []string{"universal", "compute"} {
		var d *device
		cs := all
		if fam == "universal" {
			b.Setenv(envQueue, "universal")
			d = openImplTB(b)
		} else {
			cs = some
			if d = openFamilyTB(b, queueCompute, queueGraphics); d == nil {
				continue
			}
		}
		rig := newLinkRig(b, d)
		for _, c := range cs {
			name := fmt.Sprintf("%s/%s-%s-wg%d", fam, c.barrier, c.bind, c.wg)
			if c.pipe {
				name += "-pipe"
			}
			b.Run(name, func(b *testing.B) {
				if (c.barrier == "sync2" || c.barrier == "sync2buf") && rig.barrier2 == 0 {
					b.Skip("no vkCmdPipelineBarrier2")
				}
				wall, gpu, rec, ok := rig.run(b, c.barrier, c.bind, c.pipe, c.wg, max(b.N, 20))
				b.ReportMetric(wall, "wall_us/disp")
				b.ReportMetric(gpu, "gpu_us/disp")
				b.ReportMetric(rec, "rec_us/disp")
				okv := 0.0
				if ok {
					okv = 1
				}
				b.ReportMetric(okv, "ok")
				if !ok && c.barrier != "none" && c.barrier != "exec" {
					b.Errorf("%s: chain result wrong", name)
				}
			})
		}
	}
}

// openFamilyTB opens the test adapter with its queue in the first family
// that has the flags want and none of avoid, or returns nil when there is
// none.
func openFamilyTB(tb testing.TB, want, avoid uint32) *device {
	tb.Helper()
	a := testAdapter(tb)
	in, err := theDriver.instance()
	if err != nil {
		tb.Fatal(err)
	}
	q, ok := onFamily(in, in.phys[a.DriverIndex], want, avoid)
	if !ok {
		return nil
	}
	d, err := openDevice(in, q, a.DriverIndex)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Error(err)
		}
	})
	return d
}

// openImplTB is openImpl for benchmarks.
func openImplTB(tb testing.TB) *device {
	tb.Helper()
	a := testAdapter(tb)
	di, err := theDriver.Open(context.Background(), a.DriverIndex)
	if err != nil {
		tb.Fatal(err)
	}
	d := di.(*device)
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Error(err)
		}
	})
	return d
}

const linkN, linkLen = 1000, 1024

// linkRig holds BenchmarkLink's pipelines, buffers and extra entry points.
type linkRig struct {
	d     *device
	x     *buffer
	uni   *rawBuffer
	pipes map[string]*pipeline // "u64", "u256", "u1024", "p64", "p1024"
	sets  map[*pipeline]uintptr
	pools []uintptr
	poolN int

	barrier2, push, createEvent, destroyEvent, setEvent, waitEvents, resetEvent uintptr
}

func newLinkRig(tb testing.TB, d *device) *linkRig {
	r := &linkRig{d: d, pipes: map[string]*pipeline{}, sets: map[*pipeline]uintptr{}}
	gdpa, dev := d.l.in.fn.getDeviceProcAddr, d.l.handle
	r.barrier2 = procAddr(gdpa, dev, "vkCmdPipelineBarrier2")
	if r.barrier2 == 0 {
		r.barrier2 = procAddr(gdpa, dev, "vkCmdPipelineBarrier2KHR")
	}
	r.push = procAddr(gdpa, dev, "vkCmdPushConstants")
	r.createEvent = procAddr(gdpa, dev, "vkCreateEvent")
	r.destroyEvent = procAddr(gdpa, dev, "vkDestroyEvent")
	r.setEvent = procAddr(gdpa, dev, "vkCmdSetEvent")
	r.waitEvents = procAddr(gdpa, dev, "vkCmdWaitEvents")
	r.resetEvent = procAddr(gdpa, dev, "vkCmdResetEvent")
	xb, err := d.NewBuffer(4 * linkLen)
	if err != nil {
		tb.Fatal(err)
	}
	r.x = xb.(*buffer)
	if r.uni, err = d.l.newRawBuffer(linkN*d.uniAlign, bufUsageUniform, memUpload); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.l.freeRawBuffer(r.uni) })
	for i := 0; i < linkN; i++ {
		copy(r.uni.bytes()[uint64(i)*d.uniAlign:], u32bytes([]uint32{linkLen}))
	}
	ctx := context.Background()
	for _, wg := range []int{64, 256, 1024} {
		src := fmt.Sprintf(`#version 450
layout(local_size_x = %d) in;
layout(set = 0, binding = 0) uniform P { uint n; } p;
layout(set = 0, binding = 1) buffer X { float x[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) x[i] = x[i] + 1.0; }
`, wg)
		pi, err := d.NewPipeline(ctx, artifact(glsl(tb, src), "add1", wg, []string{"n"}, "x:rw"))
		if err != nil {
			tb.Fatal(err)
		}
		r.pipes[fmt.Sprintf("u%d", wg)] = pi.(*pipeline)
	}
	for _, wg := range []int{64, 1024} {
		src := fmt.Sprintf(`#version 450
layout(local_size_x = %d) in;
layout(push_constant) uniform P { uint n; } p;
layout(set = 0, binding = 1) buffer X { float x[]; };
void main() { uint i = gl_GlobalInvocationID.x; if (i < p.n) x[i] = x[i] + 1.0; }
`, wg)
		words := glsl(tb, src)
		a := artifact(words, "add1p", wg, nil, "x:rw")
		pi, err := d.NewPipeline(ctx, a)
		if err != nil {
			tb.Fatal(err)
		}
		p := pi.(*pipeline)
		// Rebuild with a layout that has a 4-byte push-constant range.
		call(d.l.fn.DestroyPipeline, d.l.handle, p.handle, 0)
		call(d.l.fn.DestroyPipelineLayout, d.l.handle, p.layout, 0)
		var ar arena
		psl := newIn[uintptr](&ar)
		*psl = p.setLayout
		pcr := newIn[[3]uint32](&ar) // VkPushConstantRange: stageFlags, offset, size
		*pcr = [3]uint32{stageCompute, 0, 4}
		pli := newIn[vkPipelineLayoutCreateInfo](&ar)
		pli.sType = stPipelineLayoutCreateInfo
		pli.setLayoutCount = 1
		pli.pSetLayouts = addr(psl)
		pli.pushConstantRangeCount = 1
		pli.pPushConstantRanges = addr(pcr)
		ph := newIn[uintptr](&ar)
		err = check("vkCreatePipelineLayout", call(d.l.fn.CreatePipelineLayout, d.l.handle, addr(pli), 0, addr(ph)))
		p.layout = *ph
		ar.free()
		if err != nil {
			tb.Fatal(err)
		}
		if err := p.createPipeline(words, &a.Entries[0]); err != nil {
			tb.Fatal(err)
		}
		r.pipes[fmt.Sprintf("p%d", wg)] = p
	}
	for _, p := range r.pipes {
		set, _, err := d.allocSet(&r.pools, &r.poolN, p.setLayout, false)
		if err != nil {
			tb.Fatal(err)
		}
		var uni *rawBuffer
		if p.params > 0 {
			uni = r.uni
		}
		d.writeSet(set, p, uni, []*buffer{r.x}, []backend.Range{{Buf: r.x, Size: 4 * linkLen}})
		r.sets[p] = set
	}
	tb.Cleanup(func() {
		for _, p := range r.pools {
			call(d.l.fn.DestroyDescriptorPool, d.l.handle, p, 0)
		}
	})
	return r
}

// Vulkan 1.3 synchronization2 structures (VkMemoryBarrier2,
// VkBufferMemoryBarrier2, VkDependencyInfo).
type vkMemoryBarrier2 struct {
	sType               uint32
	pNext               uintptr
	srcStage, srcAccess uint64
	dstStage, dstAccess uint64
}

type vkBufferMemoryBarrier2 struct {
	sType               uint32
	pNext               uintptr
	srcStage, srcAccess uint64
	dstStage, dstAccess uint64
	srcQueue, dstQueue  uint32
	buffer              uintptr
	offset, size        uint64
}

type vkDependencyInfo struct {
	sType                    uint32
	pNext                    uintptr
	flags                    uint32
	memoryBarrierCount       uint32
	pMemoryBarriers          uintptr
	bufferMemoryBarrierCount uint32
	pBufferMemoryBarriers    uintptr
	imageMemoryBarrierCount  uint32
	pImageMemoryBarriers     uintptr
}

const (
	stMemoryBarrier2       = 1000314000
	stBufferMemoryBarrier2 = 1000314001
	stDependencyInfo       = 1000314003
	access2StorageRead     = 0x200000000
	access2StorageWrite    = 0x400000000
	stEventCreateInfo      = 10
)

// run records the chain for one variant, replays it reps times and returns
// the median wall and GPU microseconds per dispatch and whether x is right.
func (r *linkRig) run(b *testing.B, barrier, bind string, pipeEach bool, wg, reps int) (float64, float64, float64, bool) {
	d := r.d
	kind := "u"
	if bind == "push" {
		kind = "p"
	}
	p := r.pipes[fmt.Sprintf("%s%d", kind, wg)]
	if p == nil {
		b.Skipf("no %s%d pipeline", kind, wg)
	}
	if err := d.reclaim(true); err != nil {
		b.Fatal(err)
	}
	set := r.sets[p]
	f, err := d.newFrame()
	if err != nil {
		b.Fatal(err)
	}
	f.owner = &graph{d: d}
	var a arena
	defer a.free()
	qci := newIn[vkQueryPoolCreateInfo](&a)
	*qci = vkQueryPoolCreateInfo{sType: stQueryPoolCreateInfo, queryType: queryTypeTimestamp, queryCount: 2}
	ph := newIn[uintptr](&a)
	if err := check("vkCreateQueryPool", call(d.l.fn.CreateQueryPool, d.l.handle, addr(qci), 0, addr(ph))); err != nil {
		b.Fatal(err)
	}
	f.query = *ph
	var events []uintptr
	if barrier == "event" {
		eci := newIn[[3]uintptr](&a) // sType, pNext, flags
		(*eci)[0] = stEventCreateInfo
		for i := 0; i < linkN; i++ {
			if err := check("vkCreateEvent", call(r.createEvent, d.l.handle, addr(eci), 0, addr(ph))); err != nil {
				b.Fatal(err)
			}
			events = append(events, *ph)
		}
		defer func() {
			for _, e := range events {
				call(r.destroyEvent, d.l.handle, e, 0)
			}
		}()
	}
	// Zero x.
	if err := d.WriteBuffer(r.x, 0, make([]byte, 4*linkLen)); err != nil {
		b.Fatal(err)
	}
	if err := d.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}

	cmd := f.cmd
	bi := newIn[vkCommandBufferBeginInfo](&a)
	bi.sType = stCommandBufferBeginInfo
	if err := check("vkBeginCommandBuffer", call(d.l.fn.BeginCommandBuffer, cmd, addr(bi))); err != nil {
		b.Fatal(err)
	}
	for _, e := range events {
		call(r.resetEvent, cmd, e, pipelineStageComputeShader)
	}
	call(d.l.fn.CmdResetQueryPool, cmd, f.query, 0, 2)
	recordBarrier(d.cmdFns, cmd)
	call(d.l.fn.CmdWriteTimestamp, cmd, pipelineStageBottomOfPipe, f.query, 0)

	mb := newIn[vkMemoryBarrier](&a)
	*mb = vkMemoryBarrier{sType: stMemoryBarrier, srcAccessMask: accessShaderWrite, dstAccessMask: accessShaderRead | accessShaderWrite}
	bb := newIn[vkBufferMemoryBarrier](&a)
	*bb = vkBufferMemoryBarrier{sType: stBufferMemoryBarrier, srcAccessMask: accessShaderWrite, dstAccessMask: accessShaderRead | accessShaderWrite,
		srcQueueFamilyIndex: queueFamilyIgnored, dstQueueFamilyIndex: queueFamilyIgnored, buffer: r.x.raw.handle, size: 4 * linkLen}
	mb2 := newIn[vkMemoryBarrier2](&a)
	*mb2 = vkMemoryBarrier2{sType: stMemoryBarrier2, srcStage: pipelineStageComputeShader, srcAccess: access2StorageWrite,
		dstStage: pipelineStageComputeShader, dstAccess: access2StorageRead | access2StorageWrite}
	bb2 := newIn[vkBufferMemoryBarrier2](&a)
	*bb2 = vkBufferMemoryBarrier2{sType: stBufferMemoryBarrier2, srcStage: pipelineStageComputeShader, srcAccess: access2StorageWrite,
		dstStage: pipelineStageComputeShader, dstAccess: access2StorageRead | access2StorageWrite,
		srcQueue: queueFamilyIgnored, dstQueue: queueFamilyIgnored, buffer: r.x.raw.handle, size: 4 * linkLen}
	dep := newIn[vkDependencyInfo](&a)
	*dep = vkDependencyInfo{sType: stDependencyInfo, memoryBarrierCount: 1, pMemoryBarriers: addr(mb2)}
	depBuf := newIn[vkDependencyInfo](&a)
	*depBuf = vkDependencyInfo{sType: stDependencyInfo, bufferMemoryBarrierCount: 1, pBufferMemoryBarriers: addr(bb2)}
	ev := newIn[uintptr](&a)
	pc := newIn[uint32](&a)
	*pc = linkLen
	dyn := newIn[uint32](&a)
	ps := newIn[uintptr](&a)
	*ps = set

	tRec := time.Now()
	call(d.l.fn.CmdBindPipeline, cmd, 1, p.handle)
	if bind != "each" {
		call(d.l.fn.CmdBindDescriptorSets, cmd, 1, p.layout, 0, 1, addr(ps), uintptr(min(p.params, 1)), addr(dyn))
	}
	groups := uintptr(linkLen / wg)
	for i := 0; i < linkN; i++ {
		if i > 0 {
			switch barrier {
			case "global":
				call(d.l.fn.CmdPipelineBarrier, cmd, pipelineStageComputeShader, pipelineStageComputeShader, 0, 1, addr(mb), 0, 0, 0, 0)
			case "buffer":
				call(d.l.fn.CmdPipelineBarrier, cmd, pipelineStageComputeShader, pipelineStageComputeShader, 0, 0, 0, 1, addr(bb), 0, 0)
			case "full":
				recordBarrier(d.cmdFns, cmd)
			case "sync2":
				call(r.barrier2, cmd, addr(dep))
			case "sync2buf":
				call(r.barrier2, cmd, addr(depBuf))
			case "exec":
				call(d.l.fn.CmdPipelineBarrier, cmd, pipelineStageComputeShader, pipelineStageComputeShader, 0, 0, 0, 0, 0, 0, 0)
			case "event":
				*ev = events[i-1]
				call(r.waitEvents, cmd, 1, addr(ev), pipelineStageComputeShader, pipelineStageComputeShader, 1, addr(mb), 0, 0, 0, 0)
			}
		}
		if pipeEach && i > 0 {
			call(d.l.fn.CmdBindPipeline, cmd, 1, p.handle)
		}
		switch bind {
		case "each":
			*dyn = uint32(uint64(i) * d.uniAlign)
			call(d.l.fn.CmdBindDescriptorSets, cmd, 1, p.layout, 0, 1, addr(ps), 1, addr(dyn))
		case "push":
			call(r.push, cmd, p.layout, stageCompute, 0, 4, addr(pc))
		}
		call(d.l.fn.CmdDispatch, cmd, groups, 1, 1)
		if barrier == "event" {
			call(r.setEvent, cmd, events[i], pipelineStageComputeShader)
		}
	}
	recordBarrier(d.cmdFns, cmd)
	call(d.l.fn.CmdWriteTimestamp, cmd, pipelineStageBottomOfPipe, f.query, 1)
	if err := check("vkEndCommandBuffer", call(d.l.fn.EndCommandBuffer, cmd)); err != nil {
		b.Fatal(err)
	}
	rec := float64(time.Since(tRec).Nanoseconds()) / 1e3 / linkN
	ctx := context.Background()
	replay := func() (time.Duration, uint64) {
		t0 := time.Now()
		if err := d.queueSubmit(f); err != nil {
			b.Fatal(err)
		}
		if err := d.waitFrame(ctx, f); err != nil {
			b.Fatal(err)
		}
		el := time.Since(t0)
		ts, err := d.timestamps(f, 2)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.reclaim(false); err != nil {
			b.Fatal(err)
		}
		return el, ts[1] - ts[0]
	}
	for i := 0; i < 3; i++ {
		replay()
	}
	b.ResetTimer()
	walls, gpus := make([]float64, reps), make([]float64, reps)
	for i := range walls {
		w, g := replay()
		walls[i], gpus[i] = float64(w.Nanoseconds())/1e3/linkN, float64(g)/1e3/linkN
	}
	b.StopTimer()
	got, err := d.ReadRange(linkRead(r.x))
	if err != nil {
		b.Fatal(err)
	}
	want := float32(linkN * (reps + 3))
	ok := true
	for _, v := range bytesF32(got) {
		if v != want {
			ok = false
		}
	}
	call(d.l.fn.DestroyQueryPool, d.l.handle, f.query, 0)
	f.query = 0
	return medianF(walls), medianF(gpus), rec, ok
}

func linkRead(x *buffer) backend.Range { return backend.Range{Buf: x, Size: 4 * linkLen} }

// ReadRange reads one range through an encoder (test helper).
func (d *device) ReadRange(r backend.Range) ([]byte, error) {
	e, err := d.NewEncoder()
	if err != nil {
		return nil, err
	}
	res, err := e.Submit(context.Background(), []backend.Range{r})
	if err != nil {
		return nil, err
	}
	return res.Reads[0], nil
}

func medianF(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkSubmit splits the fixed cost of a small transfer on the
// device, on each kind of queue family the device has (universal, the
// first one with compute; compute-only; transfer-only): a command buffer
// holding one barrier submitted and its fence polled; a 1 MiB copy from
// and to host memory (kc's MapHost memory), recorded once and resubmitted
// (-fence) or recorded again before each submit, its command buffer reset
// with its pool (-rerecord-pool: kc's frames now) or on its own
// (-rerecord-buf: a RESET_COMMAND_BUFFER pool, kc's frames before). Reports
// the median wall µs per submit and wait, and of vkQueueSubmit alone.
func BenchmarkSubmit(b *testing.B) {
	fams := []struct {
		name        string
		want, avoid uint32
	}{{"universal", 0, 0}, {"compute", queueCompute, queueGraphics}, {"transfer", queueTransfer, queueGraphics | queueCompute}}
	for _, fam := range fams {
		var d *device
		if fam.name == "universal" {
			b.Setenv(envQueue, "universal")
			d = openImplTB(b)
		} else if d = openFamilyTB(b, fam.want, fam.avoid); d == nil {
			continue
		}
		stages := uintptr(pipelineStageComputeShader | pipelineStageTransfer)
		if fam.name == "transfer" {
			stages = pipelineStageTransfer
		}
		const size = 1 << 20
		dev, err := d.l.newRawBuffer(size, bufUsageTransferSrc|bufUsageTransferDst, memDevice)
		if err != nil {
			b.Fatal(err)
		}
		host, err := d.l.newRawBuffer(size, bufUsageTransferSrc|bufUsageTransferDst, memHostMapped)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []string{"barrier", "up-fence", "down-fence", "up-rerecord-pool", "down-rerecord-pool", "up-rerecord-buf", "down-rerecord-buf"} {
			b.Run(fam.name+"/"+v, func(b *testing.B) {
				d.sharedPool = strings.HasSuffix(v, "-buf")
				f, err := d.newFrame()
				d.sharedPool = false
				if err != nil {
					b.Fatal(err)
				}
				f.owner = &graph{d: d}
				var a arena
				defer a.free()
				mb := newIn[vkMemoryBarrier](&a)
				*mb = vkMemoryBarrier{sType: stMemoryBarrier, srcAccessMask: accessTransferWrite, dstAccessMask: accessTransferRead | accessTransferWrite}
				hb := newIn[vkMemoryBarrier](&a)
				*hb = vkMemoryBarrier{sType: stMemoryBarrier, srcAccessMask: accessTransferWrite, dstAccessMask: accessHostRead}
				cp := newIn[vkBufferCopy](&a)
				*cp = vkBufferCopy{size: size}
				record := func() {
					if err := d.begin(f, 0); err != nil {
						b.Fatal(err)
					}
					call(d.l.fn.CmdPipelineBarrier, f.cmd, stages, stages, 0, 1, addr(mb), 0, 0, 0, 0)
					switch {
					case strings.HasPrefix(v, "up"):
						call(d.l.fn.CmdCopyBuffer, f.cmd, host.handle, dev.handle, 1, addr(cp))
					case strings.HasPrefix(v, "down"):
						call(d.l.fn.CmdCopyBuffer, f.cmd, dev.handle, host.handle, 1, addr(cp))
					}
					if strings.HasPrefix(v, "down") {
						call(d.l.fn.CmdPipelineBarrier, f.cmd, pipelineStageTransfer, pipelineStageHost, 0, 1, addr(hb), 0, 0, 0, 0)
					}
					if err := check("vkEndCommandBuffer", call(d.l.fn.EndCommandBuffer, f.cmd)); err != nil {
						b.Fatal(err)
					}
				}
				rerecord := strings.Contains(v, "rerecord")
				record()
				ctx := context.Background()
				n := max(b.N, 200)
				walls, subs := make([]float64, n), make([]float64, n)
				for i := 0; i < n+10; i++ {
					t0 := time.Now()
					if rerecord {
						record()
					}
					t1 := time.Now()
					if err := d.queueSubmit(f); err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					if err := d.waitFrame(ctx, f); err != nil {
						b.Fatal(err)
					}
					t3 := time.Now()
					if err := d.reclaim(false); err != nil {
						b.Fatal(err)
					}
					if i >= 10 {
						walls[i-10], subs[i-10] = float64(t3.Sub(t0).Nanoseconds())/1e3, float64(t2.Sub(t1).Nanoseconds())/1e3
					}
				}
				b.ReportMetric(medianF(walls), "wall_us")
				b.ReportMetric(medianF(subs), "submit_us")
				if v != "barrier" {
					b.ReportMetric(size/medianF(walls)/1e3, "GB/s")
				}
			})
		}
		d.l.freeRawBuffer(dev)
		d.l.freeRawBuffer(host)
	}
}
