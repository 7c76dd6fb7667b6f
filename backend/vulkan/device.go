//go:build linux && cgo

package vulkan

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"
)

// deviceFns holds the device-level entry points; field names are the
// Vulkan names without the "vk" prefix, resolved by reflection in loadFns.
type deviceFns struct {
	DestroyDevice                uintptr
	GetDeviceQueue               uintptr
	DeviceWaitIdle               uintptr
	QueueSubmit                  uintptr
	QueueWaitIdle                uintptr
	CreateBuffer                 uintptr
	DestroyBuffer                uintptr
	GetBufferMemoryRequirements  uintptr
	AllocateMemory               uintptr
	FreeMemory                   uintptr
	BindBufferMemory             uintptr
	MapMemory                    uintptr
	UnmapMemory                  uintptr
	InvalidateMappedMemoryRanges uintptr
	CreateShaderModule           uintptr
	DestroyShaderModule          uintptr
	CreateDescriptorSetLayout    uintptr
	DestroyDescriptorSetLayout   uintptr
	CreatePipelineLayout         uintptr
	DestroyPipelineLayout        uintptr
	CreatePipelineCache          uintptr
	DestroyPipelineCache         uintptr
	GetPipelineCacheData         uintptr
	CreateComputePipelines       uintptr
	DestroyPipeline              uintptr
	CreateDescriptorPool         uintptr
	DestroyDescriptorPool        uintptr
	ResetDescriptorPool          uintptr
	AllocateDescriptorSets       uintptr
	FreeDescriptorSets           uintptr
	UpdateDescriptorSets         uintptr
	CreateCommandPool            uintptr
	DestroyCommandPool           uintptr
	AllocateCommandBuffers       uintptr
	FreeCommandBuffers           uintptr
	ResetCommandBuffer           uintptr
	BeginCommandBuffer           uintptr
	EndCommandBuffer             uintptr
	CmdBindPipeline              uintptr
	CmdBindDescriptorSets        uintptr
	CmdDispatch                  uintptr
	CmdPipelineBarrier           uintptr
	CmdCopyBuffer                uintptr
	CmdFillBuffer                uintptr
	CmdWriteTimestamp            uintptr
	CmdResetQueryPool            uintptr
	CreateQueryPool              uintptr
	DestroyQueryPool             uintptr
	GetQueryPoolResults          uintptr
	CreateFence                  uintptr
	DestroyFence                 uintptr
	WaitForFences                uintptr
	ResetFences                  uintptr
	GetFenceStatus               uintptr
}

// loadDeviceFns resolves every field of deviceFns.
func loadDeviceFns(gdpa, dev uintptr) (*deviceFns, error) {
	fns := &deviceFns{}
	v := reflect.ValueOf(fns).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := "vk" + t.Field(i).Name
		f := procAddr(gdpa, dev, name)
		if f == 0 {
			return nil, fmt.Errorf("vulkan: the driver has no %s", name)
		}
		v.Field(i).SetUint(uint64(f))
	}
	return fns, nil
}

// enabledExtensions lists the device extensions kc enables on p: the
// notable ones it has, except informational ones, and except the ones
// promoted to core in p's API version (enabling them is harmless but
// redundant).
func (p *physical) enabledExtensions() []string {
	var out []string
	for _, e := range notableExtensions {
		if !p.exts[e] {
			continue
		}
		switch e {
		case extPushDescr, extShaderClock, extIntegerDot:
			continue
		case extCoopMat2NV:
			if !p.coopMat2Enabled() {
				continue
			}
		}
		out = append(out, e)
	}
	if p.exts[extPortSubset] {
		out = append(out, extPortSubset)
	}
	if p.captureFlags() != 0 {
		out = append(out, extPipelineExec)
	}
	return out
}

// logical is a VkDevice with its compute queue.
type logical struct {
	in     *instance
	phys   *physical
	handle uintptr
	queue  uintptr
	fn     *deviceFns

	sub        *suballocator // device-local memory (alloc.go)
	memObjects int           // live VkDeviceMemory objects

	// borrowed: the host's device (FromHost): never waited idle or
	// destroyed by kc; queueLock, if any, guards kc's submissions.
	borrowed  bool
	queueLock sync.Locker
}

// createDevice creates a logical device on p with one compute queue and
// every feature p reported enabled (robustBufferAccess and
// robustImageAccess excepted: kc checks bounds on the host, and robustness
// costs speed).
func (in *instance) createDevice(p *physical) (*logical, error) {
	var a arena
	defer a.free()
	l, _, err := in.createDeviceIn(&a, p)
	return l, err
}

