package interp

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// Tol is how far a GPU's float result may lie from the interpreter's for
// one operation, following the precision the Vulkan environment for SPIR-V
// and the WGSL specification require (docs/semantics.md has the table).
// The interpreter's own result is correctly rounded or within a hair of it;
// GPUs use faster approximations.
type Tol struct {
	ULP    float64 // ulps of the result type at the exact result
	ArgULP float64 // further ulps per unit of |x| (exp, exp2: 2)
	Abs    float64 // absolute error allowed for f32 where it exceeds the ulp bound
	AbsF16 float64 // absolute error allowed for f16 where it exceeds the ulp bound
	// Lo and Hi bound the first operand x where the bound holds; outside
	// it no accuracy is promised (Bound returns +Inf). Lo == Hi: everywhere.
	Lo, Hi float64
	Note   string // what the bound does not cover
}

// Tolerance returns the accepted error of intrinsic fn between a GPU and
// the interpreter. Intrinsics without float rounding (abs, min, max, clamp,
// floor, ceil, round, trunc, sign, step, select, unpack2x16float, integer
// and bit operations (extractBits, insertBits),
// atomics, subgroup data movement) must match exactly: the zero Tol.
func Tolerance(fn ir.Intrinsic) Tol {
	switch fn {
	case ir.Exp, ir.Exp2:
		return Tol{ULP: 3, ArgULP: 2}
	case ir.Log, ir.Log2:
		return Tol{ULP: 3, Abs: 0x1p-21, AbsF16: 0x1p-7, Note: "the absolute bound is the requirement inside [0.5, 2]"}
	case ir.Sqrt:
		return Tol{ULP: 5, Note: "inherited from 1/inverseSqrt(x)"}
	case ir.InverseSqrt:
		return Tol{ULP: 2}
	case ir.Sin, ir.Cos:
		return Tol{Abs: 0x1p-11, AbsF16: 0x1p-7, Lo: -math.Pi, Hi: math.Pi}
	case ir.Tan:
		return Tol{ULP: 5, Abs: 0x1p-8, AbsF16: 0x1p-5, Lo: -1, Hi: 1, Note: "inherited from sin(x)/cos(x)"}
	case ir.Tanh:
		return Tol{ULP: 5, Abs: 0x1p-11, AbsF16: 0x1p-7, Note: "inherited from sinh/cosh"}
	case ir.Pow:
		return Tol{ULP: 16, Lo: 0, Hi: math.MaxFloat32, Note: "inherited from exp2(y*log2(x)); holds for |y*log2(x)| <= 4 and |y| <= 2; x < 0 is NaN"}
	case ir.Fma:
		return Tol{ULP: 1, Note: "a target may not fuse: add half an ulp of a*b under cancellation"}
	case ir.Mix:
		return Tol{ULP: 2, Note: "inherited from x*(1-a) + y*a; contraction into fma changes cancelling cases"}
	case ir.Fract:
		return Tol{ULP: 1, Note: "inherited from x - floor(x)"}
	case ir.Dot:
		return Tol{ULP: 1, Note: "reassociated or fused on GPUs: use SumBound over the products"}
	case ir.Asin, ir.Acos:
		return Tol{ULP: 4096, Abs: 0x1p-11, AbsF16: 0x1p-7, Lo: -1, Hi: 1, Note: "inherited from atan2(x, sqrt(1 - x*x)); |x| > 1 is NaN"}
	case ir.Atan, ir.Atan2:
		return Tol{ULP: 4096, Note: "atan2(0, 0) and infinite operands have no specified result"}
	case ir.Sinh, ir.Cosh:
		return Tol{ULP: 3, ArgULP: 2, Abs: 0x1p-21, AbsF16: 0x1p-9, Note: "inherited from (exp(x) -/+ exp(-x)) / 2; the absolute bound covers sinh's cancellation near 0"}
	case ir.Smoothstep:
		return Tol{ULP: 8, Abs: 0x1p-21, AbsF16: 0x1p-9, Note: "inherited from t*t*(3 - 2*t), t = clamp((x - lo)/(hi - lo), 0, 1); lo >= hi has no specified result"}
	case ir.Length, ir.Distance:
		return Tol{ULP: 6, Note: "inherited from sqrt(dot(x, x)) (distance: of a - b, rounded first)"}
	case ir.Normalize:
		return Tol{ULP: 6, Abs: 0x1p-21, AbsF16: 0x1p-9, Note: "inherited from x * inverseSqrt(dot(x, x)); the absolute bound is relative to the unit length; the zero vector has no specified result"}
	case ir.Cross, ir.ReflectVector:
		return Tol{ULP: 2, Note: "differences of products, fused or not: under cancellation use SumBound over the products"}
	case ir.Unpack4x8Snorm, ir.Unpack4x8Unorm:
		return Tol{ULP: 1, Note: "b / 127 and b / 255 may be computed as b * (1/127) and b * (1/255)"}
	case ir.Pack4x8Snorm, ir.Pack4x8Unorm:
		return Tol{Note: "integer result: a byte may differ by one where clamp(x)*127 (or *255) is within an ulp of a half-way point (GLSL's round leaves ties to the implementation); NaN components have no specified result"}
	case ir.Pack2x16Float:
		return Tol{Note: "integer result: each f16 half may differ by one unit in the last place (SPIR-V and HLSL leave the f32 -> f16 rounding mode to the implementation); values beyond f16's range have no specified result"}
	case ir.SubgroupAdd, ir.SubgroupMul, ir.SubgroupInclusiveAdd, ir.SubgroupExclusiveAdd:
		return Tol{Note: "float reductions are reassociated on GPUs: use SumBound"}
	}
	return Tol{}
}

