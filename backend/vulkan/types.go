//go:build linux && cgo

package vulkan

// Go mirrors of the Vulkan structures the driver uses. They live in C memory
// (see arena) and are handed to the driver by address, so their layout must
// match the C declarations in vulkan_core.h on 64-bit Linux exactly: every
// pointer and handle is a uintptr, VkDeviceSize a uint64, VkBool32 and enums
// uint32. layout_test.go checks the sizes and a few offsets against values
// taken from the Vulkan headers.

// Structure types (VkStructureType).
const (
	stApplicationInfo                      = 0
	stInstanceCreateInfo                   = 1
	stDeviceQueueCreateInfo                = 2
	stDeviceCreateInfo                     = 3
	stSubmitInfo                           = 4
	stMemoryAllocateInfo                   = 5
	stMappedMemoryRange                    = 6
	stFenceCreateInfo                      = 8
	stQueryPoolCreateInfo                  = 11
	stBufferCreateInfo                     = 12
	stShaderModuleCreateInfo               = 16
	stPipelineCacheCreateInfo              = 17
	stPipelineShaderStageCreateInfo        = 18
	stComputePipelineCreateInfo            = 29
	stPipelineLayoutCreateInfo             = 30
	stDescriptorSetLayoutCreateInfo        = 32
	stDescriptorPoolCreateInfo             = 33
	stDescriptorSetAllocateInfo            = 34
	stWriteDescriptorSet                   = 35
	stCommandPoolCreateInfo                = 39
	stCommandBufferAllocateInfo            = 40
	stCommandBufferBeginInfo               = 42
	stMemoryBarrier                        = 46
	stVulkan11Features                     = 49
	stVulkan12Features                     = 51
	stVulkan13Features                     = 53
	stFeatures2                            = 1000059000
	stProperties2                          = 1000059001
	stSubgroupProperties                   = 1000094000
	stDriverProperties                     = 1000196000
	stSubgroupSizeControlProperties        = 1000225000
	stRequiredSubgroupSizeCreateInfo       = 1000225001
	stCooperativeMatrixFeaturesNV          = 1000249000
	stCooperativeMatrixPropertiesNV        = 1000249001
	stPhysicalCooperativeMatrixPropsNV     = 1000249002
	stCooperativeMatrixFeaturesKHR         = 1000506000
	st16BitStorageFeatures                 = 1000083000
	stFloat16Int8Features                  = 1000082000
	stCooperativeMatrixPropertiesKHR       = 1000506001
	stPhysicalCooperativeMatrixPropsKHR    = 1000506002
	stPhysicalDeviceShaderBfloat16Features = 1000141000
)

// Enumerants and flags.
const (
	queueGraphics = 0x1
	queueCompute  = 0x2
	queueTransfer = 0x4

	memDeviceLocal  = 0x1
	memHostVisible  = 0x2
	memHostCoherent = 0x4
	memHostCached   = 0x8

	bufUsageTransferSrc = 0x1
	bufUsageTransferDst = 0x2
	bufUsageUniform     = 0x10
	bufUsageStorage     = 0x20

	descUniformBuffer        = 6
	descUniformBufferDynamic = 8
	descStorageBuffer        = 7

	stageCompute = 0x20

	pipelineStageTopOfPipe     = 0x1
	pipelineStageComputeShader = 0x800
	pipelineStageTransfer      = 0x1000
	pipelineStageBottomOfPipe  = 0x2000
	pipelineStageHost          = 0x4000

	accessUniformRead   = 0x8
	accessShaderRead    = 0x20
	accessShaderWrite   = 0x40
	accessTransferRead  = 0x800
	accessTransferWrite = 0x1000
	accessHostRead      = 0x2000
	accessHostWrite     = 0x4000

	bindPointCompute = 1

	cmdPoolResetCommandBuffer = 0x2
	cmdBufferOneTimeSubmit    = 0x1
	cmdBufferLevelPrimary     = 0

	queryTypeTimestamp = 2
	queryResult64      = 0x1
	queryResultWait    = 0x2

	descPoolFreeDescriptorSet = 0x1

	requireFullSubgroups = 0x2 // VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT
)

