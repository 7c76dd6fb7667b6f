package multi

import (
	"context"
	"fmt"

	"github.com/kcgo/kc/kernels"
)

// MatMul is a batched product with a shared right operand: a[i]·w for
// each of batch matrices a[i] [m, k] and w [k, n] (a layer's weights
// applied to a batch of inputs, data-parallel). w is uploaded once to
// every device of the group and reused by every Run.
type MatMul struct {
	g    *Group
	k, n int
	w    []*kernels.Tensor // w on each device, by worker index
}

// NewMatMul uploads w [k, n] (row-major) to every device of the group,
// each from its own goroutine.
func (g *Group) NewMatMul(ctx context.Context, w []float32, k, n int) (*MatMul, error) {
	if k <= 0 || n <= 0 || len(w) != k*n {
		return nil, fmt.Errorf("multi: matmul: %d weights for [%d %d]", len(w), k, n)
	}
	mm := &MatMul{g: g, k: k, n: n, w: make([]*kernels.Tensor, g.Len())}
	err := g.each(ctx, func(ctx context.Context, wk Worker) error {
		t, err := wk.Context.Tensor(w, k, n)
		mm.w[wk.Index] = t
		return err
	})
	if err != nil {
		mm.Close()
		return nil, err
	}
	return mm, nil
}

// Close releases the weights on every device.
func (mm *MatMul) Close() {
	for _, t := range mm.w {
		if t != nil {
			t.Release()
		}
	}
}

// Run returns a[i]·w for a [batch, m, k] (row-major): [batch, m, n].
func (mm *MatMul) Run(ctx context.Context, a []float32, batch, m int) ([]float32, error) {
	if batch < 0 || m <= 0 {
		return nil, fmt.Errorf("multi: matmul: batch %d of %d rows", batch, m)
	}
	out := make([]float32, batch*m*mm.n)
	if err := mm.RunInto(ctx, out, a, batch, m); err != nil {
		return nil, err
	}
	return out, nil
}

// RunInto is Run writing into out ([batch, m, n]). Each device uploads its
// part of a, records one product of its (hi-lo)·m rows in one scope and
// reads its part of the result straight into out.
func (mm *MatMul) RunInto(ctx context.Context, out, a []float32, batch, m int) error {
	k, n := mm.k, mm.n
	if batch < 0 || m <= 0 || len(a) != batch*m*k || len(out) != batch*m*n {
		return fmt.Errorf("multi: matmul: a has %d values and out %d for batch %d of [%d %d]·[%d %d]", len(a), len(out), batch, m, k, k, n)
	}
	return mm.g.Run(ctx, batch, func(ctx context.Context, w Worker, lo, hi int) error {
		x, err := w.Context.Tensor(a[lo*m*k:hi*m*k], (hi-lo)*m, k)
		if err != nil {
			return err
		}
		defer x.Release()
		y, err := mm.Record(w, x)
		if err != nil {
			return err
		}
		defer y.Release()
		return readInto(ctx, w, out[lo*m*n:hi*m*n], y)
	})
}

// Record records x·w on the worker's device, in one scope, for x [rows,
// k] of the worker's Context, and returns the product [rows, n] without
// waiting for it: Run's step for work whose inputs and results stay on
// the devices.
func (mm *MatMul) Record(w Worker, x *kernels.Tensor) (*kernels.Tensor, error) {
	if w.Index < 0 || w.Index >= len(mm.w) || mm.g.ws[w.Index].Context != w.Context {
		return nil, fmt.Errorf("multi: matmul: worker %v is not of this product's group", w)
	}
	s := w.Device.Begin()
	y, err := w.Context.MatMul(x, mm.w[w.Index])
	if eerr := s.End(); err == nil {
		err = eerr
	} else if y != nil {
		y.Release()
	}
	return y, err
}
