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
// # Where WGSL differs from kc and what the emitter does about it
//
//   - Float to integer conversion: WGSL clamps to the largest integer that
//     the float type can represent (2147483520 for f32 to i32) and leaves
//     NaN indeterminate; kc saturates to the integer range and maps NaN to
//     0. Such conversions go through helper functions kc_f2i_* / kc_f2u_*.
//   - Integer division or remainder by a constant zero is a shader-creation
//     error in WGSL even when the dividend is not constant; the emitter
//     writes kc's result (x / 0 == x, x % 0 == 0) instead.
//   - A const-expression that WGSL would evaluate at shader creation with
//     a possible error (vector constants, intrinsic calls on constants) is
//     made a run-time value with an identity helper kc_rt_*.
//   - WGSL has no literal for infinity or NaN: non-finite constants come
//     from a helper that bitcasts their bits at run time.
//   - select(cond, a, b) is WGSL's select(b, a, cond); unary minus on u32,
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
//
// Integer overflow (wrapping), shift amounts (modulo 32 at run time) and
// integer division at run time (x / 0 == x, MIN / -1 == MIN) already match.
// Integer to float conversion of values that are not exactly representable
// may round either way in WGSL; kc rounds to nearest even.
//
// Cooperative matrices are not supported by this target yet.
package wgsl