// vkResult names the VkResult codes the driver can meet.
var vkResultNames = map[int32]string{
	0:           "VK_SUCCESS",
	1:           "VK_NOT_READY",
	2:           "VK_TIMEOUT",
	5:           "VK_INCOMPLETE",
	-1:          "VK_ERROR_OUT_OF_HOST_MEMORY",
	-2:          "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	-3:          "VK_ERROR_INITIALIZATION_FAILED",
	-4:          "VK_ERROR_DEVICE_LOST",
	-5:          "VK_ERROR_MEMORY_MAP_FAILED",
	-6:          "VK_ERROR_LAYER_NOT_PRESENT",
	-7:          "VK_ERROR_EXTENSION_NOT_PRESENT",
	-8:          "VK_ERROR_FEATURE_NOT_PRESENT",
	-9:          "VK_ERROR_INCOMPATIBLE_DRIVER",
	-10:         "VK_ERROR_TOO_MANY_OBJECTS",
	-11:         "VK_ERROR_FORMAT_NOT_SUPPORTED",
	-12:         "VK_ERROR_FRAGMENTED_POOL",
	-13:         "VK_ERROR_UNKNOWN",
	-1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY",
	-1000012000: "VK_ERROR_INVALID_SHADER_NV",
	-1000161000: "VK_ERROR_FRAGMENTATION",
	1000297000:  "VK_PIPELINE_COMPILE_REQUIRED",
}

type vkApplicationInfo struct {
	sType              uint32
	pNext              uintptr
	pApplicationName   uintptr
	applicationVersion uint32
	pEngineName        uintptr
	engineVersion      uint32
	apiVersion         uint32
}

type vkInstanceCreateInfo struct {
	sType                   uint32
	pNext                   uintptr
	flags                   uint32
	pApplicationInfo        uintptr
	enabledLayerCount       uint32
	ppEnabledLayerNames     uintptr
	enabledExtensionCount   uint32
	ppEnabledExtensionNames uintptr
}

type vkExtensionProperties struct {
	extensionName [256]byte
	specVersion   uint32
}

