package irgen

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// fbound bounds an f32 expression: |value| <= B on every target, and
// |target's value - interpreter's value| <= E. E == 0 marks a
// deterministic float (see the package doc).
type fbound struct{ B, E float64 }

// maxMag is the magnitude beyond which an expression is clamped.
const maxMag = 1 << 12

// ulp is the f32 ulp at magnitude b (an upper bound for every |v| <= b).
func ulp(b float64) float64 {
	if b < 0x1p-126 {
		return 0x1p-149
	}
	return math.Ldexp(1, math.Ilogb(b)-23)
}

var floatLits = []float64{0, 0.5, 1, 1.5, 2, -1, -0.25, 3, 0.125, 10, -7.5}

// fclamp clamps e to [-m, m] when its bound exceeds maxMag (clamp does not
// add error).
func fclamp(e ir.Expr, fb fbound) (ir.Expr, fbound) {
	if fb.B <= maxMag {
		return e, fb
	}
	return ir.CallOf(ir.Clamp, e, ir.Float(-maxMag), ir.Float(maxMag)), fbound{B: maxMag, E: fb.E}
}

// detLeaf is a non-constant deterministic float.
func (g *gen) detLeaf() (ir.Expr, float64) {
	switch g.r.IntN(8) {
	case 0:
		return ir.Ref("pf"), 2
	case 7:
		if g.cfg.F16 {
			return ir.Conv(ir.F32, ir.At(ir.Ref("in_h"), g.mask(g.intLeaf(ir.U32), InLen-1))), 4
		}
	case 1, 2:
		return ir.At(ir.Ref("in_f"), g.mask(g.intLeaf(ir.U32), InLen-1)), 2
	case 3:
		return ir.Conv(ir.F32, g.mask(g.intLeaf(ir.U32), 4095)), 4095
	case 4:
		return ir.Conv(ir.F32, ir.Bin(ir.OpShr, g.intLeaf(ir.I32), ir.Conv(ir.U32, ir.Int(21)))), 1024
	case 5:
		bits := ir.Bin(ir.OpOr, g.mask(g.intLeaf(ir.U32), 0x7fffff), ir.Int(0x3f800000))
		return &ir.Bitcast{To: ir.F32, X: bits}, 2
	}
	if vs := g.locals(func(l local) bool { return l.t == ir.F32 && l.fb.E == 0 }); len(vs) > 0 {
		v := g.pick(vs)
		return ir.Ref(v.name), v.fb.B
	}
	return ir.Ref("pf"), 2
}

// detFloat is a deterministic float expression of depth at most d.
func (g *gen) detFloat(d int, allowConst bool) (ir.Expr, float64) {
	if d <= 0 || g.r.IntN(4) == 0 {
		if allowConst && g.r.IntN(8) == 0 {
			return ir.Ref("CF"), 3
		}
		if allowConst && g.r.IntN(3) == 0 {
			v := floatLits[g.r.IntN(len(floatLits))]
			return ir.Conv(ir.F32, ir.Float(v)), math.Max(math.Abs(v), 0x1p-20)
		}
		return g.detLeaf()
	}
	e, fb := g.detOp(d)
	e, fb = fclamp(e, fb)
	return e, fb.B
}

func (g *gen) detOp(d int) (ir.Expr, fbound) {
	x, bx := g.detFloat(d-1, false)
	switch g.r.IntN(12) {
	case 0:
		return ir.Neg(x), fbound{B: bx}
	case 1:
		return ir.CallOf(ir.Abs, x), fbound{B: bx}
	case 2, 3:
		f := []ir.Intrinsic{ir.Floor, ir.Ceil, ir.Trunc, ir.Round}[g.r.IntN(4)]
		return ir.CallOf(f, x), fbound{B: bx + 1}
	case 4:
		y, by := g.detFloat(d-1, true)
		f := ir.Min
		if g.r.IntN(2) == 0 {
			f = ir.Max
		}
		return ir.CallOf(f, x, y), fbound{B: math.Max(bx, by)}
	case 5:
		k := g.r.IntN(7) - 3
		return ir.Mul(x, ir.Float(math.Ldexp(1, k))), fbound{B: math.Ldexp(bx, k)}
	case 6, 7:
		// Not + or -: lavapipe (Mesa) reassociates float additions, so
		// (a - t) + t may give a where IEEE order rounds a - t first
		// (docs/difftest.md, Findings). Only exact operations are
		// deterministic.
		y, by := g.detFloat(d-1, true)
		f := ir.Min
		if g.r.IntN(2) == 0 {
			f = ir.Max
		}
		return ir.CallOf(f, ir.Neg(x), y), fbound{B: math.Max(bx, by)}
	case 8:
		y, by := g.detFloat(d-1, true)
		return ir.CallOf(ir.Select, g.boolExpr(d-1, false), x, y), fbound{B: math.Max(bx, by)}
	case 10:
		if g.r.IntN(2) == 0 {
			return g.stepOp(d)
		}
		return ir.CallOf(ir.Sign, x), fbound{B: 1}
	case 9:
		lo := -float64(g.r.IntN(8))
		hi := float64(g.r.IntN(8)) / 2
		return ir.CallOf(ir.Clamp, x, ir.Float(lo), ir.Float(hi)), fbound{B: math.Max(-lo, hi)}
	}
	return ir.CallOf(ir.Abs, x), fbound{B: bx}
}

