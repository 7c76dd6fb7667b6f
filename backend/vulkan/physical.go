//go:build linux && cgo

package vulkan

import (
	"fmt"

	"github.com/kcgo/kc/backend"
)

// physical is one VkPhysicalDevice and everything kc asked it.
type physical struct {
	handle   uintptr
	api      uint32 // the device's API version, capped by the instance's
	props    vkPhysicalDeviceProperties
	driver   vkPhysicalDeviceDriverProperties
	subgroup vkPhysicalDeviceSubgroupProperties
	sgsc     vkPhysicalDeviceSubgroupSizeControlProperties
	maxBuf   uint64 // maintenance4 maxBufferSize, 0 when unknown

	exts    map[string]bool
	extList []string

	// Features as queried; the same values are enabled on the device.
	core   vkPhysicalDeviceFeatures
	v11    vkPhysicalDeviceVulkan11Features
	v12    vkPhysicalDeviceVulkan12Features
	v13    vkPhysicalDeviceVulkan13Features
	cmKHR  vkCooperativeMatrixFeatures
	cmNV   vkCooperativeMatrixFeatures
	bf16   vkCooperativeMatrixFeatures
	pexec  vkCooperativeMatrixFeatures // f[0]: pipelineExecutableInfo (inspect.go)
	hasV12 bool
	hasV13 bool

	coopKHR []backend.CoopMatShape
	coopNV  []backend.CoopMatShape
	cm2     coopMat2 // VK_NV_cooperative_matrix2 (coopmat2.go)

	family  int // the compute queue family
	qfamily vkQueueFamilyProperties
	mem     vkPhysicalDeviceMemoryProperties
}

// Device extensions kc enables when present.
const (
	extCoopMatKHR    = "VK_KHR_cooperative_matrix"
	extCoopMatNV     = "VK_NV_cooperative_matrix"
	extCoopMat2NV    = "VK_NV_cooperative_matrix2"
	extBFloat16      = "VK_KHR_shader_bfloat16"
	extSubgroupSize  = "VK_EXT_subgroup_size_control"
	extMemoryModel   = "VK_KHR_vulkan_memory_model"
	extFloat16Int8   = "VK_KHR_shader_float16_int8"
	extStorage16     = "VK_KHR_16bit_storage"
	extStorage8      = "VK_KHR_8bit_storage"
	extMaintenance4  = "VK_KHR_maintenance4"
	extNonSemantic   = "VK_KHR_shader_non_semantic_info"
	extPortSubset    = "VK_KHR_portability_subset"
	extIntegerDot    = "VK_KHR_shader_integer_dot_product"
	extShaderClock   = "VK_KHR_shader_clock"
	extPushDescr     = "VK_KHR_push_descriptor"
	extSubgroupExtTy = "VK_KHR_shader_subgroup_extended_types"
)

// notableExtensions are reported in AdapterInfo.Extensions when present
// (and, except the informational ones, enabled on the device).
var notableExtensions = []string{
	extCoopMatKHR, extCoopMatNV, extCoopMat2NV, extBFloat16, extSubgroupSize,
	extMemoryModel, extFloat16Int8, extStorage16, extStorage8, extMaintenance4,
	extIntegerDot, extNonSemantic, extSubgroupExtTy, extPushDescr, extShaderClock,
}

// describe queries one physical device.
func (in *instance) describe(pd uintptr) (*physical, error) {
	p := &physical{handle: pd}
	exts, err := in.deviceExtensions(pd)
	if err != nil {
		return nil, err
	}
	p.extList = exts
	p.exts = map[string]bool{}
	for _, e := range exts {
		p.exts[e] = true
	}
	p.queryProperties(in)
	p.queryFeatures(in)
	if err := p.queryCoopMat(in); err != nil {
		return nil, err
	}
	if err := p.queryCoopMat2Flexible(in); err != nil {
		return nil, err
	}
	p.queryQueues(in)
	p.queryMemory(in)
	return p, nil
}

// chain links Vulkan structures (each starting with sType, pNext) through
// their pNext fields in argument order and returns the head's address.
func chain(heads ...*chainLink) {
	for i := 0; i+1 < len(heads); i++ {
		heads[i].pNext = addr(heads[i+1])
	}
}

// chainLink is the common header of every extensible Vulkan structure.
type chainLink struct {
	sType uint32
	pNext uintptr
}

// link views an extensible structure's header.
func link[T any](p *T) *chainLink { return (*chainLink)(unsafePointer(p)) }

