package coopmat_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/ir/interp"
)

// TestCoopDevice runs the tensor-core kernels on a Vulkan device with
// cooperative matrices (the H200; scripts/h200-matmul.sh): correctness of
// both SPIR-V flavours' default plans against float64 (every entry of
// small products, 1024 sampled entries of large ones; relative error
// |c - ref| / (|scale|·Σ|a·b|) < 1e-2), of every candidate plan of a
// ragged and three skinny products (KHR), then the time of every
// candidate plan at 8192³ (f16 and bf16 A·B, f16 A·Bᵀ; median of 10 after
// a second of load), twice,
// each also checked there against float64 (1024 sampled entries), and
// every bf16 C also for rounding to nearest (type rounding).
// Devices without cooperative matrices (lavapipe, CI) skip it.
func TestCoopDevice(t *testing.T) {
	dev, ctx, rng := coopDevice(t)
	info := dev.Info()
	// KC_COOP_FOCUS, a regular expression over plan names, narrows a
	// follow-up measurement to the plans it matches (checked on the
	// ragged and skinny products, timed at 8192³) and skips the default
	// plans' checks and, unless it matches "gemv", the skinny products.
	focus := regexp.MustCompile(os.Getenv("KC_COOP_FOCUS"))
	if os.Getenv("KC_COOP_FOCUS") == "" {
		defaultChecks(t, ctx, dev, rng)
	}
	// Every candidate plan of a ragged product (edges on both sides of
	// 256x128 and 128x256 tiles), and of the skinny shapes, KHR flavour.
	for _, o := range []coopmat.Options{
		{M: 1000, N: 1000, K: 1000, DType: "f16"},
		{M: 1000, N: 1000, K: 1000, DType: "bf16", CType: "f32", TransB: true, Scale: 0.75},
		{M: 1, N: 4096, K: 4096, DType: "f16"},
		{M: 16, N: 4096, K: 4096, DType: "bf16"},
		{M: 5, N: 4100, K: 1000, DType: "f16", CType: "f32"},
		{M: 16, N: 4096, K: 4096, DType: "f16", TransB: true},
		{M: 5, N: 100, K: 260, DType: "bf16", CType: "f32", TransB: true},
	} {
		if o.M <= 16 && os.Getenv("KC_COOP_FOCUS") != "" && !focus.MatchString("gemv") && !focus.MatchString("skinny") {
			continue
		}
		cs, err := coopmat.Candidates(info, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range cs {
			if !focus.MatchString(p.String()) {
				continue
			}
			e := deviceCheck(t, ctx, dev, rng, p)
			fmt.Printf("RESULT check flavor=khr problem=%q plan=%q splits=%d relerr=%.3g\n", o.String(), p.String(), p.Splits, e)
			if !(e < 1e-2) {
				t.Errorf("khr %s %s: relative error %.3g, want < 1e-2", o, p, e)
			}
		}
	}
	skinnySweep(t, ctx, dev, rng, focus)
	// A·B in both types, and A·Bᵀ in f16: B's fragments come from a
	// k-major stage there (the layout mma takes without a transpose), so
	// the two f16 figures side by side show what loading B from a
	// row-major stage costs.
	for _, o := range []coopmat.Options{
		{M: 8192, N: 8192, K: 8192, DType: "f16"},
		{M: 8192, N: 8192, K: 8192, DType: "bf16"},
		{M: 8192, N: 8192, K: 8192, DType: "f16", TransB: true},
	} {
		dt := o.DType
		all, err := coopmat.Candidates(info, o)
		if err != nil {
			t.Fatal(err)
		}
		var cs []coopmat.Plan
		for _, p := range all {
			if focus.MatchString(p.String()) {
				cs = append(cs, p)
			}
		}
		if len(cs) == 0 {
			continue
		}
		bufs, a, b := deviceInputs(t, dev, rng, o)
		// Checks first, not between timings: on 2026-12-01 plans timed
		// right after a check (seconds of CPU work, the GPU idle) measured
		// up to 4x slower than in the next pass, falling clocks as far as
		// can be told.
		for _, p := range cs {
			e := checkOn(t, ctx, dev, rng, p, bufs, a, b)
			fmt.Printf("RESULT check flavor=khr problem=%q plan=%q splits=%d relerr=%.3g\n", o.String(), p.String(), p.Splits, e)
			if !(e < 1e-2) {
				t.Errorf("khr %s %s: relative error %.3g, want < 1e-2", o, p, e)
			}
			planStats(t, ctx, dev, p)
		}
		// Sustained load first (about a second), so that the clocks have
		// risen before anything is timed; then two passes over the plans,
		// so that the spread of one plan's figures shows.
		timeOne(t, ctx, dev, cs[0], bufs, "warmup", 60, 1)
		for pass := 0; pass < 2; pass++ {
			for _, p := range cs {
				timeOne(t, ctx, dev, p, bufs, "khr", 3, 10)
			}
			if dt == "f16" && !o.TransB {
				if p, err := withFlavor(info, cs[0], "nv"); err == nil {
					timeOne(t, ctx, dev, p, bufs, "nv", 3, 10)
				}
			}
		}
		for _, b := range bufs {
			b.Release()
		}
	}
}

// coopDevice opens the Vulkan device for the tests that run cooperative
// matrices, skipping where it has no f16 ones, with a context and a
// generator seeded afresh.
func coopDevice(t *testing.T) (*backend.Device, context.Context, *rand.Rand) {
	dev := backendtest.Open(t, "vulkan")
	if _, ok := coopmat.CoopShape(dev.Info(), "f16"); !ok {
		t.Skipf("%s has no f16 cooperative matrix with f32 accumulate", dev.Info().Name)
	}
	return dev, context.Background(), rand.New(rand.NewSource(time.Now().UnixNano()))
}

// TestCoopDeviceUnalignedC checks, on a Vulkan device with cooperative
// matrices, every tiled cooperative-matrix plan of two products whose C
// rows are not 16-byte aligned (1001 f16, 998 f32 elements): each stores
// C through its shared scratch element by element ("_cs" kernels), since
// Vulkan's cooperative stores need aligned rows (docs/semantics.md §7.2).
func TestCoopDeviceUnalignedC(t *testing.T) {
	dev, ctx, rng := coopDevice(t)
	info := dev.Info()
	for _, o := range []coopmat.Options{
		{M: 300, N: 1001, K: 264, DType: "f16"},
		{M: 130, N: 998, K: 100, DType: "bf16", CType: "f32", TransB: true, Scale: 0.5},
	} {
		cs, err := coopmat.Candidates(info, o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range cs {
			if p.Generator != "coopmat" {
				continue
			}
			n++
			e := deviceCheck(t, ctx, dev, rng, p)
			fmt.Printf("RESULT check flavor=khr problem=%q plan=%q splits=%d relerr=%.3g\n", o.String(), p.String(), p.Splits, e)
			if !(e < 1e-2) {
				t.Errorf("khr %s %s: relative error %.3g, want < 1e-2", o, p, e)
			}
		}
		if n == 0 {
			t.Errorf("%s: no tiled cooperative-matrix plan", o)
		}
	}
}

// skinnySweep times the decode-shaped products (1 and 16 rows of 4096 by
// 4096 weights, B and Bᵀ) with every skinny plan (gemv, and the skinny
// tensor-core kernel of skinny.go) and the untuned default, in GB/s over
// B's bytes (the weights: the product streams them once), each checked
// against float64 first. With KC_COOP_FOCUS set, only the skinny plans
// it matches beside the default.
func skinnySweep(t *testing.T, ctx context.Context, dev *backend.Device, rng *rand.Rand, focus *regexp.Regexp) {
	info := dev.Info()
	for _, o := range []coopmat.Options{
		{M: 16, N: 4096, K: 4096, DType: "f16"},
		{M: 16, N: 4096, K: 4096, DType: "f16", TransB: true},
		{M: 16, N: 4096, K: 4096, DType: "bf16", TransB: true},
		{M: 1, N: 4096, K: 4096, DType: "f16", TransB: true},
	} {
		all, err := coopmat.Candidates(info, o)
		if err != nil {
			t.Fatal(err)
		}
		def, err := coopmat.Choose(info, o)
		if err != nil {
			t.Fatal(err)
		}
		cs := []coopmat.Plan{def}
		for _, p := range all {
			if (p.Generator == "gemv" || p.Generator == "skinny") && focus.MatchString(p.String()) {
				cs = append(cs, p)
			}
		}
		bufs, a, b := deviceInputs(t, dev, rng, o)
		for _, p := range cs {
			e := checkOn(t, ctx, dev, rng, p, bufs, a, b)
			fmt.Printf("RESULT check flavor=khr problem=%q plan=%q splits=%d relerr=%.3g\n", o.String(), p.String(), p.Splits, e)
			if !(e < 1e-2) {
				t.Errorf("khr %s %s: relative error %.3g, want < 1e-2", o, p, e)
			}
		}
		for pass := 0; pass < 2; pass++ {
			for _, p := range cs {
				mm, err := coopmat.NewPlan(ctx, dev, p)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				d, err := mm.Time(ctx, bufs[0].View(), bufs[1].View(), bufs[2].View(), 20, 20)
				mm.Close()
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				fmt.Printf("RESULT skinny problem=%q plan=%q us=%.1f gbps=%.0f\n", o.String(), p.String(), d.Seconds()*1e6, 2*float64(o.K)*float64(o.N)/d.Seconds()/1e9)
			}
		}
		for _, b := range bufs {
			b.Release()
		}
	}
}

// defaultChecks runs the default plans of both SPIR-V flavours on the
// products of the issue against float64.
func defaultChecks(t *testing.T, ctx context.Context, dev *backend.Device, rng *rand.Rand) {
	info := dev.Info()
	i := 0
	for _, flavor := range []string{"khr", "nv"} {
		for _, dt := range []string{"f16", "bf16"} {
			if flavor == "nv" && dt == "bf16" {
				continue // SPV_NV_cooperative_matrix has no bf16
			}
			for _, sz := range [][3]int{{17, 33, 65}, {1000, 1000, 1000}, {4096, 4096, 1024}, {1, 4096, 4096}} {
				o := coopmat.Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: []string{"f32", "f16", "bf16"}[i%3], TransB: i%2 == 1}
				if flavor == "nv" && o.CType == "bf16" {
					o.CType = "f16" // nor bf16 results
				}
				if o.TransB {
					o.Scale = 0.5 + rng.Float32()
				}
				i++
				p, err := coopmat.Choose(info, o)
				if err != nil {
					t.Fatal(err)
				}
				if p, err = withFlavor(info, p, flavor); err != nil {
					t.Fatal(err)
				}
				e := deviceCheck(t, ctx, dev, rng, p)
				fmt.Printf("RESULT check flavor=%s problem=%q plan=%q splits=%d relerr=%.3g\n", flavor, o.String(), p.String(), p.Splits, e)
				if !(e < 1e-2) {
					t.Errorf("%s %s %s: relative error %.3g, want < 1e-2", flavor, o, p, e)
				}
			}
		}
	}
}

// planStats prints the driver's compile statistics of p's pipelines when
// the device captures them (KC_VULKAN_STATS), and with KC_STATS_DIR set
// writes their internal representations (KC_VULKAN_STATS=ir) there, one
// file each.
func planStats(t *testing.T, ctx context.Context, dev *backend.Device, p coopmat.Plan) {
	if os.Getenv("KC_VULKAN_STATS") == "" {
		return
	}
	mm, err := coopmat.NewPlan(ctx, dev, p)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	defer mm.Close()
	for _, pl := range mm.Pipelines() {
		st, err := pl.Statistics()
		if err != nil {
			fmt.Printf("RESULT stats problem=%q plan=%q kernel=%s err=%q\n", p.Options.String(), p.String(), pl.Name(), err)
			continue
		}
		line := ""
		for _, s := range st {
			line += fmt.Sprintf(" %s=%g", strings.ReplaceAll(s.Name, " ", "_"), s.Value)
		}
		fmt.Printf("RESULT stats problem=%q plan=%q kernel=%s%s\n", p.Options.String(), p.String(), pl.Name(), line)
		dir := os.Getenv("KC_STATS_DIR")
		if dir == "" {
			continue
		}
		reps, err := pl.Representations()
		if err != nil {
			fmt.Printf("RESULT reps kernel=%s err=%q\n", pl.Name(), err)
			continue
		}
		for i, r := range reps {
			ext := ".bin"
			if r.Text {
				ext = ".txt"
			}
			name := fmt.Sprintf("%s-%s-%d-%s%s", p.DType, pl.Name(), i, strings.Map(fileRune, r.Name), ext)
			if err := os.WriteFile(filepath.Join(dir, name), r.Data, 0o644); err != nil {
				t.Error(err)
			}
			fmt.Printf("RESULT reps kernel=%s file=%s bytes=%d\n", pl.Name(), name, len(r.Data))
		}
	}
}

// fileRune keeps letters and digits of a representation's name for a file
// name.
func fileRune(r rune) rune {
	if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
		return r
	}
	return '_'
}

