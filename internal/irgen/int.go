package irgen

import (
	"github.com/kcgo/kc/ir"
)

// Integer and boolean expressions. A constant operand is allowed only
// where the other operands are not constant, so that the checker never
// folds a whole operation (constant division by zero and constant shifts
// by 32 or more are check errors).

var u32Lits = []int64{0, 1, 2, 3, 7, 8, 31, 255, 0x7fffffff, 0x80000000, 0xffffffff, 0xdeadbeef}
var i32Lits = []int64{0, 1, -1, 2, -2, 7, 31, -128, -2147483648, 2147483647, 0x5bd1e995}

func (g *gen) intLit(t ir.Scalar) ir.Expr {
	switch g.r.IntN(6) {
	case 0:
		return ir.Ref("C0")
	case 1:
		if t == ir.U32 {
			return ir.Ref("CU")
		}
	}
	if t == ir.U32 {
		return ir.Conv(ir.U32, ir.Int(u32Lits[g.r.IntN(len(u32Lits))]))
	}
	return ir.Conv(ir.I32, ir.Int(i32Lits[g.r.IntN(len(i32Lits))]))
}

// toInt converts an expression of integer type from to t.
func toInt(t, from ir.Scalar, e ir.Expr) ir.Expr {
	if t == from {
		return e
	}
	return ir.Conv(t, e)
}

// intLeaf is a non-constant integer of type t without sub-expressions
// (except masked indices of depth 0).
func (g *gen) intLeaf(t ir.Scalar) ir.Expr {
	if g.cfg.Lang && g.langDepth < 2 && g.r.IntN(6) == 0 {
		return g.langLeaf(t)
	}
	switch g.r.IntN(9) {
	case 0:
		if t == ir.I32 {
			return ir.Ref("pi")
		}
		return ir.Ref("pu")
	case 1:
		bs := []ir.BuiltinKind{ir.LocalIndex, ir.GlobalID, ir.LocalID, ir.WorkgroupID}
		if !g.cfg.NoNumWorkgroups {
			bs = append(bs, ir.NumWorkgroups)
		}
		if g.cfg.Subgroups {
			bs = append(bs, ir.SubgroupInvocationID, ir.SubgroupSize)
		}
		b := bs[g.r.IntN(len(bs))]
		var e ir.Expr = ir.Builtin(b)
		if b.Type() != ir.U32 {
			e = ir.Swz(e, string("xxyz"[g.r.IntN(4)]))
		}
		if g.r.IntN(8) == 0 {
			buf := []string{"in_i", "out_f", "acc"}[g.r.IntN(3)]
			if g.inFn { // a helper sees only its parameters
				buf = "in_i"
			}
			e = ir.LenOf(ir.Ref(buf))
		}
		return toInt(t, ir.U32, e)
	case 2, 3:
		return toInt(t, ir.U32, ir.At(ir.Ref("in_i"), g.mask(g.intLeaf(ir.U32), InLen-1)))
	case 4:
		return toInt(t, ir.U32, ir.At(ir.Ref("sh"), g.mask(g.intLeaf(ir.U32), g.wg-1)))
	case 5:
		if as := g.locals(func(l local) bool { return l.array }); len(as) > 0 {
			return toInt(t, ir.U32, ir.At(ir.Ref(g.pick(as).name), g.mask(g.intLeaf(ir.U32), 7)))
		}
		if g.inFn {
			return toInt(t, ir.U32, ir.At(ir.Ref("in_i"), g.mask(ir.Builtin(ir.LocalIndex), InLen-1)))
		}
		return toInt(t, ir.U32, g.slot("out_i", g.r.IntN(Slots)))
	}
	vs := g.locals(func(l local) bool { return l.t == ir.I32 || l.t == ir.U32 })
	if len(vs) == 0 {
		return toInt(t, ir.U32, ir.At(ir.Ref("in_i"), g.mask(ir.Builtin(ir.LocalIndex), InLen-1)))
	}
	v := g.pick(vs)
	return toInt(t, v.t.(ir.Scalar), ir.Ref(v.name))
}

var intBinOps = []ir.BinaryOp{ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr}

