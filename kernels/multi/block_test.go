package multi_test

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels/multi"
)

func newBlockWeights(rng *rand.Rand, c multi.BlockConfig) multi.BlockWeights {
	s := 1 / math.Sqrt(float64(c.Dim))
	sf := 1 / math.Sqrt(float64(c.FFN))
	q, kv := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	return multi.BlockWeights{
		Norm1: kctest.Randn(rng, c.Dim, 0.5, 1.5), Norm2: kctest.Randn(rng, c.Dim, 0.5, 1.5),
		WQ: kctest.Randn(rng, q*c.Dim, -s, s), WK: kctest.Randn(rng, kv*c.Dim, -s, s), WV: kctest.Randn(rng, kv*c.Dim, -s, s),
		WO: kctest.Randn(rng, c.Dim*q, -s, s), WGate: kctest.Randn(rng, c.FFN*c.Dim, -s, s), WUp: kctest.Randn(rng, c.FFN*c.Dim, -s, s),
		WDown: kctest.Randn(rng, c.Dim*c.FFN, -sf, sf),
	}
}

// blockRef is the block in float64 on one sequence x [t, Dim]; eps 1e-5
// and RoPE base 10000 (the config's defaults).
func blockRef(c multi.BlockConfig, w multi.BlockWeights, xs []float32, t int) []float64 {
	d, dh := c.Dim, c.HeadDim
	norm := func(x []float64, g []float32) []float64 {
		out := make([]float64, len(x))
		for r := 0; r < t; r++ {
			var sq float64
			for _, v := range x[r*d : (r+1)*d] {
				sq += v * v
			}
			inv := 1 / math.Sqrt(sq/float64(d)+1e-5)
			for i := 0; i < d; i++ {
				out[r*d+i] = x[r*d+i] * inv * float64(g[i])
			}
		}
		return out
	}
	proj := func(x []float64, wt []float32, in, outN int) []float64 { // x·wᵀ, w [outN, in]
		out := make([]float64, t*outN)
		for r := 0; r < t; r++ {
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
	rope := func(x []float64, heads int) {
		half := dh / 2
		for r := 0; r < t; r++ {
			for h := 0; h < heads; h++ {
				for i := 0; i < half; i++ {
					th := float64(r) * math.Pow(10000, -2*float64(i)/float64(dh))
					j := (r*heads+h)*dh + i
					x1, x2 := x[j], x[j+half]
					x[j] = x1*math.Cos(th) - x2*math.Sin(th)
					x[j+half] = x2*math.Cos(th) + x1*math.Sin(th)
				}
			}
		}
	}
	x := make([]float64, len(xs))
	for i, v := range xs {
		x[i] = float64(v)
	}
	hq, hkv := c.Heads, c.KVHeads
	h := norm(x, w.Norm1)
	q, k, v := proj(h, w.WQ, d, hq*dh), proj(h, w.WK, d, hkv*dh), proj(h, w.WV, d, hkv*dh)
	rope(q, hq)
	rope(k, hkv)
	a := make([]float64, t*hq*dh)
	for hd := 0; hd < hq; hd++ {
		kh := hd / (hq / hkv)
		for i := 0; i < t; i++ {
			sc := make([]float64, i+1)
			mx := math.Inf(-1)
			for j := range sc {
				for e := 0; e < dh; e++ {
					sc[j] += q[(i*hq+hd)*dh+e] * k[(j*hkv+kh)*dh+e]
				}
				sc[j] /= math.Sqrt(float64(dh))
				mx = math.Max(mx, sc[j])
			}
			var sum float64
			for j := range sc {
				sc[j] = math.Exp(sc[j] - mx)
				sum += sc[j]
			}
			for e := 0; e < dh; e++ {
				var acc float64
				for j := range sc {
					acc += sc[j] * v[(j*hkv+kh)*dh+e]
				}
				a[(i*hq+hd)*dh+e] = acc / sum
			}
		}
	}
	o := proj(a, w.WO, hq*dh, d)
	for i := range x {
		x[i] += o[i]
	}
	h2 := norm(x, w.Norm2)
	g, u := proj(h2, w.WGate, d, c.FFN), proj(h2, w.WUp, d, c.FFN)
	for i := range g {
		g[i] = g[i] / (1 + math.Exp(-g[i])) * u[i]
	}
	dn := proj(g, w.WDown, c.FFN, d)
	for i := range x {
		x[i] += dn[i]
	}
	return x
}

// blockTol: a chain of about ten f32 ops on outputs of magnitude ~1 (the
// kernels package's own block test measures ~3e-7 on lavapipe).
var blockTol = kctest.Tol{Abs: 1e-5, Rel: 1e-5}

var blockCfg = multi.BlockConfig{Dim: 32, Heads: 4, KVHeads: 2, HeadDim: 8, FFN: 48}

// TestBlockSameAdapterTwice runs the block over batches of 1, 3 and 7
// sequences split over two devices of one adapter, against float64 and,
// bit for bit, the same batch on one device.
func TestBlockSameAdapterTwice(t *testing.T) {
	d0, d1 := openDev(t, "vulkan"), openDev(t, "vulkan")
	testBlock(t, group(t, d0, d1), group(t, d0), kctest.Tol{})
}

// TestBlockPerDriver splits the batches over lavapipe through both
// drivers; the wgpu half may round differently (fma contraction), so the
// comparison with the Vulkan device alone is within the float64 bound.
func TestBlockPerDriver(t *testing.T) {
	dv, dw := openDev(t, "vulkan"), openDev(t, "wgpu")
	testBlock(t, group(t, dv, dw), group(t, dv), blockTol)
}

func testBlock(t *testing.T, g, single *multi.Group, same1 kctest.Tol) {
	ctx := context.Background()
	rng := kctest.NewRand(t)
	cfg := blockCfg
	w := newBlockWeights(rng, cfg)
	b, err := g.NewBlock(ctx, cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	bs, err := single.NewBlock(ctx, cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Close()
	const seq = 6
	devs := g.Workers()
	for _, batch := range []int{1, 3, 7} {
		x := kctest.Randn(rng, batch*seq*cfg.Dim, -1, 1)
		before := stats(devs)
		got, err := b.Run(ctx, x, batch, seq)
		if err != nil {
			t.Fatalf("batch %d: %v", batch, err)
		}
		checkShares(t, devs, before, multi.Split(batch, g.Weights()), seq*cfg.Dim*4)
		want := make([]float64, 0, len(x))
		for s := 0; s < batch; s++ {
			one := seq * cfg.Dim
			want = append(want, blockRef(cfg, w, x[s*one:(s+1)*one], seq)...)
		}
		kctest.Compare(t, "block", got, want, blockTol)
		ref, err := bs.Run(ctx, x, batch, seq)
		if err != nil {
			t.Fatal(err)
		}
		same(t, "block", got, ref, same1)
	}
}