func timeOne(t *testing.T, ctx context.Context, dev *backend.Device, p coopmat.Plan, bufs []*backend.Buffer, flavor string, warmups, samples int) {
	mm, err := coopmat.NewPlan(ctx, dev, p)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	defer mm.Close()
	d, err := mm.Time(ctx, bufs[0].View(), bufs[1].View(), bufs[2].View(), warmups, samples)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	fmt.Printf("RESULT time flavor=%s problem=%q plan=%q ms=%.3f tflops=%.1f\n", flavor, p.Options.String(), p.String(), d.Seconds()*1e3, p.Flops()/d.Seconds()/1e12)
}

// withFlavor returns p with the device's instruction shape of the same
// dimensions and types from the given extension's list.
func withFlavor(info backend.AdapterInfo, p coopmat.Plan, flavor string) (coopmat.Plan, error) {
	if p.Shape == nil {
		return p, nil // no cooperative matrices (the skinny kernel)
	}
	for _, s := range info.CoopMat {
		if s.Flavor == flavor && s.M == p.Shape.M && s.N == p.Shape.N && s.K == p.Shape.K && s.A == p.Shape.A && s.B == p.Shape.B &&
			s.C == p.Shape.C && s.Result == p.Shape.Result && s.Scope == p.Shape.Scope && !s.Saturating {
			q := p
			q.Shape = &s
			return q, nil
		}
	}
	return p, fmt.Errorf("%s offers no %s shape like %v", info.Name, flavor, *p.Shape)
}

