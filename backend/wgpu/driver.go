//go:build !js

// Package wgpu is kc's driver over github.com/cogentcore/webgpu (wgpu-native
// v0.19 with its naga), registered with package backend as "wgpu". Import it
// for its side effect:
//
//	import _ "github.com/kcgo/kc/backend/wgpu"
//
// It loads WGSL text, and SPIR-V words through naga's SPIR-V front end,
// into compute pipelines with explicit layouts (params uniform at binding 0
// with a dynamic offset, storage buffers at 1..), and records every dispatch
// of a scope into one compute pass until a copy, a timestamp or the submit
// ends it. It is the only kc package that imports the binding.
//
// Facts about this binding that shape the code (measured on lavapipe and on
// an H200):
//   - a validation error inside Queue.Submit aborts the process, so nothing
//     is submitted that has not been validated: package backend checks every
//     binding on the host, encoder errors surface at pass End and Finish
//     (inside error scopes) before Submit, buffers are never destroyed
//     while work may use them (only released; wgpu reference-counts them),
//     and staging buffers are always unmapped before they are used again;
//   - DeviceLostCallback panics under the default cgocheck, and wgpu-native's
//     default uncaptured-error and device-lost handlers panic (abort): the
//     device is therefore requested through cgo here (request.go) with C
//     callbacks that record both, and every submit and wait checks them, so
//     they surface as errors (backend.ErrDeviceLost for a lost device);
//   - the adapter's Name is "0x0": DriverDescription names the device;
//   - the SPIR-V descriptor passes a byte count where wgpu-native reads a
//     word count, so CreateShaderModule for SPIR-V is done here through cgo
//     against the same wgpu-native (spirv.go), not through the binding;
//   - its naga predates `enable f16`, subgroups and cooperative matrices, so
//     adapters report F16, Subgroups and CoopMat as absent.
package wgpu

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

func init() {
	backend.Register(driver{})
}

// driver is the backend.Driver for wgpu.
type driver struct{}

func (driver) Name() string { return "wgpu" }

var (
	instOnce sync.Once
	inst     *wgpu.Instance
	instErr  error
	adapters []*wgpu.Adapter
	infos    []backend.AdapterInfo
)

// instance creates the process-wide wgpu instance and enumerates its
// adapters once.
func instance() error {
	instOnce.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				instErr = fmt.Errorf("wgpu: create instance: %v", r)
			}
		}()
		wgpu.SetLogLevel(wgpu.LogLevelOff)
		inst = wgpu.CreateInstance(nil)
		for _, a := range inst.EnumerateAdapters(nil) {
			info := a.GetInfo()
			if info.BackendType == wgpu.BackendTypeNull {
				continue
			}
			adapters = append(adapters, a)
			infos = append(infos, describe(a, len(infos)))
		}
	})
	return instErr
}

func (driver) Adapters(ctx context.Context) ([]backend.AdapterInfo, error) {
	if err := instance(); err != nil {
		return nil, err
	}
	return append([]backend.AdapterInfo(nil), infos...), nil
}

func (driver) Open(ctx context.Context, index int) (backend.DeviceImpl, error) {
	if err := instance(); err != nil {
		return nil, err
	}
	if index < 0 || index >= len(adapters) {
		return nil, fmt.Errorf("wgpu: no adapter %d (have %d)", index, len(adapters))
	}
	return open(adapters[index], infos[index])
}

var apiNames = map[wgpu.BackendType]string{
	wgpu.BackendTypeVulkan:   "Vulkan",
	wgpu.BackendTypeMetal:    "Metal",
	wgpu.BackendTypeD3D12:    "D3D12",
	wgpu.BackendTypeD3D11:    "D3D11",
	wgpu.BackendTypeOpenGL:   "OpenGL",
	wgpu.BackendTypeOpenGLES: "OpenGL ES",
	wgpu.BackendTypeWebGPU:   "WebGPU",
}

var typeOf = map[wgpu.AdapterType]backend.DeviceType{
	wgpu.AdapterTypeDiscreteGPU:   backend.TypeDiscrete,
	wgpu.AdapterTypeIntegratedGPU: backend.TypeIntegrated,
	wgpu.AdapterTypeCPU:           backend.TypeCPU,
}

// describe fills an AdapterInfo from the binding's adapter queries.
func describe(a *wgpu.Adapter, index int) backend.AdapterInfo {
	info := a.GetInfo()
	l := a.GetLimits().Limits
	name := info.DriverDescription // info.Name is "0x0" in this binding
	if name == "" {
		name = info.Name
	}
	api := apiNames[info.BackendType]
	if api == "" {
		api = info.BackendType.String()
	}
	lim := limitsOf(l)
	if backend.IsLLVMPipe(name) || backend.IsLLVMPipe(info.Name) {
		// wgpu-native v0.19 reports no driver ID; the name is all there is
		lim.MaxLoopIterations = backend.LLVMPipeLoopIterations
	}
	return backend.AdapterInfo{
		DriverIndex: index,
		Name:        name,
		API:         api,
		Type:        typeOf[info.AdapterType],
		VendorID:    info.VendorId,
		DeviceID:    info.DeviceId,
		DriverInfo:  fmt.Sprintf("wgpu-native (%s backend) %s", api, info.DriverDescription),
		Targets:     []backend.Target{backend.WGSL, backend.SPIRV},
		Limits:      lim,
		// This naga predates `enable f16` and subgroups: neither is usable
		// from WGSL here, whatever the hardware offers.
		Timestamps:  a.HasFeature(wgpu.FeatureNameTimestampQuery),
		TimestampNs: 1, // wgpu-native v0.19 does not expose the period; 1 ns on lavapipe and NVIDIA
	}
}

// deviceLimits are a device's limits l, keeping what its adapter's
// limits say that no WebGPU limit carries (MaxLoopIterations).
func deviceLimits(adapter backend.Limits, l wgpu.Limits) backend.Limits {
	d := limitsOf(l)
	d.MaxLoopIterations = adapter.MaxLoopIterations
	return d
}

func limitsOf(l wgpu.Limits) backend.Limits {
	return backend.Limits{
		MaxBufferSize:                   int64(l.MaxBufferSize),
		MaxStorageBufferBindingSize:     int64(l.MaxStorageBufferBindingSize),
		MaxUniformBufferBindingSize:     int64(l.MaxUniformBufferBindingSize),
		MaxStorageBuffersPerStage:       int(l.MaxStorageBuffersPerShaderStage),
		MinStorageBufferOffsetAlignment: int64(l.MinStorageBufferOffsetAlignment),
		MinUniformBufferOffsetAlignment: int64(l.MinUniformBufferOffsetAlignment),
		MaxWorkgroupSize:                [3]int{int(l.MaxComputeWorkgroupSizeX), int(l.MaxComputeWorkgroupSizeY), int(l.MaxComputeWorkgroupSizeZ)},
		MaxInvocationsPerWorkgroup:      int(l.MaxComputeInvocationsPerWorkgroup),
		MaxWorkgroupsPerDimension:       l.MaxComputeWorkgroupsPerDimension,
		MaxSharedMemory:                 int(l.MaxComputeWorkgroupStorageSize),
	}
}

var errNoDevice = errors.New("wgpu: request device failed")
