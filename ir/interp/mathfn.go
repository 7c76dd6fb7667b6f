package interp

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// Float intrinsics are evaluated in float64 from the exact operand values
// and rounded once to the result type, except where the WGSL definition is
// a formula of rounded operations (fract, mix, dot, float %), which is
// evaluated step by step in the result type.

// mathFn1 returns the scalar function of a one-operand intrinsic on type s.
func mathFn1(f ir.Intrinsic, s ir.Scalar) fn1 {
	if s.IsFloat() {
		switch f {
		case ir.Abs:
			if s == ir.F16 {
				return func(a uint32) uint32 { return a &^ 0x8000 }
			}
			return func(a uint32) uint32 { return a &^ 0x80000000 }
		case ir.Fract:
			sub := floatBinary(ir.OpSub, s)
			return func(a uint32) uint32 { return sub(a, fromF64(math.Floor(toF64(a, s)), s)) }
		case ir.Sign:
			return func(a uint32) uint32 {
				x := toF64(a, s)
				switch {
				case x > 0:
					return fromF64(1, s)
				case x < 0:
					return fromF64(-1, s)
				}
				return 0
			}
		}
		g := float64Fn1(f)
		if g == nil {
			return nil
		}
		return func(a uint32) uint32 { return fromF64(g(toF64(a, s)), s) }
	}
	switch f {
	case ir.Abs:
		if s == ir.I32 {
			return func(a uint32) uint32 {
				if int32(a) < 0 {
					return -a
				}
				return a
			}
		}
		return func(a uint32) uint32 { return a }
	case ir.Sign:
		return func(a uint32) uint32 {
			switch {
			case int32(a) > 0:
				return 1
			case int32(a) < 0:
				return math.MaxUint32
			}
			return 0
		}
	case ir.CountOneBits:
		return countOneBits
	case ir.ReverseBits:
		return reverseBits
	case ir.FirstTrailingBit:
		return firstTrailingBit
	case ir.FirstLeadingBit:
		if s == ir.I32 {
			return firstLeadingBitI
		}
		return firstLeadingBitU
	}
	return nil
}

// float64Fn1 is the float64 function behind a one-operand float intrinsic.
func float64Fn1(f ir.Intrinsic) func(float64) float64 {
	switch f {
	case ir.Exp:
		return math.Exp
	case ir.Exp2:
		return math.Exp2
	case ir.Log:
		return math.Log
	case ir.Log2:
		return math.Log2
	case ir.Sqrt:
		return math.Sqrt
	case ir.InverseSqrt:
		return func(x float64) float64 { return 1 / math.Sqrt(x) }
	case ir.Sin:
		return math.Sin
	case ir.Cos:
		return math.Cos
	case ir.Tan:
		return math.Tan
	case ir.Tanh:
		return math.Tanh
	case ir.Floor:
		return math.Floor
	case ir.Ceil:
		return math.Ceil
	case ir.Round:
		return math.RoundToEven
	case ir.Trunc:
		return math.Trunc
	case ir.Asin:
		return math.Asin
	case ir.Acos:
		return math.Acos
	case ir.Atan:
		return math.Atan
	case ir.Sinh:
		return math.Sinh
	case ir.Cosh:
		return math.Cosh
	}
	return nil
}

// mathFn2 returns the scalar function of a two-operand intrinsic.
func mathFn2(f ir.Intrinsic, s ir.Scalar) fn2 {
	switch f {
	case ir.Pow:
		return func(a, b uint32) uint32 { return fromF64(pow(toF64(a, s), toF64(b, s)), s) }
	case ir.Atan2:
		return func(a, b uint32) uint32 { return fromF64(math.Atan2(toF64(a, s), toF64(b, s)), s) }
	case ir.Step: // step(edge, x)
		return func(edge, x uint32) uint32 { return fromF64(b2f(toF64(x, s) >= toF64(edge, s)), s) }
	case ir.Min:
		return minFn(s, true)
	case ir.Max:
		return minFn(s, false)
	}
	return nil
}

// pow is x^y for x >= 0 and NaN for x < 0 (GPUs compute exp2(y*log2(x))).
func pow(x, y float64) float64 {
	if x < 0 {
		return math.NaN()
	}
	return math.Pow(x, y)
}

// minFn returns min (isMin) or max on type s. For floats a NaN operand
// yields the other operand, and min(-0, +0) is -0, max(-0, +0) is +0.
func minFn(s ir.Scalar, isMin bool) fn2 {
	switch s {
	case ir.I32:
		return func(a, b uint32) uint32 {
			if (int32(a) < int32(b)) == isMin {
				return a
			}
			return b
		}
	case ir.U32:
		return func(a, b uint32) uint32 {
			if (a < b) == isMin {
				return a
			}
			return b
		}
	}
	return func(a, b uint32) uint32 {
		x, y := toF64(a, s), toF64(b, s)
		switch {
		case x != x:
			return b
		case y != y:
			return a
		case x == y:
			if x == 0 && math.Signbit(x) != math.Signbit(y) {
				if math.Signbit(x) == isMin {
					return a
				}
				return b
			}
			return a
		case (x < y) == isMin:
			return a
		}
		return b
	}
}

// mathFn3 returns the scalar function of a three-operand intrinsic.
func mathFn3(f ir.Intrinsic, s ir.Scalar) fn3 {
	switch f {
	case ir.Fma:
		return func(a, b, c uint32) uint32 { return fmaBits(toF64(a, s), toF64(b, s), toF64(c, s), s) }
	case ir.Mix:
		sub, mul, add := floatBinary(ir.OpSub, s), floatBinary(ir.OpMul, s), floatBinary(ir.OpAdd, s)
		one := fromF64(1, s)
		return func(x, y, a uint32) uint32 { return add(mul(x, sub(one, a)), mul(y, a)) }
	case ir.Smoothstep:
		return func(lo, hi, x uint32) uint32 {
			return fromF64(smoothstep(toF64(lo, s), toF64(hi, s), toF64(x, s)), s)
		}
	case ir.Clamp:
		lo, hi := minFn(s, false), minFn(s, true)
		return func(x, a, b uint32) uint32 { return hi(lo(x, a), b) }
	case ir.Select:
		return func(c, a, b uint32) uint32 {
			if c != 0 {
				return a
			}
			return b
		}
	}
	return nil
}

// fmaBits rounds a*b+c once to type s. The product of two f32 (or f16)
// values is exact in float64; the sum is rounded to float64 to odd (by
// correcting a round-to-nearest result with its exact error), which makes
// the final rounding to s equal to a single rounding of the exact value.
func fmaBits(a, b, c float64, s ir.Scalar) uint32 {
	p := float64(a * b) // exact; the conversion forbids fusing with the add
	r := p + c
	if !math.IsInf(r, 0) && r == r {
		bb := r - p
		e := (p - (r - bb)) + (c - bb) // exact error of p + c
		if e != 0 && math.Float64bits(r)&1 == 0 {
			r = math.Nextafter(r, math.Copysign(math.Inf(1), e))
		}
	}
	return fromF64(r, s)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// smoothstep is t*t*(3 - 2*t), t = clamp((x - lo)/(hi - lo), 0, 1); lo >= hi
// has no specified result on GPUs.
func smoothstep(lo, hi, x float64) float64 {
	t := math.Max(0, math.Min(1, (x-lo)/(hi-lo)))
	return t * t * (3 - 2*t)
}
