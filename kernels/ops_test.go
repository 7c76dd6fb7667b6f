package kernels_test

import (
	"fmt"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
	"math"
	"testing"
)

// TestMatMul checks MatMul and MatMulBT against a float64 product, with
// sizes around coopmat's tiles (none a multiple). The bound is the
// classic one for a sum of k products in f32 in any order, fused or not:
// |got - exact| <= 2·k·u·Σ|a·b|·|scale|.
func TestMatMul(t *testing.T) { testMatMul(t, open(t, "vulkan")) }

func testMatMul(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, mkn := range [][3]int{{1, 1, 1}, {3, 17, 5}, {17, 3, 1000}, {1, 1000, 3}, {65, 33, 129}} {
		m, k, n := mkn[0], mkn[1], mkn[2]
		as := kctest.Randn(rng, m*k, -1, 1)
		bs := kctest.Randn(rng, k*n, -1, 1)
		a, b := upload(t, c, as, m, k), upload(t, c, bs, k, n)
		bt := upload(t, c, bs, n, k)
		scale := float32(0.5 + rng.Float64())
		ab, err := c.MatMul(a, b)
		if err != nil {
			t.Fatal(err)
		}
		abt, err := c.MatMulBT(a, bt, scale)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range []bool{false, true} {
			want := make([]float64, m*n)
			var tls []float64
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var s, mag float64
					for p := 0; p < k; p++ {
						bv := float64(bs[p*n+j])
						if tr {
							bv = float64(bs[j*k+p])
						}
						s += float64(as[i*k+p]) * bv
						mag += math.Abs(float64(as[i*k+p]) * bv)
					}
					sc := 1.0
					if tr {
						sc = float64(scale)
					}
					want[i*n+j] = s * sc
					tls = append(tls, 2*float64(k+2)*u*mag*sc)
				}
			}
			got := host(t, ab)
			name := "matmul"
			if tr {
				got, name = host(t, abt), "matmulbt"
			}
			for i := range got {
				if d := math.Abs(float64(got[i]) - want[i]); !(d <= tls[i]+1e-30) {
					t.Fatalf("%s %v [%d] = %g, want %g (bound %g)", name, mkn, i, got[i], want[i], tls[i])
				}
			}
		}
	}
}

// rowShapes: rows × d with d = 1, 3, 17, 1000 and lengths that are no
// multiple of the 256-wide workgroup; up to 32768 the row lives in
// registers (rowsreg4.kc where d is a multiple of 4: 1000 and 5000 in 256
// invocations, 32768 in 1024 of 8 vectors; rowsreg.kc for the others:
// 20001 in 1024 of 20), 40000 and 131075 take the looping kernel; 12004
// is a long row (more than 8192) that leaves invocations without a full
// share.
var rowShapes = [][]int{{1, 1}, {3, 3}, {5, 17}, {2, 1000}, {4, 257}, {2, 3, 300}, {2, 5000}, {1, 20001}, {3, 12004}, {1, 32768}, {1, 40000}, {1, 131075}}

// TestLongRowVariants runs softmax and the norms in every configuration
// of long rows the host may choose, layernorm's subgroup reductions
// (rowssg4.kc, lavapipe's subgroups of 8) among them (those lavapipe's
// 32 KiB of shared memory refuse fall back to the default, tested as
// well). On a CPU device 12 of the 48 configurations a run (sample).
func TestLongRowVariants(t *testing.T) {
	c := open(t, "vulkan")
	defer c.SetRowTuning(kernels.RowTuning{})
	var tns []kernels.RowTuning
	for _, wg := range []int{512, 1024} {
		for _, sh := range []int{0, 1, 2} {
			for _, pf := range []int{0, 4} {
				for _, st := range []int{0, 1} {
					for _, sg := range []int{0, 1} {
						tns = append(tns, kernels.RowTuning{WG: wg, SH: sh, PF: pf, ST: st, SG: sg})
					}
				}
			}
		}
	}
	for _, tn := range sample(t, c, kctest.NewRand(t), tns, 12) {
		c.SetRowTuning(tn)
		t.Run(fmt.Sprintf("%+v", tn), func(t *testing.T) {
			long := [][]int{{3, 12004}, {2, 32768}}
			if tn.SG == 0 { // rowssg4.kc is layernorm's alone
				testSoftmaxShapes(t, c, long)
			}
			testNormsShapes(t, c, long)
		})
	}
}

// TestRowSweep: the layernorm configurations BenchmarkOps -sweep times,
// checked before they are timed on a device.
func TestRowSweep(t *testing.T) {
	c := open(t, "vulkan")
	defer c.SetRowTuning(kernels.RowTuning{})
	for _, tn := range rowSweepTunings {
		c.SetRowTuning(tn)
		t.Run(fmt.Sprintf("%+v", tn), func(t *testing.T) { testNormsShapes(t, c, [][]int{{3, 12004}, {2, 32768}}) })
	}
}

func TestSoftmax(t *testing.T) { testSoftmax(t, open(t, "vulkan")) }