func halfOf(dt string, v float32) (uint16, float64) {
	if dt == "bf16" {
		h := interp.F32ToBF16Bits(v)
		return h, float64(interp.BF16BitsToF32(h))
	}
	h := interp.F32ToF16Bits(v)
	return h, float64(interp.F16BitsToF32(h))
}

// deviceBufs allocates A and B (random, in [-1, 1)) and C for o.
func deviceBufs(t *testing.T, dev *backend.Device, rng *rand.Rand, o coopmat.Options) []*backend.Buffer {
	bufs, _, _ := deviceInputs(t, dev, rng, o)
	return bufs
}

func deviceInputs(t *testing.T, dev *backend.Device, rng *rand.Rand, o coopmat.Options) ([]*backend.Buffer, []float64, []float64) {
	t.Helper()
	dt := o.DType
	var vals [2][]float64
	var bufs []*backend.Buffer
	for i, n := range []int{o.M * o.K, o.K * o.N} {
		bits := make([]byte, 2*n)
		vals[i] = make([]float64, n)
		for j := range vals[i] {
			h, x := halfOf(dt, rng.Float32()*2-1)
			binary.LittleEndian.PutUint16(bits[2*j:], h)
			vals[i][j] = x
		}
		b, err := dev.Alloc(int64(len(bits)))
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Write(0, bits); err != nil {
			t.Fatal(err)
		}
		bufs = append(bufs, b)
	}
	cs := 4
	if o.CType == "f16" || o.CType == "bf16" || (o.CType == "" && dt != "f32") {
		cs = 2
	}
	c, err := dev.Alloc(int64(cs * o.M * o.N))
	if err != nil {
		t.Fatal(err)
	}
	// poison: 0xCD bytes are a large negative value in every type
	poison := make([]byte, cs*o.M*o.N)
	for j := range poison {
		poison[j] = 0xCD
	}
	if err := c.Write(0, poison); err != nil {
		t.Fatal(err)
	}
	return append(bufs, c), vals[0], vals[1]
}

