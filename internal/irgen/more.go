package irgen

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// Generators for the later intrinsics: inverse and hyperbolic trigonometry,
// smoothstep, length and cross (approximate floats); step (deterministic);
// extractBits, insertBits and the f16 packing round trip (integers);
// vector comparisons reduced by all and any, and select with a bool-vector
// condition.

// moreFloatOp is one approximate operation among the later intrinsics.
// Error bounds: the derivative bound times the argument's error, plus the
// intrinsic's tolerance (ir/interp.Tolerance) at the result's bound.
func (g *gen) moreFloatOp(d int) (ir.Expr, fbound) {
	x, fx := g.floatExpr(d-1, false)
	const trig = 4096 * 0x1p-23 // 4096 ulps at magnitude 1 (asin, acos, atan, atan2)
	switch g.r.IntN(8) {
	case 0:
		// atan: derivative at most 1; |result| < pi/2.
		return ir.CallOf(ir.Atan, x), fbound{B: 1.6, E: fx.E + 2*trig}
	case 1:
		// atan2(x, 1 + |y|): the second operand lies in [1, 1+B]; the
		// partial derivatives are at most 1.
		y, fy := g.floatExpr(d-1, false)
		den := ir.Add(ir.Float(1), ir.CallOf(ir.Abs, y))
		return ir.CallOf(ir.Atan2, x, den), fbound{B: 1.6, E: fx.E + fy.E + ulp(1+fy.B) + 2*trig}
	case 2:
		// asin or acos on [-0.5, 0.5]: derivative at most 1.16.
		f := ir.Asin
		if g.r.IntN(2) == 0 {
			f = ir.Acos
		}
		a := ir.CallOf(ir.Clamp, x, ir.Float(-0.5), ir.Float(0.5))
		return ir.CallOf(f, a), fbound{B: 2.1, E: 1.16*fx.E + 4*trig + 0x1p-11}
	case 3:
		// sinh or cosh on [-4, 4]: derivative at most cosh(4) < 27.31.
		f := ir.Sinh
		if g.r.IntN(2) == 0 {
			f = ir.Cosh
		}
		a := ir.CallOf(ir.Clamp, x, ir.Float(-4), ir.Float(4))
		e := math.Min(fx.E, 1)
		return ir.CallOf(f, a), fbound{B: 27.31, E: 27.31*(math.Exp(e)-1) + 11*ulp(27.31) + 0x1p-21}
	case 4:
		// smoothstep(-2, 2, x): derivative at most 3/8.
		return ir.CallOf(ir.Smoothstep, ir.Float(-2), ir.Float(2), x), fbound{B: 1, E: 0.375*fx.E + 8*ulp(1) + 0x1p-21}
	case 5:
		// length(vec2(x, y)): 1-Lipschitz in each operand; sqrt of a sum
		// of squares rounded twice.
		y, fy := g.floatExpr(d-1, false)
		b := fx.B + fy.B
		return ir.CallOf(ir.Length, ir.VecOf(ir.Vec(ir.F32, 2), x, y)), fbound{B: b, E: fx.E + fy.E + 2*math.Sqrt(ulp(b*b)) + 6*ulp(b)}
	case 6:
		// cross(vec3(x, y, 1), vec3(z, 1, y)).z = x*1 - y*z, rounded twice.
		y, fy := g.floatExpr(d-1, false)
		z, fz := g.floatExpr(d-1, false)
		v3 := ir.Vec(ir.F32, 3)
		c := ir.CallOf(ir.Cross, ir.VecOf(v3, x, y, ir.Float(1)), ir.VecOf(v3, z, ir.Float(1), y))
		b := fx.B + fy.B*fz.B
		return ir.Swz(c, "z"), fbound{B: b, E: fx.E + fy.E*fz.B + fz.E*fy.B + fy.E*fz.E + 3*ulp(b)}
	}
	// reflect(vec2(x, 0), vec2(0, 1)).x = x exactly (n is a unit vector
	// orthogonal to e, up to the dot product's rounding of zero).
	return ir.Swz(ir.CallOf(ir.ReflectVector, ir.VecOf(ir.Vec(ir.F32, 2), x, ir.Float(0)), ir.VecOf(ir.Vec(ir.F32, 2), ir.Float(0), ir.Float(1))), "x"),
		fbound{B: fx.B, E: fx.E + 2*ulp(fx.B)}
}

