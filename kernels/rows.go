package kernels

import (
	"math"
	"slices"
	"strconv"
)

// rowOp records a row kernel (one workgroup per row of x's last
// dimension) over x and extra [d] vectors.
func (c *Context) rowOp(op, kernel string, x *Tensor, eps float32, hasEps bool, vecs ...*Tensor) (*Tensor, error) {
	if err := c.sameDType(op, append([]*Tensor{x}, vecs...)...); err != nil {
		return nil, err
	}
	if x.dtype.half() && hasEps {
		return c.halfRows(op, kernel, x, eps, vecs...)
	}
	if err := c.owns(op, append([]*Tensor{x}, vecs...)...); err != nil {
		return nil, err
	}
	rows, d := rowsOf(x.shape)
	for _, v := range vecs {
		if !slices.Equal(v.shape, []int{d}) {
			return nil, shapeErr(op, "weights must be [%d], the last dimension", []any{d}, x.shape, v.shape)
		}
	}
	out, err := c.output(x.shape)
	if err != nil {
		return nil, err
	}
	file, n, defs := c.rowVariant(kernel, d)
	params := []uint32{uint32(rows), uint32(n)}
	if hasEps {
		params = append(params, math.Float32bits(eps))
	}
	ts := append(append([]*Tensor{x}, vecs...), out)
	if err := c.run(file, kernel, defs, params, c.grid2(rows), ts...); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// Softmax returns the softmax of x along its last dimension, computed
// stably (the row's maximum subtracted before exponentiating).
func (c *Context) Softmax(x *Tensor) (*Tensor, error) {
	return c.rowOp("softmax", "softmax", x, 0, false)
}

// LayerNorm returns (x - μ)/√(σ² + eps)·w + b along the last dimension
// [d] of x, with w and b of shape [d] and σ² the biased variance.
func (c *Context) LayerNorm(x, w, b *Tensor, eps float32) (*Tensor, error) {
	return c.rowOp("layernorm", "layernorm", x, eps, true, w, b)
}

// RMSNorm returns x/√(mean(x²) + eps)·w along the last dimension [d] of
// x (Llama's norm: no mean subtraction, no bias).
func (c *Context) RMSNorm(x, w *Tensor, eps float32) (*Tensor, error) {
	return c.rowOp("rmsnorm", "rmsnorm", x, eps, true, w)
}

// rowVariant picks the row kernels for rows of d elements and returns the
// row length the kernel takes (d, or d/4 vectors): rowsreg4.kc when d is a
// multiple of 4, else rowsreg.kc, which read each element once and keep
// the row in registers, or rows.kc, which loops over the row two or three
// times. Up to 8192 elements a workgroup of 256 holds the row in at most
// 32 registers an invocation; longer rows of vectors take longRows (up to
// 32768 elements: 1024 invocations of 8 vectors), others a workgroup of
// 1024 (a row of 32k in 256 invocations would need 128 registers each,
// and layernorm's spill cost it three quarters of the bandwidth on the
// H200). A device without 1024-invocation workgroups keeps 256 and up to
// 128 registers.
func (c *Context) rowVariant(kernel string, d int) (file string, n int, defs map[string]string) {
	if c.rowsLooped {
		return "rows.kc", d, nil
	}
	file, n, lanes := "rowsreg.kc", d, 1
	if d%4 == 0 {
		file, n, lanes = "rowsreg4.kc", d/4, 4
	}
	lim := c.dev.Info().Limits
	big := lim.MaxInvocationsPerWorkgroup >= 1024 && lim.MaxWorkgroupSize[0] >= 1024
	if lanes == 4 && n > 256*8 && big {
		if f, defs := c.longRows(kernel, n); defs != nil {
			return f, n, defs
		}
	}
	for _, v := range []struct{ wg, regs int }{{256, 32}, {1024, 32}, {256, 128}} {
		if v.wg == 1024 && !big {
			continue
		}
		if per := ceilDiv(n, v.wg); per*lanes <= v.regs {
			if lanes == 1 {
				return file, n, map[string]string{"WG": strconv.Itoa(v.wg), "PER": strconv.Itoa(per)}
			}
			return file, n, rowDefs(v.wg, per, rowTuning{})
		}
	}
	return "rows.kc", d, nil
}

// rowTuning configures rowsreg4.kc for long rows: invocations per
// workgroup (WG), vectors per invocation kept in shared memory instead of
// registers (SH), weight vectors loaded before the reduction (PF),
// layernorm's statistics from one reduction of shifted sums (ST = 1), and
// layernorm's reductions through subgroup operations (SG = 1: rowssg4.kc,
// where the device has subgroups of 8 to 128 lanes).
type rowTuning struct{ WG, SH, PF, ST, SG int }

// defaultLongRows is the configuration of rows of more than 8192
// elements (multiples of 4) per kernel unless a test or benchmark sets
// another: measured on the H200 at rows of 32768 (docs/PERF.md), rmsnorm
// gains from loading a third of w beside x (0.84x to 0.87x of copy),
// layernorm from subgroup reductions (rowssg4.kc) with a quarter of the
// row in shared memory and two vectors of w and b loaded beside x (about
// +7% over rowsreg4.kc's best), softmax from neither. Where the device has
// no subgroups layernorm takes noSubgroupRows instead.
var defaultLongRows = map[string]rowTuning{
	"softmax":   {WG: 1024},
	"layernorm": {WG: 1024, SH: 1, PF: 2, SG: 1},
	"rmsnorm":   {WG: 1024, PF: 4},
}

// noSubgroupRows is layernorm's default without subgroups: rowsreg4.kc's
// best on the H200 (a quarter of the row in shared memory).
var noSubgroupRows = rowTuning{WG: 1024, SH: 1}

// longRows returns the file and specialisation of the kernel for rows of
// n vectors (more than 2048) under the long-row configuration, or nil
// where it needs more than 64 registers of row an invocation or more
// shared memory than the device has.
func (c *Context) longRows(kernel string, n int) (string, map[string]string) {
	info := c.dev.Info()
	sg := info.SubgroupSize
	t := c.rowTune
	if t.WG == 0 {
		t = defaultLongRows[kernel]
	}
	useSG := t.SG != 0 && kernel == "layernorm" && info.Subgroups && sg >= 8 && sg <= 128 && t.WG%sg == 0 && t.WG/sg <= 128
	if t.SG != 0 && !useSG && c.rowTune.WG == 0 {
		t = noSubgroupRows
	}
	per := ceilDiv(n, t.WG)
	if per*4 > 64 || t.SH >= per || t.WG > info.Limits.MaxInvocationsPerWorkgroup {
		return "", nil
	}
	// xsh, then layernorm's red, part, red2 and part2
	if need := 16*t.SH*t.WG + 12*t.WG + 384; need > info.Limits.MaxSharedMemory {
		return "", nil
	}
	defs := rowDefs(t.WG, per, t)
	if useSG {
		defs["SG"] = strconv.Itoa(sg)
		return "rowssg4.kc", defs
	}
	return "rowsreg4.kc", defs
}

// rowDefs is rowsreg4.kc's specialisation.
func rowDefs(wg, per int, t rowTuning) map[string]string {
	pf := min(t.PF, per)
	return map[string]string{"WG": strconv.Itoa(wg), "PER": strconv.Itoa(per), "SH": strconv.Itoa(t.SH),
		"SHN": strconv.Itoa(max(t.SH*wg, 1)), "PF": strconv.Itoa(pf), "PFN": strconv.Itoa(max(pf, 1)), "ST": strconv.Itoa(t.ST)}
}
