package interp

import (
	"math"
	"testing"

	"github.com/kcgo/kc/ir"
)

func TestULP(t *testing.T) {
	for _, c := range []struct {
		s    ir.Scalar
		v    float64
		want float64
	}{
		{ir.F32, 1, 0x1p-23}, {ir.F32, 1.5, 0x1p-23}, {ir.F32, -3, 0x1p-22}, {ir.F32, 0, 0x1p-149},
		{ir.F32, 1e-40, 0x1p-149}, {ir.F16, 1, 0x1p-10}, {ir.F16, 65504, 32}, {ir.F16, 1e-7, 0x1p-24},
	} {
		if got := ULP(c.s, c.v); got != c.want {
			t.Errorf("ULP(%s, %g) = %g, want %g", c.s, c.v, got, c.want)
		}
	}
}

func TestTolWithin(t *testing.T) {
	e := math.E
	u := ULP(ir.F32, e)
	exp := Tolerance(ir.Exp)
	for _, c := range []struct {
		tol       Tol
		s         ir.Scalar
		x, w, got float64
		ok        bool
	}{
		{exp, ir.F32, 1, e, e + 5*u, true}, // 3 + 2*1 ulp
		{exp, ir.F32, 1, e, e + 5.5*u, false},
		{Tolerance(ir.Sin), ir.F32, 1, 0.8, 0.8 + 0x1p-12, true},
		{Tolerance(ir.Sin), ir.F32, 1, 0.8, 0.8 + 0x1p-10, false},
		{Tolerance(ir.Sin), ir.F32, 4, 0.8, 100, true}, // outside [-pi, pi]: nothing promised
		{Tolerance(ir.Sin), ir.F16, 1, 0.8, 0.8 + 0x1p-8, true},
		{Tolerance(ir.Abs), ir.F32, 1, 1, 1 + 0x1p-23, false},
		{Tolerance(ir.Abs), ir.F32, 1, 1e-40, 0, true}, // denormal flushed
		{Tolerance(ir.Abs), ir.F32, 1, math.NaN(), math.NaN(), true},
		{Tolerance(ir.Abs), ir.F32, 1, 1, math.NaN(), false},
		{Tolerance(ir.Exp), ir.F32, 100, math.Inf(1), math.Inf(1), true},
		{Tolerance(ir.Exp), ir.F32, 100, math.Inf(1), math.MaxFloat32, false},
		{OpTolerance(ir.OpDiv), ir.F32, 1, 1, 1 + 2*0x1p-23, true},
		{OpTolerance(ir.OpAdd), ir.F32, 1, 1, 1 + 0x1p-23, false},
	} {
		if got := c.tol.Within(c.s, c.x, c.w, c.got); got != c.ok {
			t.Errorf("%+v.Within(%s, x=%g, want %g, got %g) = %v", c.tol, c.s, c.x, c.w, c.got, got)
		}
	}
	if got, want := SumBound(ir.F32, 100, 5), 4*0x1p-23*100; got != want {
		t.Errorf("SumBound = %g, want %g", got, want)
	}
	for _, f := range ir.Intrinsics() {
		tol := Tolerance(f)
		if tol.ULP < 0 || tol.Abs < 0 || tol.Lo > tol.Hi {
			t.Errorf("Tolerance(%s) = %+v", f, tol)
		}
	}
}

const unarySrc = `
enable f16

kernel un(x read []f32, out read_write []f32, hout read_write []f16) workgroup(64) {
	let i = global_id.x
	if i >= len(x) {
		return
	}
	let v = x[i]
	let a = abs(v) + 0.01
	let o = i * 11
	out[o] = exp(v)
	out[o + 1] = exp2(v)
	out[o + 2] = log(a)
	out[o + 3] = log2(a)
	out[o + 4] = sqrt(a)
	out[o + 5] = inverseSqrt(a)
	out[o + 6] = sin(v)
	out[o + 7] = cos(v)
	out[o + 8] = tan(v)
	out[o + 9] = tanh(v)
	out[o + 10] = pow(a, v * 0.25)
	let hv = f16(v)
	let ha = abs(hv) + 0.01
	hout[o] = exp(hv)
	hout[o + 1] = exp2(hv)
	hout[o + 2] = log(ha)
	hout[o + 3] = log2(ha)
	hout[o + 4] = sqrt(ha)
	hout[o + 5] = inverseSqrt(ha)
	hout[o + 6] = sin(hv)
	hout[o + 7] = cos(hv)
	hout[o + 8] = tan(hv)
	hout[o + 9] = tanh(hv)
	hout[o + 10] = pow(ha, hv * 0.25)
}
`

