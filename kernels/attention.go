package kernels

import (
	"fmt"
	"math"
	"strconv"
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
// Both attentions run one of two designs: for up to 8 queries the keys are
// split into chunks whose partial softmax results a second kernel merges
// (flash-decoding), so that a single query still spreads over the device
// (decode4.kc, one workgroup per key/value head and chunk reading whole
// key rows by vec4, for head dimensions that are powers of two from 32 to
// 256; decode.kc, chunks of 256 per query head, otherwise); for more
// queries a query-parallel kernel streams the keys through shared memory.
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
	// decode4.kc's chunks aim at this many workgroups
	decodeGroups = 1024
)

func (c *Context) flash(op string, q, k, v *Tensor, heads, kvHeads int, causal bool) (*Tensor, error) {
	if err := c.owns(op, q, k, v); err != nil {
		return nil, err
	}
	if err := checkFlash(op, q, k, v, heads, kvHeads, causal); err != nil {
		return nil, err
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
	var cz uint32
	if causal {
		cz = 1
	}
	scale := float32(1 / math.Sqrt(float64(dh)))
	params := []uint32{uint32(tq), uint32(s), uint32(heads), uint32(kvHeads), cz, math.Float32bits(scale)}
	defs := map[string]string{"DH": strconv.Itoa(dh)}
	if tq <= splitMaxQueries {
		err = c.splitKeys(params, defs, q, k, v, out)
	} else {
		g := [3]uint32{uint32(ceilDiv(tq, flashBQ)), uint32(heads), 1}
		err = c.run("attention.kc", "attention", defs, params, g, q, k, v, out)
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// splitKeys records the split-key kernels: per-chunk partial results into
// a pooled scratch buffer, then their merge into out. decode4.kc where the
// head dimension allows it, else decode.kc.
func (c *Context) splitKeys(params []uint32, defs map[string]string, q, k, v, out *Tensor) error {
	tq, s, heads, kvHeads, dh := int(params[0]), int(params[1]), int(params[2]), int(params[3]), q.shape[1]/int(params[2])
	if ch, d4 := c.decode4Defs(tq, s, heads, kvHeads, dh); d4 != nil {
		nch := ceilDiv(s, ch)
		part, err := c.Empty(tq * heads * nch * (dh + 2))
		if err != nil {
			return err
		}
		defer part.Release()
		g := [3]uint32{uint32(kvHeads), uint32(nch), uint32(tq)}
		if err := c.run("decode4.kc", "decode4_partial", d4, params, g, q, k, v, part); err != nil {
			return err
		}
		g = [3]uint32{uint32(heads), uint32(tq), uint32(dh / 32)}
		return c.run("decode4.kc", "decode4_merge", d4, []uint32{uint32(heads), uint32(nch)}, g, part, out)
	}
	nch := ceilDiv(s, splitChunk)
	part, err := c.Empty(tq * heads * nch * (dh + 2))
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

// decode4Defs returns decode4.kc's chunk length and specialisation for
// these shapes, or nil where it does not apply: head dimensions that are
// not a power of two from 32 to 256, or shared memory the device lacks
// (many query heads per key/value head with long chunks). The chunk is the power of two
// from 128 to 1024 that makes about decodeGroups workgroups, so that a
// single query still fills the device and the merge stays short.
func (c *Context) decode4Defs(tq, s, heads, kvHeads, dh int) (int, map[string]string) {
	if dh < 32 || dh > 256 || dh&(dh-1) != 0 {
		return 0, nil
	}
	const wg = 256
	g := heads / kvHeads
	ch := c.decodeChunk
	if ch == 0 {
		ch = 128
		for ch < 1024 && kvHeads*tq*ceilDiv(s, ch) > decodeGroups {
			ch *= 2
		}
	}
	red := max(g, 4) * wg
	// kc's checker allows 32 KiB of shared memory whatever the device
	if need := 4 * (g*dh + g*ch + red + wg + 32); need > min(c.dev.Info().Limits.MaxSharedMemory, 32768) {
		return 0, nil
	}
	return ch, map[string]string{"DH": strconv.Itoa(dh), "G": strconv.Itoa(g), "CH": strconv.Itoa(ch), "RED": strconv.Itoa(red)}
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
