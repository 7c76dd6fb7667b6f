//go:build linux && cgo

package vulkan

import (
	"testing"
	"unsafe"
)

// TestLayout checks the Go mirrors against sizes and offsets printed by a C
// program compiled against vulkan_core.h 1.4.359 on x86-64 Linux.
func TestLayout(t *testing.T) {
	sizes := []struct {
		name      string
		got, want uintptr
	}{
		{"VkApplicationInfo", unsafe.Sizeof(vkApplicationInfo{}), 48},
		{"VkInstanceCreateInfo", unsafe.Sizeof(vkInstanceCreateInfo{}), 64},
		{"VkExtensionProperties", unsafe.Sizeof(vkExtensionProperties{}), 260},
		{"VkPhysicalDeviceLimits", unsafe.Sizeof(vkPhysicalDeviceLimits{}), 504},
		{"VkPhysicalDeviceProperties", unsafe.Sizeof(vkPhysicalDeviceProperties{}), 824},
		{"VkPhysicalDeviceProperties2", unsafe.Sizeof(vkPhysicalDeviceProperties2{}), 840},
		{"VkPhysicalDeviceSubgroupProperties", unsafe.Sizeof(vkPhysicalDeviceSubgroupProperties{}), 32},
		{"VkPhysicalDeviceSubgroupSizeControlProperties", unsafe.Sizeof(vkPhysicalDeviceSubgroupSizeControlProperties{}), 32},
		{"VkPhysicalDeviceDriverProperties", unsafe.Sizeof(vkPhysicalDeviceDriverProperties{}), 536},
		{"VkPhysicalDeviceCooperativeMatrixPropertiesKHR", unsafe.Sizeof(vkCooperativeMatrixStages{}), 24},
		{"VkCooperativeMatrixPropertiesKHR", unsafe.Sizeof(vkCooperativeMatrixProperties{}), 56},
		{"VkCooperativeMatrixPropertiesNV", unsafe.Sizeof(vkCooperativeMatrixPropertiesNV{}), 48},
		{"VkPhysicalDeviceFeatures", unsafe.Sizeof(vkPhysicalDeviceFeatures{}), 220},
		{"VkPhysicalDeviceFeatures2", unsafe.Sizeof(vkPhysicalDeviceFeatures2{}), 240},
		{"VkPhysicalDeviceVulkan11Features", unsafe.Sizeof(vkPhysicalDeviceVulkan11Features{}), 64},
		{"VkPhysicalDeviceVulkan12Features", unsafe.Sizeof(vkPhysicalDeviceVulkan12Features{}), 208},
		{"VkPhysicalDeviceVulkan13Features", unsafe.Sizeof(vkPhysicalDeviceVulkan13Features{}), 80},
		{"VkPhysicalDeviceCooperativeMatrixFeaturesKHR (24) with a third bool for the bfloat16 features", unsafe.Sizeof(vkCooperativeMatrixFeatures{}), 32},
		{"VkPhysicalDeviceCooperativeMatrix2FeaturesNV", unsafe.Sizeof(vkCoopMat2Features{}), 48},
		{"VkPhysicalDeviceCooperativeMatrix2PropertiesNV", unsafe.Sizeof(vkCoopMat2Properties{}), 32},
		{"VkCooperativeMatrixFlexibleDimensionsPropertiesNV", unsafe.Sizeof(vkCoopMatFlexibleDimProps{}), 56},
		{"VkQueueFamilyProperties", unsafe.Sizeof(vkQueueFamilyProperties{}), 24},
		{"VkPhysicalDeviceMemoryProperties", unsafe.Sizeof(vkPhysicalDeviceMemoryProperties{}), 520},
		{"VkDeviceQueueCreateInfo", unsafe.Sizeof(vkDeviceQueueCreateInfo{}), 40},
		{"VkDeviceCreateInfo", unsafe.Sizeof(vkDeviceCreateInfo{}), 72},
		{"VkBufferCreateInfo", unsafe.Sizeof(vkBufferCreateInfo{}), 56},
		{"VkMemoryRequirements", unsafe.Sizeof(vkMemoryRequirements{}), 24},
		{"VkMemoryAllocateInfo", unsafe.Sizeof(vkMemoryAllocateInfo{}), 32},
		{"VkMappedMemoryRange", unsafe.Sizeof(vkMappedMemoryRange{}), 40},
		{"VkShaderModuleCreateInfo", unsafe.Sizeof(vkShaderModuleCreateInfo{}), 40},
		{"VkDescriptorSetLayoutBinding", unsafe.Sizeof(vkDescriptorSetLayoutBinding{}), 24},
		{"VkDescriptorSetLayoutCreateInfo", unsafe.Sizeof(vkDescriptorSetLayoutCreateInfo{}), 32},
		{"VkPipelineLayoutCreateInfo", unsafe.Sizeof(vkPipelineLayoutCreateInfo{}), 48},
		{"VkPipelineCacheCreateInfo", unsafe.Sizeof(vkPipelineCacheCreateInfo{}), 40},
		{"VkSpecializationMapEntry", unsafe.Sizeof(vkSpecializationMapEntry{}), 16},
		{"VkSpecializationInfo", unsafe.Sizeof(vkSpecializationInfo{}), 32},
		{"VkPipelineShaderStageCreateInfo", unsafe.Sizeof(vkPipelineShaderStageCreateInfo{}), 48},
		{"VkComputePipelineCreateInfo", unsafe.Sizeof(vkComputePipelineCreateInfo{}), 96},
		{"VkPipelineShaderStageRequiredSubgroupSizeCreateInfo", unsafe.Sizeof(vkRequiredSubgroupSizeCreateInfo{}), 24},
		{"VkDescriptorPoolSize", unsafe.Sizeof(vkDescriptorPoolSize{}), 8},
		{"VkDescriptorPoolCreateInfo", unsafe.Sizeof(vkDescriptorPoolCreateInfo{}), 40},
		{"VkDescriptorSetAllocateInfo", unsafe.Sizeof(vkDescriptorSetAllocateInfo{}), 40},
		{"VkDescriptorBufferInfo", unsafe.Sizeof(vkDescriptorBufferInfo{}), 24},
		{"VkWriteDescriptorSet", unsafe.Sizeof(vkWriteDescriptorSet{}), 64},
		{"VkCommandPoolCreateInfo", unsafe.Sizeof(vkCommandPoolCreateInfo{}), 24},
		{"VkCommandBufferAllocateInfo", unsafe.Sizeof(vkCommandBufferAllocateInfo{}), 32},
		{"VkCommandBufferBeginInfo", unsafe.Sizeof(vkCommandBufferBeginInfo{}), 32},
		{"VkMemoryBarrier", unsafe.Sizeof(vkMemoryBarrier{}), 24},
		{"VkBufferCopy", unsafe.Sizeof(vkBufferCopy{}), 24},
		{"VkSubmitInfo", unsafe.Sizeof(vkSubmitInfo{}), 72},
		{"VkFenceCreateInfo", unsafe.Sizeof(vkFenceCreateInfo{}), 24},
		{"VkQueryPoolCreateInfo", unsafe.Sizeof(vkQueryPoolCreateInfo{}), 32},
		{"VkLayerProperties", unsafe.Sizeof(vkLayerProperties{}), 520},
		{"VkPhysicalDeviceMaintenance4Properties", unsafe.Sizeof(vkMaintenance4Properties{}), 24},
		// VK_KHR_pipeline_executable_properties (inspect.go), laid out
		// from the specification's member lists by the same x86-64 rules.
		{"VkPipelineInfoKHR", unsafe.Sizeof(vkPipelineInfo{}), 24},
		{"VkPipelineExecutablePropertiesKHR", unsafe.Sizeof(vkPipelineExecutableProperties{}), 536},
		{"VkPipelineExecutableInfoKHR", unsafe.Sizeof(vkPipelineExecutableInfo{}), 32},
		{"VkPipelineExecutableStatisticKHR", unsafe.Sizeof(vkPipelineExecutableStatistic{}), 544},
		{"VkPipelineExecutableInternalRepresentationKHR", unsafe.Sizeof(vkPipelineExecutableIR{}), 552},
	}
	for _, s := range sizes {
		if s.got != s.want {
			t.Errorf("sizeof(%s) = %d, C has %d", s.name, s.got, s.want)
		}
	}
	var p vkPhysicalDeviceProperties
	var f vkPhysicalDeviceFeatures
	var v12 vkPhysicalDeviceVulkan12Features
	var v13 vkPhysicalDeviceVulkan13Features
	offs := []struct {
		name      string
		got, want uintptr
	}{
		{"VkPhysicalDeviceProperties.limits", unsafe.Offsetof(p.limits), 296},
		{"limits.maxComputeSharedMemorySize", unsafe.Offsetof(p.limits.maxComputeSharedMemorySize), 216},
		{"limits.minUniformBufferOffsetAlignment", unsafe.Offsetof(p.limits.minUniformBufferOffsetAlignment), 320},
		{"limits.timestampPeriod", unsafe.Offsetof(p.limits.timestampPeriod), 424},
		{"limits.nonCoherentAtomSize", unsafe.Offsetof(p.limits.nonCoherentAtomSize), 496},
		{"VkPhysicalDeviceFeatures.shaderInt16", unsafe.Offsetof(f.f) + 4*featShaderInt16, 164},
		{"VkPhysicalDeviceFeatures.shaderFloat64", unsafe.Offsetof(f.f) + 4*featShaderFloat64, 156},
		{"Vulkan12Features.storageBuffer8BitAccess", unsafe.Offsetof(v12.f) + 4*v12StorageBuffer8BitAccess, 24},
		{"Vulkan12Features.shaderFloat16", unsafe.Offsetof(v12.f) + 4*v12ShaderFloat16, 44},
		{"Vulkan12Features.shaderInt8", unsafe.Offsetof(v12.f) + 4*v12ShaderInt8, 48},
		{"Vulkan12Features.scalarBlockLayout", unsafe.Offsetof(v12.f) + 4*v12ScalarBlockLayout, 140},
		{"Vulkan12Features.shaderSubgroupExtendedTypes", unsafe.Offsetof(v12.f) + 4*v12ShaderSubgroupExtendedTypes, 152},
		{"Vulkan12Features.hostQueryReset", unsafe.Offsetof(v12.f) + 4*v12HostQueryReset, 160},
		{"Vulkan12Features.bufferDeviceAddress", unsafe.Offsetof(v12.f) + 4*v12BufferDeviceAddress, 168},
		{"Vulkan12Features.vulkanMemoryModel", unsafe.Offsetof(v12.f) + 4*v12VulkanMemoryModel, 180},
		{"Vulkan12Features.vulkanMemoryModelDeviceScope", unsafe.Offsetof(v12.f) + 4*v12VulkanMemoryModelDeviceScope, 184},
		{"Vulkan13Features.subgroupSizeControl", unsafe.Offsetof(v13.f) + 4*v13SubgroupSizeControl, 44},
		{"Vulkan13Features.computeFullSubgroups", unsafe.Offsetof(v13.f) + 4*v13ComputeFullSubgroups, 48},
		{"Vulkan13Features.synchronization2", unsafe.Offsetof(v13.f) + 4*v13Synchronization2, 52},
		{"Vulkan13Features.shaderZeroInitializeWorkgroupMemory", unsafe.Offsetof(v13.f) + 4*v13ShaderZeroInitializeWorkgroupMemory, 60},
		{"Vulkan13Features.shaderIntegerDotProduct", unsafe.Offsetof(v13.f) + 4*v13ShaderIntegerDotProduct, 68},
		{"Vulkan13Features.maintenance4", unsafe.Offsetof(v13.f) + 4*v13Maintenance4, 72},
	}
	for _, o := range offs {
		if o.got != o.want {
			t.Errorf("offsetof(%s) = %d, C has %d", o.name, o.got, o.want)
		}
	}
}
