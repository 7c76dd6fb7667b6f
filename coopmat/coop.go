package coopmat

import (
	"github.com/kcgo/kc/backend"
)

// Planning for cooperative-matrix (tensor-core) kernels. A subgroup owns
// TM x TN instruction tiles of C (each Shape.M x Shape.N, so a subgroup's
// block is TM·M x TN·N), the workgroup SM x SN subgroups, and each k-step
// stages BK columns of A and rows of B through shared memory, double
// buffered, with rows skewed by Pad·8 elements (llama.cpp pads by 8 halves
// against bank conflicts). coopgen.go writes the kernels.

// coopSkew is the skew of a shared row in elements (16 bytes of f16).
const coopSkew = 8

// coopLayouts are the candidate subgroup arrangements: subgroups per
// workgroup (rows x columns), instruction tiles per subgroup, instruction
// k-steps per shared slice and shared stages. A plan must fit the device's
// shared memory (Limits.MaxSharedMemory, checked by Plan.check). With one
// stage the next slice waits in registers while the multiply-adds run,
// and a second barrier per slice writes it; two stages take one barrier
// per slice. Each layout is listed with packed staging (Plan.Packed) where
// it has 16-byte loads (Interior: first with Plan.Interior, then
// without); Elements also lists it with element staging.
//
// On the H200 (2026-12-01, docs/PERF.md, f16 at 8192³): packed staging
// took the one-stage 128x128x32 tile from 178 to 271 TFLOP/s, interior
// fetches to about 302-307, swizzling in bands of 8 tile rows to 305-307
// (about 1% over the unswizzled tile in the same call; bands of 16:
// 303); 128x256x32 packed matched 271 (interior: no gain), 256x128x32
// packed 262 (interior: 248); two stages stayed slower than one
// (189-202), and the element-staged plans are listed for comparison.
// Direct staging: one stage of 64 about as fast as the best (298-304),
// one stage of 32 218, two stages of 32 196-199, 128x64 tiles of two
// subgroups 176-215 (those three are not listed).
//
// What the driver compiles them to (VK_KHR_pipeline_executable_properties,
// 2026-12-01, docs/PERF.md): the 64x64 blocks take 241 registers an
// invocation, no local memory (two workgroups of 4 subgroups, 8 warps, a
// multiprocessor); element staging 255 registers and 128-160 bytes of
// spills. Not listed, measured slower at 8192³ f16: 16x8x8 instructions
// (277-285), and more warps a multiprocessor through smaller blocks —
// 512 invocations of 64x32 (256x128 tile) or 32x64 (128x256) blocks, which
// cap the compiler at exactly 128 registers with no spills, 16 warps:
// 257-277; 8 subgroups of 64x32 in a 128x128 tile, 158 registers (151
// direct), 174-182. Occupancy is not the limit; fragments loaded from
// shared memory per multiply-add are.
var coopLayouts = []struct {
	SM, SN, TM, TN, KSteps, Stages int
	Elements                       bool
	Interior                       bool // packed with Interior first, then without
	// Variants of a layout (Plan.Direct, Plan.Swizzle) are listed packed
	// with interior fetches only.
	Direct  bool
	Swizzle int
	// Shape, when set, is the instruction shape (M, N, K) the layout
	// takes from the device's list (same types and flavour as
	// CoopShape's choice) instead of CoopShape's; a device without it
	// skips the layout.
	Shape [3]int
}{
	{2, 2, 4, 4, 2, 1, false, true, false, 8, [3]int{}},  // 4 subgroups, each 64x64 with 16x16 instructions: 128x128 tile, one stage of 32, swizzled in bands of 8 tile rows
	{2, 2, 4, 4, 2, 1, true, true, false, 0, [3]int{}},   // the same, unswizzled
	{2, 2, 4, 4, 4, 1, false, true, true, 8, [3]int{}},   // direct staging, one stage of 64 (half the barriers; 39 KiB), swizzled
	{4, 2, 4, 4, 2, 1, true, false, false, 0, [3]int{}},  // 8 subgroups of 64x64, 256x128 (half B's global loads per flop), one stage of 32
	{2, 4, 4, 4, 2, 1, false, true, false, 0, [3]int{}},  // 8 subgroups of 64x64, 128x256, one stage of 32
	{4, 2, 4, 4, 1, 2, false, false, false, 0, [3]int{}}, // 256x128, two stages of 16
	{2, 4, 4, 4, 1, 2, false, false, false, 0, [3]int{}}, // 128x256, two stages of 16
	{2, 2, 4, 4, 2, 2, false, false, false, 0, [3]int{}}, // 4 subgroups, 128x128, two stages of 32 (41 KiB)
	{2, 4, 4, 2, 2, 2, false, false, false, 0, [3]int{}}, // 8 subgroups, 128x128, two stages of 32 (45 KiB)
	{2, 4, 4, 2, 2, 1, false, false, false, 0, [3]int{}}, // 8 subgroups, 128x128, one stage of 32
	{2, 2, 4, 4, 1, 2, false, false, false, 0, [3]int{}}, // 4 subgroups, 128x128, two stages of 16
	{2, 4, 4, 2, 1, 2, false, false, false, 0, [3]int{}}, // 8 subgroups, 128x128, two stages of 16
	{4, 2, 2, 4, 1, 2, false, false, false, 0, [3]int{}}, // 8 subgroups, 128x128, the other way round
	{2, 2, 2, 4, 2, 2, false, false, false, 0, [3]int{}}, // 4 subgroups, 64x128, two k-steps
	{2, 2, 2, 2, 2, 2, false, false, false, 0, [3]int{}}, // 4 subgroups, 64x64
	{1, 1, 2, 2, 2, 2, false, false, false, 0, [3]int{}}, // one subgroup: small and skinny products
	// The first layout's 128x128x32 tile with 16x8x16 instructions (each
	// subgroup 4x8 of them: one mma.m16n8k16 a multiply-add, B's fragment
	// exactly one instruction's operand): 305 TFLOP/s, the same as 16x16x16.
	{2, 2, 4, 8, 2, 1, false, true, false, 8, [3]int{16, 8, 16}},
}

