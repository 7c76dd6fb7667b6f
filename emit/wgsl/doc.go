// Package wgsl lowers a checked kc module (package ir) to WGSL text.
//
// Emit is a pure function of its input: the same module gives the same
// bytes, it keeps no global state and is safe for concurrent use.
//
// # Layout
//
// Every kernel becomes a @compute entry point. Its scalar parameters form a
// struct in a uniform buffer at @group(0) @binding(0); its storage buffers
// are runtime-sized arrays at bindings 1, 2, ... (ir.ParamsLayout,
// ir.BufferBinding); its shared variables are var<workgroup> at module
// scope. When a module emits several kernels, module-scope names carry the
// kernel name as a prefix so that the kernels do not collide.
//
// # Where kc and WGSL (or its implementations) differ, and what Emit does
//
// WGSL's specification already gives kc's results for wrapping integer
// arithmetic, shift amounts (modulo 32) and integer division at run time
// (x / 0 == x, x % 0 == 0, MIN / -1 == MIN). naga v0.19, which
// wgpu-native (backend/wgpu) uses, does not implement the last two: it
// passes them to SPIR-V, where they are undefined. So the WGSL spells
// kc's semantics out itself and is right under Tint, any naga and the
// spec alike:
//
//   - Integer / and % go through kc_div_* / kc_rem_* helpers, which divide
//     by 1 where kc defines the result (a divisor that is a constant other
//     than 0 and -1 needs no helper; a constant 0 divisor, which WGSL
//     rejects at shader creation, is replaced by kc's result).
//   - A shift amount not known to be below 32 is masked with & 31u.
//   - Float to integer conversion: WGSL clamps to the largest integer the
//     float type can hold (2147483520 for f32 to i32), naga v0.19 not at
//     all, and NaN is indeterminate; kc saturates to the integer range and
//     maps NaN to 0. Such conversions go through kc_f2i_* / kc_f2u_*.
//   - A var declared inside a loop without an initializer, or with a
//     constant one, is declared and then assigned: naga v0.19 hoists it
//     and initialises it once per invocation, not once per iteration.
//   - A const-expression that WGSL would evaluate at shader creation with
//     a possible error (vector constants, intrinsic calls on constants) is
//     made a run-time value with an identity helper kc_rt_*; integer and
//     bool scalar constant expressions are folded by kc's rules.
//   - WGSL has no literal for infinity or NaN: non-finite constants come
//     from a helper that bitcasts their bits at run time. The f32 maximum
//     is spelled with 17 digits (its shortest text lies beyond it).
//   - select(cond, a, b) is WGSL's select(b, a, cond), or, where one of its
//     operands has effects (atomics, helper calls) and another has effects
//     too or reads a writable buffer or shared variable, a kc_select_*
//     helper that takes them in kc's order; unary minus on u32,
//     which WGSL lacks, is written 0u - x; ^x is ~x.
//   - Operator precedence: WGSL forbids mixing bitwise operators with
//     others without parentheses; the emitter parenthesises by WGSL's
//     grammar, not Go's.
//   - Identifiers that are WGSL keywords, reserved words or predeclared
//     names get a trailing underscore; every local gets a name unique in
//     its function, so no WGSL shadowing rule applies.
//   - Subgroup operations in non-uniform control flow are allowed in kc:
//     modules using subgroups turn WGSL's subgroup_uniformity diagnostic
//     off.
//   - extractBits/insertBits go through kc_extractBits_*/kc_insertBits_*
//     helpers that clamp offset and count as WGSL defines: naga v0.19 (the
//     wgpu driver's) passes them to SPIR-V unclamped. smoothstep with
//     constant lo >= hi hides lo from constant evaluation.
//   - A let bound to atomicCompareExchangeWeak's result has no type
//     written (__atomic_compare_exchange_result<T> cannot be spelled).
//
// Integer to float conversion of values that are not exactly representable
// may round either way in WGSL, as + - * / may; kc requires round to
// nearest even of the implementations it runs WGSL on and tests it
// (docs/semantics.md § 5.4) instead of guarding the conversion.
//
// # Functions, structs, switch, constant arrays, precise (issue 12)
//
// As docs/lowering-12.md lays out: every kernel gets its own copy of each
// helper function it calls (ir.Instances), a WGSL fn taking the value
// parameters only, written callee-first before the entry point and
// prefixed with the kernel name when the module emits several kernels; a
// buffer or shared-variable parameter is, in the copy, the kernel's
// module-scope variable. Builtin values read inside functions are
// trailing parameters that callers pass on (var<private> copies would be
// non-uniform to WGSL's uniformity analysis). A kc
// struct is a WGSL struct (its storage layout, ir.FieldOffsets, is WGSL's);
// a literal lists every field, T() for those left out. switch is WGSL's,
// with an empty default added where kc has none. Four workarounds for
// naga v0.19 (wgpu-native), which rejects a run-time index into an array
// value: constant arrays are var<private> with their value as initializer
// rather than const, array-holding lets are vars, an array-holding value
// parameter is copied into a var, and a run-time index into an array that
// is not in memory (a call result, a literal) goes through a kc_index_*
// helper that copies it into a var. kc's evaluation order holds
// through calls: a select whose operands include one with effects (an
// atomic or a helper call) and another with effects or a read of writable
// memory goes through its kc_select_* helper, and lhs op= rhs with effects
// in rhs evaluates rhs into a let first (WGSL loads lhs before rhs; kc
// after); an assignment target's indexes go into lets before that where
// they read writable memory and rhs has effects, or have effects
// themselves (so the division helpers' lhs = kc_div(lhs, …) runs them
// once). A for post needing such lets goes into the continuing block
// of a loop (WGSL's for update is one statement). WGSL has
// no way to forbid contraction: a precise body is marked by a comment only,
// and a consumer may fuse a*b+c in it (docs/semantics.md §9); on lavapipe
// through wgpu, issue 12's reproducer gives 0, not 1e-8.
//
// # Cooperative matrices
//
// Options.CoopMat picks wgpu's `enable wgpu_cooperative_matrix;` (the
// default, validated by naga) or Chromium's `enable
// chromium_experimental_subgroup_matrix;` (validated by Tint); coopmat.go
// says what each expresses. What a dialect lacks, and bf16, i8 and u8,
// which WGSL lacks, are an *ir.UnsupportedError naming the feature.
package wgsl
