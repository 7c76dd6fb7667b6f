package kernels_test

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/kernels"
)

// openBench opens the policy's device (KC_DEVICE selects another) and a
// context on it for a benchmark, both closed when it ends; no device skips.
func openBench(b *testing.B) (*backend.Device, *kernels.Context) {
	setXDG()
	dev, err := backend.Open(context.Background(), "")
	if err != nil {
		b.Skipf("no device: %v", err)
	}
	c := kernels.New(dev)
	b.Cleanup(func() {
		c.Close()
		dev.Close()
	})
	return dev, c
}

// submitOps records op(0), ..., op(n-1) in one scope, releasing each
// non-nil result (back to the pool: a later op of the scope reuses it, in
// order), submits the scope and waits for it; any error ends the
// benchmark. It returns the time from the submit to the wait's return: the
// GPU's time for the batch plus one submit and fence latency, without the
// host's recording. So that it is one submit, the device's early submits
// (backend.SetScopeFlush) are off while it records; scopeOps keeps them.
func submitOps(b *testing.B, dev *backend.Device, n int, op func(i int) (*kernels.Tensor, error)) time.Duration {
	defer dev.SetScopeFlush(dev.ScopeFlush())
	dev.SetScopeFlush(0)
	return scopeOps(b, dev, n, op)
}