// createDeviceIn is createDevice with the create-info structures in a, and
// returns the feature chain it passed (VkDeviceCreateInfo.pNext), valid
// while a is.
func (in *instance) createDeviceIn(arenaIn *arena, p *physical) (*logical, unsafe.Pointer, error) {
	if p.family < 0 {
		return nil, nil, fmt.Errorf("vulkan: %s has no compute queue", cString(p.props.deviceName[:]))
	}
	a := *arenaIn
	defer func() { *arenaIn = a }()
	prio := newIn[float32](&a)
	*prio = 1
	qci := newIn[vkDeviceQueueCreateInfo](&a)
	qci.sType = stDeviceQueueCreateInfo
	qci.queueFamilyIndex = uint32(p.family)
	qci.queueCount = 1
	qci.pQueuePriorities = addr(prio)

	f2 := newIn[vkPhysicalDeviceFeatures2](&a)
	*f2 = vkPhysicalDeviceFeatures2{sType: stFeatures2, features: p.core}
	f2.features.f[featRobustBufferAccess] = 0
	v11 := newIn[vkPhysicalDeviceVulkan11Features](&a)
	*v11 = p.v11
	v11.pNext = 0
	links := []*chainLink{link(f2), link(v11)}
	if p.hasV12 {
		v12 := newIn[vkPhysicalDeviceVulkan12Features](&a)
		*v12 = p.v12
		links = append(links, link(v12))
	}
	if p.hasV13 {
		v13 := newIn[vkPhysicalDeviceVulkan13Features](&a)
		*v13 = p.v13
		v13.f[0] = 0 // robustImageAccess
		links = append(links, link(v13))
	}
	for _, f := range []struct {
		ext  string
		feat vkCooperativeMatrixFeatures
	}{{extCoopMatKHR, p.cmKHR}, {extCoopMatNV, p.cmNV}, {extBFloat16, p.bf16}} {
		if !p.exts[f.ext] {
			continue
		}
		c := newIn[vkCooperativeMatrixFeatures](&a)
		*c = f.feat
		c.f[1] = 0 // cooperativeMatrixRobustBufferAccess (bf16: dot product, harmless off)
		if f.ext == extBFloat16 {
			c.f[1] = f.feat.f[1]
		}
		links = append(links, link(c))
	}
	if p.captureFlags() != 0 {
		c := newIn[vkCooperativeMatrixFeatures](&a)
		*c = vkCooperativeMatrixFeatures{sType: stPipelineExecFeatures}
		c.f[0] = 1 // pipelineExecutableInfo
		links = append(links, link(c))
	}
	if p.coopMat2Enabled() {
		c := newIn[vkCoopMat2Features](&a)
		*c = p.cm2.feat
		links = append(links, link(c))
	}
	for _, l := range links {
		l.pNext = 0
	}
	chain(links...)

	exts := p.enabledExtensions()
	ci := newIn[vkDeviceCreateInfo](&a)
	ci.sType = stDeviceCreateInfo
	ci.pNext = addr(f2)
	ci.queueCreateInfoCount = 1
	ci.pQueueCreateInfos = addr(qci)
	ci.enabledExtensionCount = uint32(len(exts))
	ci.ppEnabledExtensionNames = a.cstrs(exts)
	ph := newIn[uintptr](&a)
	if err := check("vkCreateDevice", call(in.fn.createDevice, p.handle, addr(ci), 0, addr(ph))); err != nil {
		return nil, nil, err
	}
	l := &logical{in: in, phys: p, handle: *ph}
	fns, err := loadDeviceFns(in.fn.getDeviceProcAddr, l.handle)
	if err != nil {
		if d := procAddr(in.fn.getDeviceProcAddr, l.handle, "vkDestroyDevice"); d != 0 {
			call(d, l.handle, 0)
		}
		return nil, nil, err
	}
	l.fn = fns
	l.sub = newSuballocator(defaultBlockSize, l.allocMemory, l.freeMemory)
	pq := newIn[uintptr](&a)
	call(fns.GetDeviceQueue, l.handle, uintptr(p.family), 0, addr(pq))
	l.queue = *pq
	return l, unsafe.Pointer(f2), nil
}

// destroy waits for the device and destroys it.
func (l *logical) destroy() {
	if l.handle == 0 {
		return
	}
	if l.borrowed {
		l.sub.destroy()
		l.handle = 0
		return
	}
	call(l.fn.DeviceWaitIdle, l.handle)
	l.sub.destroy()
	call(l.fn.DestroyDevice, l.handle, 0)
	l.handle = 0
}

// memoryType picks a memory type allowed by bits having all of want,
// preferring one that also has all of prefer.
func (p *physical) memoryType(bits, want, prefer uint32) (uint32, error) {
	best := -1
	for i := 0; i < int(p.mem.memoryTypeCount); i++ {
		flags := p.mem.memoryTypes[i].propertyFlags
		if bits&(1<<i) == 0 || flags&want != want {
			continue
		}
		if flags&prefer == prefer {
			return uint32(i), nil
		}
		if best < 0 {
			best = i
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("vulkan: no memory type with flags %#x among %#b", want, bits)
	}
	return uint32(best), nil
}

// memoryTypeAvoiding picks a memory type allowed by bits with all of want
// in a heap other than heap.
func (p *physical) memoryTypeAvoiding(bits, want, heap uint32) (uint32, bool) {
	for i := 0; i < int(p.mem.memoryTypeCount); i++ {
		t := p.mem.memoryTypes[i]
		if bits&(1<<i) != 0 && t.propertyFlags&want == want && t.heapIndex != heap {
			return uint32(i), true
		}
	}
	return 0, false
}

// memoryTypeWithout picks a memory type allowed by bits with all of want
// and none of avoid.
func (p *physical) memoryTypeWithout(bits, want, avoid uint32) (uint32, bool) {
	for i := 0; i < int(p.mem.memoryTypeCount); i++ {
		f := p.mem.memoryTypes[i].propertyFlags
		if bits&(1<<i) != 0 && f&want == want && f&avoid == 0 {
			return uint32(i), true
		}
	}
	return 0, false
}
