//go:build linux && cgo

package vulkan

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/kcgo/kc/backend"
)

// Host describes a Vulkan device that a host program created and shares
// with kc (the seeds' from_device). kc inherits the device exactly: it
// uses only the extensions and features the host enabled, which it reads
// from the structures the host passed to vkCreateDevice; it never widens
// them (an f16 kernel on a device the host created without shaderFloat16
// is refused, as on an adapter without f16).
type Host struct {
	// GetInstanceProcAddr is the host's vkGetInstanceProcAddr; 0 means the
	// one of the loader kc opens (libvulkan.so.1).
	GetInstanceProcAddr uintptr
	// APIVersion is the apiVersion the host created its instance with
	// (VK_MAKE_API_VERSION); 0 means 1.1.
	APIVersion uint32
	// The host's handles: VkInstance, VkPhysicalDevice, VkDevice, and a
	// VkQueue of family QueueFamily (it must support compute).
	Instance, PhysicalDevice, Device, Queue uintptr
	QueueFamily                             uint32
	// Extensions are the device extensions the host enabled.
	Extensions []string
	// Features is VkDeviceCreateInfo.pNext as the host passed it (a chain
	// holding VkPhysicalDeviceFeatures2, Vulkan11/12/13Features, the 16-bit
	// storage, float16/int8, cooperative-matrix and bfloat16 feature
	// structures in any order; others are skipped), 0 if none.
	// CoreFeatures is VkDeviceCreateInfo.pEnabledFeatures, 0 if none.
	Features, CoreFeatures unsafe.Pointer
	// QueueLock, when set, is held around each of kc's queue submissions:
	// Vulkan requires the host to synchronise a queue's use, so a host that
	// submits to Queue from other goroutines or threads passes its lock.
	QueueLock sync.Locker
}

// FromHost returns a backend.Device running on the host's device and
// queue. Close releases only what kc created (buffers, pipelines, command
// pools, memory) after kc's own submitted work has completed; the device,
// queue and instance remain the host's.
func FromHost(h Host) (*backend.Device, error) {
	if h.Instance == 0 || h.PhysicalDevice == 0 || h.Device == 0 || h.Queue == 0 {
		return nil, errors.New("vulkan: FromHost needs the instance, physical device, device and queue handles")
	}
	gipa := h.GetInstanceProcAddr
	if gipa == 0 {
		var err error
		if gipa, err = openLoader(); err != nil {
			return nil, err
		}
	}
	version := h.APIVersion
	if version == 0 {
		version = apiVersion(1, 1, 0)
	}
	in := &instance{gipa: gipa, handle: h.Instance, version: min(version, apiVersion(1, 3, 0))}
	if err := in.loadFns(); err != nil {
		return nil, err
	}
	p, err := in.describe(h.PhysicalDevice)
	if err != nil {
		return nil, err
	}
	if err := p.inherit(in, h); err != nil {
		return nil, err
	}
	l := &logical{in: in, phys: p, handle: h.Device, queue: h.Queue, borrowed: true, queueLock: h.QueueLock}
	if l.fn, err = loadDeviceFns(in.fn.getDeviceProcAddr, h.Device); err != nil {
		return nil, err
	}
	l.sub = newSuballocator(defaultBlockSize, l.allocMemory, l.freeMemory)
	d, err := newDeviceOn(l, p, -1)
	if err != nil {
		return nil, err
	}
	return backend.Wrap(d), nil
}

// inherit narrows what describe found to what the host enabled: its
// extensions, its features, its queue family.
func (p *physical) inherit(in *instance, h Host) error {
	enabled := map[string]bool{}
	for _, e := range h.Extensions {
		if !p.exts[e] {
			return fmt.Errorf("vulkan: the host enabled %s, which the physical device does not offer", e)
		}
		enabled[e] = true
	}
	p.exts = enabled
	p.extList = append([]string(nil), h.Extensions...)
	// Features: all off, then what the host's structures turn on.
	p.core, p.v11, p.cmKHR, p.cmNV, p.bf16 = vkPhysicalDeviceFeatures{}, vkPhysicalDeviceVulkan11Features{}, vkCooperativeMatrixFeatures{}, vkCooperativeMatrixFeatures{}, vkCooperativeMatrixFeatures{}
	p.v12.f, p.v13.f = [47]uint32{}, [15]uint32{}
	if h.CoreFeatures != nil {
		p.core = *(*vkPhysicalDeviceFeatures)(h.CoreFeatures)
	}
	for at, n := h.Features, 0; at != nil; n++ {
		if n > 64 {
			return errors.New("vulkan: the host's feature chain is longer than 64 structures (a loop?)")
		}
		hd := (*hostLink)(at)
		switch hd.sType {
		case stFeatures2:
			p.core = (*vkPhysicalDeviceFeatures2)(at).features
		case stVulkan11Features:
			p.v11 = *(*vkPhysicalDeviceVulkan11Features)(at)
		case stVulkan12Features:
			p.v12.f = (*vkPhysicalDeviceVulkan12Features)(at).f
		case stVulkan13Features:
			p.v13.f = (*vkPhysicalDeviceVulkan13Features)(at).f
		case st16BitStorageFeatures: // VkPhysicalDevice16BitStorageFeatures
			s := (*[4]uint32)(unsafe.Add(at, unsafe.Sizeof(hostLink{})))
			p.v11.storageBuffer16BitAccess, p.v11.uniformAndStorageBuffer16BitAccess = s[0], s[1]
			p.v11.storagePushConstant16, p.v11.storageInputOutput16 = s[2], s[3]
		case stFloat16Int8Features: // VkPhysicalDeviceShaderFloat16Int8Features
			s := (*[2]uint32)(unsafe.Add(at, unsafe.Sizeof(hostLink{})))
			p.v12.f[v12ShaderFloat16], p.v12.f[v12ShaderFloat16+1] = s[0], s[1]
		case stCooperativeMatrixFeaturesKHR:
			p.cmKHR.f = (*vkCooperativeMatrixFeatures)(at).f
		case stCooperativeMatrixFeaturesNV:
			p.cmNV.f = (*vkCooperativeMatrixFeatures)(at).f
		case stPhysicalDeviceShaderBfloat16Features:
			p.bf16.f = (*vkCooperativeMatrixFeatures)(at).f
		}
		at = hd.pNext
	}
	if !enabled[extCoopMatKHR] {
		p.cmKHR = vkCooperativeMatrixFeatures{}
	}
	if !enabled[extCoopMatNV] {
		p.cmNV = vkCooperativeMatrixFeatures{}
	}
	return p.useFamily(in, h.QueueFamily)
}

// hostLink is the header of a structure in the host's chain (chainLink
// with the pointer typed, since it points into the host's memory).
type hostLink struct {
	sType uint32
	pNext unsafe.Pointer
}

// useFamily makes family the compute queue family.
func (p *physical) useFamily(in *instance, family uint32) error {
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	call(in.fn.getQueueFamilyProperties, p.handle, addr(n), 0)
	fams := sliceIn[vkQueueFamilyProperties](&a, int(*n))
	if len(fams) > 0 {
		call(in.fn.getQueueFamilyProperties, p.handle, addr(n), saddr(fams))
	}
	if int(family) >= len(fams) || fams[family].queueFlags&queueCompute == 0 {
		return fmt.Errorf("vulkan: the host's queue family %d is not a compute family of the device", family)
	}
	p.family, p.qfamily = int(family), fams[family]
	return nil
}