// scopeOps is submitOps with the device's early submits as they are set
// (what a program using the library gets): its result is the time from
// the scope's last submit to the wait's return.
func scopeOps(b *testing.B, dev *backend.Device, n int, op func(i int) (*kernels.Tensor, error)) time.Duration {
	s := dev.Begin()
	for i := 0; i < n; i++ {
		out, err := op(i)
		if err != nil {
			s.End()
			b.Fatal(err)
		}
		if out != nil {
			out.Release()
		}
	}
	start := time.Now()
	if err := s.End(); err != nil {
		b.Fatal(err)
	}
	if err := dev.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// warmUp runs op once and waits for it, so that compiling its pipeline
// stays outside the timing; on a GPU it then keeps running op for about
// warmFor, so that the clocks are up when the timing starts (the H200's
// SM clock sat at 345 MHz for seconds of some sweeps that compiled many
// pipelines: docs/PERF.md). Then it resets b's timer.
func warmUp(b *testing.B, dev *backend.Device, op func() (*kernels.Tensor, error)) {
	if out, err := op(); err != nil {
		b.Fatal(err)
	} else {
		out.Release()
	}
	if err := dev.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	warm(dev, func() { submitOps(b, dev, 8, func(int) (*kernels.Tensor, error) { return op() }) })
	b.ResetTimer()
}

// gpuFigures says whether benchmarks report the GPU-timestamp figure
// beside the wall time: with -sweep or -gpu, on devices with timestamps
// other than CPUs (timing every dispatch there is 20-40x slower, and
// through wgpu on llvmpipe the process died of a SIGSEGV in a driver
// thread after some hundred of them).
func gpuFigures(dev *backend.Device) bool {
	return (*sweep || *gpu) && dev.Info().Timestamps && dev.Info().Type != backend.TypeCPU
}

// warmFor is how long warm keeps a GPU busy before a timing.
const warmFor = 150 * time.Millisecond

// warm repeats run (which waits for its work) for about warmFor, on
// devices other than CPUs.
func warm(dev *backend.Device, run func()) {
	if dev.Info().Type == backend.TypeCPU {
		return
	}
	for start := time.Now(); time.Since(start) < warmFor; {
		run()
	}
}

// BenchmarkOps measures the memory-bound ops in GB/s (bytes read and
// written once per op, over wall time: b.N ops recorded in one scope, its
// submits (the device's early ones: backend.SetScopeFlush, and the End's),
// one wait), beside a device-to-device copy of the same bytes in
// the same run: the baseline. It opens the policy's device
// (KC_DEVICE selects another), so on the H200 it runs there:
//
//	go test ./kernels -run '^$' -bench Ops -benchtime 50x
func BenchmarkOps(b *testing.B) {
	dev, c := openBench(b)
	const mib = 1 << 20
	n := 64 * mib // 256 MiB of f32
	if dev.Info().Type == backend.TypeCPU {
		n = 4 * mib // lavapipe: keep it short
	}
	x := fill(b, c, n)
	y := fill(b, c, n)
	bench := func(name string, bytes int, op func() (*kernels.Tensor, error)) {
		b.Run(name, func(b *testing.B) {
			warmUp(b, dev, op)
			start := time.Now()
			scopeOps(b, dev, b.N, func(int) (*kernels.Tensor, error) { return op() })
			el := time.Since(start)
			b.ReportMetric(float64(bytes)*float64(b.N)/el.Seconds()/1e9, "GB/s")
			if gpuFigures(dev) {
				if t := gpuTime(b, c, dev, op); t > 0 {
					b.ReportMetric(float64(bytes)/t.Seconds()/1e9, "gpuGB/s")
				}
			}
		})
	}
	sz := fmt.Sprintf("%dMiB", 4*n/mib)
	bench("copy/"+sz, 8*n, func() (*kernels.Tensor, error) { return c.Dup(x) })
	// Dup by the device's transfer command (vkCmdCopyBuffer), the path
	// the copy kernel replaced
	bench("copycmd/"+sz, 8*n, func() (*kernels.Tensor, error) {
		c.SetCopyByCommand(true)
		defer c.SetCopyByCommand(false)
		return c.Dup(x)
	})
	bench("add/"+sz, 12*n, func() (*kernels.Tensor, error) { return c.Add(x, y) })
	bench("silu/"+sz, 8*n, func() (*kernels.Tensor, error) { return c.SiLU(x) })
	for _, d := range []int{4096, 32768} {
		xr, err := x.Reshape(-1, d)
		if err != nil {
			b.Fatal(err)
		}
		w := fill(b, c, d)
		bias := fill(b, c, d)
		bench(fmt.Sprintf("addbias/d%d", d), 8*n, func() (*kernels.Tensor, error) { return c.AddBias(xr, bias) })
		bench(fmt.Sprintf("softmax/d%d", d), 8*n, func() (*kernels.Tensor, error) { return c.Softmax(xr) })
		bench(fmt.Sprintf("layernorm/d%d", d), 8*n, func() (*kernels.Tensor, error) { return c.LayerNorm(xr, w, bias, 1e-5) })
		bench(fmt.Sprintf("rmsnorm/d%d", d), 8*n, func() (*kernels.Tensor, error) { return c.RMSNorm(xr, w, 1e-5) })
	}
	// decode attention: 32 query heads, 8 KV heads of 128, over a cache
	// of s keys; the bytes are the K and V read once.
	const hq, hkv, dh = 32, 8, 128
	s := n / (2 * hkv * dh)
	kc, err := x.Reshape(-1, hkv*dh)
	if err != nil {
		b.Fatal(err)
	}
	k, _ := kc.Rows(0, s)
	vv, _ := y.Reshape(-1, hkv*dh)
	v, _ := vv.Rows(0, s)
	q := fill(b, c, hq*dh)
	q1, _ := q.Reshape(1, hq*dh)
	bench(fmt.Sprintf("decodeattention/s%d", s), 2*s*hkv*dh*4, func() (*kernels.Tensor, error) { return c.DecodeAttention(q1, k, v, hq, hkv) })
	// the same over an f16 cache (PyTorch's baseline is f16): the bytes
	// are the 16-bit K and V read once
	var h [3]*kernels.Tensor
	for i, t := range []*kernels.Tensor{q1, k, v} {
		if h[i], err = c.Cast(t, kernels.F16); err != nil {
			b.Fatal(err)
		}
	}
	bench(fmt.Sprintf("decodeattention16/s%d", s), 2*s*hkv*dh*2, func() (*kernels.Tensor, error) { return c.DecodeAttention(h[0], h[1], h[2], hq, hkv) })
	if !*sweep {
		return
	}
	// KC_DECODE_SWEEP=tc: the 16-bit default and decodeTCSweep only, over
	// f16 and bf16 caches
	tcSweep := os.Getenv("KC_DECODE_SWEEP") == "tc" && !*rows
	var hb [3]*kernels.Tensor
	for i, t := range []*kernels.Tensor{q1, k, v} {
		if !tcSweep {
			break
		}
		if hb[i], err = c.Cast(t, kernels.BF16); err != nil {
			b.Fatal(err)
		}
	}
	// every configuration twice, the passes interleaved (kc's process
	// has run 2-3x slow for part of some device calls, unexplained),
	// with the copy at the start of each pass
	for pass := 1; pass <= 2; pass++ {
		p := fmt.Sprintf("p%d", pass)
		bench("copy/"+sz+"/"+p, 8*n, func() (*kernels.Tensor, error) { return c.Dup(x) })
		list16 := append(append([]kernels.DecodeTuning{}, decode16Sweep...), decodeTCSweep...)
		list32 := decode32Sweep
		switch {
		case *rows:
			// decodelr.kc's configurations beside the defaults
			list16 = append([]kernels.DecodeTuning{{}}, rowsOf(decode16Sweep)...)
			list32 = append([]kernels.DecodeTuning{{}}, rowsOf(decode32Sweep)...)
		case tcSweep:
			// a device call on a budget: the default and the 16-bit
			// configurations of decodeTCSweep only
			list16, list32 = append([]kernels.DecodeTuning{{}}, decodeTCSweep...), nil
		case *widen:
			list16, list32 = decodeWidenSweep, nil
		default:
			rowSweep(b, c, x, p, bench)
		}
		// with KC_VULKAN_STATS, the driver's statistics of each
		// configuration's partial kernel (registers, local memory)
		for _, tn := range list16 {
			c.SetDecodeTuning(tn)
			if pass == 1 && os.Getenv("KC_VULKAN_STATS") != "" {
				fmt.Printf("RESULT stats f16 %s%s\n", decodeName(tn), c.SplitStats(kernels.F16, 1, s, hq, hkv, dh))
				if tcSweep {
					fmt.Printf("RESULT stats bf16 %s%s\n", decodeName(tn), c.SplitStats(kernels.BF16, 1, s, hq, hkv, dh))
				}
			}
			bench(fmt.Sprintf("decodeattention16/s%d/%s/%s", s, decodeName(tn), p), 2*s*hkv*dh*2,
				func() (*kernels.Tensor, error) { return c.DecodeAttention(h[0], h[1], h[2], hq, hkv) })
			if tcSweep {
				// the same configuration over a bf16 cache (for the
				// tensor-core kernel 16 head columns: another text)
				bench(fmt.Sprintf("decodeattentionbf16/s%d/%s/%s", s, decodeName(tn), p), 2*s*hkv*dh*2,
					func() (*kernels.Tensor, error) { return c.DecodeAttention(hb[0], hb[1], hb[2], hq, hkv) })
			}
		}
		for _, tn := range list32 {
			c.SetDecodeTuning(tn)
			if pass == 1 && os.Getenv("KC_VULKAN_STATS") != "" {
				fmt.Printf("RESULT stats f32 %s%s\n", decodeName(tn), c.SplitStats(kernels.F32, 1, s, hq, hkv, dh))
			}
			bench(fmt.Sprintf("decodeattention/s%d/%s/%s", s, decodeName(tn), p), 2*s*hkv*dh*4,
				func() (*kernels.Tensor, error) { return c.DecodeAttention(q1, k, v, hq, hkv) })
		}
		c.SetDecodeTuning(kernels.DecodeTuning{})
	}
}

// decode16Sweep and decode32Sweep are the split-key configurations the
// sweep times over f16 and f32 caches: decodesg.kc's (Sub: lanes per key,
// subgroups, steps per batch, workgroups in the grid); decode4h.kc's (f16)
// and decode4.kc's (f32): invocations per workgroup and per key, value
// rows per step, workgroups. The H200 calls of 2026-12-01 (docs/PERF.md)
// also timed decode4h.kc with the value loads beside the key loads (Pre),
// decode4h.kc over f32 caches, and a kernel with one max a round: slower.
var (
	decode16Sweep = []kernels.DecodeTuning{
		// the last of three H200 calls (docs/PERF.md, "Decode attention:
		// more loads a lane"): the previous default, the new one (128/1/8,
		// 512 workgroups) and its neighbours
		{Groups: 512, D4: kernels.D4Tuning{Invocations: 256, KeyLanes: 4, ValueRows: 4}},
		{Groups: 256, D4: kernels.D4Tuning{Invocations: 128, KeyLanes: 1, ValueRows: 8}},
		{Groups: 512, D4: kernels.D4Tuning{Invocations: 128, KeyLanes: 1, ValueRows: 8}},
		{Groups: 512, D4: kernels.D4Tuning{Invocations: 128, KeyLanes: 1, ValueRows: 4}},
		{Groups: 512, D4: kernels.D4Tuning{Invocations: 128, KeyLanes: 1, ValueRows: 8, PreloadValues: true}},
		{Groups: 1024, D4: kernels.D4Tuning{Invocations: 64, KeyLanes: 1, ValueRows: 8}},
		{Groups: 512, D4: kernels.D4Tuning{Invocations: 64, KeyLanes: 1, ValueRows: 8}},
		// decodelr.kc (a key row across a subgroup's lanes; f16 rows of
		// 128 are 16 vectors: two rows side by side in 32 lanes)
		{Groups: 512, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 8}},
		{Groups: 512, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 4}},
		{Groups: 1024, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 8}},
	}
	decode32Sweep = []kernels.DecodeTuning{
		// decode4.kc's configuration, the default before decodelr.kc
		{Groups: 1024, D4: kernels.D4Tuning{Invocations: 256, KeyLanes: 4, ValueRows: 8}},
		// decodelr.kc (the default: 4 subgroups, 8 rows a batch, 1024
		// workgroups) and its neighbours: subgroups, rows a batch,
		// workgroups, a batch ahead
		{Groups: 1024, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 8}},
		{Groups: 1024, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 4}},
		{Groups: 1024, LR: kernels.LRTuning{On: true, Subgroups: 2, Rows: 8}},
		{Groups: 1024, LR: kernels.LRTuning{On: true, Subgroups: 8, Rows: 8}},
		{Groups: 512, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 8}},
		{Groups: 2048, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 8}},
		{Groups: 1024, LR: kernels.LRTuning{On: true, Subgroups: 4, Rows: 8, Prefetch: true}},
	}
	// decodeWidenSweep (-widen) is the 16-bit defaults of both kernels
	// with f16 widened by unpack2x16float and by integer ops (IntWiden),
	// and no f32 configurations
	decodeWidenSweep = []kernels.DecodeTuning{
		{Groups: 512, SG: kernels.SGTuning{On: true, KeyLanes: 4, Subgroups: 4, Steps: 2}},
		{Groups: 512, IntWiden: true, SG: kernels.SGTuning{On: true, KeyLanes: 4, Subgroups: 4, Steps: 2}},
		{Groups: 512, D4: kernels.D4Tuning{Invocations: 256, KeyLanes: 4, ValueRows: 4}},
		{Groups: 512, IntWiden: true, D4: kernels.D4Tuning{Invocations: 256, KeyLanes: 4, ValueRows: 4}},
	}
)