type vkPhysicalDeviceLimits struct {
	maxImageDimension1D                             uint32
	maxImageDimension2D                             uint32
	maxImageDimension3D                             uint32
	maxImageDimensionCube                           uint32
	maxImageArrayLayers                             uint32
	maxTexelBufferElements                          uint32
	maxUniformBufferRange                           uint32
	maxStorageBufferRange                           uint32
	maxPushConstantsSize                            uint32
	maxMemoryAllocationCount                        uint32
	maxSamplerAllocationCount                       uint32
	bufferImageGranularity                          uint64
	sparseAddressSpaceSize                          uint64
	maxBoundDescriptorSets                          uint32
	maxPerStageDescriptorSamplers                   uint32
	maxPerStageDescriptorUniformBuffers             uint32
	maxPerStageDescriptorStorageBuffers             uint32
	maxPerStageDescriptorSampledImages              uint32
	maxPerStageDescriptorStorageImages              uint32
	maxPerStageDescriptorInputAttachments           uint32
	maxPerStageResources                            uint32
	maxDescriptorSetSamplers                        uint32
	maxDescriptorSetUniformBuffers                  uint32
	maxDescriptorSetUniformBuffersDynamic           uint32
	maxDescriptorSetStorageBuffers                  uint32
	maxDescriptorSetStorageBuffersDynamic           uint32
	maxDescriptorSetSampledImages                   uint32
	maxDescriptorSetStorageImages                   uint32
	maxDescriptorSetInputAttachments                uint32
	maxVertexInputAttributes                        uint32
	maxVertexInputBindings                          uint32
	maxVertexInputAttributeOffset                   uint32
	maxVertexInputBindingStride                     uint32
	maxVertexOutputComponents                       uint32
	maxTessellationGenerationLevel                  uint32
	maxTessellationPatchSize                        uint32
	maxTessellationControlPerVertexInputComponents  uint32
	maxTessellationControlPerVertexOutputComponents uint32
	maxTessellationControlPerPatchOutputComponents  uint32
	maxTessellationControlTotalOutputComponents     uint32
	maxTessellationEvaluationInputComponents        uint32
	maxTessellationEvaluationOutputComponents       uint32
	maxGeometryShaderInvocations                    uint32
	maxGeometryInputComponents                      uint32
	maxGeometryOutputComponents                     uint32
	maxGeometryOutputVertices                       uint32
	maxGeometryTotalOutputComponents                uint32
	maxFragmentInputComponents                      uint32
	maxFragmentOutputAttachments                    uint32
	maxFragmentDualSrcAttachments                   uint32
	maxFragmentCombinedOutputResources              uint32
	maxComputeSharedMemorySize                      uint32
	maxComputeWorkGroupCount                        [3]uint32
	maxComputeWorkGroupInvocations                  uint32
	maxComputeWorkGroupSize                         [3]uint32
	subPixelPrecisionBits                           uint32
	subTexelPrecisionBits                           uint32
	mipmapPrecisionBits                             uint32
	maxDrawIndexedIndexValue                        uint32
	maxDrawIndirectCount                            uint32
	maxSamplerLodBias                               float32
	maxSamplerAnisotropy                            float32
	maxViewports                                    uint32
	maxViewportDimensions                           [2]uint32
	viewportBoundsRange                             [2]float32
	viewportSubPixelBits                            uint32
	minMemoryMapAlignment                           uintptr
	minTexelBufferOffsetAlignment                   uint64
	minUniformBufferOffsetAlignment                 uint64
	minStorageBufferOffsetAlignment                 uint64
	minTexelOffset                                  int32
	maxTexelOffset                                  uint32
	minTexelGatherOffset                            int32
	maxTexelGatherOffset                            uint32
	minInterpolationOffset                          float32
	maxInterpolationOffset                          float32
	subPixelInterpolationOffsetBits                 uint32
	maxFramebufferWidth                             uint32
	maxFramebufferHeight                            uint32
	maxFramebufferLayers                            uint32
	framebufferColorSampleCounts                    uint32
	framebufferDepthSampleCounts                    uint32
	framebufferStencilSampleCounts                  uint32
	framebufferNoAttachmentsSampleCounts            uint32
	maxColorAttachments                             uint32
	sampledImageColorSampleCounts                   uint32
	sampledImageIntegerSampleCounts                 uint32
	sampledImageDepthSampleCounts                   uint32
	sampledImageStencilSampleCounts                 uint32
	storageImageSampleCounts                        uint32
	maxSampleMaskWords                              uint32
	timestampComputeAndGraphics                     uint32
	timestampPeriod                                 float32
	maxClipDistances                                uint32
	maxCullDistances                                uint32
	maxCombinedClipAndCullDistances                 uint32
	discreteQueuePriorities                         uint32
	pointSizeRange                                  [2]float32
	lineWidthRange                                  [2]float32
	pointSizeGranularity                            float32
	lineWidthGranularity                            float32
	strictLines                                     uint32
	standardSampleLocations                         uint32
	optimalBufferCopyOffsetAlignment                uint64
	optimalBufferCopyRowPitchAlignment              uint64
	nonCoherentAtomSize                             uint64
}

type vkPhysicalDeviceProperties struct {
	apiVersion        uint32
	driverVersion     uint32
	vendorID          uint32
	deviceID          uint32
	deviceType        uint32
	deviceName        [256]byte
	pipelineCacheUUID [16]byte
	limits            vkPhysicalDeviceLimits
	sparseProperties  [5]uint32
}

