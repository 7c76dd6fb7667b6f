package kernels_test

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/kernels"
)

// halfSizes are the lengths the 16-bit tests cover: odd ones end in half a
// word, 1000 is no multiple of the 256-wide workgroups.
var halfSizes = []int{1, 3, 17, 1000, 4096}

// round rounds x to d as the host conversion does (to nearest even).
func round(d kernels.DType, x float32) float32 {
	switch d {
	case kernels.F16:
		return interp.F16BitsToF32(interp.F32ToF16Bits(x))
	case kernels.BF16:
		return interp.BF16BitsToF32(interp.F32ToBF16Bits(x))
	}
	return x
}

// roundAll rounds every element of each of xss to d in place (the inputs
// of a 16-bit op, so that the float64 reference sees what the device
// does).
func roundAll(d kernels.DType, xss ...[]float32) {
	for _, xs := range xss {
		for i := range xs {
			xs[i] = round(d, xs[i])
		}
	}
}

// halfTol is a result rounded once to d after f32 arithmetic: half an ulp
// of d relative (2^-11 for f16, 2^-8 for bf16) with room for the f32 work
// before it, and an absolute floor for results near zero.
func halfTol(d kernels.DType) kctest.Tol {
	if d == kernels.BF16 {
		return kctest.Tol{Abs: 1e-6, Rel: 1.0 / 256 * 1.01}
	}
	return kctest.Tol{Abs: 1e-6, Rel: 1.0 / 2048 * 1.01}
}

// randHalf draws n values whose magnitudes spread over [2^-8, 4), signs
// mixed (no f16 subnormals, which a device may flush).
func randHalf(rng *rand.Rand, n int) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		v := math.Ldexp(1+rng.Float64(), rng.Intn(10)-8)
		if rng.Intn(2) == 0 {
			v = -v
		}
		xs[i] = float32(v)
	}
	return xs
}