var rows = flag.Bool("rows", false, "BenchmarkOps -sweep: time decodelr.kc's configurations (both caches) and the decode defaults instead of the whole decode and row sweep")

var widen = flag.Bool("widen", false, "BenchmarkOps -sweep: time the 16-bit decode defaults with each f16 widening instead of the whole decode sweep")

// decodeName names a split-key configuration in the sweep, as docs/PERF.md's
// tables name them (after the kernels' specialisation constants).
func decodeName(tn kernels.DecodeTuning) string {
	w := ""
	if tn.IntWiden {
		w = "-wid1"
	}
	if tn == (kernels.DecodeTuning{}) {
		return "default"
	}
	b := func(on bool) int {
		if on {
			return 1
		}
		return 0
	}
	if lr := tn.LR; lr.On {
		return fmt.Sprintf("lr-ns%d-rb%d-va%d-pf%d-fn%d-hv%d-groups%d", lr.Subgroups, lr.Rows, b(lr.ValuesAfter), b(lr.Prefetch), b(lr.Funcs), b(lr.HalfVector), tn.Groups)
	}
	if tc := tn.TC; tc.On {
		return fmt.Sprintf("tc-s%d-t%d-n%d-l%d-groups%d", tc.Subgroups, tc.Tiles, tc.Columns, tc.Loads, max(tc.Groups, tn.Groups))
	}
	if sg := tn.SG; sg.On {
		return fmt.Sprintf("sg-kl%d-ns%d-u%d-groups%d%s", sg.KeyLanes, sg.Subgroups, sg.Steps, tn.Groups, w)
	}
	d4 := tn.D4
	return fmt.Sprintf("wg%d-ln%d-vb%d-pre%d-groups%d%s", d4.Invocations, d4.KeyLanes, d4.ValueRows, b(d4.PreloadValues), tn.Groups, w)
}

