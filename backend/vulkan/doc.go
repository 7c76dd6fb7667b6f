// Package vulkan is kc's direct Vulkan driver: it loads SPIR-V exactly as
// the emitters produce it (subgroups, 16-bit storage, f16, cooperative
// matrices, the Vulkan memory model), which the wgpu driver's naga cannot
// take. Importing it registers the driver "vulkan" with package backend:
//
//	import _ "github.com/kcgo/kc/backend/vulkan"
//
// # Loading and building
//
// The driver dlopens libvulkan.so.1 at run time and resolves everything
// through vkGetInstanceProcAddr and vkGetDeviceProcAddr; when the loader is
// absent, Adapters returns an error naming it. It builds with Go and gcc
// alone: no Vulkan headers. The Vulkan structures it passes are Go mirrors
// (types.go) allocated in C memory, checked against the C layout by
// TestLayout; the C part (cgo.go) is a set of call trampolines, one per
// arity, the dispatch-recording fast path and the replay of batched
// commands. Every VkResult other than
// VK_SUCCESS becomes an *Error naming the call; VK_ERROR_DEVICE_LOST wraps
// backend.ErrDeviceLost. Without cgo or off Linux the package compiles to a
// stub driver whose Adapters reports why there is no Vulkan.
//
// # Device
//
// Each physical device is described through vkGetPhysicalDeviceProperties2
// and vkGetPhysicalDeviceFeatures2 chains (Vulkan 1.1/1.2/1.3 features,
// subgroup and subgroup-size-control properties, driver properties,
// maintenance4's maximum buffer size, VK_KHR_cooperative_matrix and
// VK_NV_cooperative_matrix features, VK_KHR_shader_bfloat16), and its
// cooperative-matrix shapes through
// vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR and the NV query. The
// logical device enables every feature the device reports (robust buffer
// and image access excepted: package backend checks bounds on the host) and
// the cooperative-matrix, bfloat16, subgroup-size-control, memory-model,
// 16-bit/8-bit storage and float16/int8 extensions that are present, on one
// queue of a compute-only family with timestamps where there is one (cheaper
// submits on NVIDIA), else of the first compute-capable family with
// timestamps (queue.go).
//
// # Recording
//
// An encoder records one command buffer ("frame"), submitted once with a
// fence. A barrier goes only where a command touches memory an earlier
// one (since the last barrier) wrote, or writes memory one read (hazard.go):
// one global memory barrier per link of a dependent chain, none between
// independent dispatches; the first command of a frame is ordered after
// all earlier submissions. Params blocks go into a per-frame host-visible
// ring bound as a dynamic uniform buffer, so a descriptor set depends only
// on the storage ranges it binds: sets are cached per pipeline and reused
// across dispatches and frames; a dispatch whose params equal the previous
// one's reuses its block and leaves the set bound. Recording crosses from
// Go into C once per batch of commands, not once per command
// (cmdlist.go): each vkCmd* call and descriptor-set write is appended to a
// list in C memory (a dispatch's barrier, binds and vkCmdDispatch as one
// record), the structures it points at copied into a C arena, and one cgo
// call replays up to 512 of them into their command buffers, when the list
// is full and before any vkEndCommandBuffer. A cgo call is a scheduler
// transition (entersyscall/exitsyscall), tens of nanoseconds at best and
// more under contention, which at one or two per dispatch was a visible
// part of a recording cost of ~1-2 µs per dispatch; batched, a graph of
// 1,000 dispatches makes 7 cgo calls to record (1,006 unbatched), or 41
// when every dispatch binds a new descriptor set (2,037). A graph (graph.go) is
// a frame recorded once and resubmitted by each replay, its params
// rewritten in place. A copy made outside any scope reuses the command
// buffer recorded for the same copy before (copycache.go). Buffers are
// sub-allocated from large device-local blocks (alloc.go); uploads are
// staged through host memory and batched into one submission ahead of the
// next encoder; reads are copied into a host-visible (cached where
// possible) buffer after the recorded work, in pipelined groups. Released
// buffers, their cached sets and released pipelines are freed when the
// frames that might use them have completed. Pipelines share one
// VkPipelineCache; a pipeline whose workgroup x size is a multiple of the
// largest subgroup size requires full subgroups.
//
// # Environment
//
//	KC_VULKAN_CACHE       directory of the pipeline-cache files (default
//	                      kc/ under os.UserCacheDir); "off" disables them
//	KC_VULKAN_VALIDATION  1: enable VK_LAYER_KHRONOS_validation when installed
//	KC_VULKAN_BARRIER     buffer: buffer memory barriers between dependent
//	                      dispatches; sync2: vkCmdPipelineBarrier2 with
//	                      storage-only access masks (default: one global
//	                      VkMemoryBarrier; docs/PERF.md has what each costs)
//	KC_VULKAN_QUEUE       universal: the first compute family (default: a
//	                      compute-only family where there is one)
//	KC_VULKAN_POOLS       shared: one command pool for all frames (default: a
//	                      pool per frame, reset as a whole)
//	KC_VULKAN_COPYCACHE   off: record every standalone copy afresh (default:
//	                      keep and resubmit the command buffers of recent ones)
//	KC_VULKAN_BATCH       off: replay each recorded command into its command
//	                      buffer at once, one cgo call each (default: batches
//	                      of up to 512 per call; for A/B measurement)
//	KC_VULKAN_STATS       1: capture each pipeline's compile statistics
//	                      (VK_KHR_pipeline_executable_properties, where the
//	                      device offers it: backend.Pipeline.Statistics);
//	                      ir: also its internal representations
//	                      (Representations); read when a device opens
//	                      (inspect.go)
//	KC_TEST_VULKAN        tests: run on the adapter whose name contains this
//	KC_REQUIRE_COOPMAT    tests: 1 makes a missing cooperative-matrix shape
//	                      a failure instead of a reported skip (the H200 run)
package vulkan
