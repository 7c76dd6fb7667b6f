//go:build linux && cgo

package vulkan

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/kcgo/kc/backend"
)

// theDriver is the registered driver.
var theDriver = &driver{}

func init() { backend.Register(theDriver) }

// driver is the backend.Driver for Vulkan. It keeps one VkInstance for the
// life of the process, created on first use.
type driver struct {
	once sync.Once
	in   *instance
	err  error
}

// Name implements backend.Driver.
func (*driver) Name() string { return "vulkan" }

func (dr *driver) instance() (*instance, error) {
	dr.once.Do(func() { dr.in, dr.err = newInstance() })
	return dr.in, dr.err
}

// Adapters implements backend.Driver.
func (dr *driver) Adapters(ctx context.Context) ([]backend.AdapterInfo, error) {
	in, err := dr.instance()
	if err != nil {
		return nil, err
	}
	out := make([]backend.AdapterInfo, len(in.phys))
	for i, p := range in.phys {
		out[i] = p.info(i)
	}
	return out, nil
}

// Open implements backend.Driver.
func (dr *driver) Open(ctx context.Context, index int) (backend.DeviceImpl, error) {
	in, err := dr.instance()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(in.phys) {
		return nil, fmt.Errorf("vulkan: no adapter %d (have %d)", index, len(in.phys))
	}
	return openDevice(in, in.phys[index], index)
}

var deviceTypes = map[uint32]backend.DeviceType{
	1: backend.TypeIntegrated, 2: backend.TypeDiscrete, 3: backend.TypeVirtual, 4: backend.TypeCPU,
}

// Subgroup operation bits (VkSubgroupFeatureFlagBits) kc's subgroup
// intrinsics need: basic, vote, arithmetic, ballot, shuffle.
const subgroupOpsNeeded = 0x1 | 0x2 | 0x4 | 0x8 | 0x10

// Indices into VkPhysicalDeviceShaderBfloat16FeaturesKHR's booleans
// (physical.bf16.f).
const (
	bf16Type    = 0 // shaderBFloat16Type
	bf16CoopMat = 2 // shaderBFloat16CooperativeMatrix
)

// info describes p as a backend adapter.
func (p *physical) info(index int) backend.AdapterInfo {
	lim := p.props.limits
	maxBuf := int64(p.maxBuf)
	if maxBuf == 0 || maxBuf > math.MaxInt64/2 {
		maxBuf = int64(lim.maxStorageBufferRange)
	}
	a := backend.AdapterInfo{
		Driver:      "vulkan",
		DriverIndex: index,
		Name:        cString(p.props.deviceName[:]),
		API:         "Vulkan " + versionString(p.props.apiVersion),
		Type:        deviceTypes[p.props.deviceType],
		VendorID:    p.props.vendorID,
		DeviceID:    p.props.deviceID,
		DriverInfo:  p.driverInfo(),
		Targets:     []backend.Target{backend.SPIRV},
		Limits: backend.Limits{
			MaxBufferSize:                   maxBuf,
			MaxStorageBufferBindingSize:     int64(lim.maxStorageBufferRange),
			MaxUniformBufferBindingSize:     int64(lim.maxUniformBufferRange),
			MaxStorageBuffersPerStage:       int(lim.maxPerStageDescriptorStorageBuffers),
			MinStorageBufferOffsetAlignment: int64(lim.minStorageBufferOffsetAlignment),
			MinUniformBufferOffsetAlignment: int64(lim.minUniformBufferOffsetAlignment),
			MaxWorkgroupSize:                [3]int{int(lim.maxComputeWorkGroupSize[0]), int(lim.maxComputeWorkGroupSize[1]), int(lim.maxComputeWorkGroupSize[2])},
			MaxInvocationsPerWorkgroup:      int(lim.maxComputeWorkGroupInvocations),
			MaxWorkgroupsPerDimension:       min(lim.maxComputeWorkGroupCount[0], lim.maxComputeWorkGroupCount[1], lim.maxComputeWorkGroupCount[2]),
			MaxSharedMemory:                 int(lim.maxComputeSharedMemorySize),
			MaxLoopIterations:               p.loopBudget(),
		},
		F16:          p.hasV12 && p.v12.f[v12ShaderFloat16] != 0 && p.v11.storageBuffer16BitAccess != 0,
		Subgroups:    p.subgroup.supportedStages&stageCompute != 0 && p.subgroup.supportedOperations&subgroupOpsNeeded == subgroupOpsNeeded,
		IntegerDot:   p.hasV13 && p.v13.f[v13ShaderIntegerDotProduct] != 0,
		BF16:         p.exts[extBFloat16] && p.bf16.f[bf16Type] != 0 && p.v11.storageBuffer16BitAccess != 0,
		Int8:         p.hasV12 && p.v12.f[v12ShaderInt8] != 0 && p.v12.f[v12StorageBuffer8BitAccess] != 0,
		SubgroupSize: int(p.subgroup.subgroupSize),
		SubgroupMin:  int(p.sgsc.minSubgroupSize),
		SubgroupMax:  int(p.sgsc.maxSubgroupSize),
		Timestamps:   p.qfamily.timestampValidBits > 0 && lim.timestampPeriod > 0,
		TimestampNs:  float64(lim.timestampPeriod),
	}
	if a.SubgroupMin == 0 {
		a.SubgroupMin, a.SubgroupMax = a.SubgroupSize, a.SubgroupSize
	}
	if p.cmKHR.f[0] != 0 {
		for _, s := range p.coopKHR {
			// a bf16 shape is usable only with shaderBFloat16CooperativeMatrix
			if (s.A == "bf16" || s.B == "bf16" || s.C == "bf16" || s.Result == "bf16") && p.bf16.f[bf16CoopMat] == 0 {
				continue
			}
			a.CoopMat = append(a.CoopMat, s)
		}
	}
	if p.cmNV.f[0] != 0 {
		a.CoopMat = append(a.CoopMat, p.coopNV...)
	}
	if p.coopMat2Enabled() {
		a.CoopMat2 = p.coopMat2Info()
	}
	for _, e := range notableExtensions {
		if p.exts[e] {
			a.Extensions = append(a.Extensions, e)
		}
	}
	return a
}

// driverIDLLVMPipe is VK_DRIVER_ID_MESA_LLVMPIPE (VkDriverId).
const driverIDLLVMPipe = 13

// loopBudget is Limits.MaxLoopIterations: llvmpipe's budget when the
// driver ID (Vulkan 1.2's VkPhysicalDeviceDriverProperties) says
// llvmpipe, or, on a device too old to report one, when its name does.
func (p *physical) loopBudget() int {
	id := p.driver.driverID
	if id == driverIDLLVMPipe || id == 0 && backend.IsLLVMPipe(cString(p.props.deviceName[:])) {
		return backend.LLVMPipeLoopIterations
	}
	return 0
}

// driverInfo is "driverName driverInfo" from VkPhysicalDeviceDriverProperties,
// or the packed driver version when the device predates Vulkan 1.2.
func (p *physical) driverInfo() string {
	name, info := cString(p.driver.driverName[:]), cString(p.driver.driverInfo[:])
	switch {
	case name != "" && info != "":
		return name + " " + info
	case name != "":
		return name
	}
	return fmt.Sprintf("driver version %#x", p.props.driverVersion)
}
