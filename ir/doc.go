// Package ir is kc's kernel intermediate representation: the one form that
// the .kc front end and the Go builder produce, that the checker validates,
// and that every emitter (WGSL, HLSL, SPIR-V) and the reference interpreter
// consume. Package ir imports nothing else of kc.
//
// # Structure
//
// A Module holds `enable` directives, compile-time constants (Const, scalar
// or constant arrays), struct types (Struct), helper functions (Func) and
// kernels. A Kernel has parameters, a workgroup size, workgroup-shared
// variables and a Block of statements; a Func has parameters (values,
// buffers, shared variables), an optional result type and a Block. Either
// may be marked Precise. The tree is made of pointers to
// concrete node types behind two sealed interfaces, Stmt and Expr, as go/ast
// does. Every node carries the Pos it was parsed from (zero when built from
// Go).
//
// # Types
//
// bool, i32, u32, f32, f16, bf16, i8, u8 (Scalar; bf16, i8 and u8 are
// storage only: bf16 converts to and from f32, i8 and u8 to and from i32
// and u32, and they have no arithmetic); vec2..vec4 of those but the
// storage types (Vector); fixed arrays [N]T (*Array); struct types
// (*Struct, identical only to themselves); atomic<i32|u32> (Atomic); the
// result of atomicCompareExchangeWeak (CompareExchangeResult: fields
// old_value and exchanged, read through a Field, bound only by let); and
// cooperative matrices (CoopMat). Scalar, Vector, Atomic,
// CompareExchangeResult and CoopMat are comparable values, so equal types
// are == ; use Identical when an *Array may be involved.
// Memory layout (buffers, shared variables, struct fields) follows WGSL's
// storage rules: SizeOf, AlignOf, FieldOffsets, ElemStride (struct.go).
//
// # Functions, structs, switch (issue 12)
//
// Nodes, and what each emitter is to lower them to (docs/lowering-12.md):
//   - Func: a helper function. Its Params are Kind ValueParam (passed by
//     value, immutable), BufferParam or SharedParam (resource parameters:
//     a call names one of the caller's buffers or shared variables).
//     Emitters specialise functions per kernel with Instances: each
//     Instance binds the resource parameters to the kernel's globals, so
//     the target function takes only the value parameters. No recursion.
//   - FnCall (expression) and CallStmt (statement): calls; Fn is the callee.
//   - Return.Value: the result of a function (nil in kernels).
//   - Struct, StructField; Field (x.name, Index set by Check); StructLit
//     (keyed; Values() gives one expression per field, nil = zero).
//   - ArrayLit ([N]T{...}, exactly N elements); a Const whose Value is an
//     ArrayLit is a constant array (Ty the *Array, Elems its flattened
//     values); an Ident of it is an array value (indexable at run time).
//   - Switch and Case: i32/u32 tag, constant distinct values (Case.Vals),
//     at most one Default, no fallthrough, break leaves the switch.
//   - Kernel.Precise, Func.Precise: no contraction or reassociation of
//     float arithmetic in that body (SPIR-V NoContraction, HLSL precise).
//
// Emitters that do not lower a construct yet report it with FindConstruct.
//
// # Cooperative matrices (issue 13)
//
// CoopMat is coopmat<T, R, C, use>: T f16, bf16 or f32, or i8/u8 inputs
// with i32/u32 accumulators (scalars I8 and U8: storage types converting
// to and from i32/u32, `enable int8`); use a (MxK), b
// (KxN) or acc (MxN); subgroup scope, or workgroup scope (one matrix per
// workgroup, NV cooperative_matrix2: FeatureCoopMat2, `enable
// cooperative_matrix2`, besides FeatureCoopMat; every rule below then
// reads "workgroup" for "subgroup"). Its nodes (coopmat.go): CoopMake
// (fill from a scalar, or convert the element type of a matrix), CoopLoad
// and the statement CoopStore (a buffer or shared array of T, element
// offset and stride, RowMajor or ColMajor), CoopMulAdd, CoopLength;
// Binary and Unary with a CoopMat type are element-wise (+ - * / of one
// matrix type, -m) or scale by a scalar of the element type (m*s, s*m,
// m/s). A matrix is one value per subgroup: every invocation of the
// subgroup executes each cooperative operation together, with the same
// operands, and the operation acts once for the subgroup (a load reads
// once, a store writes once). Check requires uniform control flow around
// every cooperative operation and FeatureCoopMat (`enable
// cooperative_matrix`); the interpreter checks at run time that a whole
// subgroup executes each one with identical operands.
//
// # Resources and bindings
//
// Scalar parameters (i32, u32, f32) are packed into one uniform block at
// group 0, binding 0 (ParamsLayout); storage buffers ([]T, read or
// read_write) take bindings 1, 2, ... in declaration order. Shared
// variables live in workgroup memory and start zeroed.
//
// # Semantics
//
// Expressions are pure, except calls of atomic intrinsics and of helper
// functions, and evaluate operands and arguments left to right. Integer arithmetic wraps (two's complement);
// shift amounts are taken modulo 32; integer division by zero yields the
// dividend (x / 0 == x) and remainder by zero yields 0; i32 MIN / -1 yields
// MIN and MIN % -1 yields 0 (all as in WGSL). Float arithmetic is IEEE 754
// binary32 (f16: binary16, rounded to nearest even). Float to integer
// conversion truncates toward zero and saturates. Statements run in order;
// control flow is structured: if/else, for (counted, while-style or
// infinite) with break and continue, switch, and return, which ends the
// invocation (in a kernel) or the call (in a function).
// workgroupBarrier and storageBarrier must be reached by every invocation of
// a workgroup together, so they may only appear in uniform control flow. An
// out-of-bounds buffer or array access is an error of the program: targets
// may clamp it or drop it; the reference interpreter reports it.
//
// # What Check establishes
//
// Emitters accept only a Module for which Check returned nil (Checked set).
// They may then rely on:
//   - every Expr's Type() is concrete (untyped literals have their chosen
//     type in Lit.Ty; an Ident's Ty is the referenced value's type; for a
//     buffer Ident it is the element type, for Index on a buffer, the
//     element);
//   - every Ident's Obj points to its *Param, *Shared, *Const or *Decl, and
//     every Decl's Ty is set; every FnCall's Fn is set, and the call graph
//     has no cycle; a .name on a struct is a *Field (never a *Swizzle);
//   - every Case's Vals holds its values; every Func with a Result ends in
//     a terminating statement; buffer element types hold no bool, however
//     deeply nested in structs;
//   - Array.Len and Kernel.Size are evaluated; Const.Val holds each
//     constant's value (an Ident whose Obj is a *Const is to be emitted as
//     that value, converted to the Ident's Ty);
//   - operand types follow the rules of the op table in ops.go: binary
//     arithmetic on one type or a vector with a scalar of its component type,
//     comparisons on two scalars (bool) or two vectors (a bool vector) of
//     one type, shifts with a u32 amount, logical ops on bool;
//   - assignments target a var local, a read_write buffer element, a shared
//     variable or a component or element of one of those;
//   - barriers and cooperative-matrix operations appear only in uniform
//     control flow, through calls too; cooperative operands follow the
//     shape, use and element rules of check_coopmat.go;
//     break only inside a for or switch, continue only inside a for;
//   - Kernel.Features lists the optional features used, by the kernel or a
//     function it calls, each enabled by an `enable` directive.
//
// Targets that cannot express a feature report an *UnsupportedError naming
// the feature and the target (see RequireFeatures).
package ir