// deviceCheck runs plan p on random inputs and returns the largest
// relative error over every entry (small products) or 1024 sampled ones.
func deviceCheck(t *testing.T, ctx context.Context, dev *backend.Device, rng *rand.Rand, p coopmat.Plan) float64 {
	t.Helper()
	o := p.Options
	bufs, a, b := deviceInputs(t, dev, rng, o)
	defer func() {
		for _, x := range bufs {
			x.Release()
		}
	}()
	return checkOn(t, ctx, dev, rng, p, bufs, a, b)
}

// checkOn poisons C, runs plan p on the inputs a and b already in bufs and
// returns the largest relative error over every entry (small products) or
// 1024 sampled ones, the last row and column among them.
func checkOn(t *testing.T, ctx context.Context, dev *backend.Device, rng *rand.Rand, p coopmat.Plan, bufs []*backend.Buffer, a, b []float64) float64 {
	t.Helper()
	o := p.Options
	poison := make([]byte, bufs[2].Size())
	for j := range poison {
		poison[j] = 0xCD
	}
	if err := bufs[2].Write(0, poison); err != nil {
		t.Fatal(err)
	}
	mm, err := coopmat.NewPlan(ctx, dev, p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	defer mm.Close()
	if err := mm.Run(bufs[0].View(), bufs[1].View(), bufs[2].View()); err != nil {
		t.Fatal(err)
	}
	got, err := dev.Read(ctx, bufs[2].View())
	if err != nil {
		t.Fatal(err)
	}
	ct := o.CType
	if ct == "" {
		ct = o.DType
	}
	at := func(i int) float64 {
		switch ct {
		case "f16":
			return float64(interp.F16BitsToF32(binary.LittleEndian.Uint16(got[2*i:])))
		case "bf16":
			return float64(interp.BF16BitsToF32(binary.LittleEndian.Uint16(got[2*i:])))
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])))
	}
	scale := float64(o.Scale)
	if scale == 0 {
		scale = 1
	}
	rounds := roundingOf(t, p, ct)
	worst := 0.0
	one := func(i, j int) {
		var sum, abs float64
		for k := 0; k < o.K; k++ {
			bk := b[k*o.N+j]
			if o.TransB {
				bk = b[j*o.K+k]
			}
			sum += a[i*o.K+k] * bk
			abs += math.Abs(a[i*o.K+k] * bk)
		}
		e := math.Abs(at(i*o.N+j)-scale*sum) / (math.Abs(scale)*abs + 1e-30)
		if math.IsNaN(e) {
			e = math.Inf(1)
		}
		worst = max(worst, e)
		rounds.add(i, j, at(i*o.N+j), scale*sum, math.Abs(scale)*abs)
	}
	defer rounds.done()
	if o.M*o.N <= 4096 {
		for i := 0; i < o.M; i++ {
			for j := 0; j < o.N; j++ {
				one(i, j)
			}
		}
		return worst
	}
	for s := 0; s < 1024; s++ {
		// include the last row and column: the edges
		i, j := rng.Intn(o.M), rng.Intn(o.N)
		if s == 0 {
			i, j = o.M-1, o.N-1
		}
		one(i, j)
	}
	return worst
}