// queryProperties fills props, driver, subgroup, sgsc and maxBuf through
// vkGetPhysicalDeviceProperties2.
func (p *physical) queryProperties(in *instance) {
	var a arena
	defer a.free()
	// First the core properties alone, to learn the API version.
	p2 := newIn[vkPhysicalDeviceProperties2](&a)
	p2.sType = stProperties2
	call(in.fn.getProperties2, p.handle, addr(p2))
	p.api = min(p2.properties.apiVersion, in.version)

	links := []*chainLink{link(p2)}
	sg := newIn[vkPhysicalDeviceSubgroupProperties](&a)
	sg.sType = stSubgroupProperties
	links = append(links, link(sg))
	var drv *vkPhysicalDeviceDriverProperties
	if p.api >= apiVersion(1, 2, 0) {
		drv = newIn[vkPhysicalDeviceDriverProperties](&a)
		drv.sType = stDriverProperties
		links = append(links, link(drv))
	}
	var sc *vkPhysicalDeviceSubgroupSizeControlProperties
	if p.api >= apiVersion(1, 3, 0) || p.exts[extSubgroupSize] {
		sc = newIn[vkPhysicalDeviceSubgroupSizeControlProperties](&a)
		sc.sType = stSubgroupSizeControlProperties
		links = append(links, link(sc))
	}
	var m4 *vkMaintenance4Properties
	if p.api >= apiVersion(1, 3, 0) || p.exts[extMaintenance4] {
		m4 = newIn[vkMaintenance4Properties](&a)
		m4.sType = stMaintenance4Properties
		links = append(links, link(m4))
	}
	var cm2 *vkCoopMat2Properties
	if p.exts[extCoopMat2NV] {
		cm2 = newIn[vkCoopMat2Properties](&a)
		cm2.sType = stCoopMat2Properties
		links = append(links, link(cm2))
	}
	chain(links...)
	call(in.fn.getProperties2, p.handle, addr(p2))
	p.props = p2.properties
	if cm2 != nil {
		p.cm2.props = *cm2
		p.cm2.props.pNext = 0
	}
	p.subgroup = *sg
	if drv != nil {
		p.driver = *drv
	}
	if sc != nil {
		p.sgsc = *sc
	}
	if m4 != nil {
		p.maxBuf = m4.maxBufferSize
	}
}

// queryFeatures fills the feature structures through
// vkGetPhysicalDeviceFeatures2.
func (p *physical) queryFeatures(in *instance) {
	var a arena
	defer a.free()
	f2 := newIn[vkPhysicalDeviceFeatures2](&a)
	f2.sType = stFeatures2
	v11 := newIn[vkPhysicalDeviceVulkan11Features](&a)
	v11.sType = stVulkan11Features
	links := []*chainLink{link(f2), link(v11)}
	var v12 *vkPhysicalDeviceVulkan12Features
	if p.api >= apiVersion(1, 2, 0) {
		v12 = newIn[vkPhysicalDeviceVulkan12Features](&a)
		v12.sType = stVulkan12Features
		links = append(links, link(v12))
	}
	var v13 *vkPhysicalDeviceVulkan13Features
	if p.api >= apiVersion(1, 3, 0) {
		v13 = newIn[vkPhysicalDeviceVulkan13Features](&a)
		v13.sType = stVulkan13Features
		links = append(links, link(v13))
	}
	opt := func(ext string, st uint32) *vkCooperativeMatrixFeatures {
		if !p.exts[ext] {
			return nil
		}
		f := newIn[vkCooperativeMatrixFeatures](&a)
		f.sType = st
		links = append(links, link(f))
		return f
	}
	cmKHR := opt(extCoopMatKHR, stCooperativeMatrixFeaturesKHR)
	cmNV := opt(extCoopMatNV, stCooperativeMatrixFeaturesNV)
	bf16 := opt(extBFloat16, stPhysicalDeviceShaderBfloat16Features)
	pexec := opt(extPipelineExec, stPipelineExecFeatures)
	var cm2 *vkCoopMat2Features
	if p.exts[extCoopMat2NV] {
		cm2 = newIn[vkCoopMat2Features](&a)
		cm2.sType = stCoopMat2Features
		links = append(links, link(cm2))
	}
	chain(links...)
	call(in.fn.getFeatures2, p.handle, addr(f2))
	p.core = f2.features
	p.v11 = *v11
	if v12 != nil {
		p.v12, p.hasV12 = *v12, true
	}
	if v13 != nil {
		p.v13, p.hasV13 = *v13, true
	}
	if cmKHR != nil {
		p.cmKHR = *cmKHR
	}
	if cmNV != nil {
		p.cmNV = *cmNV
	}
	if bf16 != nil {
		p.bf16 = *bf16
	}
	if pexec != nil {
		p.pexec = *pexec
	}
	if cm2 != nil {
		p.cm2.feat = *cm2
		p.cm2.feat.pNext = 0
	}
}

