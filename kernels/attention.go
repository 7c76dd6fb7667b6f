package kernels

import (
	"fmt"
	"math"
	"strconv"

	"github.com/kcgo/kc/backend"
)

// Attention returns softmax(scale·q·kᵀ)·v for one head: q [tq, d],
// k [s, d], v [s, dv] give [tq, dv]. It is composed of MatMulBT, Softmax
// and MatMul, so the [tq, s] scores are stored; CausalAttention is the
// fused form for multi-head models.
func (c *Context) Attention(q, k, v *Tensor, scale float32) (*Tensor, error) {
	if err := c.owns("attention", q, k, v); err != nil {
		return nil, err
	}
	if len(q.shape) != 2 || len(k.shape) != 2 || len(v.shape) != 2 || q.shape[1] != k.shape[1] || k.shape[0] != v.shape[0] {
		return nil, shapeErr("attention", "want q [tq d], k [s d], v [s dv]", nil, q.shape, k.shape, v.shape)
	}
	sc, err := c.MatMulBT(q, k, scale)
	if err != nil {
		return nil, err
	}
	defer sc.Release()
	p, err := c.Softmax(sc)
	if err != nil {
		return nil, err
	}
	defer p.Release()
	return c.MatMul(p, v)
}

// CausalAttention is multi-head attention with grouped-query heads,
// flash-style: q [tq, heads·dh], k and v [s, kvHeads·dh] give
// [tq, heads·dh]; query head h reads key/value head h/(heads/kvHeads); the
// scale is 1/√dh. The queries are the last tq positions: query i attends
// keys 0..i+s-tq, so tq = s is a causal prefill and tq < s continues a
// sequence whose first s-tq keys are cached. The softmax runs online
// (running max and sum), so no [tq, s] matrix is stored.
func (c *Context) CausalAttention(q, k, v *Tensor, heads, kvHeads int) (*Tensor, error) {
	return c.flash("causalattention", q, k, v, heads, kvHeads, true)
}

// DecodeAttention attends queries q [tq, heads·dh] (usually one row: the
// token being decoded) to every key of a KV cache k, v [s, kvHeads·dh],
// without a mask, with grouped-query heads and scale 1/√dh.
//
// Both attentions run one of two designs. For up to 8 queries the keys
// are split into spans whose partial softmax results a second kernel
// merges (flash-decoding), so that a single query still spreads over the
// device. The partial kernel is chosen by the cache's type:
//
//   - f32: decodelr.kc (a key row spread over a subgroup's lanes, the
//     queries in registers, no barrier in the key loop) where the device
//     has subgroups and the shape fits the register budget it was measured
//     in; else decode4.kc (a workgroup per key/value head and span,
//     reading rows as 16-byte vectors), for head dimensions that are
//     powers of two from 32 to 256; else decode.kc (chunks of 256 keys per
//     query head);
//   - f16, bf16: decodelr.kc with half a 16-bit vector a lane where the
//     device has subgroups and the shape fits the f32 default's register
//     budget (a lane holding at most 4 vectors of the queries); else
//     decodetc.go's kernel on cooperative matrices where the device has
//     them (head dimensions that are multiples of 32 up to 256); else
//     decode4h.kc (decode4.kc over 16-bit vectors); else the f32 kernels
//     between casts.
//
// For more queries a query-parallel kernel streams the keys through
// shared memory (attention.kc, or flash16 on cooperative matrices for f16;
// decode.kc's chunks instead on lavapipe where attention.kc would run past
// the driver's loop budget: docs/lavapipe.md).
func (c *Context) DecodeAttention(q, k, v *Tensor, heads, kvHeads int) (*Tensor, error) {
	return c.flash("decodeattention", q, k, v, heads, kvHeads, false)
}

// Attention kernels' tiling (attention.kc): queries per workgroup, keys per
// shared-memory step, and the largest head dimension (registers per
// invocation grow with it).
const (
	flashBQ    = 32
	flashBK    = 16
	maxHeadDim = 256
	// up to splitMaxQueries queries, the keys are split into chunks of
	// splitChunk (decode.kc) instead
	splitMaxQueries = 8
	splitChunk      = 256
)