func uploadOf(t *testing.T, c *kernels.Context, d kernels.DType, xs []float32, shape ...int) *kernels.Tensor {
	t.Helper()
	x, err := c.TensorOf(d, xs, shape...)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

var halfTypes = []kernels.DType{kernels.F16, kernels.BF16}

// TestDTypeRoundTrip: TensorOf rounds on the host, ToHost widens exactly;
// TensorBits uploads bit patterns as they are.
func TestDTypeRoundTrip(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	for _, d := range []kernels.DType{kernels.F32, kernels.F16, kernels.BF16} {
		for _, n := range halfSizes {
			xs := kctest.Randn(rng, n, -70000, 70000)
			got := host(t, uploadOf(t, c, d, xs, n))
			for i, x := range xs {
				if w := round(d, x); got[i] != w {
					t.Fatalf("%s[%d]: %g came back as %g, want %g", d, i, x, got[i], w)
				}
			}
		}
	}
	bits := []uint16{0x3c00, 0xc000, 0x7bff}
	x, err := c.TensorBits(kernels.F16, bits, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := host(t, x); got[0] != 1 || got[1] != -2 || got[2] != 65504 {
		t.Errorf("f16 bits %x read back as %v", bits, got)
	}
	if x.DType() != kernels.F16 || x.View().Size != 6 || kernels.F16.Size() != 2 || kernels.BF16.String() != "bf16" {
		t.Errorf("f16 tensor: type %s, %d bytes", x.DType(), x.View().Size)
	}
}

// TestBits: Bits reads an f16 or bf16 tensor's raw patterns back as
// TensorBits uploaded them (NaN payloads included), of whole tensors and
// of odd-length Rows views; an f32 tensor is refused.
func TestBits(t *testing.T) {
	c := open(t, "vulkan")
	rng := kctest.NewRand(t)
	ctx := context.Background()
	for _, d := range halfTypes {
		for _, n := range halfSizes {
			bits := make([]uint16, n)
			for i := range bits {
				bits[i] = uint16(rng.Uint32())
			}
			x, err := c.TensorBits(d, bits, n, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, err := x.Bits(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, bits) {
				t.Fatalf("%s[%d]: bits came back changed: %x..., want %x...", d, n, got[:min(n, 4)], bits[:min(n, 4)])
			}
			if n < 130 {
				continue
			}
			// Rows from 128 (byte 256, aligned for any Vulkan device) to
			// n-1: an odd-length view of a larger storage.
			v, err := x.Rows(128, n-1)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := v.Bits(ctx); err != nil || !slices.Equal(got, bits[128:n-1]) {
				t.Fatalf("%s[%d] rows [128, %d): %v, bits equal %v", d, n, n-1, err, slices.Equal(got, bits[128:n-1]))
			}
		}
	}
	f := uploadOf(t, c, kernels.F32, make([]float32, 3), 3)
	var se *kernels.ShapeError
	const want = "kernels: bits [3]: raw bits are for f16 and bf16 tensors, not f32"
	if got, err := f.Bits(ctx); got != nil || !errors.As(err, &se) || err.Error() != want {
		t.Errorf("Bits of an f32 tensor: %v, %v; want a *ShapeError %q", got, err, want)
	}
}

// TestCast: every conversion between the three types on the device
// matches the host's rounding bit for bit.
func TestCast(t *testing.T) { testCast(t, open(t, "vulkan")) }

func testCast(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	all := []kernels.DType{kernels.F32, kernels.F16, kernels.BF16}
	for _, from := range all {
		for _, to := range all {
			for _, n := range halfSizes {
				xs := randHalf(rng, n)
				xs[0] = float32(rng.NormFloat64() * 1000) // beyond bf16's precision, within f16's range
				x := uploadOf(t, c, from, xs, n)
				y, err := c.Cast(x, to)
				if err != nil {
					t.Fatal(err)
				}
				if y.DType() != to {
					t.Fatalf("cast to %s made a %s", to, y.DType())
				}
				got := host(t, y)
				for i, v := range xs {
					if w := round(to, round(from, v)); got[i] != w {
						t.Fatalf("cast %s to %s, n %d: [%d] %g became %g, want %g", from, to, n, i, v, got[i], w)
					}
				}
			}
		}
	}
}

// TestHalfElementwise: the f16 and bf16 elementwise ops against float64
// on the rounded inputs, within one rounding to the type.
func TestHalfElementwise(t *testing.T) { testHalfElementwise(t, open(t, "vulkan")) }

func testHalfElementwise(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	bin := []struct {
		name string
		run  func(a, b *kernels.Tensor) (*kernels.Tensor, error)
		ref  func(a, b float64) float64
	}{
		{"add", c.Add, func(a, b float64) float64 { return a + b }},
		{"sub", c.Sub, func(a, b float64) float64 { return a - b }},
		{"mul", c.Mul, func(a, b float64) float64 { return a * b }},
		{"div", c.Div, func(a, b float64) float64 { return a / b }},
	}
	un := []struct {
		name string
		run  func(x *kernels.Tensor) (*kernels.Tensor, error)
		ref  func(x float64) float64
	}{
		{"relu", c.ReLU, func(x float64) float64 { return math.Max(x, 0) }},
		{"sigmoid", c.Sigmoid, sig},
		{"silu", c.SiLU, func(x float64) float64 { return x * sig(x) }},
	}
	for _, d := range halfTypes {
		tl := halfTol(d)
		for _, n := range halfSizes {
			as, bs := randHalf(rng, n), randHalf(rng, n)
			a, b := uploadOf(t, c, d, as, n), uploadOf(t, c, d, bs, n)
			for _, op := range bin {
				out, err := op.run(a, b)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float64, n)
				for i := range want {
					want[i] = op.ref(float64(round(d, as[i])), float64(round(d, bs[i])))
				}
				kctest.Compare(t, d.String()+" "+op.name, host(t, out), want, tl)
			}
			for _, op := range un {
				out, err := op.run(a)
				if err != nil {
					t.Fatal(err)
				}
				want := make([]float64, n)
				for i := range want {
					want[i] = op.ref(float64(round(d, as[i])))
				}
				kctest.Compare(t, d.String()+" "+op.name, host(t, out), want, tl)
			}
		}
	}
}

// TestHalfNorms: RMSNorm and LayerNorm on f16 and bf16 rows (odd lengths
// through f32) against float64 on the rounded inputs.
func TestHalfNorms(t *testing.T) { testHalfNorms(t, open(t, "vulkan")) }

func testHalfNorms(t *testing.T, c *kernels.Context) {
	rng := kctest.NewRand(t)
	const eps = 1e-5
	for _, d := range halfTypes {
		for _, sh := range [][2]int{{1, 1}, {3, 3}, {2, 17}, {5, 1000}, {3, 4096}, {1, 1001}} {
			rows, n := sh[0], sh[1]
			xs, ws, bs := randHalf(rng, rows*n), kctest.Randn(rng, n, 0.5, 1.5), kctest.Randn(rng, n, -1, 1)
			x, w, b := uploadOf(t, c, d, xs, rows, n), uploadOf(t, c, d, ws, n), uploadOf(t, c, d, bs, n)
			rms, err := c.RMSNorm(x, w, eps)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := c.LayerNorm(x, w, b, eps)
			if err != nil {
				t.Fatal(err)
			}
			wr, wl := make([]float64, rows*n), make([]float64, rows*n)
			for r := 0; r < rows; r++ {
				row := make([]float64, n)
				var s, q, mean float64
				for i := range row {
					row[i] = float64(round(d, xs[r*n+i]))
					s += row[i]
					q += row[i] * row[i]
				}
				mean = s / float64(n)
				var v float64
				for _, e := range row {
					v += (e - mean) * (e - mean)
				}
				ir, il := 1/math.Sqrt(q/float64(n)+eps), 1/math.Sqrt(v/float64(n)+eps)
				for i, e := range row {
					wi, bi := float64(round(d, ws[i])), float64(round(d, bs[i]))
					wr[r*n+i] = e * ir * wi
					wl[r*n+i] = (e-mean)*il*wi + bi
				}
			}
			tl := halfTol(d)
			tl.Abs = 1e-4 // the sums' f32 error, relative to the row's scale (~1)
			kctest.Compare(t, d.String()+" rmsnorm", host(t, rms), wr, tl)
			kctest.Compare(t, d.String()+" layernorm", host(t, ln), wl, tl)
			if rms.DType() != d || ln.DType() != d {
				t.Errorf("norms of %s made %s and %s", d, rms.DType(), ln.DType())
			}
		}
	}
}

// TestDTypeErrors: mixed types and types an op does not take are
// *ShapeErrors naming the op and each operand's type and shape.
func TestDTypeErrors(t *testing.T) {
	c := open(t, "vulkan")
	f := uploadOf(t, c, kernels.F32, make([]float32, 6), 2, 3)
	h := uploadOf(t, c, kernels.F16, make([]float32, 6), 2, 3)
	b := uploadOf(t, c, kernels.BF16, make([]float32, 3), 3)
	b32 := uploadOf(t, c, kernels.BF16, make([]float32, 6), 3, 2)
	f32 := uploadOf(t, c, kernels.F32, make([]float32, 6), 3, 2)
	cases := []refusal{
		{"kernels: add f32[2 3] f16[2 3]: element types differ (f32 and f16)", func() (*kernels.Tensor, error) { return c.Add(f, h) }},
		{"kernels: rmsnorm f16[2 3] bf16[3]: element types differ (f16 and bf16)", func() (*kernels.Tensor, error) { return c.RMSNorm(h, b, 1e-5) }},
		{"kernels: matmul f16[2 3] bf16[3 2]: element types differ (f16 and bf16): want one type, or f32 times f16 or bf16", func() (*kernels.Tensor, error) { return c.MatMul(h, b32) }},
		{"kernels: matmul f16[2 3] f32[3 2]: element types differ (f16 and f32): want one type, or f32 times f16 or bf16", func() (*kernels.Tensor, error) { return c.MatMul(h, f32) }},
		{"kernels: matmulbt f16[2 3] bf16[3 2]: want [m k] and [n k]", func() (*kernels.Tensor, error) { return c.MatMulBT(h, b32, 1) }},
		{"kernels: softmax f16[2 3]: softmax takes f32 tensors only, not f16", func() (*kernels.Tensor, error) { return c.Softmax(h) }},
		{"kernels: gelu f16[2 3]: gelu takes f32 tensors only, not f16", func() (*kernels.Tensor, error) { return c.GELU(h) }},
		{"kernels: tensorbits [1]: raw bits are for f16 and bf16 tensors, not f32", func() (*kernels.Tensor, error) { return c.TensorBits(kernels.F32, []uint16{1}, 1) }},
		{"kernels: tensor bf16[2]: 3 values for 2 elements", func() (*kernels.Tensor, error) { return c.TensorOf(kernels.BF16, make([]float32, 3), 2) }},
	}
	checkRefused(t, c, cases)
	if _, err := c.Cast(f, kernels.DType(9)); err == nil {
		t.Errorf("cast to an unknown type: no error")
	}
}
