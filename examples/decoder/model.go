package main

import (
	"context"
	"fmt"
	"math"
	"math/rand"

	"github.com/kcgo/kc/kernels"
)

// config is the decoder's shape.
type config struct {
	vocab, dim, layers, heads, kvHeads, headDim, ffn, maxSeq int
}

func (c config) String() string {
	return fmt.Sprintf("vocab %d, dim %d, %d layers, %d/%d heads of %d, ffn %d, context %d",
		c.vocab, c.dim, c.layers, c.heads, c.kvHeads, c.headDim, c.ffn, c.maxSeq)
}

const (
	ropeBase = 10000.0
	normEps  = 1e-5
)

// layer is one block's weights (projections stored [out, in]) and its KV
// cache.
type layer struct {
	norm1, norm2      *kernels.Tensor
	wq, wk, wv, wo    *kernels.Tensor
	wgate, wup, wdown *kernels.Tensor
	kcache, vcache    *kernels.Tensor
}

// model is a Llama-style decoder with random weights.
type model struct {
	c      *kernels.Context
	cfg    config
	emb    *kernels.Tensor // [vocab, dim]
	head   *kernels.Tensor // [vocab, dim]: the output projection
	norm   *kernels.Tensor
	layers []layer
}

// newModel draws the weights from seed and uploads them.
func newModel(c *kernels.Context, cfg config, seed int64) (*model, error) {
	rng := rand.New(rand.NewSource(seed))
	m := &model{c: c, cfg: cfg}
	var err error
	up := func(n int, lo, hi float64, shape ...int) *kernels.Tensor {
		if err != nil {
			return nil
		}
		xs := make([]float32, n)
		for i := range xs {
			xs[i] = float32(lo + (hi-lo)*rng.Float64())
		}
		var t *kernels.Tensor
		t, err = c.Tensor(xs, shape...)
		return t
	}
	d, q, kv := cfg.dim, cfg.heads*cfg.headDim, cfg.kvHeads*cfg.headDim
	s, sf := 1/math.Sqrt(float64(d)), 1/math.Sqrt(float64(cfg.ffn))
	m.emb = up(cfg.vocab*d, -1, 1, cfg.vocab, d)
	m.head = up(cfg.vocab*d, -s, s, cfg.vocab, d)
	m.norm = up(d, 0.8, 1.2, d)
	for l := 0; l < cfg.layers; l++ {
		m.layers = append(m.layers, layer{
			norm1: up(d, 0.8, 1.2, d), norm2: up(d, 0.8, 1.2, d),
			wq: up(q*d, -s, s, q, d), wk: up(kv*d, -s, s, kv, d), wv: up(kv*d, -s, s, kv, d),
			wo:    up(d*q, -s, s, d, q),
			wgate: up(cfg.ffn*d, -s, s, cfg.ffn, d), wup: up(cfg.ffn*d, -s, s, cfg.ffn, d),
			wdown:  up(d*cfg.ffn, -sf, sf, d, cfg.ffn),
			kcache: up(cfg.maxSeq*kv, 0, 0, cfg.maxSeq, kv), vcache: up(cfg.maxSeq*kv, 0, 0, cfg.maxSeq, kv),
		})
	}
	return m, err
}

// pass records one forward pass and collects its intermediate tensors
// for release, keeping the first error (so a step reads as straight-line
// code, checked once at the end).
type pass struct {
	c   *kernels.Context
	ts  []*kernels.Tensor
	err error
}

func (p *pass) do(t *kernels.Tensor, err error) *kernels.Tensor {
	if p.err == nil && err != nil {
		p.err = err
	}
	if t != nil {
		p.ts = append(p.ts, t)
	}
	return t
}

func (p *pass) release() {
	for _, t := range p.ts {
		t.Release()
	}
}

// forward records the model on tokens at positions pos.. and returns the
// logits of every row, [len(tokens), vocab], into one scope: one submit.
func (m *model) forward(p *pass, tokens []int, pos int) *kernels.Tensor {
	c, cfg := m.c, m.cfg
	t := len(tokens)
	if pos+t > cfg.maxSeq {
		p.err = fmt.Errorf("sequence of %d tokens exceeds the context of %d", pos+t, cfg.maxSeq)
		return nil
	}
	s := c.Device().Begin()
	defer func() {
		if err := s.End(); p.err == nil {
			p.err = err
		}
	}()
	x := p.do(c.Gather(m.emb, tokens))
	for _, ly := range m.layers {
		if p.err != nil {
			return nil
		}
		h := p.do(c.RMSNorm(x, ly.norm1, normEps))
		q := p.do(c.RoPE(p.do(c.MatMulBT(h, ly.wq, 1)), cfg.heads, ropeBase, pos))
		k := p.do(c.RoPE(p.do(c.MatMulBT(h, ly.wk, 1)), cfg.kvHeads, ropeBase, pos))
		v := p.do(c.MatMulBT(h, ly.wv, 1))
		if p.err != nil {
			return nil
		}
		p.err = c.SetRows(ly.kcache, pos, k)
		if p.err == nil {
			p.err = c.SetRows(ly.vcache, pos, v)
		}
		if p.err != nil {
			return nil
		}
		// the queries are the last t of pos+t cached positions
		kc, err := ly.kcache.Rows(0, pos+t)
		p.do(nil, err)
		vc, err := ly.vcache.Rows(0, pos+t)
		p.do(nil, err)
		if p.err != nil {
			return nil
		}
		a := p.do(c.CausalAttention(q, kc, vc, cfg.heads, cfg.kvHeads))
		x = p.do(c.Add(x, p.do(c.MatMulBT(a, ly.wo, 1))))
		h2 := p.do(c.RMSNorm(x, ly.norm2, normEps))
		g := p.do(c.SiLU(p.do(c.MatMulBT(h2, ly.wgate, 1))))
		mlp := p.do(c.Mul(g, p.do(c.MatMulBT(h2, ly.wup, 1))))
		x = p.do(c.Add(x, p.do(c.MatMulBT(mlp, ly.wdown, 1))))
	}
	if p.err != nil {
		return nil
	}
	return p.do(c.MatMulBT(p.do(c.RMSNorm(x, m.norm, normEps)), m.head, 1))
}

// logits runs tokens at positions pos.. and returns the last row's logits.
func (m *model) logits(ctx context.Context, tokens []int, pos int) ([]float32, error) {
	p := &pass{c: m.c}
	defer p.release()
	out := m.forward(p, tokens, pos)
	if p.err != nil {
		return nil, p.err
	}
	all, err := out.ToHost(ctx)
	if err != nil {
		return nil, err
	}
	return all[len(all)-m.cfg.vocab:], nil
}

func argmax(xs []float32) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// generate prefills prompt, then decodes n tokens greedily, one step (one
// submit, one readback) per token. It returns the tokens and the last
// step's logits.
func (m *model) generate(ctx context.Context, prompt []int, n int) ([]int, []float32, error) {
	lg, err := m.logits(ctx, prompt, 0)
	if err != nil {
		return nil, nil, err
	}
	var out []int
	pos := len(prompt)
	for i := 0; i < n; i++ {
		tok := argmax(lg)
		out = append(out, tok)
		if i == n-1 {
			break
		}
		if lg, err = m.logits(ctx, []int{tok}, pos); err != nil {
			return nil, nil, err
		}
		pos++
	}
	return out, lg, nil
}
