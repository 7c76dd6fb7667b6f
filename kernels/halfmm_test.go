package kernels_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// halfUlp is half an ulp of d relative to the value (0 for f32).
func halfUlp(d kernels.DType) float64 {
	switch d {
	case kernels.F16:
		return 1.0 / 2048
	case kernels.BF16:
		return 1.0 / 256
	}
	return 0
}

// TestHalfMatMul: MatMul and MatMulBT with f16 and bf16 weights, a f32
// or of the weights' type, against float64 on the rounded inputs. The
// bound per element: the f32 accumulation, 2(k+2)·u·Σ|a·b|; a rounding of
// f32 a to the weights' type (devices with cooperative matrices multiply
// in 16 bits), half an ulp of Σ|a·b|; a 16-bit result's rounding, half an
// ulp of it. Rows of 1 to 16 take gemv.kc (MatMulBT), more the
// cooperative-matrix product or its f32 fallback.
func TestHalfMatMul(t *testing.T) { testHalfMatMul(t, open(t, "vulkan")) }

func testHalfMatMul(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	shapes := [][3]int{{1, 1, 1}, {1, 3, 17}, {3, 17, 5}, {1, 1000, 3}, {16, 64, 1000}, {5, 4096, 24}, {17, 8, 9}, {40, 72, 33}}
	for _, d := range halfTypes {
		for _, ad := range []kernels.DType{kernels.F32, d} {
			for _, mkn := range shapes {
				m, k, n := mkn[0], mkn[1], mkn[2]
				as, bs := kctest.Randn(rng, m*k, -1, 1), kctest.Randn(rng, k*n, -1, 1)
				a, b, bt := uploadOf(t, c, ad, as, m, k), uploadOf(t, c, d, bs, k, n), uploadOf(t, c, d, bs, n, k)
				scale := float32(0.5 + rng.Float64())
				ab, err := c.MatMul(a, b)
				if err != nil {
					t.Fatal(err)
				}
				abt, err := c.MatMulBT(a, bt, scale)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s·%s %dx%dx%d", ad, d, m, k, n)
				checkHalfProduct(t, name+" matmul", host(t, ab), as, bs, m, k, n, ad, d, false, 1)
				checkHalfProduct(t, name+" matmulbt", host(t, abt), as, bs, m, k, n, ad, d, true, float64(scale))
				if ab.DType() != ad || abt.DType() != ad {
					t.Errorf("%s: results %s and %s, want %s", name, ab.DType(), abt.DType(), ad)
				}
			}
		}
	}
}

// TestGEMVShapes runs the decode products through every team size and
// rows-per-team of gemv.kc, on the vector and the element kernels.
func TestGEMVShapes(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	defer c.SetGEMV(0, 0)
	for _, tr := range [][2]int{{32, 1}, {32, 4}, {64, 2}, {128, 1}, {256, 2}} {
		c.SetGEMV(tr[0], tr[1])
		for _, mkn := range [][3]int{{1, 64, 37}, {3, 17, 70}, {16, 128, 9}, {2, 1000, 1000}} {
			m, k, n := mkn[0], mkn[1], mkn[2]
			for _, ad := range []kernels.DType{kernels.F32, kernels.F16} {
				as, bs := kctest.Randn(rng, m*k, -1, 1), kctest.Randn(rng, k*n, -1, 1)
				a, bt := uploadOf(t, c, ad, as, m, k), uploadOf(t, c, kernels.F16, bs, n, k)
				y, err := c.MatMulBT(a, bt, 1)
				if err != nil {
					t.Fatal(err)
				}
				checkHalfProduct(t, fmt.Sprintf("team %d rows %d, %s %dx%dx%d", tr[0], tr[1], ad, m, k, n), host(t, y), as, bs, m, k, n, ad, kernels.F16, true, 1)
			}
		}
	}
}

