package kernels

import "context"

// hostIn is one host operand of a one-off call.
type hostIn struct {
	data  []float32
	shape []int
}

// oneOff uploads ins, records op on them, reads the result back and
// releases every tensor it made.
func (c *Context) oneOff(ctx context.Context, op func(ts []*Tensor) (*Tensor, error), ins ...hostIn) ([]float32, error) {
	ts := make([]*Tensor, 0, len(ins))
	defer func() {
		for _, t := range ts {
			t.Release()
		}
	}()
	for _, in := range ins {
		t, err := c.Tensor(in.data, in.shape...)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	out, err := op(ts)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return out.ToHost(ctx)
}

// The host-convenience forms below take and return slices for one-off
// calls: each uploads its operands, runs the op and waits for the result.
// Inside a model, use the Tensor forms, which keep data on the device.

// AddHost returns a + b elementwise.
func (c *Context) AddHost(ctx context.Context, a, b []float32) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.Add(t[0], t[1]) },
		hostIn{a, []int{len(a)}}, hostIn{b, []int{len(b)}})
}

// SiLUHost returns x·sigmoid(x) elementwise.
func (c *Context) SiLUHost(ctx context.Context, x []float32) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.SiLU(t[0]) }, hostIn{x, []int{len(x)}})
}

// SoftmaxHost returns the softmax of each of the rows of x [rows, d].
func (c *Context) SoftmaxHost(ctx context.Context, x []float32, rows, d int) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.Softmax(t[0]) }, hostIn{x, []int{rows, d}})
}

// LayerNormHost returns LayerNorm of the rows of x [rows, d] with weight
// and bias [d].
func (c *Context) LayerNormHost(ctx context.Context, x, w, b []float32, rows, d int, eps float32) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.LayerNorm(t[0], t[1], t[2], eps) },
		hostIn{x, []int{rows, d}}, hostIn{w, []int{d}}, hostIn{b, []int{d}})
}

// MatMulHost returns a·b for row-major a [m, k] and b [k, n].
func (c *Context) MatMulHost(ctx context.Context, a, b []float32, m, k, n int) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.MatMul(t[0], t[1]) },
		hostIn{a, []int{m, k}}, hostIn{b, []int{k, n}})
}

// MatMulBTHost returns scale·a·bᵀ for row-major a [m, k] and b [n, k].
func (c *Context) MatMulBTHost(ctx context.Context, a, b []float32, m, n, k int, scale float32) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.MatMulBT(t[0], t[1], scale) },
		hostIn{a, []int{m, k}}, hostIn{b, []int{n, k}})
}

// AttentionHost returns softmax(scale·q·kᵀ)·v for q [rq, d], k [rk, d]
// and v [rk, dv].
func (c *Context) AttentionHost(ctx context.Context, q, k, v []float32, rq, rk, d, dv int, scale float32) ([]float32, error) {
	return c.oneOff(ctx, func(t []*Tensor) (*Tensor, error) { return c.Attention(t[0], t[1], t[2], scale) },
		hostIn{q, []int{rq, d}}, hostIn{k, []int{rk, d}}, hostIn{v, []int{rk, dv}})
}