// stepOp is step(edge, x) of deterministic floats: 0 or 1, exactly.
func (g *gen) stepOp(d int) (ir.Expr, fbound) {
	x, _ := g.detFloat(d-1, false)
	y, _ := g.detFloat(d-1, true)
	return ir.CallOf(ir.Step, y, x), fbound{B: 1}
}

// bitFieldCall is extractBits or insertBits with offset and count in
// 0..63, so that WGSL's clamping is exercised.
func (g *gen) bitFieldCall(t ir.Scalar, d int) ir.Expr {
	x := g.intExpr(t, d-1, false)
	off := g.mask(g.intExpr(ir.U32, d-1, true), 63)
	cnt := g.mask(g.intExpr(ir.U32, d-1, true), 63)
	if g.r.IntN(2) == 0 {
		return ir.CallOf(ir.ExtractBits, x, off, cnt)
	}
	return ir.CallOf(ir.InsertBits, x, g.intExpr(t, d-1, true), off, cnt)
}

// packRoundTrip is pack2x16float(unpack2x16float(y & m)) for a mask m that
// keeps each half a finite f16 below 2: exactly y & m. y is an expression
// XORed with a word of in_i, so that no compiler can fold the round trip:
// lavapipe (Mesa 22.3.6) folds it wrong for a constant operand, keeping
// only the low half (docs/difftest.md, finding 4; TestPackFold).
func (g *gen) packRoundTrip(d int) ir.Expr {
	in := ir.At(ir.Ref("in_i"), g.mask(ir.Builtin(ir.LocalIndex), InLen-1))
	y := ir.Bin(ir.OpXor, g.intExpr(ir.U32, d-1, false), in)
	x := ir.Bin(ir.OpAnd, y, ir.Int(0x3bff3bff))
	return ir.CallOf(ir.Pack2x16Float, ir.CallOf(ir.Unpack2x16Float, x))
}

// vecBool is all or any of a componentwise comparison of two integer or
// deterministic float vectors.
func (g *gen) vecBool(d int) ir.Expr {
	n := 2 + g.r.IntN(3)
	a, b := g.cmpVecs(n, d)
	f := ir.All
	if g.r.IntN(2) == 0 {
		f = ir.Any
	}
	var c ir.Expr = ir.Bin(cmpOps[g.r.IntN(len(cmpOps))], a, b)
	if g.r.IntN(4) == 0 {
		c = ir.Not(c)
	}
	return ir.CallOf(f, c)
}

// cmpVecs is two vectors of n components of one type to compare.
func (g *gen) cmpVecs(n, d int) (ir.Expr, ir.Expr) {
	if g.r.IntN(3) == 0 {
		vt := ir.Vec(ir.F32, n)
		var xs, ys []ir.Expr
		for i := 0; i < n; i++ {
			x, _ := g.detFloat(d-2, false)
			y, _ := g.detFloat(d-2, true)
			xs, ys = append(xs, x), append(ys, y)
		}
		return ir.VecOf(vt, xs...), ir.VecOf(vt, ys...)
	}
	t := g.intType()
	vt := ir.Vec(t, n)
	var xs, ys []ir.Expr
	for i := 0; i < n; i++ {
		xs, ys = append(xs, g.intExpr(t, d-2, false)), append(ys, g.intExpr(t, d-2, true))
	}
	return ir.VecOf(vt, xs...), ir.VecOf(vt, ys...)
}

// selectVec is one component of select with a bool-vector condition.
func (g *gen) selectVec(t ir.Scalar, d int) ir.Expr {
	n := 2 + g.r.IntN(3)
	a, b := g.cmpVecs(n, d)
	vt := ir.Vec(t, n)
	var xs, ys []ir.Expr
	for i := 0; i < n; i++ {
		xs, ys = append(xs, g.intExpr(t, d-2, false)), append(ys, g.intExpr(t, d-2, true))
	}
	c := ir.CallOf(ir.Select, ir.Bin(cmpOps[g.r.IntN(len(cmpOps))], a, b), ir.VecOf(vt, xs...), ir.VecOf(vt, ys...))
	return ir.Swz(c, string("xyzw"[g.r.IntN(n)]))
}