// OpTolerance returns the accepted error of a float operator. +, -, * and
// conversions are correctly rounded on every target, but a target may
// contract a*b+c into one fma (one rounding fewer): tests of expressions
// that mix them should allow an ulp per operation.
func OpTolerance(op ir.BinaryOp) Tol {
	switch op {
	case ir.OpDiv:
		return Tol{ULP: 2.5, Note: "for |y| in [2^-126, 2^126]"}
	case ir.OpRem:
		return Tol{ULP: 2.5, Note: "inherited from x - y*trunc(x/y): when x/y is within 2.5 ulp of an integer, trunc may differ by one and the result by |y|"}
	}
	return Tol{}
}

// Contraction is the accepted error of a float expression mixing + - and
// * (language.md §11): outside precise code a target may contract each
// a*b ± c into an fma (one rounding fewer), so allow an ulp of the result
// per contracted pair (multiply ULP by the number of pairs); and drivers
// reassociate unmarked sums (semantics.md §9: use SumBound for sums of
// more than two terms). In a precise kernel or function, on the SPIR-V and
// HLSL paths, neither may happen and + - * are exact. WGSL cannot mark
// code precise: compare a precise kernel run through WGSL with
// Contraction(false).
func Contraction(precise bool) Tol {
	if precise {
		return Tol{Note: "precise: no contraction or reassociation (SPIR-V NoContraction, HLSL precise)"}
	}
	return Tol{ULP: 1, Note: "a*b±c may be fused: one ulp per contracted pair; sums of more terms: SumBound"}
}

// Bound is the largest accepted |got - want| for a result want of type s
// (F32 or F16) computed from first operand x.
func (t Tol) Bound(s ir.Scalar, x, want float64) float64 {
	if t.Lo != t.Hi && (x < t.Lo || x > t.Hi) {
		return math.Inf(1)
	}
	b := (t.ULP + t.ArgULP*math.Abs(x)) * ULP(s, want)
	abs := t.Abs
	if s == ir.F16 {
		abs = t.AbsF16
	}
	return math.Max(b, abs)
}

// Within reports whether a GPU result got is acceptable for the
// interpreter's want. NaN matches only NaN, an infinity only itself, and
// results below the smallest normal of s also match zero (GPUs may flush
// denormals).
func (t Tol) Within(s ir.Scalar, x, want, got float64) bool {
	switch {
	case want != want:
		return got != got
	case got != got:
		return false
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		return want == got || t.Bound(s, x, want) == math.Inf(1)
	}
	if math.Abs(got-want) <= t.Bound(s, x, want) {
		return true
	}
	tiny := minNormal(s)
	return math.Abs(want) < tiny && math.Abs(got) < tiny
}

// SumBound is the accepted error of a float sum of n terms whose
// magnitudes add up to absSum when a GPU reassociates it (reductions, dot
// products, subgroup scans): n-1 roundings, each off by at most half an
// ulp of a partial sum no larger than absSum, on either side.
func SumBound(s ir.Scalar, absSum float64, n int) float64 {
	if n < 2 {
		return 0
	}
	eps := math.Ldexp(1, -mantBits(s))
	return float64(n-1) * eps * absSum
}

// ULP is the unit in the last place of v in type s (F32 or F16): the gap
// between the two representable numbers around |v|, denormals included.
func ULP(s ir.Scalar, v float64) float64 {
	v = math.Abs(v)
	p := mantBits(s)
	emin := -126
	if s == ir.F16 {
		emin = -14
	}
	if v == 0 || math.IsInf(v, 0) || v != v {
		return math.Ldexp(1, emin-p)
	}
	e := math.Ilogb(v)
	if e < emin {
		e = emin
	}
	return math.Ldexp(1, e-p)
}

func mantBits(s ir.Scalar) int {
	switch s {
	case ir.F16:
		return 10
	case ir.BF16:
		return 7 // f32's exponent range, so f32's minimum normal
	}
	return 23
}

func minNormal(s ir.Scalar) float64 {
	if s == ir.F16 {
		return 0x1p-14
	}
	return 0x1p-126
}
