//go:build !js

package wgpu

// Device creation is done here rather than through the binding's
// Adapter.RequestDevice, for two callbacks the binding cannot give safely:
// wgpu-native's default uncaptured-error and device-lost handlers panic
// (a Rust panic across the C boundary aborts the process), and the binding's
// DeviceLostCallback stores a Go pointer in C memory, which the default
// cgocheck rejects with a panic. Here both callbacks are C functions that
// record into a C-allocated kcDeviceState the Go side polls (device.check),
// so an error outside an error scope or a lost device becomes an error
// value. The structs mirror webgpu.h of wgpu-native v0.19 (the binding's
// lib/webgpu.h): WGPUDeviceDescriptor, WGPURequiredLimits, WGPULimits.

/*
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct kcChained2 { const struct kcChained2 *next; uint32_t sType; } kcChained2;

typedef struct {
	uint32_t maxTextureDimension1D, maxTextureDimension2D, maxTextureDimension3D, maxTextureArrayLayers;
	uint32_t maxBindGroups, maxBindGroupsPlusVertexBuffers, maxBindingsPerBindGroup;
	uint32_t maxDynamicUniformBuffersPerPipelineLayout, maxDynamicStorageBuffersPerPipelineLayout;
	uint32_t maxSampledTexturesPerShaderStage, maxSamplersPerShaderStage, maxStorageBuffersPerShaderStage;
	uint32_t maxStorageTexturesPerShaderStage, maxUniformBuffersPerShaderStage;
	uint64_t maxUniformBufferBindingSize, maxStorageBufferBindingSize;
	uint32_t minUniformBufferOffsetAlignment, minStorageBufferOffsetAlignment, maxVertexBuffers;
	uint64_t maxBufferSize;
	uint32_t maxVertexAttributes, maxVertexBufferArrayStride, maxInterStageShaderComponents;
	uint32_t maxInterStageShaderVariables, maxColorAttachments, maxColorAttachmentBytesPerSample;
	uint32_t maxComputeWorkgroupStorageSize, maxComputeInvocationsPerWorkgroup;
	uint32_t maxComputeWorkgroupSizeX, maxComputeWorkgroupSizeY, maxComputeWorkgroupSizeZ;
	uint32_t maxComputeWorkgroupsPerDimension;
} kcLimits;

typedef struct { const kcChained2 *nextInChain; kcLimits limits; } kcRequiredLimits;
typedef struct { const kcChained2 *nextInChain; const char *label; } kcQueueDesc;
typedef void (*kcLostCallback)(uint32_t reason, const char *message, void *userdata);
typedef void (*kcErrCallback)(uint32_t type, const char *message, void *userdata);
typedef struct { const kcChained2 *nextInChain; kcErrCallback callback; void *userdata; } kcUncapturedInfo;
typedef struct {
	const kcChained2 *nextInChain;
	const char *label;
	size_t requiredFeatureCount;
	const uint32_t *requiredFeatures;
	const kcRequiredLimits *requiredLimits;
	kcQueueDesc defaultQueue;
	kcLostCallback deviceLostCallback;
	void *deviceLostUserdata;
	kcUncapturedInfo uncapturedErrorCallbackInfo;
} kcDeviceDesc;

typedef void (*kcRequestCallback)(uint32_t status, void *device, const char *message, void *userdata);
extern void wgpuAdapterRequestDevice(void *adapter, const kcDeviceDesc *descriptor, kcRequestCallback callback, void *userdata);

// kcDeviceState is what the callbacks record; the Go side polls it.
typedef struct {
	int lost;
	char *lostMessage;
	int errors;
	char *firstError;
} kcDeviceState;

static void kc_lost_cb(uint32_t reason, const char *message, void *userdata) {
	kcDeviceState *s = userdata;
	if (!s->lost) {
		s->lost = (int)reason + 1;
		s->lostMessage = strdup(message ? message : "");
	}
}

static void kc_uncaptured_cb(uint32_t type, const char *message, void *userdata) {
	kcDeviceState *s = userdata;
	s->errors++;
	if (!s->firstError) {
		s->firstError = strdup(message ? message : "");
	}
}

typedef struct { uint32_t status; void *device; char *message; } kcRequest;

static void kc_request_cb(uint32_t status, void *device, const char *message, void *userdata) {
	kcRequest *r = userdata;
	r->status = status;
	r->device = device;
	r->message = message ? strdup(message) : NULL;
}

static void kc_request_device(void *adapter, const uint32_t *features, size_t nfeatures, const kcLimits *limits, kcDeviceState *state, kcRequest *r) {
	kcRequiredLimits required;
	kcDeviceDesc desc;
	memset(&desc, 0, sizeof desc);
	desc.label = "kc";
	desc.requiredFeatureCount = nfeatures;
	desc.requiredFeatures = features;
	if (limits) {
		required.nextInChain = NULL;
		required.limits = *limits;
		desc.requiredLimits = &required;
	}
	desc.deviceLostCallback = kc_lost_cb;
	desc.deviceLostUserdata = state;
	desc.uncapturedErrorCallbackInfo.callback = kc_uncaptured_cb;
	desc.uncapturedErrorCallbackInfo.userdata = state;
	wgpuAdapterRequestDevice(adapter, &desc, kc_request_cb, r);
}

static void kc_undefined_limits(kcLimits *l) {
	memset(l, 0xff, sizeof *l); // WGPU_LIMIT_U32_UNDEFINED / U64_UNDEFINED everywhere
}

// kc_provoke_uncaptured makes a validation error outside any error scope
// (a buffer with MapRead|Storage usage); for the tests.
typedef struct { const kcChained2 *nextInChain; const char *label; uint32_t usage; uint64_t size; uint32_t mappedAtCreation; } kcBufferDesc;
extern void *wgpuDeviceCreateBuffer(void *device, const kcBufferDesc *descriptor);
extern void wgpuBufferRelease(void *buffer);
static void kc_provoke_uncaptured(void *device) {
	kcBufferDesc d = { NULL, "kc-provoke", 0x1 | 0x80, 256, 0 };
	void *b = wgpuDeviceCreateBuffer(device, &d);
	if (b) wgpuBufferRelease(b);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// deviceState is the C-side record of uncaptured errors and device loss.
type deviceState struct {
	c        *C.kcDeviceState
	reported int
}

// requestDevice asks for a device with feats and, when adapterLimits is
// set, the adapter's compute limits instead of WebGPU's defaults.
func requestDevice(a *wgpu.Adapter, feats []wgpu.FeatureName, adapterLimits bool) (*wgpu.Device, *deviceState, error) {
	var lim C.kcLimits
	C.kc_undefined_limits(&lim)
	if adapterLimits {
		al := a.GetLimits().Limits
		lim.maxBufferSize = C.uint64_t(al.MaxBufferSize)
		lim.maxStorageBufferBindingSize = C.uint64_t(al.MaxStorageBufferBindingSize)
		lim.maxUniformBufferBindingSize = C.uint64_t(al.MaxUniformBufferBindingSize)
		lim.maxStorageBuffersPerShaderStage = C.uint32_t(al.MaxStorageBuffersPerShaderStage)
		lim.minStorageBufferOffsetAlignment = C.uint32_t(al.MinStorageBufferOffsetAlignment)
		lim.minUniformBufferOffsetAlignment = C.uint32_t(al.MinUniformBufferOffsetAlignment)
		lim.maxComputeWorkgroupStorageSize = C.uint32_t(al.MaxComputeWorkgroupStorageSize)
		lim.maxComputeInvocationsPerWorkgroup = C.uint32_t(al.MaxComputeInvocationsPerWorkgroup)
		lim.maxComputeWorkgroupSizeX = C.uint32_t(al.MaxComputeWorkgroupSizeX)
		lim.maxComputeWorkgroupSizeY = C.uint32_t(al.MaxComputeWorkgroupSizeY)
		lim.maxComputeWorkgroupSizeZ = C.uint32_t(al.MaxComputeWorkgroupSizeZ)
		lim.maxComputeWorkgroupsPerDimension = C.uint32_t(al.MaxComputeWorkgroupsPerDimension)
	}
	var cfeats *C.uint32_t
	if len(feats) > 0 {
		cfeats = (*C.uint32_t)(C.malloc(C.size_t(4 * len(feats))))
		defer C.free(unsafe.Pointer(cfeats))
		fs := unsafe.Slice((*uint32)(unsafe.Pointer(cfeats)), len(feats))
		for i, f := range feats {
			fs[i] = uint32(f)
		}
	}
	st := (*C.kcDeviceState)(C.calloc(1, C.size_t(unsafe.Sizeof(C.kcDeviceState{}))))
	r := (*C.kcRequest)(C.calloc(1, C.size_t(unsafe.Sizeof(C.kcRequest{}))))
	defer C.free(unsafe.Pointer(r))
	C.kc_request_device(handleOf(a), cfeats, C.size_t(len(feats)), &lim, st, r)
	if r.message != nil {
		defer C.free(unsafe.Pointer(r.message))
	}
	if r.status != 0 || r.device == nil {
		C.free(unsafe.Pointer(st))
		msg := ""
		if r.message != nil {
			msg = C.GoString(r.message)
		}
		return nil, nil, fmt.Errorf("%w: %s", errNoDevice, msg)
	}
	dev := new(wgpu.Device)
	*(*unsafe.Pointer)(unsafe.Pointer(dev)) = r.device
	return dev, &deviceState{c: st}, nil
}

// check turns what the callbacks recorded into an error: a lost device
// (wrapping backend.ErrDeviceLost, for good), or the first validation error
// raised outside an error scope since the last check.
func (s *deviceState) check() error {
	if s == nil || s.c == nil {
		return nil
	}
	if s.c.lost != 0 {
		return fmt.Errorf("wgpu: %w: %s", backend.ErrDeviceLost, C.GoString(s.c.lostMessage))
	}
	if n := int(s.c.errors); n > s.reported {
		msg := C.GoString(s.c.firstError)
		C.free(unsafe.Pointer(s.c.firstError))
		s.c.firstError = nil
		s.reported = n
		return fmt.Errorf("wgpu: uncaptured error: %s", msg)
	}
	return nil
}

// free releases the C state; called after the device is released.
func (s *deviceState) free() {
	if s == nil || s.c == nil {
		return
	}
	C.free(unsafe.Pointer(s.c.lostMessage))
	C.free(unsafe.Pointer(s.c.firstError))
	C.free(unsafe.Pointer(s.c))
	s.c = nil
}

// provokeUncaptured raises a validation error outside any error scope (tests).
func provokeUncaptured(dev *wgpu.Device) { C.kc_provoke_uncaptured(handleOf(dev)) }