// CoopShape picks the instruction shape for a product of element type
// dtype: subgroup scope, A and B of dtype, f32 accumulator and result,
// KHR before NV, then the most work per instruction. ok is false when the
// device offers none.
func CoopShape(info backend.AdapterInfo, dtype string) (s backend.CoopMatShape, ok bool) {
	for _, c := range info.CoopMat {
		if c.Scope != "subgroup" || c.A != dtype || c.B != dtype || c.C != "f32" || c.Result != "f32" || c.Saturating {
			continue
		}
		better := !ok || (c.Flavor == "khr" && s.Flavor != "khr") ||
			(c.Flavor == s.Flavor && c.M*c.N*c.K > s.M*s.N*s.K)
		if better {
			s, ok = c, true
		}
	}
	return s, ok
}

// CoopCandidates lists the cooperative-matrix plans for o that fit the
// device (shared memory, invocations per workgroup), best guess first; none
// when the device has no suitable shape.
func CoopCandidates(info backend.AdapterInfo, o Options) []Plan {
	base, ok := CoopShape(info, o.dtype())
	if !ok {
		return nil
	}
	sub := info.SubgroupSize
	if sub == 0 {
		sub = 32
	}
	// Packed staging needs 16-byte loads of A or B and instruction shapes
	// in multiples of 8 elements.
	vec := o.K%8 == 0 || (!o.TransB && o.N%8 == 0)
	var out []Plan
	for _, l := range coopLayouts {
		shape := base
		if l.Shape != [3]int{} {
			var ok bool
			if shape, ok = shapeLike(info, base, l.Shape); !ok {
				continue
			}
		}
		t := Tile{BM: l.SM * l.TM * shape.M, BN: l.SN * l.TN * shape.N, BK: l.KSteps * shape.K, TM: l.TM, TN: l.TN, Pad: 1, Stages: l.Stages}
		pack := vec && shape.K%8 == 0 && shape.N%8 == 0
		p := Plan{Options: o, Generator: "coopmat", Tile: t, Shape: &shape, Threads: l.SM * l.SN * sub, Subgroups: [2]int{l.SM, l.SN}}
		tiles := ceilDiv(o.M, t.BM) * ceilDiv(o.N, t.BN)
		p.Splits, p.KS = splitK(tiles, o.K, t.BK, workgroupTarget, minSplitK)
		p.fitSplits(info)
		for _, packed := range []bool{true, false} {
			variant := l.Direct || l.Swizzle > 1
			if (packed && !pack) || (!packed && pack && !l.Elements) || (variant && !packed) {
				continue
			}
			p.Packed, p.Direct, p.Swizzle = packed, l.Direct, l.Swizzle
			s, err := p.coopShape()
			if err != nil {
				continue
			}
			p.Shared = s.coopShared()
			if p.check(info) != nil {
				continue
			}
			if packed && l.Interior {
				q := p
				q.Interior = true
				out = append(out, q)
			}
			if !variant {
				out = append(out, p)
			}
		}
	}
	return out
}

// shapeLike finds the device's shape of dimensions mnk with base's types,
// scope and flavour.
func shapeLike(info backend.AdapterInfo, base backend.CoopMatShape, mnk [3]int) (backend.CoopMatShape, bool) {
	for _, c := range info.CoopMat {
		if c.M == mnk[0] && c.N == mnk[1] && c.K == mnk[2] && c.A == base.A && c.B == base.B && c.C == base.C &&
			c.Result == base.Result && c.Scope == base.Scope && c.Flavor == base.Flavor && c.Saturating == base.Saturating {
			return c, true
		}
	}
	return backend.CoopMatShape{}, false
}

// coopDefault is the untuned choice among cooperative-matrix candidates
// (best first): the first whose tile does not dwarf the product and that
// gives about one workgroup per multiprocessor of a large GPU (128 tiles)
// without splitting k, else the first with 128 tiles, else defaultOf's
// choice. On the H200 (2026-12-01, docs/PERF.md) that picks the fastest
// plan at 512³ (32x32 tiles), 1024³ (64x64) and from 2048³ up (128x128),
// where defaultOf's 32 tiles chose 128x128 with split-k at 1024³ (67
// against 108 TFLOP/s).
func coopDefault(cs []Plan, o Options) Plan {
	for _, split := range []bool{false, true} {
		for _, p := range cs {
			fits := p.Tile.BM <= 2*max(o.M, 16) && p.Tile.BN <= 2*max(o.N, 16)
			if fits && ceilDiv(o.M, p.Tile.BM)*ceilDiv(o.N, p.Tile.BN) >= 128 && (split || p.Splits == 1) {
				return p
			}
		}
	}
	return defaultOf(cs, o)
}