// gpuTime is kernelTimes' "all": the median over 20 ops of their
// dispatches' summed GPU durations (0 where op dispatches nothing). The
// barriers between an op's dispatches are not in it.
func gpuTime(b *testing.B, c *kernels.Context, dev *backend.Device, op func() (*kernels.Tensor, error)) time.Duration {
	return kernelTimes(b, c, dev, op)["all"]
}

// kernelTimes runs op 20 times in one scope with every dispatch bracketed
// by GPU timestamps and returns by kernel the median over the ops of its
// durations (summed where an op runs it twice), and as "all" the median
// of the ops' sums (none where op dispatches nothing: a buffer copy).
func kernelTimes(b *testing.B, c *kernels.Context, dev *backend.Device, op func() (*kernels.Tensor, error)) map[string]time.Duration {
	const reps = 20
	if err := c.SetTimed(true); err != nil {
		b.Fatal(err)
	}
	defer c.SetTimed(false)
	c.TakeTimings()
	per := make([][]*backend.Timing, reps)
	submitOps(b, dev, reps, func(i int) (*kernels.Tensor, error) {
		out, err := op()
		per[i] = c.TakeTimings()
		return out, err
	})
	by := map[string][]time.Duration{}
	for _, ts := range per {
		for _, t := range ts {
			if !t.Done {
				b.Fatalf("timing of %s not resolved", t.Name)
			}
		}
		var all time.Duration
		for _, k := range kernels.ByKernel(ts) {
			by[k.Kernel] = append(by[k.Kernel], k.Total)
			all += k.Total
		}
		if len(ts) > 0 {
			by["all"] = append(by["all"], all)
		}
	}
	out := map[string]time.Duration{}
	for k, ds := range by {
		slices.Sort(ds)
		out[k] = ds[len(ds)/2]
	}
	return out
}