// rounding checks that a bf16 C is rounded to nearest (even), not toward
// zero (NVIDIA's conversion of a cooperative matrix to bf16, H200
// 2026-12-01). With ref the float64 product and u one bf16 ulp of it
// (2^-8 relative at most), each element must lie within u/2 of ref plus
// the f32 accumulator's error bound (docs/semantics.md §7.2: 2·2^-24·Σ|a·b|
// per rounding, one per 16-wide k-step, one per split-k slice, one for the
// scale); rounding toward zero errs by up to a whole u, so it fails that
// bound on the elements whose f32 value lies more than u/2 plus the bound
// above the bf16 below it: about 40% of them at 1000³ (TestRoundingCheck).
// And the mean signed error in ulps toward ref's sign
// must be within ±1/4: round-to-nearest gives about 0 (±0.01 over 1024
// elements), toward zero about -1/2. f16 results (matrix conversions,
// whose rounding kc leaves to the target) are only reported.
type rounding struct {
	t          *testing.T
	p          coopmat.Plan
	ct         string
	mant       int // fraction bits of ct
	steps      float64
	n, bad     int
	sum, worst float64 // signed errors, in ulps
}

func roundingOf(t *testing.T, p coopmat.Plan, ct string) *rounding {
	r := &rounding{t: t, p: p, ct: ct, mant: 7, steps: math.Ceil(float64(p.K)/16) + float64(max(p.Splits, 1)) + 1}
	if ct == "f16" {
		r.mant = 10
	}
	return r
}

