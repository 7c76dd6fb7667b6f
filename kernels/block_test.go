package kernels_test

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// blockCfg is a Llama-style decoder block: rmsnorm, q/k/v projections,
// rope, causal GQA attention, output projection, residual, rmsnorm,
// SiLU-gated MLP, residual.
type blockCfg struct{ t, d, hq, hkv, dh, ff int }

type blockWeights struct {
	n1, n2, wq, wk, wv, wo, wg, wu, wd []float32
}

func newBlockWeights(rng *rand.Rand, cfg blockCfg) blockWeights {
	s := 1 / math.Sqrt(float64(cfg.d))
	sf := 1 / math.Sqrt(float64(cfg.ff))
	return blockWeights{
		n1: kctest.Randn(rng, cfg.d, 0.5, 1.5), n2: kctest.Randn(rng, cfg.d, 0.5, 1.5),
		wq: kctest.Randn(rng, cfg.hq*cfg.dh*cfg.d, -s, s), wk: kctest.Randn(rng, cfg.hkv*cfg.dh*cfg.d, -s, s),
		wv: kctest.Randn(rng, cfg.hkv*cfg.dh*cfg.d, -s, s), wo: kctest.Randn(rng, cfg.d*cfg.hq*cfg.dh, -s, s),
		wg: kctest.Randn(rng, cfg.ff*cfg.d, -s, s), wu: kctest.Randn(rng, cfg.ff*cfg.d, -s, s), wd: kctest.Randn(rng, cfg.d*cfg.ff, -sf, sf),
	}
}

const (
	blockEps  = 1e-5
	blockBase = 10000.0
)

// blockDevice records the block on the device; every op's error ends the
// test.
func blockDevice(t *testing.T, c *kernels.Context, cfg blockCfg, w blockWeights, x *kernels.Tensor) *kernels.Tensor {
	t.Helper()
	up := func(xs []float32, shape ...int) *kernels.Tensor { return upload(t, c, xs, shape...) }
	n1, n2 := up(w.n1, cfg.d), up(w.n2, cfg.d)
	wq, wk, wv := up(w.wq, cfg.hq*cfg.dh, cfg.d), up(w.wk, cfg.hkv*cfg.dh, cfg.d), up(w.wv, cfg.hkv*cfg.dh, cfg.d)
	wo, wg, wu, wd := up(w.wo, cfg.d, cfg.hq*cfg.dh), up(w.wg, cfg.ff, cfg.d), up(w.wu, cfg.ff, cfg.d), up(w.wd, cfg.d, cfg.ff)

	s := c.Device().Begin()
	before := c.Device().Stats()
	must := func(y *kernels.Tensor, err error) *kernels.Tensor {
		t.Helper()
		if err != nil {
			s.End()
			t.Fatal(err)
		}
		return y
	}
	h := must(c.RMSNorm(x, n1, blockEps))
	q := must(c.RoPE(must(c.MatMulBT(h, wq, 1)), cfg.hq, blockBase, 0))
	k := must(c.RoPE(must(c.MatMulBT(h, wk, 1)), cfg.hkv, blockBase, 0))
	v := must(c.MatMulBT(h, wv, 1))
	a := must(c.CausalAttention(q, k, v, cfg.hq, cfg.hkv))
	h.Release() // back to the pool: reused by a later op of this scope
	x2 := must(c.Add(x, must(c.MatMulBT(a, wo, 1))))
	h2 := must(c.RMSNorm(x2, n2, blockEps))
	m := must(c.Mul(must(c.SiLU(must(c.MatMulBT(h2, wg, 1)))), must(c.MatMulBT(h2, wu, 1))))
	out := must(c.Add(x2, must(c.MatMulBT(m, wd, 1))))
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	st := c.Device().Stats().Since(before)
	// one scope: its submits are the early ones of SetScopeFlush (1 with
	// it off), none of them waits, and nothing is read back
	if want := backend.ScopeSubmits(int(st.Dispatches), c.Device().ScopeFlush()); st.Submits != uint64(want) || st.Readbacks != 0 {
		t.Errorf("the block took %d submits and %d readbacks, want %d and 0 (%v)", st.Submits, st.Readbacks, want, st)
	}
	t.Logf("block: %v", st)
	return out
}