// floatExpr is an f32 expression with its bound; det asks for a
// deterministic one.
func (g *gen) floatExpr(d int, det bool) (ir.Expr, fbound) {
	if det {
		e, b := g.detFloat(d, true)
		return e, fbound{B: b}
	}
	if d <= 0 || g.r.IntN(5) == 0 {
		return g.floatLeaf()
	}
	e, fb := g.floatOp(d)
	return fclamp(e, fb)
}

func (g *gen) floatLeaf() (ir.Expr, fbound) {
	switch g.r.IntN(5) {
	case 4:
		if g.cfg.F16 {
			e, fb := g.halfExpr(1, false)
			return ir.Conv(ir.F32, e), fb
		}
	case 0:
		return ir.At(ir.Ref("shf"), g.mask(g.intLeaf(ir.U32), g.wg-1)), g.shB
	case 1:
		if vs := g.locals(func(l local) bool { return l.t == ir.F32 }); len(vs) > 0 {
			v := g.pick(vs)
			return ir.Ref(v.name), v.fb
		}
	}
	e, b := g.detLeaf()
	return e, fbound{B: b}
}

// floatOp is one approximate operation; the error rules follow
// docs/semantics.md §9 with one ulp at the result's bound per rounding
// (a contracted a*b+c rounds once fewer, within the same bound).
func (g *gen) floatOp(d int) (ir.Expr, fbound) {
	if g.r.IntN(6) == 0 {
		return g.moreFloatOp(d)
	}
	x, fx := g.floatExpr(d-1, false)
	switch g.r.IntN(20) {
	case 16:
		a := ir.CallOf(ir.Clamp, x, ir.Float(-4), ir.Float(4))
		e := math.Min(fx.E, 8)
		return ir.CallOf(ir.Exp2, a), fbound{B: 16, E: 16*(math.Exp2(e)-1) + 11*ulp(16)}
	case 17:
		// log2(1 + |x|): derivative at most 1/ln 2.
		b := math.Log2(1 + fx.B)
		e := fx.E + ulp(1+fx.B)
		return ir.CallOf(ir.Log2, ir.Add(ir.Float(1), ir.CallOf(ir.Abs, x))), fbound{B: b, E: e/math.Ln2 + math.Max(3*ulp(b), 0x1p-21)}
	case 18:
		// tan on [-1, 1]: derivative at most 1/cos²(1) < 3.5.
		a := ir.CallOf(ir.Clamp, x, ir.Float(-1), ir.Float(1))
		return ir.CallOf(ir.Tan, a), fbound{B: 1.6, E: 3.5*fx.E + math.Max(5*ulp(1.6), 0x1p-8)}
	case 19:
		if fx.E == 0 { // fract is discontinuous: deterministic arguments only
			return ir.CallOf(ir.Fract, x), fbound{B: 1, E: ulp(1)}
		}
		return ir.CallOf(ir.Abs, x), fx
	case 0, 1:
		y, fy := g.floatExpr(d-1, false)
		op := ir.OpAdd
		if g.r.IntN(2) == 0 {
			op = ir.OpSub
		}
		b := fx.B + fy.B
		return ir.Bin(op, x, y), fbound{B: b, E: fx.E + fy.E + ulp(b)}
	case 2, 3:
		y, fy := g.floatExpr(d-1, false)
		b := fx.B * fy.B
		return ir.Mul(x, y), fbound{B: b, E: fx.E*fy.B + fy.E*fx.B + fx.E*fy.E + ulp(b)}
	case 4:
		// x / (1 + |y|): the divisor lies in [1, 1+B].
		y, fy := g.floatExpr(d-1, false)
		div := ir.Add(ir.Float(1), ir.CallOf(ir.Abs, y))
		ed := fy.E + ulp(1+fy.B)
		return ir.Div(x, div), fbound{B: fx.B, E: fx.E + fx.B*ed + 3*ulp(fx.B)}
	case 5:
		f := ir.Sin
		if g.r.IntN(2) == 0 {
			f = ir.Cos
		}
		a := ir.CallOf(ir.Clamp, x, ir.Float(-3), ir.Float(3))
		return ir.CallOf(f, a), fbound{B: 1, E: fx.E + 0x1p-11}
	case 6:
		a := ir.CallOf(ir.Clamp, x, ir.Float(-4), ir.Float(4))
		b := math.Exp(4)
		e := math.Min(fx.E, 8)
		return ir.CallOf(ir.Exp, a), fbound{B: b, E: b*(math.Exp(e)-1) + 11*ulp(b)}
	case 7:
		// log(1 + |x|): derivative at most 1.
		b := math.Log(1 + fx.B)
		e := fx.E + ulp(1+fx.B)
		return ir.CallOf(ir.Log, ir.Add(ir.Float(1), ir.CallOf(ir.Abs, x))), fbound{B: b, E: e + math.Max(3*ulp(b), 0x1p-21)}
	case 8:
		// sqrt(|x|): |sqrt(a) - sqrt(b)| <= sqrt(|a - b|).
		b := math.Sqrt(fx.B)
		return ir.CallOf(ir.Sqrt, ir.CallOf(ir.Abs, x)), fbound{B: b, E: math.Sqrt(fx.E) + 5*ulp(b)}
	case 9:
		// inverseSqrt(1 + |x|): derivative at most 1/2.
		e := fx.E + ulp(1+fx.B)
		return ir.CallOf(ir.InverseSqrt, ir.Add(ir.Float(1), ir.CallOf(ir.Abs, x))), fbound{B: 1, E: e/2 + 2*ulp(1)}
	case 10:
		return ir.CallOf(ir.Tanh, x), fbound{B: 1, E: fx.E + math.Max(5*ulp(1), 0x1p-11)}
	case 11:
		y, fy := g.floatExpr(d-1, false)
		z, fz := g.floatExpr(d-1, false)
		b := fx.B*fy.B + fz.B
		return ir.CallOf(ir.Fma, x, y, z), fbound{B: b, E: fx.E*fy.B + fy.E*fx.B + fx.E*fy.E + fz.E + 2*ulp(b)}
	case 12:
		y, fy := g.floatExpr(d-1, false)
		t, ft := g.floatExpr(d-1, false)
		t = ir.CallOf(ir.Clamp, t, ir.Float(0), ir.Float(1))
		b := math.Max(fx.B, fy.B)
		return ir.CallOf(ir.Mix, x, y, t), fbound{B: b, E: fx.E + fy.E + (fx.B+fy.B)*ft.E + 4*ulp(b)}
	case 13:
		n := 2 + g.r.IntN(3)
		vt := ir.Vec(ir.F32, n)
		a, bv := []ir.Expr{x}, []ir.Expr{}
		fa, fbv := []fbound{fx}, []fbound{}
		for i := 1; i < n; i++ {
			e, f := g.floatExpr(d-2, false)
			a, fa = append(a, e), append(fa, f)
		}
		for i := 0; i < n; i++ {
			e, f := g.floatExpr(d-2, false)
			bv, fbv = append(bv, e), append(fbv, f)
		}
		var sum, err float64
		for i := range fa {
			sum += fa[i].B * fbv[i].B
			err += fa[i].E*fbv[i].B + fbv[i].E*fa[i].B + fa[i].E*fbv[i].E
		}
		return ir.CallOf(ir.Dot, ir.VecOf(vt, a...), ir.VecOf(vt, bv...)), fbound{B: sum, E: err + float64(2*n)*ulp(sum)}
	case 14:
		y, fy := g.floatExpr(d-1, false)
		f := ir.Min
		if g.r.IntN(2) == 0 {
			f = ir.Max
		}
		return ir.CallOf(f, x, y), fbound{B: math.Max(fx.B, fy.B), E: math.Max(fx.E, fy.E)}
	}
	y, fy := g.floatExpr(d-1, false)
	return ir.CallOf(ir.Select, g.boolExpr(d-1, false), x, y), fbound{B: math.Max(fx.B, fy.B), E: math.Max(fx.E, fy.E)}
}

