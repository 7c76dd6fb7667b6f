package ir

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestConvertValue(t *testing.T) {
	for _, tc := range []struct {
		v    Value
		to   Scalar
		want Value
	}{
		{IntVal(-1), U32, IntVal(4294967295)},
		{IntVal(4294967295), I32, IntVal(-1)},
		{IntVal(1 << 40), I32, IntVal(0)},
		{FloatVal(-1.5), U32, IntVal(0)},
		{FloatVal(-1.5), I32, IntVal(-1)},
		{FloatVal(3e9), I32, IntVal(math.MaxInt32)},
		{FloatVal(-3e9), I32, IntVal(math.MinInt32)},
		{FloatVal(5e9), U32, IntVal(math.MaxUint32)},
		{FloatVal(math.NaN()), I32, IntVal(0)},
		{FloatVal(math.Inf(-1)), U32, IntVal(0)},
		{BoolVal(true), F32, FloatVal(1)},
		{BoolVal(true), U32, IntVal(1)},
		{IntVal(0), Bool, BoolVal(false)},
		{FloatVal(0.25), Bool, BoolVal(true)},
		{IntVal(16777217), F32, FloatVal(16777216)},
		{FloatVal(0.1), F32, FloatVal(float64(float32(0.1)))},
		{FloatVal(65519), F16, FloatVal(65504)},
		{FloatVal(65520), F16, FloatVal(math.Inf(1))},
		{IntVal(2049), F16, FloatVal(2048)},
		{IntVal(2051), F16, FloatVal(2052)},
	} {
		if got := ConvertValue(tc.v, tc.to); got != tc.want {
			t.Errorf("ConvertValue(%v, %v) = %v, want %v", tc.v, tc.to, got, tc.want)
		}
	}
}

// TestRoundF16Random compares roundF16 with an independent rounding: the
// nearest of the two f16 neighbours found by stepping through the f16 grid.
func TestRoundF16Random(t *testing.T) {
	rng := rand.New(rand.NewPCG(rand.Uint64(), 2))
	for i := 0; i < 20000; i++ {
		f := (rng.Float64()*2 - 1) * math.Pow(2, float64(rng.IntN(40)-25))
		got, want := roundF16(f), nearestF16(f)
		if got != want {
			t.Fatalf("roundF16(%v) = %v, want %v", f, got, want)
		}
	}
}

// nearestF16 rounds |f| < 65504 to binary16 by the spacing of its binade,
// ties to the even significand.
func nearestF16(f float64) float64 {
	a := math.Abs(f)
	e := math.Max(math.Floor(math.Log2(a)), -14)
	if a == 0 {
		return f
	}
	ulp := math.Pow(2, e-10)
	lo := math.Floor(a/ulp) * ulp
	hi := lo + ulp
	r := lo
	switch d := a - lo; {
	case d > hi-a:
		r = hi
	case d == hi-a && math.Mod(lo/ulp, 2) == 1:
		r = hi
	}
	return math.Copysign(r, f)
}

func TestRepresentable(t *testing.T) {
	for _, tc := range []struct {
		v   Value
		s   Scalar
		why string
	}{
		{IntVal(-1), U32, "overflows"},
		{IntVal(4294967295), U32, ""},
		{IntVal(4294967296), U32, "overflows"},
		{IntVal(-2147483648), I32, ""},
		{IntVal(2147483648), I32, "overflows"},
		{FloatVal(2.5), I32, "truncated to"},
		{FloatVal(2), I32, ""},
		{FloatVal(1e300), I32, "overflows"},
		{FloatVal(3.4028235e38), F32, ""},
		{FloatVal(3.5e38), F32, "overflows"},
		{FloatVal(65519), F16, ""},
		{FloatVal(65520), F16, "overflows"},
		{IntVal(1), Bool, "cannot be represented as"},
	} {
		if _, why := representable(tc.v, tc.s); why != tc.why {
			t.Errorf("representable(%v, %v) = %q, want %q", tc.v, tc.s, why, tc.why)
		}
	}
}

func TestTypedBinary(t *testing.T) {
	for _, tc := range []struct {
		op   BinaryOp
		x, y Value
		s    Scalar
		want Value
		err  string
	}{
		{OpSub, IntVal(0), IntVal(1), U32, Value{}, "constant -1 overflows u32"},
		{OpAdd, IntVal(math.MaxInt32), IntVal(1), I32, Value{}, "constant 2147483648 overflows i32"},
		{OpDiv, IntVal(math.MinInt32), IntVal(-1), I32, Value{}, "constant 2147483648 overflows i32"},
		{OpRem, IntVal(math.MinInt32), IntVal(-1), I32, IntVal(0), ""},
		{OpDiv, IntVal(7), IntVal(0), I32, Value{}, "invalid operation: division by zero"},
		{OpDiv, IntVal(-7), IntVal(2), I32, IntVal(-3), ""},
		{OpRem, IntVal(-7), IntVal(2), I32, IntVal(-1), ""},
		{OpShr, IntVal(-8), IntVal(1), I32, IntVal(-4), ""},
		{OpShr, IntVal(0x80000000), IntVal(31), U32, IntVal(1), ""},
		{OpShl, IntVal(1), IntVal(31), I32, Value{}, "constant 2147483648 overflows i32"},
		{OpShl, IntVal(-1), IntVal(31), I32, IntVal(math.MinInt32), ""},
		{OpShl, IntVal(1), IntVal(31), U32, IntVal(0x80000000), ""},
		{OpXor, IntVal(0xffffffff), IntVal(1), U32, IntVal(0xfffffffe), ""},
		{OpRem, FloatVal(-7.5), FloatVal(2), F32, FloatVal(-1.5), ""},
		{OpMul, FloatVal(3e38), FloatVal(10), F32, Value{}, "constant 3e+39 overflows f32"},
		{OpLt, IntVal(-1), IntVal(0), I32, BoolVal(true), ""},
		{OpNe, FloatVal(math.NaN()), FloatVal(math.NaN()), F32, BoolVal(true), ""},
		{OpEq, BoolVal(true), BoolVal(true), Bool, BoolVal(true), ""},
		{OpLogOr, BoolVal(false), BoolVal(true), Bool, BoolVal(true), ""},
	} {
		got, err := typedBinary(tc.op, tc.x, tc.y, tc.s)
		if err != tc.err || (err == "" && got != tc.want) {
			t.Errorf("%v %v %v (%v) = %v, %q; want %v, %q", tc.x, tc.op, tc.y, tc.s, got, err, tc.want, tc.err)
		}
	}
}

func TestExactOverflow(t *testing.T) {
	for _, tc := range []struct {
		op   BinaryOp
		x, y int64
	}{
		{OpAdd, math.MaxInt64, 1},
		{OpSub, math.MinInt64, 1},
		{OpMul, 1 << 32, 1 << 32},
		{OpMul, -1, math.MinInt64},
		{OpShl, 1, 63},
		{OpDiv, math.MinInt64, -1},
	} {
		if _, err := exactBinary(tc.op, IntVal(tc.x), IntVal(tc.y)); err == "" {
			t.Errorf("%d %v %d: no overflow reported", tc.x, tc.op, tc.y)
		}
	}
	if v, err := exactBinary(OpShl, IntVal(1), IntVal(40)); err != "" || v.Int != 1<<40 {
		t.Errorf("1 << 40 = %v, %q", v, err)
	}
}