// intExpr is an expression of type t (I32 or U32) of depth at most d.
func (g *gen) intExpr(t ir.Scalar, d int, allowConst bool) ir.Expr {
	if d <= 0 || g.r.IntN(5) == 0 {
		if allowConst && g.r.IntN(3) == 0 {
			return g.intLit(t)
		}
		return g.intLeaf(t)
	}
	switch n := g.r.IntN(30); {
	case n < 10:
		op := intBinOps[g.r.IntN(len(intBinOps))]
		x := g.intExpr(t, d-1, false)
		var y ir.Expr
		switch {
		case op.IsShift() && g.r.IntN(3) == 0:
			y = ir.Conv(ir.U32, ir.Int(int64(g.r.IntN(32))))
		case op.IsShift():
			y = g.intExpr(ir.U32, d-1, false)
		case (op == ir.OpDiv || op == ir.OpRem) && g.r.IntN(3) == 0:
			l := g.intLit(t)
			if c, ok := l.(*ir.Convert); ok && c.X.(*ir.Lit).Val.Int == 0 || isIdent(l, "CU") {
				l = ir.Conv(t, ir.Int(-1))
				if t == ir.U32 {
					l = ir.Conv(t, ir.Int(3))
				}
			}
			y = l
		case op == ir.OpDiv || op == ir.OpRem:
			y = g.intExpr(t, d-1, false) // a constant zero divisor is a check error
		default:
			y = g.intExpr(t, d-1, true)
		}
		if !op.IsShift() && g.r.IntN(4) == 0 {
			x, y = g.intExpr(t, d-1, true), g.intExpr(t, d-1, false)
			if op == ir.OpDiv || op == ir.OpRem {
				x, y = y, g.intExpr(t, d-1, false)
			}
		}
		return ir.Bin(op, x, y)
	case n < 12:
		x := g.intExpr(t, d-1, false)
		if t == ir.I32 && g.r.IntN(2) == 0 {
			return ir.Neg(x)
		}
		return &ir.Unary{Op: ir.OpBitNot, X: x}
	case n < 14:
		o := ir.I32
		if t == ir.I32 {
			o = ir.U32
		}
		if g.r.IntN(2) == 0 {
			return &ir.Bitcast{To: t, X: g.intExpr(o, d-1, false)}
		}
		return ir.Conv(t, g.intExpr(o, d-1, false))
	case n < 16:
		return g.floatToInt(t, d)
	case n < 21:
		switch g.r.IntN(8) {
		case 0:
			return g.bitFieldCall(t, d)
		case 1:
			if t == ir.U32 {
				return g.packRoundTrip(d)
			}
		}
		return g.intCall(t, d)
	case n < 23:
		if g.r.IntN(4) == 0 {
			return g.selectVec(t, d)
		}
		return ir.CallOf(ir.Select, g.boolExpr(d-1, false), g.intExpr(t, d-1, false), g.intExpr(t, d-1, true))
	case n < 24:
		return ir.Conv(t, g.boolExpr(d-1, false))
	case n < 27:
		return g.intVector(t, d)
	}
	return g.intLeaf(t)
}

func (g *gen) intCall(t ir.Scalar, d int) ir.Expr {
	x := g.intExpr(t, d-1, false)
	fns := []ir.Intrinsic{ir.Abs, ir.Min, ir.Max, ir.Clamp, ir.CountOneBits, ir.ReverseBits, ir.FirstTrailingBit, ir.FirstLeadingBit}
	if t == ir.I32 {
		fns = append(fns, ir.Sign)
	}
	switch f := fns[g.r.IntN(len(fns))]; f {
	case ir.Min, ir.Max:
		return ir.CallOf(f, x, g.intExpr(t, d-1, true))
	case ir.Clamp:
		lo, hi := int64(g.r.IntN(300)), int64(g.r.IntN(1<<20))
		if t == ir.I32 {
			lo = -lo
		}
		if lo > hi {
			lo, hi = hi, lo
		}
		return ir.CallOf(f, x, ir.Int(lo), ir.Int(hi))
	default:
		return ir.CallOf(f, x)
	}
}

// intVector builds a small integer vector expression and reduces it to a
// scalar: dot, a swizzled or indexed component of a vector operation.
func (g *gen) intVector(t ir.Scalar, d int) ir.Expr {
	n := []int{2, 3, 4}[g.r.IntN(3)]
	vt := ir.Vec(t, n)
	vec := func() ir.Expr {
		if g.r.IntN(3) == 0 {
			return ir.VecOf(vt, g.intExpr(t, d-2, false))
		}
		args := []ir.Expr{g.intExpr(t, d-2, false)}
		for i := 1; i < n; i++ {
			args = append(args, g.intExpr(t, d-2, true))
		}
		return ir.VecOf(vt, args...)
	}
	switch g.r.IntN(3) {
	case 0:
		return ir.CallOf(ir.Dot, vec(), vec())
	case 1:
		op := intBinOps[g.r.IntN(len(intBinOps))]
		var y ir.Expr = vec()
		switch {
		case op.IsShift():
			y = ir.VecOf(ir.Vec(ir.U32, n), g.intExpr(ir.U32, d-2, false))
		case op <= ir.OpRem && g.r.IntN(3) == 0:
			y = g.intExpr(t, d-2, false) // vector op scalar (arithmetic only)
		}
		return ir.Swz(ir.Bin(op, vec(), y), string("xyzw"[g.r.IntN(n)]))
	}
	v := vec()
	if vs := g.locals(func(l local) bool { return l.t == ir.Vec(t, 4) }); len(vs) > 0 && g.r.IntN(2) == 0 {
		v, n = ir.Ref(g.pick(vs).name), 4
	}
	if n == 3 {
		return ir.At(v, ir.Int(int64(g.r.IntN(3))))
	}
	return ir.At(v, g.mask(g.intExpr(ir.U32, d-2, false), n-1))
}

