package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kcgo/kc/backend"
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
	decode decodeSteps // the last generate's decode steps
}

// newModel draws the weights from seed (see draw) and uploads them; the
// projections (q, k, v, o, the MLP's and the output head) as wdt, the
// embedding and norm weights as f32. torch_decoder.py rebuilds the same
// weights in the same order.
func newModel(c *kernels.Context, cfg config, seed uint32, wdt kernels.DType) (*model, error) {
	m := &model{c: c, cfg: cfg}
	var err error
	tensor := uint32(0) // the draw's tensor index, in creation order
	up := func(d kernels.DType, center, half float64, shape ...int) *kernels.Tensor {
		n := 1
		for _, s := range shape {
			n *= s
		}
		xs := draw(seed, tensor, n, center, half)
		tensor++
		if err != nil {
			return nil
		}
		var t *kernels.Tensor
		t, err = c.TensorOf(d, xs, shape...)
		return t
	}
	f32 := kernels.F32
	d, q, kv := cfg.dim, cfg.heads*cfg.headDim, cfg.kvHeads*cfg.headDim
	s, sf := 1/math.Sqrt(float64(d)), 1/math.Sqrt(float64(cfg.ffn))
	m.emb = up(f32, 0, 1, cfg.vocab, d)
	m.head = up(wdt, 0, s, cfg.vocab, d)
	m.norm = up(f32, 1, 0.2, d)
	for l := 0; l < cfg.layers; l++ {
		var ly layer
		ly.norm1, ly.norm2 = up(f32, 1, 0.2, d), up(f32, 1, 0.2, d)
		ly.wq, ly.wk, ly.wv = up(wdt, 0, s, q, d), up(wdt, 0, s, kv, d), up(wdt, 0, s, kv, d)
		ly.wo = up(wdt, 0, s, d, q)
		ly.wgate, ly.wup = up(wdt, 0, s, cfg.ffn, d), up(wdt, 0, s, cfg.ffn, d)
		ly.wdown = up(wdt, 0, sf, d, cfg.ffn)
		if err == nil {
			ly.kcache, err = c.TensorOf(f32, make([]float32, cfg.maxSeq*kv), cfg.maxSeq, kv)
		}
		if err == nil {
			ly.vcache, err = c.TensorOf(f32, make([]float32, cfg.maxSeq*kv), cfg.maxSeq, kv)
		}
		m.layers = append(m.layers, ly)
	}
	return m, err
}

// draw returns n weights of tensor number t, uniform over [center-half,
// center+half) on a grid of 2^24 steps: element i is
// center + k·step with k = (hash(seed·0x9e3779b9 + t·0x85ebca6b + i) >> 8)
// - 2^23 (u32 arithmetic, wrapping), step = float32(half/2^23), the
// product and the sum each rounded to float32, and hash the 32-bit mixer
// x ^= x>>16; x *= 0x45d9f3b; x ^= x>>16; x *= 0x45d9f3b; x ^= x>>16.
// Every step is exact integer or single float32 arithmetic, so PyTorch
// (torch_decoder.py) reproduces the weights bit for bit.
func draw(seed, t uint32, n int, center, half float64) []float32 {
	base := seed*0x9e3779b9 + t*0x85ebca6b
	step, c := float32(half/(1<<23)), float32(center)
	xs := make([]float32, n)
	for i := range xs {
		x := base + uint32(i)
		x ^= x >> 16
		x *= 0x45d9f3b
		x ^= x >> 16
		x *= 0x45d9f3b
		x ^= x >> 16
		k := int32(x>>8) - 1<<23
		xs[i] = float32(float32(k)*step) + c
	}
	return xs
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
// logits of every row, [len(tokens), vocab], into one scope (a few
// submits, no wait).
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

// logits runs tokens at positions pos.. and returns the last row's
// logits, and where the host's time went.
func (m *model) logits(ctx context.Context, tokens []int, pos int) ([]float32, stepTime, error) {
	var st stepTime
	t0 := time.Now()
	p := &pass{c: m.c}
	defer p.release()
	out := m.forward(p, tokens, pos)
	if p.err != nil {
		return nil, st, p.err
	}
	t1 := time.Now()
	all, err := out.ToHost(ctx)
	if err != nil {
		return nil, st, err
	}
	st.record, st.wait = t1.Sub(t0), time.Since(t1)
	return all[len(all)-m.cfg.vocab:], st, nil
}

// stepTime is where the host's time goes in forward passes: recording
// (up to the scope's End, with the device's early submits on the way)
// and then waiting for the logits' readback.
type stepTime struct {
	record, wait time.Duration
}

// decodeSteps sums generate's decode steps (the prefill left out).
type decodeSteps struct {
	n     int
	time  stepTime
	stats backend.Stats // the device's counters over the steps
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
// scope, one readback) per token. It returns the tokens and the last
// step's logits, and keeps the decode steps' figures in m.decode (with
// the Context timed, the prefill's timings are dropped, so that
// TakeTimings afterwards holds the decode steps' alone).
func (m *model) generate(ctx context.Context, prompt []int, n int) ([]int, []float32, error) {
	lg, _, err := m.logits(ctx, prompt, 0)
	if err != nil {
		return nil, nil, err
	}
	m.c.TakeTimings()
	dev := m.c.Device()
	m.decode = decodeSteps{}
	s0 := dev.Stats()
	var out []int
	pos := len(prompt)
	for i := 0; i < n; i++ {
		tok := argmax(lg)
		out = append(out, tok)
		if i == n-1 {
			break
		}
		var st stepTime
		if lg, st, err = m.logits(ctx, []int{tok}, pos); err != nil {
			return nil, nil, err
		}
		m.decode.n++
		m.decode.time.record += st.record
		m.decode.time.wait += st.wait
		pos++
	}
	m.decode.stats = dev.Stats().Since(s0)
	return out, lg, nil
}
