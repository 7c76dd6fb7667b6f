package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/ir/interp"
)

func init() {
	register("bench", "benchmark library kernels on the chosen device (kc bench matmul)", runBench)
}

func runBench(env *cliEnv, args []string) int {
	if len(args) == 0 || args[0] != "matmul" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			fmt.Fprintln(env.stderr, "usage: kc bench matmul [flags]   (kc bench matmul -h for the flags)")
			return exitOK
		}
		fmt.Fprintln(env.stderr, "usage: kc bench matmul [flags]")
		return exitUsage
	}
	return benchMatmul(env, args[1:])
}

// benchProblem parses "MxNxK".
func benchProblem(s string) (m, n, k int, err error) {
	parts := strings.Split(s, "x")
	if len(parts) != 3 {
		return 0, 0, 0, fmt.Errorf("size %q: want MxNxK", s)
	}
	var v [3]int
	for i, p := range parts {
		if v[i], err = strconv.Atoi(p); err != nil || v[i] <= 0 {
			return 0, 0, 0, fmt.Errorf("size %q: %q is not a positive integer", s, p)
		}
	}
	return v[0], v[1], v[2], nil
}

func benchMatmul(env *cliEnv, args []string) int {
	fs := newFlagSet(env, "bench matmul", "[-m M -n N -k K | -sizes MxNxK,...] [-dtype f32|f16|bf16] [-ctype T] [-transb] [-device SEL] [-tune=false] [-workgroup] [-clear] [-stats]")
	m := fs.Int("m", 1024, "rows of A and C")
	n := fs.Int("n", 1024, "columns of B and C")
	k := fs.Int("k", 1024, "columns of A, rows of B")
	sizes := fs.String("sizes", "", "comma-separated MxNxK problems (instead of -m -n -k)")
	dtype := fs.String("dtype", "f32", "element type of A and B: f32 (f16, bf16 need cooperative matrices)")
	ctype := fs.String("ctype", "", "element type of C (default: -dtype; f16/bf16 products may write f16, bf16 or f32)")
	transB := fs.Bool("transb", false, "C = A·Bᵀ with B stored NxK")
	device := fs.String("device", "", "device selector (as KC_DEVICE; default: the policy's choice)")
	tune := fs.Bool("tune", true, "time every candidate plan and cache the fastest; false: run the cached or default plan")
	clear := fs.Bool("clear", false, "clear the autotune cache first")
	samples := fs.Int("samples", 10, "timed runs per measurement (the median is reported)")
	stats := fs.Bool("stats", false, "print the driver's compile statistics of each timed plan (registers, spills, shared memory; Vulkan with VK_KHR_pipeline_executable_properties)")
	workgroup := fs.Bool("workgroup", false, "also tune workgroup-scope cooperative-matrix plans (VK_NV_cooperative_matrix2) for f16/bf16")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 || *samples <= 0 {
		fs.Usage()
		return exitUsage
	}
	var probs []coopmat.Options
	if *sizes != "" {
		for _, s := range strings.Split(*sizes, ",") {
			pm, pn, pk, err := benchProblem(strings.TrimSpace(s))
			if err != nil {
				fmt.Fprintln(env.stderr, "kc bench matmul:", err)
				return exitUsage
			}
			probs = append(probs, coopmat.Options{M: pm, N: pn, K: pk})
		}
	} else {
		probs = []coopmat.Options{{M: *m, N: *n, K: *k}}
	}
	for i := range probs {
		probs[i].DType, probs[i].CType, probs[i].TransB = *dtype, *ctype, *transB
		if err := probs[i].Validate(); err != nil {
			fmt.Fprintln(env.stderr, "kc bench matmul:", err)
			return exitUsage
		}
	}
	if *clear {
		if err := coopmat.ClearCache(); err != nil {
			printErr(env, err)
			return exitInput
		}
	}
	sel := *device
	if sel == "" {
		sel = env.getenv(backend.EnvDevice)
	}
	ctx := context.Background()
	dev, err := openBench(ctx, sel, *stats)
	if err != nil {
		printErr(env, err)
		return exitInput
	}
	defer dev.Close()
	info := dev.Info()
	fmt.Fprintf(env.stdout, "device: %s (%s, %s, %s)\n", info.Name, info.Driver, info.API, info.DriverInfo)
	var rows []benchRow
	for _, o := range probs {
		r, err := benchOne(ctx, env, dev, o, benchOpts{tune: *tune, workgroup: *workgroup, samples: *samples, stats: *stats})
		if err != nil {
			printErr(env, fmt.Errorf("%s: %w", o, err))
			return exitInput
		}
		rows = append(rows, r)
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "problem\tplan\tms\tTFLOP/s\tmax err/tol\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.2f\t%.3f\t\n", r.o, r.plan, r.t.Seconds()*1e3, r.o.Flops()/r.t.Seconds()/1e12, r.err)
	}
	tw.Flush()
	for _, r := range rows {
		for _, s := range r.stats {
			fmt.Fprintf(env.stdout, "stats %s %s: %s\n", r.o, r.plan, s)
		}
	}
	for _, r := range rows {
		if !(r.err <= 1) {
			fmt.Fprintf(env.stderr, "kc bench matmul: %s: results outside the tolerance (max err/tol %.3g)\n", r.o, r.err)
			return exitInput
		}
	}
	return exitOK
}

