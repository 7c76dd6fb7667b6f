package irgen

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// f16 (Config.F16). Deterministic halves are loads of in_h, conversions of
// deterministic f32 values, and negation, abs, min, max, floor, ceil,
// trunc, round and select of those; + - * are approximate with one f16 ulp
// at the bound per operation (a target may keep intermediate results in
// f32, which differs by at most that). Halves flow into out_h, into f32
// expressions by exact conversion, and (deterministic ones) into integer
// conversions.

// maxHalf bounds f16 values (f16's largest finite value is 65504).
const maxHalf = 1024

func ulp16(b float64) float64 {
	if b < 0x1p-14 {
		return 0x1p-24
	}
	return math.Ldexp(1, math.Ilogb(b)-10)
}

// hclamp clamps a half expression to [-m, m] when its bound exceeds m.
func hclamp(e ir.Expr, fb fbound, m float64) (ir.Expr, fbound) {
	if fb.B <= m {
		return e, fb
	}
	return ir.CallOf(ir.Clamp, e, ir.Float(-m), ir.Float(m)), fbound{B: m, E: fb.E}
}

func (g *gen) halfLeaf() (ir.Expr, fbound) {
	switch g.r.IntN(4) {
	case 0:
		x, b := g.detFloat(1, false)
		e, fb := hclamp(x, fbound{B: b}, maxHalf)
		return ir.Conv(ir.F16, e), fb
	case 1:
		if vs := g.locals(func(l local) bool { return l.t == ir.F16 }); len(vs) > 0 {
			v := g.pick(vs)
			return ir.Ref(v.name), v.fb
		}
	}
	return ir.At(ir.Ref("in_h"), g.mask(g.intLeaf(ir.U32), InLen-1)), fbound{B: 4}
}

// halfExpr is an f16 expression; det asks for a deterministic one.
func (g *gen) halfExpr(d int, det bool) (ir.Expr, fbound) {
	if d <= 0 || g.r.IntN(4) == 0 {
		for {
			e, fb := g.halfLeaf()
			if !det || fb.E == 0 {
				return e, fb
			}
		}
	}
	x, fx := g.halfExpr(d-1, det)
	n := g.r.IntN(8)
	if det && n >= 5 {
		n = g.r.IntN(5)
	}
	switch n {
	case 0:
		return ir.Neg(x), fx
	case 1:
		return ir.CallOf(ir.Abs, x), fx
	case 2:
		f := []ir.Intrinsic{ir.Floor, ir.Ceil, ir.Trunc, ir.Round}[g.r.IntN(4)]
		if fx.E > 0 { // discontinuous: only on deterministic values
			return ir.CallOf(ir.Abs, x), fx
		}
		return ir.CallOf(f, x), fbound{B: fx.B + 1}
	case 3:
		y, fy := g.halfExpr(d-1, det)
		f := ir.Min
		if g.r.IntN(2) == 0 {
			f = ir.Max
		}
		return ir.CallOf(f, x, y), fbound{B: math.Max(fx.B, fy.B), E: math.Max(fx.E, fy.E)}
	case 4:
		y, fy := g.halfExpr(d-1, det)
		return ir.CallOf(ir.Select, g.boolExpr(d-1, false), x, y), fbound{B: math.Max(fx.B, fy.B), E: math.Max(fx.E, fy.E)}
	case 5, 6:
		y, fy := g.halfExpr(d-1, false)
		op := ir.OpAdd
		if g.r.IntN(2) == 0 {
			op = ir.OpSub
		}
		b := fx.B + fy.B
		return hclamp(ir.Bin(op, x, y), fbound{B: b, E: fx.E + fy.E + ulp16(b)}, maxHalf)
	}
	x, fx = hclamp(x, fx, 32)
	y, fy := g.halfExpr(d-1, false)
	y, fy = hclamp(y, fy, 32)
	b := fx.B * fy.B
	return ir.Mul(x, y), fbound{B: b, E: fx.E*fy.B + fy.E*fx.B + fx.E*fy.E + ulp16(b)}
}

func (g *gen) letHalf() {
	n := g.name("hl")
	e, fb := g.halfExpr(g.cfg.Depth, g.r.IntN(3) == 0)
	g.emit(&ir.Decl{Name: n, Type: ir.F16, Init: e})
	g.declare(local{name: n, t: ir.F16, fb: fb})
}

func (g *gen) storeHalf() {
	s := g.r.IntN(Slots)
	e, fb := g.halfExpr(g.cfg.Depth, g.r.IntN(3) == 0)
	g.htol[s] = max(g.htol[s], fb.E)
	g.emit(&ir.Assign{LHS: g.slot("out_h", s), RHS: e})
}