// floatToInt converts a deterministic float to t; without NoSaturate the
// value is sometimes scaled out of the integer range first.
func (g *gen) floatToInt(t ir.Scalar, d int) ir.Expr {
	x, _ := g.detFloat(d-1, false)
	if !g.cfg.NoSaturate && g.r.IntN(3) == 0 {
		x = ir.Mul(x, ir.Float(0x1p31))
	}
	return ir.Conv(t, x)
}

var cmpOps = []ir.BinaryOp{ir.OpEq, ir.OpNe, ir.OpLt, ir.OpLe, ir.OpGt, ir.OpGe}

// boolExpr is a boolean expression of depth at most d.
func (g *gen) boolExpr(d int, allowConst bool) ir.Expr {
	if d <= 0 || g.r.IntN(6) == 0 {
		if bs := g.locals(func(l local) bool { return l.t == ir.Bool }); len(bs) > 0 && g.r.IntN(2) == 0 {
			return ir.Ref(g.pick(bs).name)
		}
		if allowConst && g.r.IntN(4) == 0 {
			return ir.BoolLit(g.r.IntN(2) == 0)
		}
		t := g.intType()
		return ir.Bin(cmpOps[g.r.IntN(len(cmpOps))], g.intLeaf(t), g.intExpr(t, 0, true))
	}
	switch g.r.IntN(10) {
	case 0, 1, 2, 3:
		t := g.intType()
		return ir.Bin(cmpOps[g.r.IntN(len(cmpOps))], g.intExpr(t, d-1, false), g.intExpr(t, d-1, true))
	case 4, 5:
		x, _ := g.detFloat(d-1, false)
		y, _ := g.detFloat(d-1, true)
		return ir.Bin(cmpOps[g.r.IntN(len(cmpOps))], x, y)
	case 6:
		if g.r.IntN(2) == 0 {
			return g.vecBool(d)
		}
		return ir.Not(g.boolExpr(d-1, false))
	case 7:
		return ir.Bin(ir.OpNe, g.boolExpr(d-1, false), g.boolExpr(d-1, true))
	}
	op := ir.OpLogAnd
	if g.r.IntN(2) == 0 {
		op = ir.OpLogOr
	}
	return ir.Bin(op, g.boolExpr(d-1, false), g.boolExpr(d-1, true))
}

// subgroupLet binds the result of a subgroup operation, at the top level.
func (g *gen) subgroupLet() {
	n := g.name("sgv")
	t := g.intType()
	x := g.intExpr(t, g.cfg.Depth-1, false)
	sid := ir.Builtin(ir.SubgroupInvocationID)
	var e ir.Expr
	lt := ir.Type(t)
	switch k := g.r.IntN(16); k {
	case 0, 1, 2, 3, 4, 5, 6, 7, 8:
		fns := []ir.Intrinsic{ir.SubgroupAdd, ir.SubgroupMul, ir.SubgroupMin, ir.SubgroupMax, ir.SubgroupAnd, ir.SubgroupOr, ir.SubgroupXor, ir.SubgroupInclusiveAdd, ir.SubgroupExclusiveAdd}
		e = ir.CallOf(fns[k], x)
	case 9:
		e = ir.CallOf(ir.SubgroupBroadcast, x, ir.Conv(ir.U32, ir.Int(int64(g.r.IntN(8)))))
	case 10:
		e = ir.CallOf(ir.SubgroupBroadcastFirst, x)
	case 11:
		e = ir.CallOf(ir.SubgroupShuffle, x, g.mask(g.intExpr(ir.U32, 1, false), 7))
	case 12:
		e = ir.CallOf(ir.SubgroupShuffleXor, x, ir.Conv(ir.U32, ir.Int(int64(1+g.r.IntN(7)))))
	case 13:
		dl := int64(1 + g.r.IntN(7))
		if g.r.IntN(2) == 0 {
			e = ir.CallOf(ir.Select, ir.Ge(sid, ir.Int(dl)), ir.CallOf(ir.SubgroupShuffleUp, x, ir.Conv(ir.U32, ir.Int(dl))), ir.Conv(t, ir.Int(0)))
		} else {
			e = ir.CallOf(ir.Select, ir.Lt(ir.Add(sid, ir.Int(dl)), ir.Builtin(ir.SubgroupSize)), ir.CallOf(ir.SubgroupShuffleDown, x, ir.Conv(ir.U32, ir.Int(dl))), ir.Conv(t, ir.Int(0)))
		}
	case 14:
		e, lt = ir.X(ir.CallOf(ir.SubgroupBallot, g.boolExpr(g.cfg.Depth-1, false))), ir.U32
	default:
		fs := []ir.Intrinsic{ir.SubgroupAll, ir.SubgroupAny}
		if g.r.IntN(3) == 0 {
			e = ir.CallOf(ir.SubgroupElect)
		} else {
			e = ir.CallOf(fs[g.r.IntN(2)], g.boolExpr(g.cfg.Depth-1, false))
		}
		lt = ir.Bool
	}
	g.emit(&ir.Decl{Name: n, Init: e})
	g.declare(local{name: n, t: lt})
}

func isIdent(e ir.Expr, name string) bool {
	id, ok := e.(*ir.Ident)
	return ok && id.Name == name
}