type vkPhysicalDeviceProperties2 struct {
	sType      uint32
	pNext      uintptr
	properties vkPhysicalDeviceProperties
}

type vkPhysicalDeviceSubgroupProperties struct {
	sType                     uint32
	pNext                     uintptr
	subgroupSize              uint32
	supportedStages           uint32
	supportedOperations       uint32
	quadOperationsInAllStages uint32
}

type vkPhysicalDeviceSubgroupSizeControlProperties struct {
	sType                        uint32
	pNext                        uintptr
	minSubgroupSize              uint32
	maxSubgroupSize              uint32
	maxComputeWorkgroupSubgroups uint32
	requiredSubgroupSizeStages   uint32
}

type vkPhysicalDeviceDriverProperties struct {
	sType              uint32
	pNext              uintptr
	driverID           uint32
	driverName         [256]byte
	driverInfo         [256]byte
	conformanceVersion [4]uint8
}

// vkCooperativeMatrixStages is both VkPhysicalDeviceCooperativeMatrixPropertiesKHR
// and its NV twin.
type vkCooperativeMatrixStages struct {
	sType           uint32
	pNext           uintptr
	supportedStages uint32
}

// vkCooperativeMatrixProperties is VkCooperativeMatrixPropertiesKHR; the NV
// struct has the same layout with DType in place of ResultType and scope in
// place of saturatingAccumulation, followed by no scope field (see
// vkCooperativeMatrixPropertiesNV).
type vkCooperativeMatrixProperties struct {
	sType                  uint32
	pNext                  uintptr
	mSize, nSize, kSize    uint32
	aType, bType, cType    uint32
	resultType             uint32
	saturatingAccumulation uint32
	scope                  uint32
}

type vkCooperativeMatrixPropertiesNV struct {
	sType               uint32
	pNext               uintptr
	mSize, nSize, kSize uint32
	aType, bType, cType uint32
	dType               uint32
	scope               uint32
}

type vkPhysicalDeviceFeatures struct {
	f [55]uint32 // VkPhysicalDeviceFeatures: 55 VkBool32 in declaration order
}

// Indices into vkPhysicalDeviceFeatures.f.
const (
	featRobustBufferAccess = 0
	featShaderFloat64      = 39
	featShaderInt64        = 40
	featShaderInt16        = 41
)

type vkPhysicalDeviceFeatures2 struct {
	sType    uint32
	pNext    uintptr
	features vkPhysicalDeviceFeatures
}

type vkPhysicalDeviceVulkan11Features struct {
	sType                              uint32
	pNext                              uintptr
	storageBuffer16BitAccess           uint32
	uniformAndStorageBuffer16BitAccess uint32
	storagePushConstant16              uint32
	storageInputOutput16               uint32
	multiview                          uint32
	multiviewGeometryShader            uint32
	multiviewTessellationShader        uint32
	variablePointersStorageBuffer      uint32
	variablePointers                   uint32
	protectedMemory                    uint32
	samplerYcbcrConversion             uint32
	shaderDrawParameters               uint32
}

// vkPhysicalDeviceVulkan12Features keeps its 47 VkBool32 as an array; the
// indices the driver uses are named below.
type vkPhysicalDeviceVulkan12Features struct {
	sType uint32
	pNext uintptr
	f     [47]uint32
}

// Indices into vkPhysicalDeviceVulkan12Features.f.
const (
	v12StorageBuffer8BitAccess           = 2
	v12UniformAndStorageBuffer8BitAccess = 3
	v12ShaderFloat16                     = 7
	v12ShaderInt8                        = 8
	v12ScalarBlockLayout                 = 31
	v12ShaderSubgroupExtendedTypes       = 34
	v12HostQueryReset                    = 36
	v12TimelineSemaphore                 = 37
	v12BufferDeviceAddress               = 38
	v12VulkanMemoryModel                 = 41
	v12VulkanMemoryModelDeviceScope      = 42
	v12VulkanMemoryModelAvailVisChains   = 43
)

