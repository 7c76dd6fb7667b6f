package kernels_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// shapes cover 1, 3, 17 and 1000 elements and sizes that are no multiple
// of the 256-wide workgroups or of any row length; 1000, 4 and 12x20
// (lengths that are multiples of 4) take the vec4 kernels.
var elemShapes = [][]int{{1}, {3}, {17}, {1000}, {7, 333}, {3, 5, 67}, {4}, {12, 20}}

const u = 1.0 / (1 << 24) // f32 unit roundoff

func TestBinary(t *testing.T) { testBinary(t, open(t, "vulkan")) }

func testBinary(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	ops := []struct {
		name string
		run  func(a, b *kernels.Tensor) (*kernels.Tensor, error)
		ref  func(a, b float64) float64
		tl   kctest.Tol
	}{
		// add, sub and mul are correctly rounded: within one rounding of
		// the exact result. Vulkan allows 2.5 ulp for division.
		{"add", c.Add, func(a, b float64) float64 { return a + b }, kctest.Tol{Abs: 1e-30, Rel: u}},
		{"sub", c.Sub, func(a, b float64) float64 { return a - b }, kctest.Tol{Abs: 1e-30, Rel: u}},
		{"mul", c.Mul, func(a, b float64) float64 { return a * b }, kctest.Tol{Abs: 1e-30, Rel: u}},
		{"div", c.Div, func(a, b float64) float64 { return a / b }, kctest.Tol{Abs: 1e-30, Rel: 6 * u}},
	}
	for _, shape := range elemShapes {
		n := 1
		for _, d := range shape {
			n *= d
		}
		for _, op := range ops {
			as := kctest.Randn(rng, n, -4, 4)
			bs := kctest.Randn(rng, n, 0.25, 4) // away from zero, for div
			for i := range bs {
				if rng.Intn(2) == 0 {
					bs[i] = -bs[i]
				}
			}
			a, b := upload(t, c, as, shape...), upload(t, c, bs, shape...)
			out, err := op.run(a, b)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, n)
			for i := range want {
				want[i] = op.ref(float64(as[i]), float64(bs[i]))
			}
			kctest.Compare(t, op.name+kernelsShape(shape), host(t, out), want, op.tl)
		}
	}
}

// kernelsShape names a shape in test messages: _7_333.
func kernelsShape(s []int) string {
	var b strings.Builder
	for _, d := range s {
		fmt.Fprintf(&b, "_%d", d)
	}
	return b.String()
}

func TestUnary(t *testing.T) { testUnary(t, open(t, "vulkan")) }

func testUnary(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	ops := []struct {
		name   string
		run    func(x *kernels.Tensor) (*kernels.Tensor, error)
		ref    func(x float64) float64
		lo, hi float64
		tl     kctest.Tol
	}{
		{"relu", c.ReLU, func(x float64) float64 { return math.Max(x, 0) }, -4, 4, kctest.Tol{}},
		// exp-based ops: Vulkan allows 3 + 2|x| ulp for exp; with |x| < 10
		// a relative 2e-5 bound (plus 1e-7 absolute, near zero) covers it.
		{"sigmoid", c.Sigmoid, sig, -10, 10, kctest.Tol{Abs: 1e-7, Rel: 2e-5}},
		{"silu", c.SiLU, func(x float64) float64 { return x * sig(x) }, -10, 10, kctest.Tol{Abs: 1e-7, Rel: 2e-5}},
		{"gelu", c.GELU, func(x float64) float64 {
			return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		}, -10, 10, kctest.Tol{Abs: 1e-6, Rel: 2e-5}},
		{"sqrt", c.Sqrt, math.Sqrt, 0, 100, kctest.Tol{Abs: 1e-30, Rel: 4 * u}},
	}
	for _, shape := range elemShapes {
		n := 1
		for _, d := range shape {
			n *= d
		}
		for _, op := range ops {
			xs := kctest.Randn(rng, n, op.lo, op.hi)
			out, err := op.run(upload(t, c, xs, shape...))
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, n)
			for i := range want {
				want[i] = op.ref(float64(xs[i]))
			}
			kctest.Compare(t, op.name+kernelsShape(shape), host(t, out), want, op.tl)
		}
	}
}

func TestScaleAndBias(t *testing.T) { testScaleAndBias(t, open(t, "vulkan")) }

func testScaleAndBias(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	for _, shape := range elemShapes {
		n := 1
		for _, d := range shape {
			n *= d
		}
		d := shape[len(shape)-1]
		as := kctest.Randn(rng, n, -4, 4)
		s := kctest.Randn(rng, 1, -3, 3)
		bs := kctest.Randn(rng, d, -4, 4)
		a := upload(t, c, as, shape...)
		sc, err := c.Scale(a, upload(t, c, s, 1))
		if err != nil {
			t.Fatal(err)
		}
		bi, err := c.AddBias(a, upload(t, c, bs, d))
		if err != nil {
			t.Fatal(err)
		}
		wantS := make([]float64, n)
		wantB := make([]float64, n)
		for i := range wantS {
			wantS[i] = float64(as[i]) * float64(s[0])
			wantB[i] = float64(as[i]) + float64(bs[i%d])
		}
		kctest.Compare(t, "scale"+kernelsShape(shape), host(t, sc), wantS, kctest.Tol{Abs: 1e-30, Rel: u})
		kctest.Compare(t, "addbias"+kernelsShape(shape), host(t, bi), wantB, kctest.Tol{Abs: 1e-30, Rel: u})
	}
}