// checkHalfProduct compares got with scale·a·b (or a·bᵀ, bs then [n, k])
// on the rounded inputs.
func checkHalfProduct(t *testing.T, name string, got, as, bs []float32, m, k, n int, ad, bd kernels.DType, tr bool, scale float64) {
	t.Helper()
	bad := 0
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, mag float64
			for p := 0; p < k; p++ {
				bv := bs[p*n+j]
				if tr {
					bv = bs[j*k+p]
				}
				x, y := float64(round(ad, as[i*k+p])), float64(round(bd, bv))
				s += x * y
				mag += math.Abs(x * y)
			}
			want := s * scale
			bound := (2*float64(k+2)*u*mag + halfUlp(bd)*mag) * scale
			if ad != kernels.F32 {
				bound = 2*float64(k+2)*u*mag*scale + halfUlp(ad)*(math.Abs(want)+bound)
			}
			if g := float64(got[i*n+j]); !(math.Abs(g-want) <= bound) {
				if bad < 5 {
					t.Errorf("%s [%d,%d] = %g, want %g (bound %.3g)", name, i, j, g, want, bound)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values out of bounds", name, bad, m*n)
	}
}

// TestGEMVT runs the decode shapes of MatMul (gemvt.kc) on the vector
// kernel (n a multiple of 8) and the element one, with one slice of k and
// several, f16 and bf16 weights.
func TestGEMVT(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	defer c.SetGEMVTSlices(0)
	for i, d := range halfTypes {
		c.SetGEMVTSlices(i * 5) // the default, then 5 slices
		for _, mkn := range [][3]int{{1, 64, 40}, {4, 1000, 1024}, {2, 4096, 16}, {3, 7, 2048}, {1, 300, 1001}} {
			m, k, n := mkn[0], mkn[1], mkn[2]
			for _, ad := range []kernels.DType{kernels.F32, d} {
				as, bs := kctest.Randn(rng, m*k, -1, 1), kctest.Randn(rng, k*n, -1, 1)
				a, b := uploadOf(t, c, ad, as, m, k), uploadOf(t, c, d, bs, k, n)
				y, err := c.MatMul(a, b)
				if err != nil {
					t.Fatal(err)
				}
				checkHalfProduct(t, fmt.Sprintf("%s·%s %dx%dx%d", ad, d, m, k, n), host(t, y), as, bs, m, k, n, ad, d, false, 1)
			}
		}
	}
}

// TestGEMVF32 runs f32 products scale·a·bᵀ of few rows through gemv.kc's
// gemv4f (the default for them) in several team shapes, both
// reductions, against float64, and checks by the dispatches' names that
// gemv4f ran where k is a multiple of 4 (coopmat otherwise).
func TestGEMVF32(t *testing.T) {
	c := open(t, "vulkan")
	timed := c.Device().Info().Timestamps
	rng := kctest.NewRand(t)
	defer c.SetGEMV(0, 0)
	defer c.SetGEMVSubgroups(0)
	defer c.SetGEMVUnroll(0)
	// team, rows a team, reduction (1 subgroups, -1 shared memory),
	// strides of k a step
	for _, sh := range [][4]int{{0, 0, 0, 0}, {64, 2, -1, 1}, {128, 4, 1, 2}, {256, 1, -1, 4}, {32, 8, 1, 1}, {64, 2, -1, 2}} {
		c.SetGEMV(sh[0], sh[1])
		c.SetGEMVSubgroups(sh[2])
		c.SetGEMVUnroll(sh[3])
		for _, mkn := range [][3]int{{1, 4, 37}, {3, 1000, 1001}, {8, 64, 9}, {5, 4096, 70}, {2, 30, 33}, {16, 260, 67}} {
			m, k, n := mkn[0], mkn[1], mkn[2]
			as, bs := kctest.Randn(rng, m*k, -1, 1), kctest.Randn(rng, n*k, -1, 1)
			a, b := upload(t, c, as, m, k), upload(t, c, bs, n, k)
			scale := 0.5 + rng.Float64()
			if err := c.SetTimed(timed); err != nil {
				t.Fatal(err)
			}
			c.TakeTimings()
			y, err := c.MatMulBT(a, b, float32(scale))
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("gemv4f %v %dx%dx%d", sh, m, k, n)
			got := host(t, y)
			c.SetTimed(false)
			if timed {
				ran := false
				for _, tm := range c.TakeTimings() {
					ran = ran || tm.Name == "gemv4f"
				}
				if want := k%4 == 0; ran != want {
					t.Errorf("%s: gemv4f ran %v, want %v", name, ran, want)
				}
			}
			checkHalfProduct(t, name, got, as, bs, m, k, n, kernels.F32, kernels.F32, true, scale)
			y.Release()
			a.Release()
			b.Release()
		}
	}
}