// TestMathCorrectlyRounded checks the interpreter's claim that its math
// intrinsics are correctly rounded to f32 and f16 (up to float64's own
// error), against Go's float64 functions of the exact operands.
func TestMathCorrectlyRounded(t *testing.T) {
	m := compile(t, unarySrc)
	r := newRNG(t)
	const n = 2000
	x := r.floats(n, -8, 8)
	out, hout := Poison(4*11*n), Poison(2*11*n)
	mustRun(t, m, "un", [3]int{ceilDiv(n, 64), 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "out": out, "hout": hout}}, Options{})
	got := f32s(t, out)
	hgot, _ := Decode[uint16](hout)
	fns := []func(v, a float64) float64{
		func(v, a float64) float64 { return math.Exp(v) },
		func(v, a float64) float64 { return math.Exp2(v) },
		func(v, a float64) float64 { return math.Log(a) },
		func(v, a float64) float64 { return math.Log2(a) },
		func(v, a float64) float64 { return math.Sqrt(a) },
		func(v, a float64) float64 { return 1 / math.Sqrt(a) },
		func(v, a float64) float64 { return math.Sin(v) },
		func(v, a float64) float64 { return math.Cos(v) },
		func(v, a float64) float64 { return math.Tan(v) },
		func(v, a float64) float64 { return math.Tanh(v) },
		nil, // pow: its exponent is rounded first, computed below
	}
	h := func(f float64) float64 { return float64(F16BitsToF32(F64ToF16Bits(f))) }
	bad := 0
	for i, v32 := range x {
		v := float64(v32)
		a := float64(float32(math.Abs(v)) + 0.01)
		hv := h(v)
		ha := h(math.Abs(hv) + h(0.01))
		for k, f := range fns {
			var want, hwant float64
			if f == nil {
				want = math.Pow(a, float64(v32*0.25))
				hwant = math.Pow(ha, h(hv*0.25))
			} else {
				want, hwant = f(v, a), f(hv, ha)
			}
			// within half an ulp of the type, plus float64's own error
			if g := float64(got[i*11+k]); math.Abs(g-want) > 0.5*ULP(ir.F32, want)*(1+0x1p-20) && !math.IsInf(want, 0) {
				t.Errorf("f32 function %d of x=%g: %g, want %g (%g ulp off)", k, v, g, want, math.Abs(g-want)/ULP(ir.F32, want))
				bad++
			}
			if g := float64(F16BitsToF32(hgot[i*11+k])); math.Abs(g-hwant) > 0.5*ULP(ir.F16, hwant)*(1+0x1p-20) && !(math.IsInf(g, 0) && math.Abs(hwant) >= 65504) {
				t.Errorf("f16 function %d of x=%g: %g, want %g (%g ulp off)", k, hv, g, hwant, math.Abs(g-hwant)/ULP(ir.F16, hwant))
				bad++
			}
			if bad > 10 {
				t.FailNow()
			}
		}
	}
}

// TestContraction: the device result of issue 12's reproducer (0, from
// (x*x + c) - y*y: reassociated and rounded) is outside the exact
// tolerance of precise code; one ulp per contracted pair passes only
// outside precise code.
func TestContraction(t *testing.T) {
	want := float64(float32(float32(1*1)-float32(1*1)) + float32(1e-8)) // as written: 1e-8
	fused := 0.0                                                        // what lavapipe's paths give: see semantics.md §9
	if Contraction(true).Within(ir.F32, 1, want, fused) {
		t.Error("precise tolerance accepts the contracted result")
	}
	if !Contraction(true).Within(ir.F32, 1, want, want) {
		t.Error("precise tolerance rejects the exact result")
	}
	// One ulp per pair: a contracted a*b+c that differs by one ulp passes.
	x := 1.0 + 0x1p-12
	exact := float64(float32(float32(x*x) - 1))
	next := exact + ULP(ir.F32, exact)
	if !Contraction(false).Within(ir.F32, x, exact, next) {
		t.Error("non-precise tolerance rejects one ulp")
	}
	if Contraction(true).Within(ir.F32, x, exact, next) {
		t.Error("precise tolerance accepts one ulp")
	}
}
