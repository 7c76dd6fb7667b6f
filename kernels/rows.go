package kernels

import (
	"math"
	"slices"
	"strconv"
)

// rowOp records a row kernel (one workgroup per row of x's last
// dimension) over x and extra [d] vectors.
func (c *Context) rowOp(op, kernel string, x *Tensor, eps float32, hasEps bool, vecs ...*Tensor) (*Tensor, error) {
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
	params := []uint32{uint32(rows), uint32(d)}
	if hasEps {
		params = append(params, math.Float32bits(eps))
	}
	ts := append(append([]*Tensor{x}, vecs...), out)
	file, defs := c.rowVariant(d)
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

// rowVariant picks the row kernels for rows of d elements: rowsreg.kc,
// which reads each element once and keeps the row in registers (PER per
// invocation of 256, so up to 32768 elements: a 32k row costs 128
// registers a thread), or else rows.kc, which loops over the row two or
// three times. (Workgroups are at most 256 wide in kc, WebGPU's default.)
func (c *Context) rowVariant(d int) (string, map[string]string) {
	const wg, maxPer = 256, 128
	if c.rowsLooped || d > wg*maxPer {
		return "rows.kc", nil
	}
	return "rowsreg.kc", map[string]string{"PER": strconv.Itoa(ceilDiv(d, wg))}
}
