//go:build linux && cgo

package vulkan

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// hostProgram is the test's stand-in for a program that made its own
// Vulkan instance and device and shares them with kc: it fills a buffer of
// its own through its own command pool on the shared queue.
type hostProgram struct {
	in   *instance
	p    *physical
	l    *logical
	a    arena // holds the device's feature chain
	mu   sync.Mutex
	pool uintptr
	cmd  uintptr
	fnc  uintptr
	buf  *rawBuffer

	features unsafe.Pointer // VkDeviceCreateInfo.pNext the device was made with
	physF16  bool           // the physical device offers f16
}

func newHostProgram(t *testing.T, disableF16 bool) *hostProgram {
	t.Helper()
	in, err := newInstance()
	if err != nil {
		kctest.Missing(t, "no Vulkan: %v", err)
	}
	if len(in.phys) == 0 {
		in.close()
		kctest.Missing(t, "no Vulkan device")
	}
	h := &hostProgram{in: in}
	for _, p := range in.phys {
		if p.family >= 0 {
			q := *p
			h.p, h.physF16 = &q, p.info(0).F16
			break
		}
	}
	if h.p == nil {
		t.Fatal("no device with a compute queue")
	}
	if disableF16 {
		h.p.v12.f[v12ShaderFloat16] = 0
		h.p.v11.storageBuffer16BitAccess, h.p.v11.uniformAndStorageBuffer16BitAccess = 0, 0
	}
	l, feats, err := in.createDeviceIn(&h.a, h.p)
	if err != nil {
		t.Fatal(err)
	}
	h.l, h.features = l, feats
	var a arena
	defer a.free()
	pci := newIn[vkCommandPoolCreateInfo](&a)
	pci.sType, pci.flags, pci.queueFamilyIndex = stCommandPoolCreateInfo, cmdPoolResetCommandBuffer, uint32(h.p.family)
	ph := newIn[uintptr](&a)
	if err := check("vkCreateCommandPool", call(l.fn.CreateCommandPool, l.handle, addr(pci), 0, addr(ph))); err != nil {
		t.Fatal(err)
	}
	h.pool = *ph
	ai := newIn[vkCommandBufferAllocateInfo](&a)
	ai.sType, ai.commandPool, ai.level, ai.commandBufferCount = stCommandBufferAllocateInfo, h.pool, cmdBufferLevelPrimary, 1
	if err := check("vkAllocateCommandBuffers", call(l.fn.AllocateCommandBuffers, l.handle, addr(ai), addr(ph))); err != nil {
		t.Fatal(err)
	}
	h.cmd = *ph
	fi := newIn[vkFenceCreateInfo](&a)
	fi.sType = stFenceCreateInfo
	if err := check("vkCreateFence", call(l.fn.CreateFence, l.handle, addr(fi), 0, addr(ph))); err != nil {
		t.Fatal(err)
	}
	h.fnc = *ph
	if h.buf, err = l.newRawBuffer(4096, bufUsageTransferDst, memReadback); err != nil {
		t.Fatal(err)
	}
	return h
}

