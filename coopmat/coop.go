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
// per slice, and on the H200's 48 KiB two stages of a 128x128 tile with
// slices of 32 fit (41 KiB with 4 subgroups' edge scratch, 45 KiB with
// 8). Yet on the H200 (2026-12-01, docs/PERF.md) those were slower than
// one stage (f16 128 against 179 TFLOP/s at 8192³), and the 256x128x32
// one-stage tile the fastest by about 4% for f16 (mixed for bf16). The
// one-stage 128x128x32 plan stays first: it is the one checked against
// float64 on the device; the tuner (kc bench matmul) picks among the rest.
var coopLayouts = []struct{ SM, SN, TM, TN, KSteps, Stages int }{
	{2, 2, 4, 4, 2, 1}, // 4 subgroups, each 64x64 with 16x16 instructions: 128x128 tile, one stage of 32
	{4, 2, 4, 4, 2, 1}, // 8 subgroups of 64x64, 256x128 (half B's global loads per flop), one stage of 32
	{4, 2, 4, 4, 1, 2}, // 256x128, two stages of 16
	{2, 2, 4, 4, 2, 2}, // 4 subgroups, 128x128, two stages of 32 (41 KiB)
	{2, 4, 4, 2, 2, 2}, // 8 subgroups, 128x128, two stages of 32 (45 KiB)
	{2, 4, 4, 2, 2, 1}, // 8 subgroups, 128x128, one stage of 32
	{2, 2, 4, 4, 1, 2}, // 4 subgroups, 128x128, two stages of 16
	{2, 4, 4, 2, 1, 2}, // 8 subgroups, 128x128, two stages of 16
	{4, 2, 2, 4, 1, 2}, // 8 subgroups, 128x128, the other way round
	{2, 2, 2, 4, 2, 2}, // 4 subgroups, 64x128, two k-steps
	{2, 2, 2, 2, 2, 2}, // 4 subgroups, 64x64
	{1, 1, 2, 2, 2, 2}, // one subgroup: small and skinny products
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
	shape, ok := CoopShape(info, o.dtype())
	if !ok {
		return nil
	}
	sub := info.SubgroupSize
	if sub == 0 {
		sub = 32
	}
	var out []Plan
	for _, l := range coopLayouts {
		t := Tile{BM: l.SM * l.TM * shape.M, BN: l.SN * l.TN * shape.N, BK: l.KSteps * shape.K, TM: l.TM, TN: l.TN, Pad: 1, Stages: l.Stages}
		p := Plan{Options: o, Generator: "coopmat", Tile: t, Shape: &shape, Threads: l.SM * l.SN * sub, Subgroups: [2]int{l.SM, l.SN}}
		tiles := ceilDiv(o.M, t.BM) * ceilDiv(o.N, t.BN)
		p.Splits, p.KS = splitK(tiles, o.K, t.BK, workgroupTarget, minSplitK)
		p.fitSplits(info)
		s, err := p.coopShape()
		if err != nil {
			continue
		}
		p.Shared = s.coopShared()
		if p.check(info) == nil {
			out = append(out, p)
		}
	}
	return out
}
