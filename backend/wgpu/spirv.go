//go:build !js

package wgpu

// The binding's ShaderModuleSPIRVDescriptor copies the code as bytes and
// passes len(bytes) as codeSize, which wgpu-native reads as a count of
// 32-bit words (it then reads four times too much). The fix lives here, not
// in a fork: the descriptor is built in C with the word count and passed to
// wgpuDeviceCreateShaderModule of the same wgpu-native the binding links
// (the symbols resolve at the final link). The structs mirror webgpu.h of
// wgpu-native v0.19 (the binding's lib/webgpu.h); spirv_test.go checks that
// a valid module loads and an invalid one is refused with naga's message.

/*
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct kcChained { const struct kcChained *next; uint32_t sType; } kcChained;
typedef struct { kcChained chain; uint32_t codeSize; const uint32_t *code; } kcSPIRVDesc;
typedef struct { const kcChained *nextInChain; const char *label; size_t hintCount; const void *hints; } kcModuleDesc;
typedef void (*kcErrorCallback)(uint32_t type, const char *message, void *userdata);

extern void *wgpuDeviceCreateShaderModule(void *device, const kcModuleDesc *descriptor);
extern void wgpuDevicePushErrorScope(void *device, uint32_t filter);
extern void wgpuDevicePopErrorScope(void *device, kcErrorCallback callback, void *userdata);
extern void wgpuShaderModuleRelease(void *shaderModule);

typedef struct { uint32_t type; char *message; } kcError;

static void kc_error_cb(uint32_t type, const char *message, void *userdata) {
	kcError *e = userdata;
	if (type != 0 && e->type == 0) {
		e->type = type;
		e->message = strdup(message ? message : "");
	}
}

enum { kcSTypeSPIRV = 0x00000005, kcFilterValidation = 0x00000000 };

static void *kc_spirv_module(void *device, const uint32_t *code, uint32_t words, const char *label, kcError *err) {
	kcSPIRVDesc spirv = { { NULL, kcSTypeSPIRV }, words, code };
	kcModuleDesc desc = { &spirv.chain, label, 0, NULL };
	wgpuDevicePushErrorScope(device, kcFilterValidation);
	void *m = wgpuDeviceCreateShaderModule(device, &desc);
	wgpuDevicePopErrorScope(device, kc_error_cb, err);
	if (err->type != 0 && m != NULL) {
		wgpuShaderModuleRelease(m);
		m = NULL;
	}
	return m;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cogentcore/webgpu/wgpu"
)

// handleOf returns the C handle inside a binding object whose only field is
// that handle (wgpu.Adapter, wgpu.Device, wgpu.ShaderModule in v0.23.0).
func handleOf[T any](p *T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(p)) }

func init() {
	// The layout handleOf relies on: one pointer-sized field.
	ptr := unsafe.Sizeof(uintptr(0))
	if unsafe.Sizeof(wgpu.Device{}) != ptr || unsafe.Sizeof(wgpu.ShaderModule{}) != ptr || unsafe.Sizeof(wgpu.Adapter{}) != ptr {
		panic("backend/wgpu: the binding's Adapter, Device or ShaderModule layout changed; update spirv.go and request.go")
	}
}

// createSPIRVModule creates a shader module from SPIR-V words with the
// correct word count.
func createSPIRVModule(dev *wgpu.Device, label string, words []uint32) (*wgpu.ShaderModule, error) {
	if len(words) == 0 {
		return nil, errors.New("naga: empty SPIR-V module")
	}
	code := C.malloc(C.size_t(4 * len(words)))
	defer C.free(code)
	copy(unsafe.Slice((*uint32)(code), len(words)), words)
	clabel := C.CString(label)
	defer C.free(unsafe.Pointer(clabel))
	var e C.kcError
	m := C.kc_spirv_module(handleOf(dev), (*C.uint32_t)(code), C.uint32_t(len(words)), clabel, &e)
	if e._type != 0 {
		msg := C.GoString(e.message)
		C.free(unsafe.Pointer(e.message))
		return nil, fmt.Errorf("naga (SPIR-V): %s", msg)
	}
	if m == nil {
		return nil, errors.New("naga (SPIR-V): shader module creation failed")
	}
	holder := new(wgpu.ShaderModule)
	*(*unsafe.Pointer)(unsafe.Pointer(holder)) = m
	return holder, nil
}
