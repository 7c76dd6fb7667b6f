// Package spirv lowers checked kc IR to SPIR-V for Vulkan compute, word by
// word, and disassembles SPIR-V to the text kept in testdata/golden/*.spvasm.
//
// It imports only packages ir and emit (the record every emitter returns)
// and the standard library.
//
// # Entry points
//
// Emit(m, Options) returns an *emit.Artifact: the words (Bytes gives the
// little-endian form for .spv files and vkCreateShaderModule; VersionOf
// reads the header's version), one entry per kernel with its reflection,
// and the map from word offsets to .kc positions. Options.Kernel selects
// one kernel; empty
// means every kernel of the file, each an OpEntryPoint named like the
// kernel, each with its own resource variables. Options.Version is V1_3
// (default; Vulkan 1.1) or V1_6 (Vulkan 1.3). Debug information (OpString,
// OpSource, OpLine, OpName, OpMemberName) is on unless NoDebugInfo is set.
// Options.CoopMat picks the cooperative-matrix extension: KHR (default) or
// NV (`kc compile -coopmat nv`); coopmat.go describes both lowerings, the
// Vulkan memory model they bring and bf16 (SPV_KHR_bfloat16). spirv-val
// 2023.1 validates the NV flavour only; the KHR flavour is checked by a
// disassemble/assemble round trip (asm_test.go) and on hardware.
// Emit refuses a module Check has not passed and reports an
// *ir.UnsupportedError (target "spirv") for what a flavour cannot express
// (in NV: bf16 matrices, element-wise * of matrices, integer scaling);
// every construct of issue 12 is lowered. It never panics: an internal failure
// comes back as an error. Output is a pure function of the input: the same
// bytes on every run, and Emit may run concurrently.
//
// # Module shape
//
// Sections follow the spec's logical layout: capabilities, extensions, the
// GLSL.std.450 import, the memory model (Logical GLSL450, or Logical
// Vulkan when a kernel uses cooperative matrices), entry points,
// LocalSize execution modes (from the checked Kernel.Size; compile-time
// constants are already folded by ir.Specialize and ir.Check, so LocalSizeId
// is not needed), debug strings and names, decorations, then types,
// constants and global variables, then functions. Types and constants are
// interned by SPIR-V's uniqueness rules; arrays inside buffers carry an
// ArrayStride and are distinct from the plain arrays of Function and
// Workgroup variables. After emission every id is renumbered in order of
// first appearance in the disassembly, so spirv-as assembles the golden
// text back to the identical words.
//
// Resources follow ir/layout.go: scalar parameters live in one Uniform
// Block struct at set 0 binding 0 with std140 Offsets; each storage buffer
// is a StorageBuffer variable of a Block struct holding a runtime array
// (ArrayStride = ir.ElemStride) at set 0 binding 1, 2, ...; read buffers are
// NonWritable. len(buf) is OpArrayLength. Builtins are Input variables
// decorated BuiltIn (GlobalInvocationId, LocalInvocationId, WorkgroupId,
// NumWorkgroups, LocalInvocationIndex, SubgroupSize,
// SubgroupLocalInvocationId), created on first use. SPIR-V 1.3 entry points
// list their Input variables; 1.6 ones list every global they use. Shared
// variables are Workgroup variables; since Vulkan 1.1 allows them no
// initializer, the kernel zeroes them at entry: arrays by all invocations
// together (element i, over the first two array levels flattened, by the
// invocation whose local_index is i mod the workgroup size), other shared
// variables by invocation 0, then a workgroup barrier. (Drivers do reuse
// workgroup memory: on lavapipe a kernel without this reads the previous
// workgroup's values.) let is an SSA value, var a Function
// variable in the entry block (stored with its initializer or zero where it
// is declared, so a var inside a loop is fresh each iteration).
//
// Capabilities are those the module uses: Shader always; Float16 for any
// f16 type; StorageBuffer16BitAccess and SPV_KHR_16bit_storage for f16
// buffers; GroupNonUniform plus Arithmetic, Ballot, Shuffle,
// ShuffleRelative or Vote per subgroup operation used.
//
// # Control flow
//
// Each if is a selection construct, each for a loop construct whose header
// holds OpLoopMerge, with the condition in its own block, the body, and the
// post statement in the continue target; break and continue branch to the
// loop's merge block and continue target, return is OpReturn. Code after a
// jump is not emitted; a merge block nothing reaches holds OpUnreachable,
// an unreached continue target only the back edge. && and || evaluate their
// right side only when needed (a selection and an OpPhi) when it indexes
// memory or calls an intrinsic; otherwise both sides are evaluated.
//
// # Functions, structs, switch, constant arrays, precise (issue 12)
//
// docs/lowering-12.md is the design; here is what this emitter does.
//
//   - Helper functions: every instance of the kernel's call plan
//     (ir.Instances) is one OpFunction whose OpFunctionParameters are the
//     value parameters only (composites by value); a buffer or shared
//     parameter names, inside the instance, the kernel's StorageBuffer or
//     Workgroup variable it is bound to, so no pointer is ever passed and
//     SPIR-V 1.3's limits on pointer parameters never arise. Calls are
//     OpFunctionCall with the arguments evaluated left to right; return
//     is OpReturnValue. Instances are named after ir's Instance.Name, with
//     the kernel's name in front when the module has several kernels.
//   - Structs: two OpTypeStructs per struct, one with Offset member
//     decorations from ir.FieldOffsets (and ArrayStride on arrays inside)
//     used only inside storage buffers, whose runtime array has ArrayStride
//     ir.ElemStride; and a plain one for values and Function/Workgroup
//     variables (Vulkan forbids explicit layout there from SPIR-V 1.4).
//     Loads and stores convert member by member (OpCompositeExtract and
//     OpCompositeConstruct), in 1.6 too: OpCopyLogical, which 1.4 added for
//     this, passes spirv-val but lavapipe (Mesa with LLVM 15.0.6) fails
//     vkCreateComputePipelines (VK_ERROR_UNKNOWN) on it for a struct. x.f is an OpAccessChain
//     member index in memory and OpCompositeExtract on a value; a literal
//     is OpCompositeConstruct with OpConstantNull for fields left out.
//   - switch: OpSelectionMerge and OpSwitch (32-bit literals; the default
//     target is the merge block when there is no default case); each case
//     body ends in a branch to the merge block, as does break; continue
//     inside a switch goes to the enclosing loop's continue target.
//   - Constant arrays: OpConstantComposite (nested for nested arrays);
//     indexing one goes through a Function variable initialised with it,
//     one per function that indexes it. An array literal is an
//     OpCompositeConstruct; indexing an array value at run time stores it
//     in a Function variable first.
//   - precise: in a precise kernel's or function's own body, every
//     OpFAdd, OpFSub, OpFMul, OpFDiv, OpFRem, OpFNegate and OpDot result is
//     decorated NoContraction. On lavapipe this is what makes issue 12's
//     x*x - y*y + c give 1e-8 for x = y = 1, c = 1e-8 (0 without it).
//
// # Semantics (ir/doc.go), where SPIR-V differs
//
//   - Integer / and %: OpSDiv/OpUDiv/OpSRem/OpUMod are undefined for a zero
//     divisor and for i32 MIN / -1, so the divisor is replaced by 1 in those
//     cases with OpSelect: x / 0 == x, x % 0 == 0, MIN / -1 == MIN,
//     MIN % -1 == 0. A constant divisor other than 0 and -1 needs no guard,
//     and integer operations on two constants are folded.
//   - Shifts: the amount is masked with & 31 (SPIR-V shifts by the width or
//     more are undefined). >> is arithmetic for i32, logical for u32.
//   - Float to integer: FClamp to the floats inside the target range, then
//     OpConvertFToS/U, then OpSelect for values above it (MAX), f16 -Inf
//     (i32 MIN) and NaN (0): truncating and saturating exactly like the
//     reference interpreter.
//   - Arithmetic wraps (OpIAdd and friends are modular); select(c, a, b) is
//     OpSelect c a b with a scalar condition splatted for vector values.
//   - Float comparisons are ordered, except != (OpFUnordNotEqual).
//   - Math uses GLSL.std.450 (Exp, Exp2, Log, Log2, Sqrt, InverseSqrt, Sin,
//     Cos, Tan, Tanh, Floor, Ceil, RoundEven, Trunc, Fract, Pow, Fma, FMix,
//     FAbs/SAbs, FMin/SMin/UMin, FMax/..., FClamp/..., FSign/SSign, FindILsb,
//     FindSMsb/FindUMsb, Asin, Acos, Atan, Atan2, Sinh, Cosh, Step,
//     SmoothStep, Length, Distance, Normalize, Cross, Reflect, the
//     Pack/Unpack Snorm4x8, Unorm4x8 and Half2x16); OpBitCount,
//     OpBitReverse; OpDot for floats, and for integers the sum of
//     componentwise products (wrapping). f16 Sinh and Cosh are evaluated in
//     f32 (lavapipe, Mesa 22.3, segfaults on them in f16).
//   - Vector comparisons yield bool vectors; all/any are OpAll/OpAny.
//   - extractBits/insertBits are OpBitField{U,S}Extract/OpBitFieldInsert
//     with offset and count clamped first (SPIR-V leaves offset + count >
//     32 undefined; WGSL and kc clamp).
//   - dot4I8Packed/dot4U8Packed are OpSDot/OpUDot with
//     PackedVectorFormat4x8Bit (SPV_KHR_integer_dot_product).
//   - Atomics: OpAtomic* with Device scope on buffers and Workgroup scope on
//     shared memory, all Relaxed (semantics None), as WGSL's atomics are;
//     ordering with other memory comes from the barriers.
//     atomicCompareExchangeWeak is OpAtomicCompareExchange (strong) and an
//     OpCompositeConstruct of struct { T old_value; bool exchanged } with
//     exchanged = old == cmp.
//   - workgroupBarrier is OpControlBarrier Workgroup Workgroup
//     AcquireRelease|WorkgroupMemory; storageBarrier is OpControlBarrier
//     Workgroup Workgroup AcquireRelease|UniformMemory (WGSL's meaning).
//   - Subgroup operations are OpGroupNonUniform* with Subgroup scope
//     (reductions Reduce, subgroupInclusiveAdd/ExclusiveAdd InclusiveScan/
//     ExclusiveScan); subgroupBroadcast needs a constant lane in SPIR-V 1.3.
//
// # Positions and validation
//
// Every statement records the word offset where its instructions start:
// Artifact.SourcePos(offset), IDPos(a, id) and InstPos(a, n) (n counted as
// spirv-val's "line N") return the .kc position, so a validator's or
// driver's complaint is reported against the user's file; OpLine carries
// the same information inside the module when debug info is on, against an
// OpString holding the file's base name (the module does not depend on the
// directory it was compiled in).
//
// Validate(ctx, words, env) runs spirv-val --target-env env on any SPIR-V
// and returns a *ValidationError with spirv-val's message and the
// disassembly around the offending instruction; Module.Validate picks the
// Vulkan environment of the module's version (vulkan1.1 for 1.3, vulkan1.3
// for 1.6) and adds the .kc position. Other packages use it for SPIR-V of
// any origin (HLSL through glslang, driver tests).
//
// # Disassembly
//
// Disassemble writes spirv-dis-style text: `%name = OpX ...`, names from
// OpName where present, spirv-dis's friendly names for types and constants
// (%uint, %v3uint, %_ptr_StorageBuffer_float, %uint_16), %N otherwise,
// always unique; spirv-as reads it back to the same words (tested).
package spirv