// ulpOf is one ulp of the rounded type at x (x != 0), subnormals ignored.
func (r *rounding) ulpOf(x float64) float64 {
	_, e := math.Frexp(x)
	return math.Ldexp(1, e-1-r.mant)
}

func (r *rounding) add(i, j int, got, ref, abs float64) {
	if r.ct != "bf16" && r.ct != "f16" || ref == 0 {
		return
	}
	u := r.ulpOf(ref)
	d := (got - ref) / u
	if ref < 0 {
		d = -d
	}
	r.n++
	r.sum += d
	r.worst = max(r.worst, math.Abs(d))
	bound := 0.5 + (2*r.steps*math.Ldexp(abs, -24)+math.Ldexp(math.Abs(ref), -24))/u
	if r.ct == "bf16" && !(math.Abs(d) <= bound) {
		if r.bad++; r.bad <= 5 && r.t != nil {
			r.t.Errorf("%s: C[%d][%d] = %g, float64 %g: off by %.3f bf16 ulps, more than %.3f (round to nearest)", r.p, i, j, got, ref, d, bound)
		}
	}
}

func (r *rounding) done() {
	if r.n == 0 || r.t == nil {
		return
	}
	mean := r.sum / float64(r.n)
	fmt.Printf("RESULT rounding problem=%q plan=%q type=%s elements=%d mean_ulps=%.4f worst_ulps=%.3f beyond_bound=%d\n",
		r.p.Options.String(), r.p.String(), r.ct, r.n, mean, r.worst, r.bad)
	if r.ct == "bf16" && r.n >= 256 && !(math.Abs(mean) <= 0.25) {
		r.t.Errorf("%s: mean signed error %.3f bf16 ulps over %d elements, want within ±0.25 (round to nearest; toward zero gives about -0.5)", r.p, mean, r.n)
	}
}

// TestRoundingCheck: the device check of bf16 rounding passes results
// rounded to nearest even and fails results rounded toward zero, on
// simulated 1000x1000x1000 products of inputs in [-1, 1) (accumulator
// error of a random walk over the k-steps, the worst the bound allows on
// a few).
func TestRoundingCheck(t *testing.T) {
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	p := coopmat.Plan{Options: coopmat.Options{M: 1000, N: 1000, K: 1000, DType: "bf16"}, Splits: 1}
	for _, mode := range []string{"nearest", "zero"} {
		r := roundingOf(nil, p, "bf16")
		for e := 0; e < 1024; e++ {
			var ref, abs float64
			for k := 0; k < p.K; k++ {
				x := (rng.Float64()*2 - 1) * (rng.Float64()*2 - 1)
				ref += x
				abs += math.Abs(x)
			}
			acc := float32(ref + rng.NormFloat64()*math.Sqrt(float64(p.K)/16)*math.Ldexp(math.Abs(ref), -24))
			h := interp.F32ToBF16Bits(acc)
			if mode == "zero" {
				h = uint16(math.Float32bits(acc) >> 16)
			}
			r.add(e, 0, float64(interp.BF16BitsToF32(h)), ref, abs)
		}
		mean := r.sum / float64(r.n)
		t.Logf("%s: mean %.4f ulps, %d of %d beyond the bound", mode, mean, r.bad, r.n)
		if pass := r.bad == 0 && math.Abs(mean) <= 0.25; pass != (mode == "nearest") {
			t.Errorf("rounding %s: %d of %d elements beyond the bound, mean %.3f ulps: the check passes %v, want %v", mode, r.bad, r.n, mean, pass, mode == "nearest")
		}
		if mode == "zero" && (r.bad < r.n/4 || mean > -0.4) {
			t.Errorf("rounding toward zero: only %d of %d elements beyond the bound, mean %.3f ulps: the check is weak", r.bad, r.n, mean)
		}
	}
}