var sweep = flag.Bool("sweep", false, "BenchmarkOps: also time the split-key decode and 32k-column layernorm configurations, twice, with GPU timestamps beside the wall time")

// gpu reports the GPU-timestamp figure of each default without -sweep's
// configurations (scripts/h200-defaults.sh).
var gpu = flag.Bool("gpu", false, "BenchmarkOps, BenchmarkDecode: report gpuGB/s (GPU timestamps) beside the wall time, as -sweep does, without -sweep's other configurations")

// rowSweep times layernorm over rows of 32k in long-row configurations
// beside the default: rowsreg4.kc's and rowssg4.kc's (subgroup
// reductions); p names the pass.
func rowSweep(b *testing.B, c *kernels.Context, x *kernels.Tensor, p string, bench func(string, int, func() (*kernels.Tensor, error))) {
	const d = 32768
	xr, err := x.Reshape(-1, d)
	if err != nil {
		b.Fatal(err)
	}
	n := x.Len()
	w, bias := fill(b, c, d), fill(b, c, d)
	for _, tn := range rowSweepTunings {
		c.SetRowTuning(tn)
		bench(fmt.Sprintf("layernorm/d32768/wg%d-sh%d-pf%d-st%d-sg%d/%s", tn.WG, tn.SH, tn.PF, tn.ST, tn.SG, p), 8*n,
			func() (*kernels.Tensor, error) { return c.LayerNorm(xr, w, bias, 1e-5) })
	}
	c.SetRowTuning(kernels.RowTuning{})
}