type vkPhysicalDeviceVulkan13Features struct {
	sType uint32
	pNext uintptr
	f     [15]uint32
}

// Indices into vkPhysicalDeviceVulkan13Features.f.
const (
	v13SubgroupSizeControl                 = 7
	v13ComputeFullSubgroups                = 8
	v13Synchronization2                    = 9
	v13ShaderZeroInitializeWorkgroupMemory = 11
	v13ShaderIntegerDotProduct             = 13
	v13Maintenance4                        = 14
)

// vkCooperativeMatrixFeatures is VkPhysicalDeviceCooperativeMatrixFeaturesKHR
// and its NV twin; also used for VkPhysicalDeviceShaderBfloat16FeaturesKHR
// (three booleans: shaderBFloat16Type, DotProduct, CooperativeMatrix).
type vkCooperativeMatrixFeatures struct {
	sType uint32
	pNext uintptr
	f     [3]uint32
}

type vkQueueFamilyProperties struct {
	queueFlags                  uint32
	queueCount                  uint32
	timestampValidBits          uint32
	minImageTransferGranularity [3]uint32
}

type vkMemoryType struct {
	propertyFlags uint32
	heapIndex     uint32
}

type vkMemoryHeap struct {
	size  uint64
	flags uint32
}

type vkPhysicalDeviceMemoryProperties struct {
	memoryTypeCount uint32
	memoryTypes     [32]vkMemoryType
	memoryHeapCount uint32
	memoryHeaps     [16]vkMemoryHeap
}

type vkDeviceQueueCreateInfo struct {
	sType            uint32
	pNext            uintptr
	flags            uint32
	queueFamilyIndex uint32
	queueCount       uint32
	pQueuePriorities uintptr
}

type vkDeviceCreateInfo struct {
	sType                   uint32
	pNext                   uintptr
	flags                   uint32
	queueCreateInfoCount    uint32
	pQueueCreateInfos       uintptr
	enabledLayerCount       uint32
	ppEnabledLayerNames     uintptr
	enabledExtensionCount   uint32
	ppEnabledExtensionNames uintptr
	pEnabledFeatures        uintptr
}

type vkBufferCreateInfo struct {
	sType                 uint32
	pNext                 uintptr
	flags                 uint32
	size                  uint64
	usage                 uint32
	sharingMode           uint32
	queueFamilyIndexCount uint32
	pQueueFamilyIndices   uintptr
}

type vkMemoryRequirements struct {
	size           uint64
	alignment      uint64
	memoryTypeBits uint32
}

type vkMemoryAllocateInfo struct {
	sType           uint32
	pNext           uintptr
	allocationSize  uint64
	memoryTypeIndex uint32
}

type vkMappedMemoryRange struct {
	sType  uint32
	pNext  uintptr
	memory uintptr
	offset uint64
	size   uint64
}

type vkShaderModuleCreateInfo struct {
	sType    uint32
	pNext    uintptr
	flags    uint32
	codeSize uintptr
	pCode    uintptr
}

type vkDescriptorSetLayoutBinding struct {
	binding            uint32
	descriptorType     uint32
	descriptorCount    uint32
	stageFlags         uint32
	pImmutableSamplers uintptr
}

type vkDescriptorSetLayoutCreateInfo struct {
	sType        uint32
	pNext        uintptr
	flags        uint32
	bindingCount uint32
	pBindings    uintptr
}

type vkPipelineLayoutCreateInfo struct {
	sType                  uint32
	pNext                  uintptr
	flags                  uint32
	setLayoutCount         uint32
	pSetLayouts            uintptr
	pushConstantRangeCount uint32
	pPushConstantRanges    uintptr
}

type vkPipelineCacheCreateInfo struct {
	sType           uint32
	pNext           uintptr
	flags           uint32
	initialDataSize uintptr
	pInitialData    uintptr
}

