//go:build linux && cgo

package vulkan

import (
	"github.com/kcgo/kc/backend"
)

// VK_NV_cooperative_matrix2: workgroup-scope cooperative matrices and
// flexible dimensions (vulkan_core.h, VK_NV_COOPERATIVE_MATRIX_2_SPEC_VERSION
// 1). kc queries its features, limits and flexible-dimension shapes, and
// enables the extension with every feature the device reports, so that
// kernels with workgroup-scope matrices (`enable cooperative_matrix2`)
// load; backend.AdapterInfo.CoopMat2 reports what it found.

const (
	stCoopMat2Features        = 1000593000 // VkPhysicalDeviceCooperativeMatrix2FeaturesNV
	stCoopMatFlexibleDimProps = 1000593001 // VkCooperativeMatrixFlexibleDimensionsPropertiesNV
	stCoopMat2Properties      = 1000593002 // VkPhysicalDeviceCooperativeMatrix2PropertiesNV
)

// vkCoopMat2Features is VkPhysicalDeviceCooperativeMatrix2FeaturesNV: seven
// VkBool32 in the order of coopMat2FeatureNames.
type vkCoopMat2Features struct {
	sType uint32
	pNext uintptr
	f     [7]uint32
}

// vkCoopMat2Properties is VkPhysicalDeviceCooperativeMatrix2PropertiesNV.
type vkCoopMat2Properties struct {
	sType                uint32
	pNext                uintptr
	maxWorkgroupSize     uint32 // cooperativeMatrixWorkgroupScopeMaxWorkgroupSize
	maxDimension         uint32 // cooperativeMatrixFlexibleDimensionsMaxDimension
	reservedSharedMemory uint32 // cooperativeMatrixWorkgroupScopeReservedSharedMemory
}

// vkCoopMatFlexibleDimProps is VkCooperativeMatrixFlexibleDimensionsPropertiesNV.
type vkCoopMatFlexibleDimProps struct {
	sType                  uint32
	pNext                  uintptr
	mGran, nGran, kGran    uint32
	aType, bType, cType    uint32
	resultType             uint32
	saturatingAccumulation uint32
	scope                  uint32
	workgroupInvocations   uint32
}

// coopMat2 is what kc learnt of VK_NV_cooperative_matrix2 on one device.
type coopMat2 struct {
	feat  vkCoopMat2Features
	props vkCoopMat2Properties
	flex  []backend.CoopMatShape
}

// queryCoopMat2Flexible lists the flexible-dimension shapes through
// vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV.
func (p *physical) queryCoopMat2Flexible(in *instance) error {
	if !p.exts[extCoopMat2NV] || in.fn.getCoopMatFlexiblePropertiesNV == 0 {
		return nil
	}
	const name = "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	if err := check(name, call(in.fn.getCoopMatFlexiblePropertiesNV, p.handle, addr(n), 0)); err != nil {
		return err
	}
	props := sliceIn[vkCoopMatFlexibleDimProps](&a, int(*n))
	for i := range props {
		props[i].sType = stCoopMatFlexibleDimProps
	}
	if len(props) > 0 {
		r := call(in.fn.getCoopMatFlexiblePropertiesNV, p.handle, addr(n), saddr(props))
		if r != 0 && r != 5 { // VK_INCOMPLETE: keep what came
			return check(name, r)
		}
	}
	for _, c := range props[:min(int(*n), len(props))] {
		s := backend.CoopMatShape{
			M: int(c.mGran), N: int(c.nGran), K: int(c.kGran),
			A: componentName(c.aType), B: componentName(c.bType), C: componentName(c.cType),
			Result: componentName(c.resultType), Saturating: c.saturatingAccumulation != 0,
			Scope: scopeNames[c.scope], Flavor: "flex",
		}
		if c.scope == 2 { // VK_SCOPE_WORKGROUP_KHR
			s.Invocations = int(c.workgroupInvocations)
		}
		p.cm2.flex = append(p.cm2.flex, s)
	}
	return nil
}

// coopMat2Info is AdapterInfo.CoopMat2 (nil without the extension).
func (p *physical) coopMat2Info() *backend.CoopMat2 {
	if !p.exts[extCoopMat2NV] {
		return nil
	}
	f, pr := p.cm2.feat.f, p.cm2.props
	return &backend.CoopMat2{
		WorkgroupScope: f[0] != 0, FlexibleDimensions: f[1] != 0, Reductions: f[2] != 0,
		Conversions: f[3] != 0, PerElementOps: f[4] != 0, TensorAddressing: f[5] != 0, BlockLoads: f[6] != 0,
		MaxWorkgroupSize: int(pr.maxWorkgroupSize), MaxDimension: int(pr.maxDimension),
		ReservedShared: int(pr.reservedSharedMemory),
		Flexible:       append([]backend.CoopMatShape(nil), p.cm2.flex...),
	}
}

// coopMat2Enabled reports whether kc enables VK_NV_cooperative_matrix2 on
// p: when the device has it and VK_KHR_cooperative_matrix (which it
// requires), with its features on.
func (p *physical) coopMat2Enabled() bool {
	return p.exts[extCoopMat2NV] && p.exts[extCoopMatKHR] && p.cmKHR.f[0] != 0 && p.cm2.feat.f[0] != 0
}
