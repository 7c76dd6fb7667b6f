package kernels

import (
	"context"

	"github.com/kcgo/kc/coopmat"
)

// MatMul returns a·b for a [m, k] and b [k, n]: a [m, n] tensor.
func (c *Context) MatMul(a, b *Tensor) (*Tensor, error) {
	if err := c.owns("matmul", a, b); err != nil {
		return nil, err
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[0] {
		return nil, shapeErr("matmul", "want [m k] and [k n]", nil, a.shape, b.shape)
	}
	return c.product("matmul", a, b, coopmat.Options{M: a.shape[0], K: a.shape[1], N: b.shape[1]})
}

// MatMulBT returns scale·a·bᵀ for a [m, k] and b [n, k] (b not transposed
// in memory): a [m, n] tensor. This is q·kᵀ with the 1/√d folded in, and
// x·Wᵀ for weights stored as [out, in]. A zero scale means 1.
func (c *Context) MatMulBT(a, b *Tensor, scale float32) (*Tensor, error) {
	if err := c.owns("matmulbt", a, b); err != nil {
		return nil, err
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[1] {
		return nil, shapeErr("matmulbt", "want [m k] and [n k]", nil, a.shape, b.shape)
	}
	return c.product("matmulbt", a, b, coopmat.Options{M: a.shape[0], K: a.shape[1], N: b.shape[0], TransB: true, Scale: scale})
}

// product records o through a coopmat product prepared once per problem.
func (c *Context) product(op string, a, b *Tensor, o coopmat.Options) (*Tensor, error) {
	mm, err := c.matmul(o)
	if err != nil {
		return nil, err
	}
	out, err := c.output([]int{o.M, o.N})
	if err != nil {
		return nil, err
	}
	if err := mm.Run(a.View(), b.View(), out.View()); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// matmul returns the prepared product for o. A split-k product's scratch
// buffer is shared by every use of it: uses recorded one after another on
// one device are ordered, so sharing is safe.
func (c *Context) matmul(o coopmat.Options) (*coopmat.Matmul, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if mm := c.mms[o]; mm != nil {
		return mm, nil
	}
	mm, err := coopmat.New(context.Background(), c.dev, o)
	if err != nil {
		return nil, err
	}
	c.mms[o] = mm
	return mm, nil
}
