// Package multi runs the Tensor API on several devices at once: it splits
// a batch of independent work over every device a Policy accepts (the
// seeds' "enumerate every compute adapter, so the scheduler can use all of
// them"), data-parallel.
//
//	g, err := multi.Open(ctx, multi.Discrete) // or multi.New(devs...)
//	defer g.Close()
//	mm, err := g.NewMatMul(ctx, w, k, n)     // w uploaded once per device
//	out, err := mm.Run(ctx, a, batch, m)     // a [batch, m, k] -> [batch, m, n]
//
// Each device has its own kernels.Context and its own goroutine per call;
// its part of the batch is a contiguous range of items (Split: in
// proportion to per-device weights, equal by default, or measured by
// Calibrate), recorded in one scope of that device and read back straight
// into its part of the host result, so gathering keeps the batch order.
// MatMul (a batched product with shared weights) and Block (a Llama-style
// decoder block over a batch of sequences) are built on Group.Run, which
// any other independent work can use the same way.
//
// Errors: a device that fails makes the call fail with a *DeviceError
// naming that device (its position in the group and its adapter); the
// other devices' context is cancelled, and their errors, if any, are
// joined. A cancelled context.Context stops the recording loops at their
// next step and any wait for the device. Nothing panics: a panic inside
// one device's work comes back as that device's error.
//
// # Between devices
//
// kc moves data between devices through the host (Transfer: a readback,
// then an upload). Vulkan offers two other paths, neither used yet:
//
//   - Device groups (core in Vulkan 1.1, from VK_KHR_device_group):
//     vkEnumeratePhysicalDeviceGroups lists groups of physical devices
//     that one logical device can span (VkPhysicalDeviceGroupProperties:
//     physicalDeviceCount, physicalDevices, subsetAllocation), and
//     vkGetDeviceGroupPeerMemoryFeatures says whether one member may use
//     another's memory as a copy source or destination or for any access
//     (VK_PEER_MEMORY_FEATURE_COPY_SRC/COPY_DST/GENERIC_SRC/GENERIC_DST).
//     Every device is a group of at least one; two GPUs share a group
//     only where the driver links them (to our knowledge NVIDIA's Vulkan
//     driver does so for SLI configurations only; whether two H200s of one
//     host form one group is not verified here: the two-GPU machine was
//     not lent when this was written). kc's Vulkan driver creates one logical device per
//     physical device and would need device masks in its allocator and
//     dispatches (VkMemoryAllocateFlagsInfo, vkCmdSetDeviceMask) to span
//     a group.
//   - External memory (core in 1.1, VK_KHR_external_memory with
//     VK_KHR_external_memory_fd): an allocation exported as a file
//     descriptor can be imported by another VkDevice, but for the opaque
//     handle types the spec requires equal driverUUID and deviceUUID, that
//     is the same physical device: it shares memory between two logical
//     devices of one GPU, not between two GPUs. The handle types without
//     that restriction are host memory (VK_EXT_external_memory_host) and
//     dma-buf; importing one pinned host allocation into both devices
//     would save one host copy per transfer, still over PCIe.
//
// So on NVIDIA a GPU-to-GPU copy over NVLink is CUDA's peer access
// (cudaMemcpyPeer), which Vulkan does not expose between separate
// devices; kc stages through the host. Data-parallel work needs no
// transfers between devices at all: each device holds its own copy of the
// weights and its part of the batch.
package multi
