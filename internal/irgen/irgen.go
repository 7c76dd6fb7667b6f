// Package irgen generates random, well-typed kc kernels from a seed, for
// differential testing of the emitters and drivers against the reference
// interpreter (internal/difftest). The same seed and Config always give
// the same kernel and the same inputs.
//
// A generated kernel has nested control flow (if/else, counted, while and
// infinite loops with break and continue, returns), i32/u32 arithmetic,
// bit operations and bit intrinsics (extractBits and insertBits with
// offsets and counts that need clamping), the f16 packing round trip,
// conversions and bitcasts, small integer vectors, vector comparisons
// reduced by all and any and select with a bool-vector condition, f32
// arithmetic and math intrinsics (trigonometric, hyperbolic, smoothstep,
// length, cross, reflect, step among them), local arrays,
// workgroup memory written then read across barriers, atomics on
// commutative slots and, with Config.Subgroups, subgroup operations. Its
// fixed signature is
//
//	const C0 = 3 (5, 17, 31)  // module constants, used as literals
//	const CU u32 = ...
//	const CF f32 = ...
//	kernel gen(pu u32, pi i32, pf f32, in_i read []u32, in_f read []f32,
//		out_i read_write []u32, out_f read_write []f32,
//		acc read_write []atomic<u32>, acci read_write []atomic<i32>) workgroup(X, Y)
//
// with X·Y = W in 8..64, launched over a 1-D grid; invocation
// workgroup_id.x·W + local_index owns Slots elements of the outputs.
// Config.Lang adds issue 12's constructs: a struct S with the buffers
// in_s and out_s, constant arrays TBL and TBL2, helper functions, switch
// (lang.go).
//
// # What the generator guarantees
//
// Every kernel passes ir.Check and runs without error in the interpreter
// with race detection on, and has one result on every conforming target:
//   - indices are masked (e & (len-1)) into power-of-two buffers and arrays;
//   - integer division is defined in kc (x/0 == x) and left unguarded; no
//     constant divides by zero or shifts by 32 or more;
//   - each invocation writes only its own Slots elements of out_i and out_f;
//     shared memory is written at local_index between two barriers at the
//     top level and read only after the second;
//   - atomics are statements whose results are dropped, and each slot of
//     acc and acci sees one commutative operation (add/sub, max, min, or,
//     and, xor), so the final values do not depend on the order; max and
//     min are sometimes compare-exchange loops (atomicCompareExchangeWeak);
//   - subgroup operations and barriers appear only at the top level, before
//     any return (all invocations active; the workgroup size is a multiple
//     of 8, a subgroup size no larger than 8 divides it);
//   - floats are split into two classes. Deterministic floats (loads,
//     parameters, small integers converted, negation, abs, min, max, clamp,
//     floor, ceil, trunc, round, sign, step, select and scaling by powers of two:
//     operations that never round) have one result on every target even
//     under contraction and reassociation: they alone feed comparisons, float-to-integer
//     conversions (in range, or scaled out of range to test saturation,
//     never NaN) and subgroup data movement. Approximate floats (products,
//     guarded division, sin, cos, exp, log, sqrt, inverseSqrt, tanh, fma,
//     mix, dot) carry a static bound on their magnitude and on their error,
//     propagated from the per-operation bounds of docs/semantics.md §9, and
//     flow only into out_f and shared f32 memory, and only when the error
//     bound is within 2^-10 of the magnitude bound. FloatTol[s] is the
//     resulting absolute bound for output slot s (0 for exact slots).
//
// GenerateCoop (coop.go) generates cooperative-matrix kernels of another
// shape, with a float64 reference evaluation of their own
// (CoopKernel.Reference) to check the interpreter against.
package irgen

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/kcgo/kc/ir"
)

// Config selects what a generated kernel may use.
type Config struct {
	// Subgroups allows subgroup operations and builtins (enable subgroups).
	Subgroups bool
	// F16 adds the buffers in_h (read) and out_h (read_write) of f16 and
	// f16 arithmetic (enable f16).
	F16 bool
	// NoSaturate keeps float-to-integer conversions inside the integer range.
	NoSaturate bool
	// NoNumWorkgroups leaves out the num_workgroups builtin, for a path
	// that cannot express it.
	NoNumWorkgroups bool
	// Stmts is the statement budget (0: 28).
	Stmts int
	// Depth is the expression depth (0: 3).
	Depth int
	// Lang adds issue 12's constructs (lang.go): helper functions called
	// from uniform and divergent flow, a struct in buffers (in_s, out_s)
	// and in locals, switch, constant arrays. Only for paths whose emitter
	// lowers them (SPIR-V today; WGSL and HLSL after their lowering).
	Lang bool
}

// Slots is the number of out_i and out_f elements each invocation owns:
// invocation g (global_id.x) owns elements g*Slots .. g*Slots+Slots-1.
const Slots = 8

// Lengths of the fixed buffers (powers of two).
const (
	InLen  = 64 // in_i and in_f
	AccLen = 8  // acc and acci
)