// rowSweepTunings: the default (subgroup reductions, a quarter of the
// row in shared memory, two weight vectors beside x), then workgroups of
// 512 (16 vectors of the row an invocation) with 0 to 5 of them in shared
// memory, so that fewer registers an invocation may let two workgroups
// share a multiprocessor. Earlier H200 calls (2026-12-01) timed
// rowsreg4.kc, 0 to 2 vectors in shared memory with 0 to 4 weight vectors
// at 1024, and one shifted reduction (ST): docs/PERF.md.
var rowSweepTunings = []kernels.RowTuning{{WG: 1024, SH: 1, PF: 2, SG: 1}, {WG: 1024, PF: 2, SG: 1},
	{WG: 512, PF: 2, SG: 1}, {WG: 512, SH: 2, PF: 2, SG: 1}, {WG: 512, SH: 4, PF: 2, SG: 1}, {WG: 512, SH: 5, PF: 2, SG: 1},
	{WG: 512, SH: 4, PF: 4, SG: 1}}

func fill(b *testing.B, c *kernels.Context, n int) *kernels.Tensor {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i%97)/97 - 0.5
	}
	t, err := c.Tensor(xs, n)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkAttention16 measures causal GQA attention in f16 at the issue's
// size (batch 4 as four CausalAttention calls over their own tensors,
// sequence 4096, 32 query and 8 key/value heads of 128) in TFLOP/s counted
// as PyTorch's baseline counts them (4·B·hq·T²·D/2), and checks 48
// sampled output rows of the first batch against float64 first, in each
// configuration of the sweep (-sweep: flash16Layouts, the whole list
// twice, the second round named -r2).
func BenchmarkAttention16(b *testing.B) {
	dev, c := openBench(b)
	B, T, hq, hkv, D := 4, 4096, 32, 8, 128
	if dev.Info().Type == backend.TypeCPU {
		B, T = 1, 128 // lavapipe: keep it short
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	bs := make([]attnBatch, B)
	for i := range bs {
		r := func(n int) []float32 {
			xs := make([]float32, n)
			for j := range xs {
				xs[j] = float32(rng.Float64()*2 - 1)
			}
			return xs
		}
		bs[i].qs, bs[i].ks, bs[i].vs = r(T*hq*D), r(T*hkv*D), r(T*hkv*D)
		for _, x := range []struct {
			t    **kernels.Tensor
			xs   []float32
			cols int
		}{{&bs[i].q, bs[i].qs, hq * D}, {&bs[i].k, bs[i].ks, hkv * D}, {&bs[i].v, bs[i].vs, hkv * D}} {
			var err error
			if *x.t, err = c.TensorOf(kernels.F16, x.xs, T, x.cols); err != nil {
				b.Fatal(err)
			}
		}
	}
	type cfg struct {
		nsg, bk int
		layout  string
	}
	cfgs := []cfg{{}}
	rounds := 1
	if *sweep {
		for _, f := range flash16Layouts {
			cfgs = append(cfgs, cfg{f.NSG, f.BK, f.Layout})
		}
		// the whole list twice, so that a configuration is not judged by
		// one figure: kc's process has run 2-3x slow part of some calls
		rounds = 2
	}
	checked := map[cfg]bool{}
	for round := 1; round <= rounds; round++ {
		for _, f := range cfgs {
			// a configuration whose check failed is checked again
			checked[f] = benchFlash16(b, c, f.nsg, f.bk, f.layout, round, checked[f], bs, B, T, hq, hkv, D)
		}
	}
	c.SetFlash16(0, 0, "")
}

// benchFlash16 times one flash16 configuration (nsg 0: the default) in
// round round, checking its output first unless checked; it reports
// whether the run passed.
func benchFlash16(b *testing.B, c *kernels.Context, nsg, bk int, layout string, round int, checked bool, bs []attnBatch, B, T, hq, hkv, D int) bool {
	c.SetFlash16(nsg, bk, layout)
	name := "default"
	if nsg != 0 {
		name = fmt.Sprintf("nsg%d-bk%d-%s", nsg, bk, layout)
	}
	name += fmt.Sprintf("-r%d", round)
	return b.Run(name, func(b *testing.B) {
		// a configuration that does not fit is no result (the default would run)
		if nsg != 0 && !kernels.Flash16Fits(c, D) {
			b.Skip("does not fit the device")
		}
		// each configuration checked at the full size before it is
		// first timed
		if !checked {
			o, err := c.CausalAttention(bs[0].q, bs[0].k, bs[0].v, hq, hkv)
			if err != nil {
				b.Fatal(err)
			}
			got, err := c.ToHost(context.Background(), o)
			if err != nil {
				b.Fatal(err)
			}
			o.Release()
			checkAttentionRows(b, got[0], bs[0].qs, bs[0].ks, bs[0].vs, T, hq, hkv, D)
			checked = true
		}
		timeAttention(b, c, c.Device(), bs, B, T, hq, hkv, D)
	})
}

// attnBatch is one batch entry of BenchmarkAttention16: f16 tensors and
// the f32 values they were rounded from.
type attnBatch struct {
	q, k, v    *kernels.Tensor
	qs, ks, vs []float32
}

func timeAttention(b *testing.B, c *kernels.Context, dev *backend.Device, bs []attnBatch, B, T, hq, hkv, D int) {
	// compile outside the timing, then keep the GPU busy for about as
	// long as the timing (3 rounds of the batch) before it starts: figures
	// taken right after the CPU's check and the driver's compile, with the
	// GPU idle, ran 1.5-3x slow (2026-12-01)
	attn := func(i int) (*kernels.Tensor, error) {
		x := bs[i%len(bs)]
		return c.CausalAttention(x.q, x.k, x.v, hq, hkv)
	}
	submitOps(b, dev, 3*len(bs), attn)
	b.ResetTimer()
	start := time.Now()
	submitOps(b, dev, b.N*len(bs), attn)
	el := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(4*float64(B*hq*T)*float64(T)*float64(D)/2/el/1e12, "TFLOP/s")
}

// checkAttentionRows compares 48 (query, head) rows of a causal prefill
// (the first and last queries among them) with float64 over the f16
// inputs, within halfAttnTol's f16 bound.
func checkAttentionRows(b *testing.B, got, qs, ks, vs []float32, T, hq, hkv, D int) {
	r16 := func(x float32) float64 { return float64(round(kernels.F16, x)) }
	scale := float64(float32(1 / math.Sqrt(float64(D))))
	tl := halfAttnTol(kernels.F16)
	for n := 0; n < 48; n++ {
		i, h := n*(T-1)/47, (n*7)%hq
		for c, w := range kernels.AttnRow(qs, ks, vs, r16, i, h, i+1, hq, hkv, D, scale) {
			g := float64(got[(i*hq+h)*D+c])
			if d := math.Abs(g - w); !(d <= tl.Abs+tl.Rel*math.Abs(w)) {
				b.Fatalf("attention f16: o[query %d, head %d, %d] = %g, want %g", i, h, c, g, w)
			}
		}
	}
}