// blockRef is the block in float64.
func blockRef(cfg blockCfg, w blockWeights, xs []float32) []float64 {
	x := f64(xs)
	norm := func(x []float64, g []float32) []float64 {
		out := make([]float64, len(x))
		for r := 0; r < cfg.t; r++ {
			var sq float64
			for _, v := range x[r*cfg.d : (r+1)*cfg.d] {
				sq += v * v
			}
			inv := 1 / math.Sqrt(sq/float64(cfg.d)+blockEps)
			for i := 0; i < cfg.d; i++ {
				out[r*cfg.d+i] = x[r*cfg.d+i] * inv * float64(g[i])
			}
		}
		return out
	}
	proj := func(x []float64, wt []float32, in, outN int) []float64 { // x·wᵀ, w [outN, in]
		out := make([]float64, cfg.t*outN)
		for r := 0; r < cfg.t; r++ {
			for o := 0; o < outN; o++ {
				var s float64
				for i := 0; i < in; i++ {
					s += x[r*in+i] * float64(wt[o*in+i])
				}
				out[r*outN+o] = s
			}
		}
		return out
	}
	rope := func(x []float64, heads int) []float32 {
		out := make([]float32, len(x))
		half := cfg.dh / 2
		for r := 0; r < cfg.t; r++ {
			for h := 0; h < heads; h++ {
				for i := 0; i < half; i++ {
					th := float64(r) * math.Pow(blockBase, -2*float64(i)/float64(cfg.dh))
					j := (r*heads+h)*cfg.dh + i
					x1, x2 := x[j], x[j+half]
					out[j] = float32(x1*math.Cos(th) - x2*math.Sin(th))
					out[j+half] = float32(x2*math.Cos(th) + x1*math.Sin(th))
				}
			}
		}
		return out
	}
	tof32 := func(x []float64) []float32 {
		out := make([]float32, len(x))
		for i, v := range x {
			out[i] = float32(v)
		}
		return out
	}
	h := norm(x, w.n1)
	q := rope(proj(h, w.wq, cfg.d, cfg.hq*cfg.dh), cfg.hq)
	k := rope(proj(h, w.wk, cfg.d, cfg.hkv*cfg.dh), cfg.hkv)
	v := tof32(proj(h, w.wv, cfg.d, cfg.hkv*cfg.dh))
	// attnRef takes f32 inputs; rounding q, k, v to f32 here costs 1e-7
	// relative, far inside the block's tolerance.
	a := attnRef(q, k, v, cfg.t, cfg.t, cfg.hq, cfg.hkv, cfg.dh, 1/math.Sqrt(float64(cfg.dh)), true)
	o := proj(a, w.wo, cfg.hq*cfg.dh, cfg.d)
	x2 := make([]float64, len(x))
	for i := range x {
		x2[i] = x[i] + o[i]
	}
	h2 := norm(x2, w.n2)
	g := proj(h2, w.wg, cfg.d, cfg.ff)
	u := proj(h2, w.wu, cfg.d, cfg.ff)
	for i := range g {
		g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
	}
	dn := proj(g, w.wd, cfg.ff, cfg.d)
	for i := range x2 {
		x2[i] += dn[i]
	}
	return x2
}

// TestTransformerBlock runs a decoder block composed from the ops in one
// scope and compares it with float64: with one submit (SetScopeFlush(0):
// the "one scope, one submit"), with one dispatch submitted early
// and doubling chunks after (SetScopeFlush(1): the block's ops then span
// several submits, each ordered after the last), and with the device's
// own setting where it is another. The bound is 1e-5
// absolute plus 1e-5 relative on outputs of magnitude ~1: a chain of
// about ten f32 ops; on lavapipe the largest error measured was ~3e-7
// (2026-12-01), and every run passes at 1e-6.
func TestTransformerBlock(t *testing.T) { testTransformerBlock(t, open(t, "vulkan")) }

func testTransformerBlock(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	dev := c.Device()
	defer dev.SetScopeFlush(dev.ScopeFlush())
	flushes := []int{0, 1}
	if f := dev.ScopeFlush(); f > 1 {
		flushes = append(flushes, f)
	}
	for _, flush := range flushes {
		dev.SetScopeFlush(flush)
		for _, cfg := range []blockCfg{{t: 17, d: 64, hq: 4, hkv: 2, dh: 16, ff: 96}, {t: 3, d: 24, hq: 3, hkv: 1, dh: 8, ff: 40}} {
			w := newBlockWeights(rng, cfg)
			xs := kctest.Randn(rng, cfg.t*cfg.d, -1, 1)
			out := blockDevice(t, c, cfg, w, upload(t, c, xs, cfg.t, cfg.d))
			kctest.Compare(t, fmt.Sprintf("block (early submits %d)", flush), host(t, out), blockRef(cfg, w, xs), kctest.Tol{Abs: 1e-5, Rel: 1e-5})
		}
	}
}
