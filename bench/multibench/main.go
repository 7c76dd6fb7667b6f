//go:build cgo

// Command multibench measures kernels/multi's data-parallel scaling: the
// throughput of a batched matrix product and of a decoder block over a
// batch of sequences on 1, 2, ... N devices, the same code with groups of
// growing size (the first device alone, then the first two, ...). The
// PyTorch counterpart is torch_multi.py beside this file; scripts/
// h200-multi.sh runs both on a host with two H200s.
//
// Modes: "resident" times the product on inputs already on the devices
// (record, submit, wait: the devices' own scaling); "host" times
// MatMul.Run and Block.Run from host memory to host memory (upload of
// each device's part, compute, readback into the result). Each figure is
// the median of -reps timed calls after -warm untimed ones. Every N>1
// result is compared with the one-device result (bit for bit on equal
// devices of one driver) and the product's samples with float64.
//
//	multibench [-driver vulkan] [-type discrete] [-name H200] [-same N]
//	           [-what matmul,block] [-batch 8 -m 2048 -k 4096 -n 4096]
//	           [-seqs 16 -seq 1024 -dim 2048 -heads 16 -kvheads 4 -headdim 128 -ffn 5632]
//
// On lavapipe: multibench -type cpu -same 2 -batch 4 -m 64 -k 256 -n 256
// -seqs 4 -seq 64 -dim 128 -heads 4 -kvheads 2 -headdim 32 -ffn 256.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/kernels"
	"github.com/kcgo/kc/kernels/multi"
)

type config struct {
	what           []string
	batch, m, k, n int
	seqs, seq      int
	block          multi.BlockConfig
	reps, warm     int
	maxDevs        int
}

func main() {
	var c config
	driver := flag.String("driver", "vulkan", "driver of the devices (empty: any)")
	typ := flag.String("type", "discrete", "device type (discrete, integrated, cpu, ...; empty: any)")
	name := flag.String("name", "", "device name contains")
	same := flag.Int("same", 0, "open the first accepted adapter this many times instead of every accepted adapter once")
	flag.IntVar(&c.maxDevs, "devices", 0, "use at most this many devices (0: all)")
	what := flag.String("what", "matmul,block", "work to measure")
	flag.IntVar(&c.batch, "batch", 8, "matmul: batch")
	flag.IntVar(&c.m, "m", 2048, "matmul: rows per batch item")
	flag.IntVar(&c.k, "k", 4096, "matmul: inner dimension")
	flag.IntVar(&c.n, "n", 4096, "matmul: columns")
	flag.IntVar(&c.seqs, "seqs", 16, "block: sequences per batch")
	flag.IntVar(&c.seq, "seq", 1024, "block: tokens per sequence")
	flag.IntVar(&c.block.Dim, "dim", 2048, "block: model dimension")
	flag.IntVar(&c.block.Heads, "heads", 16, "block: query heads")
	flag.IntVar(&c.block.KVHeads, "kvheads", 4, "block: key/value heads")
	flag.IntVar(&c.block.HeadDim, "headdim", 128, "block: head dimension")
	flag.IntVar(&c.block.FFN, "ffn", 5632, "block: MLP hidden size")
	flag.IntVar(&c.reps, "reps", 10, "timed calls per figure")
	flag.IntVar(&c.warm, "warm", 2, "untimed calls first")
	flag.Parse()
	c.what = strings.Split(*what, ",")
	if err := run(c, *driver, *typ, *name, *same); err != nil {
		fmt.Fprintln(os.Stderr, "multibench:", err)
		os.Exit(1)
	}
}

