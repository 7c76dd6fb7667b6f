// Package coopmat generates and runs matrix products on a backend.Device:
// C = A·B and C = scale·A·Bᵀ over row-major matrices of any size.
//
// The work is split in three steps, each usable on its own:
//
//   - Planning (Plan, Candidates, PlanCoop): from the adapter's limits and
//     cooperative-matrix shapes (backend.AdapterInfo.CoopMat), choose a
//     generator, the workgroup tile, the work per thread or subgroup, the
//     k-step, the shared-memory staging (within Limits.MaxSharedMemory:
//     48 KiB on NVIDIA's Vulkan driver, 32 KiB on lavapipe) and, for
//     skinny problems that would leave most of the device idle, a split of
//     the k dimension (split-k) whose partial products a second kernel sums.
//   - Generation: a generator turns a Plan into a checked ir.Module, writing
//     .kc text: the register-tiled f32 kernel ("f32", f32gen.go) and the
//     tensor-core kernel ("coopmat", coopgen.go: f16/bf16 inputs through
//     cooperative matrices, f32 accumulation, f16/bf16/f32 results, shared
//     staging with 16-byte loads, any size); for at most 16 rows of A the
//     skinny kernels: "gemv" (gemv.go, f32 multiply-adds, A·B) and
//     "skinny" (skinny.go, cooperative matrices, k split over subgroups;
//     A·B and A·Bᵀ; B's tiles loaded from global memory, optionally some
//     steps ahead (Plan.Prefetch), or for A·Bᵀ B's block staged in shared
//     memory by 16-byte loads (Plan.StageB, skinnystage.go)). A cooperative
//     plan whose instruction shape the device lists under
//     VK_NV_cooperative_matrix is emitted as SPV_NV_cooperative_matrix,
//     others as the KHR extension.
//   - Running (New, Matmul.Run): load the kernels through the device's
//     pipeline cache and record the dispatches; Tune times the candidates
//     on the device and remembers the fastest per device, driver version and
//     problem in a JSON cache (CacheDir, ClearCache).
package coopmat
