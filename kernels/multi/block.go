package multi

import (
	"context"
	"fmt"

	"github.com/kcgo/kc/kernels"
)

// BlockConfig is the shape of a Llama-style decoder block: RMSNorm, q/k/v
// projections, RoPE, causal grouped-query attention, output projection,
// residual, RMSNorm, SiLU-gated MLP, residual.
type BlockConfig struct {
	Dim, Heads, KVHeads, HeadDim, FFN int
	Eps                               float32 // RMSNorm's epsilon (0: 1e-5)
	RoPEBase                          float64 // (0: 10000)
}

func (c BlockConfig) eps() float32 {
	if c.Eps == 0 {
		return 1e-5
	}
	return c.Eps
}

func (c BlockConfig) base() float64 {
	if c.RoPEBase == 0 {
		return 10000
	}
	return c.RoPEBase
}

// BlockWeights are a block's weights, row-major, projections stored
// [out, in] (x·Wᵀ).
type BlockWeights struct {
	Norm1, Norm2 []float32 // [Dim]
	WQ           []float32 // [Heads·HeadDim, Dim]
	WK, WV       []float32 // [KVHeads·HeadDim, Dim]
	WO           []float32 // [Dim, Heads·HeadDim]
	WGate, WUp   []float32 // [FFN, Dim]
	WDown        []float32 // [Dim, FFN]
}

// shapes lists each weight with its shape, in one order.
func (w BlockWeights) shapes(c BlockConfig) []struct {
	name  string
	data  []float32
	shape []int
} {
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	type ws = struct {
		name  string
		data  []float32
		shape []int
	}
	return []ws{
		{"Norm1", w.Norm1, []int{c.Dim}}, {"Norm2", w.Norm2, []int{c.Dim}},
		{"WQ", w.WQ, []int{q, c.Dim}}, {"WK", w.WK, []int{kv, c.Dim}}, {"WV", w.WV, []int{kv, c.Dim}},
		{"WO", w.WO, []int{c.Dim, q}}, {"WGate", w.WGate, []int{c.FFN, c.Dim}},
		{"WUp", w.WUp, []int{c.FFN, c.Dim}}, {"WDown", w.WDown, []int{c.Dim, c.FFN}},
	}
}

// Block is a decoder block whose weights live on every device of a group;
// Run applies it to a batch of independent sequences.
type Block struct {
	g   *Group
	cfg BlockConfig
	w   [][]*kernels.Tensor // by worker, in shapes' order
}