// Kernel is a generated kernel and the launch and inputs it is meant for.
type Kernel struct {
	Seed      uint64
	Config    Config
	Module    *ir.Module // checked
	Name      string     // "gen"
	Workgroup int        // invocations per workgroup (x·y)
	Groups    int        // workgroups (x)
	// FloatTol is the accepted absolute error of each out_f slot (Slots
	// entries); 0 means the slot must match exactly (as a value: -0 == +0).
	FloatTol []float64
	// HalfTol is the same for out_h (with Config.F16).
	HalfTol []float64
}

// Generate builds the kernel for seed under cfg and checks it. An error is
// a bug of the generator (or of the checker).
func Generate(seed uint64, cfg Config) (*Kernel, error) {
	if cfg.Stmts <= 0 {
		cfg.Stmts = 28
	}
	if cfg.Depth <= 0 {
		cfg.Depth = 3
	}
	g := &gen{r: rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc908)), cfg: cfg}
	g.wg = []int{8, 16, 32, 64}[g.r.IntN(4)]
	g.wgY = []int{1, 1, 2, 4}[g.r.IntN(4)]
	if cfg.Subgroups {
		// Which invocations of a 2-D workgroup form a subgroup is the
		// device's choice (lavapipe's differs from local_index / 8).
		g.wgY = 1
	}
	g.tol = make([]float64, Slots)
	g.htol = make([]float64, Slots)
	if cfg.Lang {
		g.langModule()
	}
	k := g.kernel()
	m := &ir.Module{File: "gen.kc", Kernels: []*ir.Kernel{k}, Consts: g.consts()}
	if cfg.Lang {
		m.Structs = []*ir.Struct{g.st}
		m.Funcs = g.funcs
		m.Consts = append(m.Consts, g.langConsts()...)
	}
	if cfg.F16 {
		m.Enables = append(m.Enables, &ir.Enable{Feature: ir.FeatureF16})
	}
	if cfg.Subgroups {
		m.Enables = append(m.Enables, &ir.Enable{Feature: ir.FeatureSubgroups})
	}
	gk := &Kernel{Seed: seed, Config: cfg, Module: m, Name: k.Name, Workgroup: g.wg, Groups: 1 + g.r.IntN(3), FloatTol: g.tol, HalfTol: g.htol}
	if err := ir.Check(m); err != nil {
		return gk, err
	}
	return gk, nil
}

// Inputs returns the scalar parameters and fresh buffers for a run of k,
// derived from its seed: in_i mixes small values, 0, 0x80000000,
// 0xffffffff and random words; in_f and pf lie in [-2, 2); out_i, out_f,
// acc and acci start random, so an element a target fails to write shows.
func (k *Kernel) Inputs() (map[string]ir.Value, map[string][]byte) {
	r := rand.New(rand.NewPCG(k.Seed, 0x3c6ef372fe94f82b))
	params := map[string]ir.Value{
		"pu": ir.IntVal(int64(specialU32(r))),
		"pi": ir.IntVal(int64(int32(specialU32(r)))),
		"pf": ir.FloatVal(float64(r.Float32()*4 - 2)),
	}
	n := k.Workgroup * k.Groups * Slots
	bufs := map[string][]byte{
		"in_i":  words(InLen, func() uint32 { return specialU32(r) }),
		"in_f":  words(InLen, func() uint32 { return math.Float32bits(r.Float32()*4 - 2) }),
		"out_i": words(n, r.Uint32),
		"out_f": words(n, func() uint32 { return math.Float32bits(r.Float32()*8 - 4) }),
		"acc":   words(AccLen, func() uint32 { return specialU32(r) }),
		"acci":  words(AccLen, func() uint32 { return specialU32(r) }),
	}
	if k.Config.F16 {
		bufs["in_h"] = halves(InLen, r)
		bufs["out_h"] = halves(n, r)
	}
	if k.Config.Lang {
		sw := ir.ElemStride(k.Module.Structs[0]) / 4
		bufs["in_s"] = words(InSLen*sw, func() uint32 { return specialU32(r) })
		bufs["out_s"] = words(k.Workgroup*k.Groups*sw, r.Uint32)
	}
	return params, bufs
}

// halves returns n random normal f16 values in [2^-6, 4) in magnitude.
func halves(n int, r *rand.Rand) []byte {
	b := make([]byte, 2*n)
	for i := 0; i < n; i++ {
		h := uint16(r.IntN(2))<<15 | uint16(9+r.IntN(8))<<10 | uint16(r.IntN(1024))
		binary.LittleEndian.PutUint16(b[2*i:], h)
	}
	return b
}

func specialU32(r *rand.Rand) uint32 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return 0x80000000
	case 2:
		return 0xffffffff
	case 3:
		return r.Uint32()
	case 4:
		return uint32(r.IntN(64))
	}
	return uint32(int32(r.IntN(257) - 128))
}

func words(n int, next func() uint32) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(b[4*i:], next())
	}
	return b
}