type benchRow struct {
	o    coopmat.Options
	plan coopmat.Plan
	t    time.Duration
	err  float64 // largest |C - reference| / tolerance over the sampled entries
	// stats: one line per pipeline of the plan, its compile statistics
	// (-stats).
	stats []string
}

// benchOne tunes (or chooses) a plan for o, times it on random inputs and
// checks sampled entries of C against a float64 reference.
// benchOpts are kc bench matmul's flags that benchOne uses.
type benchOpts struct {
	tune, workgroup bool
	samples         int
	stats           bool
}

// openBench opens the device; with stats, one whose pipelines capture
// their compile statistics (the Vulkan driver reads KC_VULKAN_STATS when a
// device opens: set for the open only, unless already set).
func openBench(ctx context.Context, sel string, stats bool) (*backend.Device, error) {
	if stats && os.Getenv("KC_VULKAN_STATS") == "" {
		os.Setenv("KC_VULKAN_STATS", "1")
		defer os.Unsetenv("KC_VULKAN_STATS")
	}
	return backend.Open(ctx, sel)
}

// pipelineStats writes one line per pipeline of mm: its kernel's name and
// statistics, or why there are none.
func pipelineStats(mm *coopmat.Matmul) []string {
	var out []string
	for _, p := range mm.Pipelines() {
		st, err := p.Statistics()
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", p.Name(), err))
			continue
		}
		var b strings.Builder
		b.WriteString(p.Name() + ":")
		for _, s := range st {
			b.WriteString(" " + strings.ReplaceAll(s.Name, " ", "_") + "=" + strconv.FormatFloat(s.Value, 'g', -1, 64))
		}
		out = append(out, b.String())
	}
	return out
}

func benchOne(ctx context.Context, env *cliEnv, dev *backend.Device, o coopmat.Options, bo benchOpts) (benchRow, error) {
	tune, samples := bo.tune, bo.samples
	// Building the default plan first reports a product the device or kc
	// cannot run (f16 without cooperative matrices) before any work.
	first, err := coopmat.New(ctx, dev, o)
	if err != nil {
		return benchRow{}, err
	}
	first.Close()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	a, aBytes := benchRandom(rng, o.DType, o.M*o.K)
	b, bBytes := benchRandom(rng, o.DType, o.K*o.N)
	ct := cTypeOf(o)
	bufs := make([]*backend.Buffer, 3)
	for i, n := range []int64{int64(len(aBytes)), int64(len(bBytes)), typeBytes(ct) * int64(o.M) * int64(o.N)} {
		buf, err := dev.Alloc(n)
		if err != nil {
			return benchRow{}, err
		}
		defer buf.Release()
		bufs[i] = buf
	}
	if err := bufs[0].Write(0, aBytes); err != nil {
		return benchRow{}, err
	}
	if err := bufs[1].Write(0, bBytes); err != nil {
		return benchRow{}, err
	}
	if tune {
		fmt.Fprintf(env.stderr, "tuning %s\n", o)
		_, err := coopmat.Tune(ctx, dev, o, coopmat.TuneOptions{Samples: max(3, samples/2), Workgroup: bo.workgroup,
			Inputs: func(x, y, z backend.View) error { // the real inputs, so timings see real data
				if err := dev.Copy(x, bufs[0].View()); err != nil {
					return err
				}
				return dev.Copy(y, bufs[1].View())
			},
			Progress: func(i, n int, t coopmat.Trial) {
				if t.Err != nil {
					fmt.Fprintf(env.stderr, "  [%d/%d] %-32s failed: %v\n", i, n, t.Plan, t.Err)
					return
				}
				fmt.Fprintf(env.stderr, "  [%d/%d] %-32s %9.3f ms %8.2f TFLOP/s\n", i, n, t.Plan, t.Time.Seconds()*1e3, t.TFLOPS)
			}})
		if err != nil {
			return benchRow{}, err
		}
	}
	mm, err := coopmat.New(ctx, dev, o)
	if err != nil {
		return benchRow{}, err
	}
	defer mm.Close()
	av, bv, cv := bufs[0].View(), bufs[1].View(), bufs[2].View()
	t, err := mm.Time(ctx, av, bv, cv, 2, samples)
	if err != nil {
		return benchRow{}, err
	}
	raw, err := dev.Read(ctx, cv)
	if err != nil {
		return benchRow{}, err
	}
	row := benchRow{o: o, plan: mm.Plan(), t: t, err: benchCheck(rng, o, a, b, decodeC(ct, raw))}
	if bo.stats {
		row.stats = pipelineStats(mm)
	}
	return row, nil
}