// fill fills the host's buffer with v on the shared queue, waits, and
// checks what landed.
func (h *hostProgram) fill(v uint32) error {
	l := h.l
	var a arena
	defer a.free()
	bi := newIn[vkCommandBufferBeginInfo](&a)
	bi.sType, bi.flags = stCommandBufferBeginInfo, cmdBufferOneTimeSubmit
	if err := check("vkBeginCommandBuffer", call(l.fn.BeginCommandBuffer, h.cmd, addr(bi))); err != nil {
		return err
	}
	call(l.fn.CmdFillBuffer, h.cmd, h.buf.handle, 0, 4096, uintptr(v))
	mb := newIn[vkMemoryBarrier](&a)
	*mb = vkMemoryBarrier{sType: stMemoryBarrier, srcAccessMask: accessTransferWrite, dstAccessMask: accessHostRead}
	call(l.fn.CmdPipelineBarrier, h.cmd, pipelineStageTransfer, pipelineStageHost, 0, 1, addr(mb), 0, 0, 0, 0)
	if err := check("vkEndCommandBuffer", call(l.fn.EndCommandBuffer, h.cmd)); err != nil {
		return err
	}
	pc := newIn[uintptr](&a)
	*pc = h.cmd
	si := newIn[vkSubmitInfo](&a)
	si.sType, si.commandBufferCount, si.pCommandBuffers = stSubmitInfo, 1, addr(pc)
	h.mu.Lock()
	r := call(l.fn.QueueSubmit, l.queue, 1, addr(si), h.fnc)
	h.mu.Unlock()
	if err := check("vkQueueSubmit", r); err != nil {
		return err
	}
	pf := newIn[uintptr](&a)
	*pf = h.fnc
	if err := check("vkWaitForFences", call(l.fn.WaitForFences, l.handle, 1, addr(pf), 1, ^uintptr(0))); err != nil {
		return err
	}
	call(l.fn.ResetFences, l.handle, 1, addr(pf))
	for i, b := 0, h.buf.bytes(); i < 4096; i += 4 {
		if got := binary.LittleEndian.Uint32(b[i:]); got != v {
			return fmt.Errorf("host buffer word %d = %#x, want %#x", i/4, got, v)
		}
	}
	return nil
}

func (h *hostProgram) close() {
	l := h.l
	l.freeRawBuffer(h.buf)
	call(l.fn.DestroyFence, l.handle, h.fnc, 0)
	call(l.fn.DestroyCommandPool, l.handle, h.pool, 0)
	l.destroy()
	h.a.free()
	h.in.close()
}

func (h *hostProgram) host() Host {
	return Host{
		APIVersion: h.in.version, Instance: h.in.handle, PhysicalDevice: h.p.handle,
		Device: h.l.handle, Queue: h.l.queue, QueueFamily: uint32(h.p.family),
		Extensions: h.p.enabledExtensions(), Features: h.features, QueueLock: &h.mu,
	}
}

// TestFromHost shares one device between a host program and kc: the host
// made it without f16 (which the physical device has), kc inherits that
// and refuses an f16 kernel, both submit work to the one queue from
// different goroutines at once, and after kc's Close the host's device
// still works.
func TestFromHost(t *testing.T) {
	h := newHostProgram(t, true)
	defer h.close()
	kd, err := FromHost(h.host())
	if err != nil {
		t.Fatal(err)
	}
	info := kd.Info()
	t.Logf("kc on the host's device: %s, f16 %v", info, info.F16)
	if !h.physF16 {
		t.Log("the physical device has no f16: the inheritance check below is vacuous here")
	}
	if info.F16 {
		t.Error("kc reports f16 on a device the host created without it")
	}
	f16 := artifact(glsl(t, addkGLSL), "addk", 64, []string{"k", "n"}, "y:rw")
	f16.Features = ir.FeatureF16
	var ue *ir.UnsupportedError
	if _, err := kd.Load(context.Background(), f16); !errors.As(err, &ue) {
		t.Errorf("f16 kernel on a device without f16: %v, want an UnsupportedError", err)
	}
	p := loadAdd1(t, kd)
	const n = 4096
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rand.IntN(1000))
	}
	buf, err := kd.Upload(f32bytes(x))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var hostErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 50 && hostErr == nil; i++ {
			hostErr = h.fill(rand.Uint32())
		}
	}()
	const rounds, chain = 10, 50
	for r := 0; r < rounds; r++ {
		err := kd.Do(func() error {
			for k := 0; k < chain; k++ {
				if err := kd.Dispatch(p, backend.Args{Params: []uint32{n}, Buffers: []backend.View{buf.View()}}, backend.Groups(n/64)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := kd.Read(context.Background(), buf.View())
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if hostErr != nil {
		t.Fatalf("host: %v", hostErr)
	}
	for i, v := range bytesF32(got) {
		if v != x[i]+rounds*chain {
			t.Fatalf("x[%d] = %g, want %g", i, v, x[i]+rounds*chain)
		}
	}
	if err := kd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.fill(0xdeadbeef); err != nil {
		t.Fatalf("host device after kc's Close: %v", err)
	}
}