type vkSpecializationMapEntry struct {
	constantID uint32
	offset     uint32
	size       uintptr
}

type vkSpecializationInfo struct {
	mapEntryCount uint32
	pMapEntries   uintptr
	dataSize      uintptr
	pData         uintptr
}

type vkPipelineShaderStageCreateInfo struct {
	sType               uint32
	pNext               uintptr
	flags               uint32
	stage               uint32
	module              uintptr
	pName               uintptr
	pSpecializationInfo uintptr
}

type vkComputePipelineCreateInfo struct {
	sType              uint32
	pNext              uintptr
	flags              uint32
	stage              vkPipelineShaderStageCreateInfo
	layout             uintptr
	basePipelineHandle uintptr
	basePipelineIndex  int32
}

type vkRequiredSubgroupSizeCreateInfo struct {
	sType                uint32
	pNext                uintptr
	requiredSubgroupSize uint32
}

type vkDescriptorPoolSize struct {
	typ             uint32
	descriptorCount uint32
}

type vkDescriptorPoolCreateInfo struct {
	sType         uint32
	pNext         uintptr
	flags         uint32
	maxSets       uint32
	poolSizeCount uint32
	pPoolSizes    uintptr
}

type vkDescriptorSetAllocateInfo struct {
	sType              uint32
	pNext              uintptr
	descriptorPool     uintptr
	descriptorSetCount uint32
	pSetLayouts        uintptr
}

type vkDescriptorBufferInfo struct {
	buffer uintptr
	offset uint64
	rng    uint64
}

type vkWriteDescriptorSet struct {
	sType            uint32
	pNext            uintptr
	dstSet           uintptr
	dstBinding       uint32
	dstArrayElement  uint32
	descriptorCount  uint32
	descriptorType   uint32
	pImageInfo       uintptr
	pBufferInfo      uintptr
	pTexelBufferView uintptr
}

type vkCommandPoolCreateInfo struct {
	sType            uint32
	pNext            uintptr
	flags            uint32
	queueFamilyIndex uint32
}

type vkCommandBufferAllocateInfo struct {
	sType              uint32
	pNext              uintptr
	commandPool        uintptr
	level              uint32
	commandBufferCount uint32
}

type vkCommandBufferBeginInfo struct {
	sType            uint32
	pNext            uintptr
	flags            uint32
	pInheritanceInfo uintptr
}

type vkMemoryBarrier struct {
	sType         uint32
	pNext         uintptr
	srcAccessMask uint32
	dstAccessMask uint32
}

const (
	stBufferMemoryBarrier = 44
	queueFamilyIgnored    = ^uint32(0)
)

type vkBufferMemoryBarrier struct {
	sType               uint32
	pNext               uintptr
	srcAccessMask       uint32
	dstAccessMask       uint32
	srcQueueFamilyIndex uint32
	dstQueueFamilyIndex uint32
	buffer              uintptr
	offset, size        uint64
}

type vkBufferCopy struct {
	srcOffset uint64
	dstOffset uint64
	size      uint64
}

type vkSubmitInfo struct {
	sType                uint32
	pNext                uintptr
	waitSemaphoreCount   uint32
	pWaitSemaphores      uintptr
	pWaitDstStageMask    uintptr
	commandBufferCount   uint32
	pCommandBuffers      uintptr
	signalSemaphoreCount uint32
	pSignalSemaphores    uintptr
}

type vkFenceCreateInfo struct {
	sType uint32
	pNext uintptr
	flags uint32
}

type vkQueryPoolCreateInfo struct {
	sType              uint32
	pNext              uintptr
	flags              uint32
	queryType          uint32
	queryCount         uint32
	pipelineStatistics uint32
}

const stMaintenance4Properties = 1000413001

type vkMaintenance4Properties struct {
	sType         uint32
	pNext         uintptr
	maxBufferSize uint64
}
