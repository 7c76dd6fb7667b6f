// Package hlsl lowers kc IR to HLSL compute shaders (shader model 6.x) and
// drives the tools that compile HLSL: dxc (SPIR-V and DXIL) when it is
// installed, glslangValidator's HLSL front end (SPIR-V) otherwise. Every
// SPIR-V module a tool writes is checked with spirv-val before it is
// returned.
//
// Package hlsl imports ir and emit (the record every emitter returns) only
// (DESIGN.md's arrows).
//
// # The HLSL it writes
//
// One text serves dxc and glslang. Each kernel is an entry point named after
// it ([numthreads(x, y, z)] void NAME(...)); the driver's entry argument
// picks one. Resources follow kc's binding convention exactly, for Vulkan
// through [[vk::binding(n, 0)]] and for D3D through registers of the same
// number: the params cbuffer at b0, read buffers as StructuredBuffer<T> at
// tN, read_write buffers as RWStructuredBuffer<T> at uN, N being the
// binding. When a module with several kernels is emitted whole, each
// kernel's global names carry the kernel's name as a prefix (HLSL has one
// global namespace) and the kernels reuse the same registers; compile one
// entry at a time.
//
// Quirks handled here, each measured with glslang 12 (Debian 12) and
// documented in the file that handles it:
//   - f16 is `half` (glslang has no float16_t); both compilers need their
//     16-bit switch (dxc -enable-16bit-types, glslang
//     --hlsl-enable-16bit-types). glslang converts between half and
//     integers only through float, and crashes on `(half3)0.0f`, so every
//     such conversion goes through float explicitly. glslang evaluates the
//     math intrinsics on half in float and returns float, so their results
//     are cast back to half (a no-op under dxc).
//   - vec3 and array buffer elements are wrapped in a struct padded to kc's
//     std430 stride, so that DXIL's packed structured buffers agree.
//   - Integer division and remainder, float-to-integer conversion and float
//     remainder go through generated helper functions (kc_div, kc_rem,
//     kc_f2i, kc_f2u, kc_frem) that implement ir's semantics; glslang lowers
//     HLSL's float % and fmod to OpFMod and i32 % to OpSMod (both floored,
//     not HLSL's truncation), so % is emitted only for u32 by a constant.
//   - Shift amounts are masked with 31 explicitly (glslang emits the SPIR-V
//     shift directly, which is undefined past the bit width).
//   - glslang lowers WavePrefixSum to an inclusive scan (HLSL specifies an
//     exclusive one; dxc does that). The scan helpers test
//     __hlsl_dx_compiler to pick the right formula for each compiler.
//   - Subgroup operations on f16 run in f32 (glslang promotes them anyway;
//     dxc is told to do the same so that both give the same bits).
//   - Intrinsics HLSL lacks become helper functions with WGSL's
//     definitions: the 4x8 snorm/unorm and 2x16 float packing (the latter
//     on f32tof16/f16tof32), extractBits/insertBits (clamped offset and
//     count), select with a bool-vector condition (HLSL 2021 refuses ?: on
//     vectors); length and distance of scalars are abs. dot4I8Packed and
//     dot4U8Packed are dot4add_i8packed/dot4add_u8packed (shader model 6.4:
//     dxc with cs_6_4; glslang refuses, emit.Entry.Restricted).
//   - atomicCompareExchangeWeak is InterlockedCompareExchange into a
//     temporary and a kc_compare_exchange_result_* struct (HLSL's exchange
//     is strong: exchanged is original == cmp).
//   - Atomic intrinsics become Interlocked* statements hoisted in front of
//     the statement that uses their value; HLSL has no pointers to pass an
//     atomic location to a function.
//   - workgroup-shared variables are zeroed at entry (HLSL groupshared
//     memory starts undefined; ir says zero), followed by a barrier.
//   - && and || are not short-circuiting in glslang's HLSL (nor in HLSL
//     before 2021); when the right operand indexes memory or runs an atomic
//     operation it is evaluated under an if, as ir specifies.
//   - num_workgroups has no HLSL system value. As DXC and Tint do, kc
//     passes it in the params constant buffer: a hidden uint3 after the
//     scalar parameters at the next 16-byte boundary
//     (ir.NumWorkgroupsOffset), which the host writes at every dispatch
//     (ir.ParamsReflection.NumWorkgroups). It works under glslang, dxc -spirv
//     and DXIL alike.
//
// # Issue 12's constructs
//
// Each is measured with glslang 12 and run on lavapipe (TestExecNext,
// TestExecLang); the files that lower them say more.
//   - Helper functions (func.go) are HLSL functions, one per ir.Instance
//     of each kernel, emitted callee first before the entry point and
//     taking only the value parameters: a buffer or shared parameter is the
//     kernel's global inside the copy. Builtins that functions read are
//     copied at entry into static globals (kc_fn_global_id, ...). An array
//     result travels in a wrapper struct (kc_ret_N_T). glslang inlines
//     every function into the entry point.
//   - HLSL leaves the order of operands and arguments unspecified; kc
//     evaluates left to right. A call with an effect (it writes memory,
//     runs an atomic operation or a barrier) is evaluated into a
//     temporary, and an operand that reads memory (an index, a shared
//     variable by its name) before an operand with an effect is hoisted
//     first, so effects and reads keep kc's order. atomicLoad writes
//     nothing, so it is no effect, but like every atomic it is hoisted
//     where it is evaluated, so it keeps its place too.
//   - Structs (struct.go) have WGSL's storage layout under every compiler:
//     explicit padding members (kc_padN) fill each gap ir.FieldOffsets
//     leaves and the tail up to ir.SizeOf. DXIL packs at 4 bytes and
//     glslang uses relaxed std430 (a float3 may start at offset 4), so
//     without them the offsets would differ; TestStructLayoutGlslang
//     checks glslang's Offset and ArrayStride decorations against ir. An
//     array of vec3 inside a struct (WGSL stride 16, DXIL 12) is refused.
//     A struct literal is a temporary initialized with (S)0.
//   - switch is HLSL's switch; every case body that can finish ends in
//     break (kc has no fallthrough).
//   - Constant arrays are static const globals; array literals are
//     initializer lists (element assignments for aggregate elements).
//   - precise (precise.go): glslang applies NoContraction to every float
//     operation whose value flows into a precise variable (through
//     conversions, intrinsics, constructors and member stores), and
//     otherwise fuses a*b + c into an Fma itself. In a precise body every
//     float local and temporary is precise, and a float value that leaves
//     otherwise (stored to memory, returned, passed, compared, converted to
//     an integer) goes through a precise temporary. issue 12's reproducer
//     gives 1e-8 on lavapipe this way, 0 without precise.
//
// # Compilers
//
// CompileSPIRV runs dxc (-spirv -fspv-target-env=vulkan1.1, profile cs_6_0,
// cs_6_2 with -enable-16bit-types for f16, -HV 2021) when it is found on
// PATH or given, glslangValidator (-D -V -S comp -e NAME --target-env
// vulkan1.1 [--hlsl-enable-16bit-types]) otherwise, always followed by
// spirv-val for the requested environment: glslang without --target-env
// exits 0 with an invalid module. glslang stays at vulkan1.1 (SPIR-V 1.3)
// whatever the environment, because its HLSL front end decorates storage
// buffers with BufferBlock, which SPIR-V 1.4 and later forbid. CompileDXIL needs dxc and says so when it is
// missing. Every tool runs under a timeout; a missing, crashing, hanging or
// failing tool is a *ToolError.
//
// # Positions
//
// The text carries #line directives naming the .kc file (base name), so
// both compilers report .kc lines; emit.Artifact.Lines maps every output line to
// the .kc position it came from as well. Tool errors come back as a
// *ToolError whose diagnostics carry .kc positions.
//
// # Cooperative matrices
//
// Cooperative matrices are DXC's vk::khr::CooperativeMatrix templates
// (coopmat.go), SPIR-V only: an entry using them is compiled by dxc for
// vulkan1.3 (SPIR-V 1.6) with -enable-16bit-types and cs_6_2 whatever
// environment was asked, refused by the glslang path and by CompileDXIL
// (Entry.Restricted names the feature). HLSL has no bf16 and no 8-bit
// scalars: kernels using them are refused.
package hlsl