func run(c config, driver, typ, name string, same int) error {
	ctx := context.Background()
	devs, err := open(ctx, driver, typ, name, same)
	if err != nil {
		return err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	if c.maxDevs > 0 && len(devs) > c.maxDevs {
		devs = devs[:c.maxDevs]
	}
	for i, d := range devs {
		fmt.Printf("device %d: %s\n", i, d.Info())
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for _, w := range c.what {
		switch w {
		case "matmul":
			err = benchMatMul(ctx, c, devs, rng)
		case "block":
			err = benchBlock(ctx, c, devs, rng)
		default:
			err = fmt.Errorf("unknown work %q (want matmul, block)", w)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// open opens the devices the flags select.
func open(ctx context.Context, driver, typ, name string, same int) ([]*backend.Device, error) {
	p := multi.Policy{Name: name}
	if driver != "" {
		p.Drivers = []string{driver}
	}
	if typ != "" {
		var t backend.DeviceType
		if err := t.UnmarshalText([]byte(typ)); err != nil {
			return nil, err
		}
		p.Types = []backend.DeviceType{t}
	}
	as, aerr := backend.Adapters(ctx)
	mine := p.Filter(as)
	if len(mine) == 0 {
		return nil, fmt.Errorf("no adapter of driver %q, type %q, name %q among %v (%v)", driver, typ, name, as, aerr)
	}
	if same > 0 {
		mine = slices.Repeat(mine[:1], same)
	}
	return multi.OpenAll(ctx, mine)
}

// median times fn reps times after warm untimed calls.
func median(warm, reps int, fn func() error) (time.Duration, error) {
	for i := 0; i < warm; i++ {
		if err := fn(); err != nil {
			return 0, err
		}
	}
	ts := make([]time.Duration, reps)
	for i := range ts {
		start := time.Now()
		if err := fn(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

func randn(rng *rand.Rand, n int, s float64) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(s * (2*rng.Float64() - 1))
	}
	return xs
}

// result prints one figure in torch_multi.py's format: the median time,
// TFLOP/s, extra fields and the speed-up over one device.
func result(name, mode string, devs int, t time.Duration, flops float64, extra string, base time.Duration) {
	fmt.Printf("RESULT name=%s impl=kc mode=%s devices=%d ms=%.3f TFLOPs=%.4g%s speedup=%.3f\n",
		name, mode, devs, t.Seconds()*1e3, flops/t.Seconds()/1e12, extra, base.Seconds()/t.Seconds())
}

func benchMatMul(ctx context.Context, c config, devs []*backend.Device, rng *rand.Rand) error {
	w := randn(rng, c.k*c.n, 1/math.Sqrt(float64(c.k)))
	a := randn(rng, c.batch*c.m*c.k, 1)
	flops := 2 * float64(c.batch) * float64(c.m) * float64(c.k) * float64(c.n)
	fmt.Printf("matmul: batch %d of [%d %d]·[%d %d] f32, %.1f GFLOP per call\n", c.batch, c.m, c.k, c.k, c.n, flops/1e9)
	var one []float32
	var base [2]time.Duration
	for nd := 1; nd <= len(devs); nd++ {
		g := multi.New(devs[:nd]...)
		err := func() error {
			defer g.Close()
			mm, err := g.NewMatMul(ctx, w, c.k, c.n)
			if err != nil {
				return err
			}
			defer mm.Close()
			tr, err := residentMatMul(ctx, c, g, mm, a)
			if err != nil {
				return err
			}
			out := make([]float32, c.batch*c.m*c.n)
			th, err := median(c.warm, c.reps, func() error { return mm.RunInto(ctx, out, a, c.batch, c.m) })
			if err != nil {
				return err
			}
			if nd == 1 {
				base = [2]time.Duration{tr, th}
				one = out
				if err := sample(out, a, w, c, rng); err != nil {
					return err
				}
			} else {
				report(fmt.Sprintf("matmul on %d devices", nd), out, one)
			}
			result("matmul", "resident", nd, tr, flops, "", base[0])
			result("matmul", "host", nd, th, flops, "", base[1])
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// residentMatMul uploads each device's part of a once and times the
// products alone: record, submit, wait on every device of the group.
func residentMatMul(ctx context.Context, c config, g *multi.Group, mm *multi.MatMul, a []float32) (time.Duration, error) {
	parts := make([]*kernels.Tensor, g.Len())
	defer func() {
		for _, t := range parts {
			if t != nil {
				t.Release()
			}
		}
	}()
	mk := c.m * c.k
	err := g.Run(ctx, c.batch, func(ctx context.Context, wk multi.Worker, lo, hi int) error {
		var err error
		parts[wk.Index], err = wk.Context.Tensor(a[lo*mk:hi*mk], (hi-lo)*c.m, c.k)
		return err
	})
	if err != nil {
		return 0, err
	}
	return median(c.warm, c.reps, func() error {
		return g.Run(ctx, c.batch, func(ctx context.Context, wk multi.Worker, lo, hi int) error {
			y, err := mm.Record(wk, parts[wk.Index])
			if err != nil {
				return err
			}
			defer y.Release()
			return wk.Device.Wait(ctx)
		})
	})
}

// sample checks 64 sampled elements of the product against float64.
func sample(out, a, w []float32, c config, rng *rand.Rand) error {
	for s := 0; s < 64; s++ {
		r, j := rng.Intn(c.batch*c.m), rng.Intn(c.n)
		var want, mag float64
		for i := 0; i < c.k; i++ {
			p := float64(a[r*c.k+i]) * float64(w[i*c.n+j])
			want += p
			mag += math.Abs(p)
		}
		if d := math.Abs(float64(out[r*c.n+j]) - want); !(d <= 1e-5*mag+1e-6) {
			return fmt.Errorf("matmul[%d, %d] = %g, float64 %g", r, j, out[r*c.n+j], want)
		}
	}
	fmt.Println("matmul: 64 sampled elements match float64 within 1e-5·Σ|a·w|")
	return nil
}

// report compares an N-device result with the one-device result.
func report(what string, got, one []float32) {
	diff, maxd := 0, 0.0
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(one[i]) {
			diff++
			maxd = math.Max(maxd, math.Abs(float64(got[i])-float64(one[i])))
		}
	}
	if diff != 0 || slices.ContainsFunc(got, func(x float32) bool { return x != x }) {
		fmt.Printf("%s: %d of %d values differ from one device's (max |diff| %.3g)\n", what, diff, len(got), maxd)
		return
	}
	fmt.Printf("%s: equal to one device's, bit for bit\n", what)
}

// blockFlops counts a block's multiply-adds over one sequence of t tokens
// (projections, MLP, causal attention's two products over half the
// scores) as 2 FLOP each.
func blockFlops(b multi.BlockConfig, t int) float64 {
	d, q, kv := float64(b.Dim), float64(b.Heads*b.HeadDim), float64(b.KVHeads*b.HeadDim)
	ft := float64(t)
	proj := 2 * ft * d * (q + 2*kv + q)
	mlp := 2 * ft * 3 * d * float64(b.FFN)
	attn := 2 * 2 * ft * ft / 2 * q
	return proj + mlp + attn
}

func benchBlock(ctx context.Context, c config, devs []*backend.Device, rng *rand.Rand) error {
	b := c.block
	s, sf := 1/math.Sqrt(float64(b.Dim)), 1/math.Sqrt(float64(b.FFN))
	q, kv := b.Heads*b.HeadDim, b.KVHeads*b.HeadDim
	w := multi.BlockWeights{
		Norm1: randn(rng, b.Dim, 1), Norm2: randn(rng, b.Dim, 1),
		WQ: randn(rng, q*b.Dim, s), WK: randn(rng, kv*b.Dim, s), WV: randn(rng, kv*b.Dim, s),
		WO: randn(rng, b.Dim*q, s), WGate: randn(rng, b.FFN*b.Dim, s), WUp: randn(rng, b.FFN*b.Dim, s),
		WDown: randn(rng, b.Dim*b.FFN, sf),
	}
	x := randn(rng, c.seqs*c.seq*b.Dim, 1)
	flops := float64(c.seqs) * blockFlops(b, c.seq)
	fmt.Printf("block: %d sequences of %d tokens, dim %d, %d/%d heads of %d, ffn %d, f32, %.1f GFLOP per call\n",
		c.seqs, c.seq, b.Dim, b.Heads, b.KVHeads, b.HeadDim, b.FFN, flops/1e9)
	var one []float32
	var base time.Duration
	for nd := 1; nd <= len(devs); nd++ {
		g := multi.New(devs[:nd]...)
		err := func() error {
			defer g.Close()
			blk, err := g.NewBlock(ctx, b, w)
			if err != nil {
				return err
			}
			defer blk.Close()
			var out []float32
			t, err := median(c.warm, c.reps, func() error {
				out, err = blk.Run(ctx, x, c.seqs, c.seq)
				return err
			})
			if err != nil {
				return err
			}
			if nd == 1 {
				base, one = t, out
			} else {
				report(fmt.Sprintf("block on %d devices", nd), out, one)
			}
			result("block", "host", nd, t, flops, fmt.Sprintf(" tokens_per_s=%.4g", float64(c.seqs*c.seq)/t.Seconds()), base)
			return nil
		}()
		if err != nil {
			return err
		}
	}
	return nil
}
