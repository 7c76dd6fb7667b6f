// Package interp is kc's reference interpreter: it runs a checked kernel on
// the CPU and so defines what every kernel means. Every emitter and driver
// is tested against it, bit for bit on integers and within the documented
// tolerances (Tolerance, OpTolerance, SumBound) on floats. The full
// semantics, including what GPUs leave undefined and how kc defines it, is
// docs/semantics.md.
//
// # Use
//
//	m, _ := parse.File("saxpy.kc", src)
//	_ = ir.Check(m)
//	x := interp.Encode([]float32{1, 2, 3, 4})
//	y := interp.Poison(16) // 0xCD bytes: unwritten outputs show
//	err := interp.Run(m, "saxpy", [3]int{1, 1, 1}, &interp.Args{
//		Params:  map[string]ir.Value{"a": ir.FloatVal(2), "n": ir.IntVal(4)},
//		Buffers: map[string][]byte{"x": x, "y": y},
//	}, interp.Options{SubgroupSize: 8})
//	out, _ := interp.Decode[float32](y)
//
// Options.SubgroupSize picks the subgroup size (8 for lavapipe, 32 for
// NVIDIA), Options.MaxSteps bounds runaway loops, and Options.Races turns
// on the data-race detector for shared memory and storage buffers, which
// kc's own tests use.
//
// Run checks the arguments (a missing or unknown parameter or buffer, a
// value out of range for its type, a buffer length that is not a multiple
// of ir.ElemStride of its element type) before running anything. Buffers
// are []byte holding little-endian elements and are modified in place;
// Encode, Decode, F32ToF16Bits and F16BitsToF32 convert typed slices.
//
// # Errors
//
// A kernel that indexes a buffer, array or vector out of bounds, reaches a
// barrier in divergent control flow, exceeds Options.MaxSteps or (with
// Options.Races) has a data race stops with
// an *Error naming the kernel, the invocation (global_id) and the source
// position of the expression or statement; Run never panics. Runs are
// deterministic, so the error reported is always the same one.
//
// # Comparing with GPUs
//
// Integer results must match bit for bit. Float results are compared with
// Tolerance (per intrinsic), OpTolerance (per operator) and SumBound (for
// reassociated sums): GPUs implement transcendental functions with
// approximations that the Vulkan and WGSL specifications bound loosely, may
// fuse a*b+c, reassociate reductions and flush denormals. Results the
// specifications leave undefined (a shuffle from an inactive lane, NaN
// converted to an integer) are defined here but must be masked in
// differential tests; docs/semantics.md lists them.
//
// # Execution model
//
// Workgroups run one after the other, x fastest, then y, then z. Within a
// workgroup all invocations run in lockstep, as one wide SIMD machine with
// an active mask: each statement and expression executes for every active
// invocation, in local_index order, before the next one starts. Control
// flow narrows the active set (the then branch runs first, then the else
// branch; a loop iterates while any invocation is still in it) and return
// removes an invocation for good. This is one of the executions a GPU may
// perform, it makes barriers and subgroup operations exact (a subgroup
// operation sees precisely the invocations that execute it together), and
// it lets the interpreter work on whole columns of values at a time: the
// kernel is compiled once per Run into Go closures over value columns.
//
// Values are 32-bit words: i32 two's complement, u32, f32 bits, f16 bits
// in the low half, bool as 0 or 1. Floats are computed in float32 (f16 in
// float32 and rounded to half after every operation, which equals a
// correctly rounded half operation) and math intrinsics in float64 from
// the exact operands, rounded once to the result type. bf16 values hold
// their 16 bits in the low half; f32 -> bf16 rounds to nearest even.
//
// # Cooperative matrices
//
// A cooperative matrix is one value per subgroup: each invocation's word
// holds a handle to a matrix the machine keeps for the workgroup. Every
// cooperative operation (coopmat fill and conversion, coopLoad, coopStore,
// coopMulAdd, element-wise arithmetic on matrices) must be executed by all
// invocations of a subgroup together, with the same operands in each (an
// operation reached by part of a subgroup, or whose offset, stride, scalar
// or matrix operands differ within it, stops the run with an *Error); it
// then happens once for the subgroup: a load reads the matrix once, a
// store writes it once, and every invocation sees the same result. A load
// or store whose byte offset or stride breaks Vulkan's alignment rule
// (ir.CoopAlign) stops the run, as an out-of-bounds one does. Each
// element of coopMulAdd is the float64 sum of C's element and the K
// products, rounded once to the accumulator type; GPUs accumulate in other
// orders and precisions (compare with a tolerance proportional to K).
// Cooperative loads and stores are not tracked by the race detector.
package interp