// componentNames maps VkComponentTypeKHR to kc's type names.
var componentNames = map[uint32]string{
	0: "f16", 1: "f32", 2: "f64", 3: "s8", 4: "s16", 5: "s32", 6: "s64",
	7: "u8", 8: "u16", 9: "u32", 10: "u64", 1000141000: "bf16",
	1000491000: "s8packed", 1000491001: "u8packed", 1000491002: "e4m3", 1000491003: "e5m2",
}

func componentName(t uint32) string {
	if s, ok := componentNames[t]; ok {
		return s
	}
	return fmt.Sprintf("component(%d)", t)
}

// scopeNames maps VkScopeKHR to names.
var scopeNames = map[uint32]string{1: "device", 2: "workgroup", 3: "subgroup", 5: "queuefamily"}

// queryCoopMat lists the cooperative-matrix shapes of both flavours.
func (p *physical) queryCoopMat(in *instance) error {
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	if p.exts[extCoopMatKHR] && in.fn.getCoopMatPropertiesKHR != 0 {
		if err := check("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR", call(in.fn.getCoopMatPropertiesKHR, p.handle, addr(n), 0)); err != nil {
			return err
		}
		props := sliceIn[vkCooperativeMatrixProperties](&a, int(*n))
		for i := range props {
			props[i].sType = stCooperativeMatrixPropertiesKHR
		}
		if len(props) > 0 {
			r := call(in.fn.getCoopMatPropertiesKHR, p.handle, addr(n), saddr(props))
			if r != 0 && r != 5 {
				return check("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR", r)
			}
		}
		for _, c := range props[:min(int(*n), len(props))] {
			p.coopKHR = append(p.coopKHR, backend.CoopMatShape{
				M: int(c.mSize), N: int(c.nSize), K: int(c.kSize),
				A: componentName(c.aType), B: componentName(c.bType), C: componentName(c.cType),
				Result: componentName(c.resultType), Saturating: c.saturatingAccumulation != 0,
				Scope: scopeNames[c.scope], Flavor: "khr",
			})
		}
	}
	*n = 0
	if p.exts[extCoopMatNV] && in.fn.getCoopMatPropertiesNV != 0 {
		if err := check("vkGetPhysicalDeviceCooperativeMatrixPropertiesNV", call(in.fn.getCoopMatPropertiesNV, p.handle, addr(n), 0)); err != nil {
			return err
		}
		props := sliceIn[vkCooperativeMatrixPropertiesNV](&a, int(*n))
		for i := range props {
			props[i].sType = stCooperativeMatrixPropertiesNV
		}
		if len(props) > 0 {
			r := call(in.fn.getCoopMatPropertiesNV, p.handle, addr(n), saddr(props))
			if r != 0 && r != 5 {
				return check("vkGetPhysicalDeviceCooperativeMatrixPropertiesNV", r)
			}
		}
		for _, c := range props[:min(int(*n), len(props))] {
			p.coopNV = append(p.coopNV, backend.CoopMatShape{
				M: int(c.mSize), N: int(c.nSize), K: int(c.kSize),
				A: componentName(c.aType), B: componentName(c.bType), C: componentName(c.cType),
				Result: componentName(c.dType), Scope: scopeNames[c.scope], Flavor: "nv",
			})
		}
	}
	return nil
}

// queryQueues picks the compute queue family: the first family with compute,
// preferring one that also has timestamps.
func (p *physical) queryQueues(in *instance) {
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	call(in.fn.getQueueFamilyProperties, p.handle, addr(n), 0)
	fams := sliceIn[vkQueueFamilyProperties](&a, int(*n))
	if len(fams) > 0 {
		call(in.fn.getQueueFamilyProperties, p.handle, addr(n), saddr(fams))
	}
	p.family = -1
	for i, f := range fams[:min(int(*n), len(fams))] {
		if f.queueFlags&queueCompute == 0 || f.queueCount == 0 {
			continue
		}
		if p.family < 0 || (p.qfamily.timestampValidBits == 0 && f.timestampValidBits > 0) {
			p.family, p.qfamily = i, f
		}
	}
}

// queryMemory reads the memory types and heaps.
func (p *physical) queryMemory(in *instance) {
	var a arena
	defer a.free()
	m := newIn[vkPhysicalDeviceMemoryProperties](&a)
	call(in.fn.getMemoryProperties, p.handle, addr(m))
	p.mem = *m
}