func (g *gen) letFloat() {
	n := g.name("fl")
	e, fb := g.floatExpr(g.cfg.Depth, g.r.IntN(3) == 0)
	g.emit(&ir.Decl{Name: n, Init: e})
	g.declare(local{name: n, t: ir.F32, fb: fb})
}

// varFloat declares a float var with a fixed bound: every assignment is
// clamped to [-B, B] and must have an error within the var's E.
func (g *gen) varFloat() {
	n := g.name("fv")
	det := g.r.IntN(2) == 0
	fb := fbound{B: 64}
	if !det {
		fb.E = 0x1p-12
	}
	g.emit(&ir.Decl{Name: n, Mut: true, Type: ir.F32})
	g.declare(local{name: n, t: ir.F32, mut: true, fb: fb})
}

func (g *gen) assignFloat() {
	vs := g.locals(func(l local) bool { return l.mut && l.t == ir.F32 })
	if len(vs) == 0 {
		g.varFloat()
		return
	}
	v := g.pick(vs)
	for try := 0; try < 4; try++ {
		e, fb := g.floatExpr(g.cfg.Depth, v.fb.E == 0 || try == 3)
		if fb.E > v.fb.E {
			continue
		}
		if fb.B > v.fb.B {
			e = ir.CallOf(ir.Clamp, e, ir.Float(-v.fb.B), ir.Float(v.fb.B))
		}
		g.emit(&ir.Assign{LHS: ir.Ref(v.name), RHS: e})
		return
	}
}