// cTypeOf is the element type of o's C.
func cTypeOf(o coopmat.Options) string {
	switch {
	case o.CType != "":
		return o.CType
	case o.DType != "":
		return o.DType
	}
	return "f32"
}

func typeBytes(t string) int64 {
	if t == "f32" {
		return 4
	}
	return 2
}

// benchRandom returns n values in [-1, 1) rounded to type t, and their
// bytes as the kernels read them.
func benchRandom(rng *rand.Rand, t string, n int) ([]float64, []byte) {
	x := make([]float64, n)
	out := make([]byte, typeBytes(t)*int64(n))
	for i := range x {
		v := rng.Float32()*2 - 1
		switch t {
		case "f16":
			h := interp.F32ToF16Bits(v)
			binary.LittleEndian.PutUint16(out[2*i:], h)
			x[i] = float64(interp.F16BitsToF32(h))
		case "bf16":
			h := interp.F32ToBF16Bits(v)
			binary.LittleEndian.PutUint16(out[2*i:], h)
			x[i] = float64(interp.BF16BitsToF32(h))
		default:
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
			x[i] = float64(v)
		}
	}
	return x, out
}

// decodeC turns C's bytes of type t into float64s.
func decodeC(t string, b []byte) []float64 {
	n := int64(len(b)) / typeBytes(t)
	out := make([]float64, n)
	for i := range out {
		switch t {
		case "f16":
			out[i] = float64(interp.F16BitsToF32(binary.LittleEndian.Uint16(b[2*i:])))
		case "bf16":
			out[i] = float64(interp.BF16BitsToF32(binary.LittleEndian.Uint16(b[2*i:])))
		default:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
	}
	return out
}

// outUnit is the unit roundoff of C's type (0 for f32, whose rounding the
// accumulation bound covers).
func outUnit(t string) float64 {
	switch t {
	case "f16":
		return 0x1p-11
	case "bf16":
		return 0x1p-8
	}
	return 0
}

// benchCheck compares 256 random entries of C with a float64 reference of
// the (rounded) inputs and returns the largest error as a fraction of the
// bound (2·K·u + u_C)·Σ|a·b|: f32 accumulation (u = 2^-24), then one
// rounding to C's type (u_C: 2^-11 for f16, 2^-8 for bf16, 0 for f32).
func benchCheck(rng *rand.Rand, o coopmat.Options, a, b, c []float64) float64 {
	ct := cTypeOf(o)
	worst := 0.0
	for s := 0; s < 256; s++ {
		i, j := rng.Intn(o.M), rng.Intn(o.N)
		var sum, abs float64
		for k := 0; k < o.K; k++ {
			bk := b[k*o.N+j]
			if o.TransB {
				bk = b[j*o.K+k]
			}
			x := a[i*o.K+k] * bk
			sum += x
			abs += math.Abs(x)
		}
		tol := (2*float64(o.K)*0x1p-24+outUnit(ct))*abs + 1e-30
		e := math.Abs(float64(c[i*o.N+j])-sum) / tol
		if math.IsNaN(e) {
			return math.Inf(1)
		}
		worst = math.Max(worst, e)
	}
	return worst
}