func testSoftmax(t *testing.T, c *kernels.Context) { testSoftmaxShapes(t, c, rowShapes) }

func testSoftmaxShapes(t *testing.T, c *kernels.Context, rowShapes [][]int) {
	rng := kctest.NewRand(t)
	for _, shape := range rowShapes {
		rows, d := rowsD(shape)
		xs := kctest.Randn(rng, rows*d, -30, 30)
		xs[0] = 80 // exp(80) overflows f32: only a max-subtracted softmax survives
		y, err := c.Softmax(upload(t, c, xs, shape...))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, rows*d)
		for r := 0; r < rows; r++ {
			row := f64(xs[r*d : (r+1)*d])
			mx := math.Inf(-1)
			for _, v := range row {
				mx = math.Max(mx, v)
			}
			var s float64
			for _, v := range row {
				s += math.Exp(v - mx)
			}
			for i, v := range row {
				want[r*d+i] = math.Exp(v-mx) / s
			}
		}
		// exp within a few ulp of each term and a sum of d terms in f32
		kctest.Compare(t, "softmax"+kernelsShape(shape), host(t, y), want, kctest.Tol{Abs: 1e-9, Rel: 1e-5})
	}
}

func rowsD(shape []int) (rows, d int) {
	d = shape[len(shape)-1]
	rows = 1
	for _, s := range shape[:len(shape)-1] {
		rows *= s
	}
	return rows, d
}

func TestNorms(t *testing.T) { testNorms(t, open(t, "vulkan")) }

func testNorms(t *testing.T, c *kernels.Context) { testNormsShapes(t, c, rowShapes) }

func testNormsShapes(t *testing.T, c *kernels.Context, rowShapes [][]int) {
	rng := kctest.NewRand(t)
	const eps = 1e-5
	for _, shape := range rowShapes {
		rows, d := rowsD(shape)
		xs := kctest.Randn(rng, rows*d, -3, 5) // mean away from zero tests centring
		ws := kctest.Randn(rng, d, -2, 2)
		bs := kctest.Randn(rng, d, -1, 1)
		x := upload(t, c, xs, shape...)
		w, b := upload(t, c, ws, d), upload(t, c, bs, d)
		ln, err := c.LayerNorm(x, w, b, eps)
		if err != nil {
			t.Fatal(err)
		}
		rn, err := c.RMSNorm(x, w, eps)
		if err != nil {
			t.Fatal(err)
		}
		wantL := make([]float64, rows*d)
		wantR := make([]float64, rows*d)
		for r := 0; r < rows; r++ {
			row := f64(xs[r*d : (r+1)*d])
			var mean, sq float64
			for _, v := range row {
				mean += v
				sq += v * v
			}
			mean /= float64(d)
			var vr float64
			for _, v := range row {
				vr += (v - mean) * (v - mean)
			}
			vr /= float64(d)
			for i, v := range row {
				wantL[r*d+i] = (v-mean)/math.Sqrt(vr+eps)*float64(ws[i]) + float64(bs[i])
				wantR[r*d+i] = v / math.Sqrt(sq/float64(d)+eps) * float64(ws[i])
			}
		}
		// The normalised values are O(1)·|w| <= ~10; f32 reductions over
		// d <= 1000 and inverseSqrt (a few ulp) stay well within 1e-5
		// relative plus 2e-5 absolute.
		kctest.Compare(t, "layernorm"+kernelsShape(shape), host(t, ln), wantL, kctest.Tol{Abs: 2e-5, Rel: 1e-5})
		kctest.Compare(t, "rmsnorm"+kernelsShape(shape), host(t, rn), wantR, kctest.Tol{Abs: 2e-5, Rel: 1e-5})
	}
}

// TestTimedProduct: with timing on (benchmarks' -sweep), a product run by
// coopmat (Matmul.RunTimed) is timed like the library's own dispatches,
// and its result is still right.
func TestTimedProduct(t *testing.T) {
	c := open(t, "vulkan")
	if !c.Device().Info().Timestamps {
		kctest.Missing(t, "%s has no GPU timestamps", c.Device().Info().Name)
	}
	rng := kctest.NewRand(t)
	m, k, n := 5, 33, 70
	as, bs := kctest.Randn(rng, m*k, -1, 1), kctest.Randn(rng, k*n, -1, 1)
	a, b := upload(t, c, as, m, k), upload(t, c, bs, k, n)
	if err := c.SetTimed(true); err != nil {
		t.Fatal(err)
	}
	defer c.SetTimed(false)
	c.TakeTimings()
	y, err := c.MatMul(a, b)
	if err != nil {
		t.Fatal(err)
	}
	got := host(t, y)
	ts := c.TakeTimings()
	if len(ts) == 0 {
		t.Fatal("a timed product recorded no timing")
	}
	for _, tm := range ts {
		if !tm.Done || tm.Duration <= 0 {
			t.Errorf("timing %q: done %v, duration %v; want done with a positive duration", tm.Name, tm.Done, tm.Duration)
		}
	}
	checkHalfProduct(t, "timed matmul", got, as, bs, m, k, n, kernels.F32, kernels.F32, false, 1)
}