func (c *Context) flash(op string, q, k, v *Tensor, heads, kvHeads int, causal bool) (*Tensor, error) {
	if err := c.sameDType(op, q, k, v); err != nil {
		return nil, err
	}
	if err := checkFlash(op, q, k, v, heads, kvHeads, causal); err != nil {
		return nil, err
	}
	if q.dtype != F32 {
		return c.flashHalf(op, q, k, v, heads, kvHeads, causal)
	}
	tq, s := q.shape[0], k.shape[0]
	dh := q.shape[1] / heads
	if need := 2 * flashBK * dh * 4; need > c.dev.Info().Limits.MaxSharedMemory {
		return nil, fmt.Errorf("kernels: %s: head dimension %d needs %d bytes of shared memory, the device has %d", op, dh, need, c.dev.Info().Limits.MaxSharedMemory)
	}
	out, err := c.output(q.shape)
	if err != nil {
		return nil, err
	}
	params := attnParams(tq, s, heads, kvHeads, dh, causal)
	defs := map[string]string{"DH": strconv.Itoa(dh)}
	switch {
	case tq <= splitMaxQueries:
		err = c.splitKeys(params, defs, q, k, v, out)
	case flashLoops(s, dh) > c.loopBudget():
		// lavapipe would end the query-parallel kernel's loops early
		// and leave outputs unwritten (docs/lavapipe.md); decode.kc's
		// chunks need a bounded number of iterations at any length
		err = c.chunkKeys(params, defs, q, k, v, out)
	default:
		g := [3]uint32{uint32(ceilDiv(tq, flashBQ)), uint32(heads), 1}
		err = c.run("attention.kc", "attention", defs, params, g, q, k, v, out)
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// splitKeys records the split-key kernels over an f32 cache (flashHalf
// records them over 16-bit ones): splitPlanFor's, or decode.kc where it
// has no partial kernel.
func (c *Context) splitKeys(params []uint32, defs map[string]string, q, k, v, out *Tensor) error {
	tq, s, heads, kvHeads, dh := int(params[0]), int(params[1]), int(params[2]), int(params[3]), q.shape[1]/int(params[2])
	pl, err := c.splitPlanFor(q.dtype, out.dtype, tq, s, heads, kvHeads, dh)
	if err != nil {
		return err
	}
	if pl.part == nil {
		return c.chunkKeys(params, defs, q, k, v, out)
	}
	return c.recordSplit(pl, params, q, k, v, out)
}

// recordSplit records plan pl: per-span partial results into a pooled
// scratch buffer, then their merge into out (f32 or q's 16-bit type: the
// merge rounds).
func (c *Context) recordSplit(pl *splitPipes, params []uint32, q, k, v, out *Tensor) error {
	tq, s, heads, kvHeads, dh := int(params[0]), int(params[1]), int(params[2]), int(params[3]), q.shape[1]/int(params[2])
	nch := ceilDiv(s, pl.span)
	part, err := c.emptyOf(F32, tq*heads*nch*(dh+2))
	if err != nil {
		return err
	}
	defer part.Release()
	g := [3]uint32{uint32(kvHeads), uint32(nch), uint32(tq)}
	if err := c.dispatch(pl.part, append(params, uint32(pl.span)), g, q, k, v, part); err != nil {
		return err
	}
	g = [3]uint32{uint32(heads), uint32(tq), uint32(dh / 32)}
	return c.dispatch(pl.merge, []uint32{uint32(heads), uint32(nch)}, g, part, out)
}

// h16Def is the split-key kernels' H16 for an element type.
var h16Def = map[DType]string{F32: "0", F16: "1", BF16: "2"}

// chunkKeys records decode.kc: per (query, head, chunk of splitChunk
// keys) partial results into a pooled scratch buffer, then their merge
// into out. An invocation's loops run a number of iterations that grows
// with s only by s/splitChunk (the merge), so it also serves devices
// whose loop budget the query-parallel kernel would exceed.
func (c *Context) chunkKeys(params []uint32, defs map[string]string, q, k, v, out *Tensor) error {
	tq, s, heads, dh := int(params[0]), int(params[1]), int(params[2]), q.shape[1]/int(params[2])
	nch := ceilDiv(s, splitChunk)
	part, err := c.emptyOf(F32, tq*heads*nch*(dh+2))
	if err != nil {
		return err
	}
	// back to the pool once recorded: later work that reuses it is
	// ordered after these two kernels
	defer part.Release()
	g := [3]uint32{uint32(heads), uint32(nch), uint32(tq)}
	if err := c.run("decode.kc", "decode_partial", defs, params, g, q, k, v, part); err != nil {
		return err
	}
	return c.run("decode.kc", "decode_merge", defs, []uint32{uint32(heads), uint32(nch)}, [3]uint32{uint32(heads), uint32(tq), 1}, part, out)
}

// loopBudget is how many loop iterations (counted as flashLoops counts
// them) one invocation may run on this device: three quarters of the
// device's Limits.MaxLoopIterations where it has one (llvmpipe's 65535,
// docs/lavapipe.md), since llvmpipe's count runs a little above
// flashLoops (measured: by 70 to 180 iterations for attention.kc at head
// dimensions 64 to 128), and no limit elsewhere.
func (c *Context) loopBudget() int {
	if n := c.dev.Info().Limits.MaxLoopIterations; n > 0 {
		return n / 4 * 3
	}
	return math.MaxInt
}

// flashLoops bounds the loop iterations of an invocation of attention.kc
// that attends s keys with head dimension dh, each loop counting its
// iterations and its exit test: the query row, then per block of flashBK
// keys the staging of keys and values and the key loop, per key the score
// and the accumulator over dh, and the output row.
func flashLoops(s, dh int) int {
	nb := ceilDiv(s, flashBK)
	stage := ceilDiv(flashBK*dh, flashBQ) + 1
	return 2*(dh+1) + nb + 1 + nb*(stage+flashBK+1) + 2*s*(dh+1)
}

// attnParams are the attention kernels' parameters: tq, s, the query and
// key/value heads, causal as 0 or 1, and the bits of the f32 scale
// 1/√dh.
func attnParams(tq, s, heads, kvHeads, dh int, causal bool) []uint32 {
	var cz uint32
	if causal {
		cz = 1
	}
	scale := float32(1 / math.Sqrt(float64(dh)))
	return []uint32{uint32(tq), uint32(s), uint32(heads), uint32(kvHeads), cz, math.Float32bits(scale)}
}

// flashHalf is the fused attention of 16-bit q, k and v, giving q's type:
// flash16 (cooperative matrices) for f16 where the device has KHR 16x16x16
// f16 matrices with f32 accumulators and subgroups of 32, and more queries
// than the split-key kernels take; the split-key kernels reading the
// 16-bit cache for up to that many queries where one applies (splitPart),
// the merge rounding to q's type; otherwise the f32 kernels between
// casts.
func (c *Context) flashHalf(op string, q, k, v *Tensor, heads, kvHeads int, causal bool) (*Tensor, error) {
	tq, s := q.shape[0], k.shape[0]
	dh := q.shape[1] / heads
	if f, ok := c.flash16Config(q.dtype, tq, dh); ok {
		out, err := c.outputOf(q.dtype, q.shape)
		if err != nil {
			return nil, err
		}
		params := attnParams(tq, s, heads, kvHeads, dh, causal)
		p, err := c.pipelineOf(fmt.Sprintf("flash16?%+v", f), "flash16", f.module)
		if err == nil {
			g := [3]uint32{uint32(ceilDiv(tq, 16*f.NSG)), uint32(heads), 1}
			err = c.dispatch(p, params, g, q, k, v, out)
		}
		if err != nil {
			out.Release()
			return nil, err
		}
		return out, nil
	}
	if tq <= splitMaxQueries {
		pl, err := c.splitPlanFor(q.dtype, q.dtype, tq, s, heads, kvHeads, dh)
		if err != nil {
			return nil, err
		}
		if pl.part != nil {
			// the 16-bit cache read as it is; the merge rounds to q's type
			out, err := c.outputOf(q.dtype, q.shape)
			if err != nil {
				return nil, err
			}
			if err := c.recordSplit(pl, attnParams(tq, s, heads, kvHeads, dh, causal), q, k, v, out); err != nil {
				out.Release()
				return nil, err
			}
			return out, nil
		}
	}
	var wide [3]*Tensor
	for i, t := range []*Tensor{q, k, v} {
		w, err := c.Cast(t, F32)
		if err != nil {
			return nil, err
		}
		defer w.Release()
		wide[i] = w
	}
	o, err := c.flash(op, wide[0], wide[1], wide[2], heads, kvHeads, causal)
	if err != nil {
		return nil, err
	}
	defer o.Release()
	return c.Cast(o, q.dtype)
}

// flash16Config returns flash16's configuration for these shapes on this
// device, or false where it does not apply (see flashHalf): the first
// that fits the device's shared memory and workgroup size of: the lean
// layout with 4 subgroups, blocks of 64 keys in one stage, stride-0
// factors, unmasked inner blocks and loads within a block (the fastest
// measured on the H200, docs/PERF.md); the lean layout with 4 and 32;
// the packed layout with 4 and 32; the staged layout with 4 and 32, 4 and
// 16, 2 and 32, 2 and 16.
func (c *Context) flash16Config(d DType, tq, dh int) (flash16Config, bool) {
	info := c.dev.Info()
	if d != F16 || tq <= splitMaxQueries || dh%16 != 0 || !info.Subgroups || info.SubgroupSize != 32 {
		return flash16Config{}, false
	}
	if !hasKHRShape(info, F16, 16, 16, 16) {
		return flash16Config{}, false
	}
	lean := flash16Config{DH: dh, NSG: 4, SUB: 32, BK: 64, Packed: true, Lean: true, Bcast0: true, Unmask: true, Near: true, Single: true}
	cands := []flash16Config{lean, {DH: dh, NSG: 4, SUB: 32, BK: 32, Packed: true, Lean: true, Bcast0: true},
		{DH: dh, NSG: 4, SUB: 32, BK: 32, Packed: true}, {DH: dh, NSG: 4, SUB: 32, BK: 32},
		{DH: dh, NSG: 4, SUB: 32, BK: 16}, {DH: dh, NSG: 2, SUB: 32, BK: 32}, {DH: dh, NSG: 2, SUB: 32, BK: 16}}
	if c.flash16.NSG != 0 {
		f := c.flash16
		f.DH, f.SUB = dh, 32
		cands = []flash16Config{f}
	}
	for _, f := range cands {
		if f.shared() <= info.Limits.MaxSharedMemory && f.NSG*f.SUB <= info.Limits.MaxInvocationsPerWorkgroup {
			return f, true
		}
	}
	return flash16Config{}, false
}

// hasKHRShape says whether the device has KHR cooperative matrices of
// subgroup scope with A and B of type d, f32 accumulators and results,
// in the shape m x n x k (not saturating): what the attention kernels'
// generated texts are written for.
func hasKHRShape(info backend.AdapterInfo, d DType, m, n, k int) bool {
	for _, sh := range info.CoopMat {
		if sh.Scope == "subgroup" && sh.Flavor == "khr" && sh.A == d.String() && sh.B == d.String() && sh.C == "f32" &&
			sh.Result == "f32" && sh.M == m && sh.N == n && sh.K == k && !sh.Saturating {
			return true
		}
	}
	return false
}

// checkFlash verifies the shapes of a fused attention.
func checkFlash(op string, q, k, v *Tensor, heads, kvHeads int, causal bool) error {
	bad := func(format string, args ...any) error {
		return shapeErr(op, format, args, q.shape, k.shape, v.shape)
	}
	if len(q.shape) != 2 || len(k.shape) != 2 || len(v.shape) != 2 {
		return bad("want q [tq heads·dh], k and v [s kvHeads·dh]")
	}
	if heads <= 0 || kvHeads <= 0 || heads%kvHeads != 0 {
		return bad("%d heads are not a multiple of %d key/value heads", heads, kvHeads)
	}
	if q.shape[1]%heads != 0 {
		return bad("%d query columns do not split into %d heads", q.shape[1], heads)
	}
	dh := q.shape[1] / heads
	if k.shape[1] != kvHeads*dh || v.shape[1] != kvHeads*dh || k.shape[0] != v.shape[0] {
		return bad("k and v must be [s %d] (%d heads of %d)", kvHeads*dh, kvHeads, dh)
	}
	if dh > maxHeadDim {
		return bad("head dimension %d exceeds %d", dh, maxHeadDim)
	}
	if causal && q.shape[0] > k.shape[0] {
		return bad("%d queries but only %d keys", q.shape[0], k.shape[0])
	}
	return nil
}