// NewBlock checks the configuration and uploads the weights to every
// device, each from its own goroutine.
func (g *Group) NewBlock(ctx context.Context, cfg BlockConfig, w BlockWeights) (*Block, error) {
	if cfg.Dim <= 0 || cfg.Heads <= 0 || cfg.KVHeads <= 0 || cfg.HeadDim <= 0 || cfg.FFN <= 0 || cfg.Heads%cfg.KVHeads != 0 || cfg.HeadDim%2 != 0 {
		return nil, fmt.Errorf("multi: block: bad configuration %+v (every size positive, heads a multiple of kv heads, head dim even)", cfg)
	}
	ws := w.shapes(cfg)
	for _, x := range ws {
		n := 1
		for _, d := range x.shape {
			n *= d
		}
		if len(x.data) != n {
			return nil, fmt.Errorf("multi: block: %s has %d values, want %v = %d", x.name, len(x.data), x.shape, n)
		}
	}
	b := &Block{g: g, cfg: cfg, w: make([][]*kernels.Tensor, g.Len())}
	err := g.each(ctx, func(ctx context.Context, wk Worker) error {
		for _, x := range ws {
			t, err := wk.Context.Tensor(x.data, x.shape...)
			if err != nil {
				return fmt.Errorf("upload %s: %w", x.name, err)
			}
			b.w[wk.Index] = append(b.w[wk.Index], t)
		}
		return nil
	})
	if err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// Close releases the weights on every device.
func (b *Block) Close() {
	for _, ts := range b.w {
		for _, t := range ts {
			t.Release()
		}
	}
}

// Run applies the block to each of batch sequences of seq tokens, x
// [batch, seq, Dim], and returns [batch, seq, Dim]. Each device takes its
// share of the sequences and records them one after another in one scope
// (a few submits, no wait), copying each result into one output tensor that it reads
// back straight into its part of the result.
func (b *Block) Run(ctx context.Context, x []float32, batch, seq int) ([]float32, error) {
	d := b.cfg.Dim
	if batch < 0 || seq <= 0 || len(x) != batch*seq*d {
		return nil, fmt.Errorf("multi: block: %d values for batch %d of [%d %d]", len(x), batch, seq, d)
	}
	out := make([]float32, len(x))
	err := b.g.Run(ctx, batch, func(ctx context.Context, w Worker, lo, hi int) error {
		y, err := b.record(ctx, w, x[lo*seq*d:hi*seq*d], hi-lo, seq)
		if err != nil {
			return err
		}
		defer y.Release()
		return readInto(ctx, w, out[lo*seq*d:hi*seq*d], y)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// record records the block over n sequences of x on w's device, in one
// scope, and returns their outputs stacked [n·seq, Dim].
func (b *Block) record(ctx context.Context, w Worker, x []float32, n, seq int) (*kernels.Tensor, error) {
	c, d := w.Context, b.cfg.Dim
	out, err := c.Empty(n*seq, d)
	if err != nil {
		return nil, err
	}
	s := w.Device.Begin()
	for i := 0; i < n && err == nil; i++ {
		if err = checkCtx(ctx); err != nil {
			break
		}
		err = b.sequence(c, b.w[w.Index], x[i*seq*d:(i+1)*seq*d], seq, out, i*seq)
	}
	if eerr := s.End(); err == nil {
		err = eerr
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// sequence records the block on one sequence xs [seq, Dim] and copies the
// result into rows at.. of out. Every intermediate goes back to the pool
// at the end: the work already recorded on it is unaffected, and the next
// sequence reuses the buffers.
func (b *Block) sequence(c *kernels.Context, wt []*kernels.Tensor, xs []float32, seq int, out *kernels.Tensor, at int) error {
	cfg := b.cfg
	n1, n2, wq, wk, wv, wo, wg, wu, wd := wt[0], wt[1], wt[2], wt[3], wt[4], wt[5], wt[6], wt[7], wt[8]
	var r steps
	defer r.release()
	x := r.do(c.Tensor(xs, seq, cfg.Dim))
	h := r.do(c.RMSNorm(x, n1, cfg.eps()))
	q := r.do(c.RoPE(r.do(c.MatMulBT(h, wq, 1)), cfg.Heads, cfg.base(), 0))
	k := r.do(c.RoPE(r.do(c.MatMulBT(h, wk, 1)), cfg.KVHeads, cfg.base(), 0))
	v := r.do(c.MatMulBT(h, wv, 1))
	a := r.do(c.CausalAttention(q, k, v, cfg.Heads, cfg.KVHeads))
	x2 := r.do(c.Add(x, r.do(c.MatMulBT(a, wo, 1))))
	h2 := r.do(c.RMSNorm(x2, n2, cfg.eps()))
	m := r.do(c.Mul(r.do(c.SiLU(r.do(c.MatMulBT(h2, wg, 1)))), r.do(c.MatMulBT(h2, wu, 1))))
	y := r.do(c.Add(x2, r.do(c.MatMulBT(m, wd, 1))))
	if r.err != nil {
		return r.err
	}
	return c.SetRows(out, at, y)
}

// steps collects an op chain's tensors and its first error, so that a
// chain reads as the formula it computes. After an error every later op
// gets a nil operand, which the ops refuse with an error (ignored here:
// the first one is kept).
type steps struct {
	ts  []*kernels.Tensor
	err error
}

func (r *steps) do(t *kernels.Tensor, err error) *kernels.Tensor {
	if r.err == nil && err != nil {
		r.err = err
	}
	if t != nil {
		r.ts = append(r.ts, t)
	}
	if r.err != nil {
		return nil
	}
	return t
}

func (r *steps) release() {
	for _, t := range r.ts {
		t.Release()
	}
}
