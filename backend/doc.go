// Package backend runs kc kernels on GPUs: the driver-independent half of
// kc's runtime, modelled on the seeds' compute contexts in Go idiom
// (context.Context where work may block, errors as values, Close releases
// everything).
//
//   - Adapters enumerates every adapter of every registered driver; Open
//     picks one by selector (KC_DEVICE) or by policy: a Vulkan adapter with
//     cooperative matrices, then a discrete Vulkan adapter, then the best
//     wgpu adapter.
//   - Device.Load builds a pipeline from an emitter's record, emit.Artifact
//     (WGSL text or SPIR-V words, the entry point as emitted and ir's
//     reflection of the kernel's bindings), cached by content hash (the
//     code carries the specialisation); LoadIR emits for the device's preferred target first,
//     in the cooperative-matrix flavour the device has (EmitFor: KHR, else NV). Load refuses,
//     as an *ir.UnsupportedError naming the feature and the device, a kernel needing what the
//     device lacks: f16, bf16, int8, subgroups, cooperative matrices (of that flavour, of bf16
//     or 8-bit elements), workgroup scope, packed dot products, or more than its limits.
//   - Buffers: Upload (fresh, never pooled), Alloc (pooled by exact size),
//     AllocZeroed (fresh, guaranteed zero), Persist (a persistent region for
//     long-lived weights).
//   - Dispatch and Copy record into nested scopes (Begin/End): the
//     outermost End submits, and so do the early submits of SetScopeFlush
//     (on a GPU by default the first 4 dispatches, then doubling chunks), which let
//     the device start while the host records. Read and ReadMany flush recorded work first and
//     read any number of regions with one submit and one fence wait.
//   - Stats counts dispatches, submits, compiles, cache hits, bytes and pool
//     traffic; Stats.Since measures a region. Time is a timing oracle with
//     GPU timestamps; DispatchTimed brackets one dispatch of a scope with
//     timestamps.
//   - Record captures dispatches and copies into a Graph that Replay submits
//     many times (one resubmitted command buffer on Vulkan, the analogue of
//     a CUDA graph), with SetParams and SetBuffers between replays.
//   - AllocMapped gives buffers mapped into host memory (MapHost: pinned
//     staging and zero-copy reads; MapDevice: device-local where offered);
//     ReadInto reads into reused memory. Memory reports the driver's memory
//     objects (the Vulkan driver sub-allocates buffers from large blocks).
//   - OpenAll opens every adapter for concurrent use; Wrap (with
//     vulkan.FromHost or wgpu.FromDevice) runs kc on a device a host program
//     created, inheriting its features and limits exactly.
//
// Every binding is checked on the host before anything is recorded, so a
// bad binding is a *BindError, never a driver abort.
//
// Drivers (backend/wgpu, backend/vulkan) implement the small interfaces of
// driver.go and register themselves from init; import the ones you want:
//
//	import (
//		"github.com/kcgo/kc/backend"
//		_ "github.com/kcgo/kc/backend/wgpu"
//	)
//
//	dev, err := backend.Open(ctx, "") // KC_DEVICE or the policy's choice
//	defer dev.Close()
//	p, err := dev.LoadIR(ctx, module, "saxpy")
//	x, _ := dev.Upload(xs)
//	y, _ := dev.Alloc(n * 4)
//	err = dev.Dispatch(p, backend.Args{Params: []uint32{n}, Buffers: []backend.View{x.View(), y.View()}}, backend.Groups(n/64))
//	out, err := dev.Read(ctx, y.View())
//
// Package backend imports ir and the emitters; only driver packages import
// GPU bindings.
package backend
