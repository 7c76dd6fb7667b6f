package wgsl

import (
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file writes expressions: names, operators, indexing and swizzles.

// class is the WGSL grammar production an expression's text is, which
// decides where it needs parentheses.
type class uint8

const (
	cPrimary class = iota // literal, name, call, x[i], x.y, (e)
	cUnary                // -x, !x, ~x, -5i
	cMul                  // * / %
	cAdd                  // + -
	cShift                // << >>
	cRel                  // == != < <= > >=
	cBitAnd               // &
	cBitOr                // |
	cBitXor               // ^
	cLogAnd               // &&
	cLogOr                // ||
)

// wx is emitted expression text and its grammar class.
type wx struct {
	s string
	c class
}

func prim(s string) wx { return wx{s, cPrimary} }

// at returns the text usable where only the given classes may appear,
// parenthesised otherwise.
func (x wx) at(ok ...class) string {
	for _, c := range ok {
		if x.c == c {
			return x.s
		}
	}
	if x.c == cPrimary {
		return x.s
	}
	return "(" + x.s + ")"
}

// opClass is the class of a binary operator.
func opClass(op ir.BinaryOp) class {
	switch op {
	case ir.OpMul, ir.OpDiv, ir.OpRem:
		return cMul
	case ir.OpAdd, ir.OpSub:
		return cAdd
	case ir.OpShl, ir.OpShr:
		return cShift
	case ir.OpAnd:
		return cBitAnd
	case ir.OpOr:
		return cBitOr
	case ir.OpXor:
		return cBitXor
	case ir.OpLogAnd:
		return cLogAnd
	case ir.OpLogOr:
		return cLogOr
	}
	return cRel
}

// operands returns the classes allowed unparenthesised as the left and
// right operand of op (WGSL § 8.19 grammar: bitwise and shift operands are
// unary expressions, relations take shift expressions and do not chain).
func operands(op ir.BinaryOp) (left, right []class) {
	rel := []class{cUnary, cMul, cAdd, cShift}
	switch c := opClass(op); c {
	case cMul:
		return []class{cUnary, cMul}, []class{cUnary}
	case cAdd:
		return []class{cUnary, cMul, cAdd}, []class{cUnary, cMul}
	case cShift:
		return []class{cUnary}, []class{cUnary}
	case cBitAnd, cBitOr, cBitXor:
		return []class{cUnary, c}, []class{cUnary}
	case cLogAnd, cLogOr:
		return append([]class{cRel, c}, rel...), append([]class{cRel}, rel...)
	}
	return rel, rel
}

func (f *fn) expr(x ir.Expr) wx {
	switch x := x.(type) {
	case *ir.Lit:
		return f.lit(x.Val, x.Ty)
	case *ir.Ident:
		return f.ident(x)
	case *ir.BuiltinValue:
		name, ok := f.builtins[x.Kind]
		if !ok {
			f.e.fail(ir.Errorf(x.Pos, "wgsl: builtin %s not declared", x.Kind))
		}
		return prim(name)
	case *ir.CoopMake, *ir.CoopLoad, *ir.CoopMulAdd, *ir.CoopLength:
		v, _ := f.coopExpr(x)
		return v
	case *ir.Unary:
		if ir.IsCoopMat(x.Ty) {
			if v, ok := f.coopExpr(x); ok {
				return v
			}
		}
		if v, ok := ir.ConstValue(x); ok && isScalar(x.Ty) && !ir.ElemScalar(x.Ty).IsFloat() {
			return f.lit(v, x.Ty)
		}
		return f.unary(x)
	case *ir.Binary:
		if ir.IsCoopMat(x.Ty) {
			v, _ := f.coopExpr(x)
			return v
		}
		if v, ok := ir.ConstValue(x); ok {
			return f.lit(v, x.Ty)
		}
		return f.binary(x.Op, x.X, x.Y, x.Ty)
	case *ir.Call:
		return f.call(x)
	case *ir.Convert:
		return f.convert(x)
	case *ir.Construct:
		return f.construct(x)
	case *ir.Bitcast:
		return f.bitcast(x)
	case *ir.Index:
		if ir.IsCoopMat(x.X.Type()) {
			f.e.coopRefuse(x.Pos, "cooperative-matrix element access (the extension has none)")
			return prim("0")
		}
		if f.valueIndex(x) {
			return f.indexHelper(x)
		}
		return prim(f.expr(x.X).at() + "[" + f.expr(x.Index).s + "]")
	case *ir.Swizzle:
		return prim(f.expr(x.X).at() + "." + x.Comps)
	case *ir.Len:
		if x.Buf == nil {
			break
		}
		return prim("arrayLength(&" + f.ident(x.Buf).s + ")")
	case *ir.FnCall:
		return f.fnCall(x)
	case *ir.Field:
		return f.field(x)
	case *ir.StructLit:
		return f.structLit(x)
	case *ir.ArrayLit:
		return f.arrayLit(x)
	}
	f.e.fail(ir.Errorf(posOf(x), "wgsl: unexpected expression %T", x))
	return prim("0")
}

// ident spells a reference: a constant as its value, a scalar parameter
// as a field of the params block, anything else by its WGSL name.
func (f *fn) ident(x *ir.Ident) wx {
	switch o := x.Obj.(type) {
	case *ir.Const:
		if o.Elems != nil {
			return f.constArray(x, o)
		}
		return f.lit(o.Val, x.Ty)
	case *ir.Param:
		if f.inst != nil {
			return f.fnParam(x, o)
		}
		if o.Kind == ir.ScalarParam {
			if name, ok := f.r.fields[o]; ok {
				return prim(f.r.paramsVar + "." + name)
			}
		} else if name, ok := f.r.buffers[o]; ok {
			return prim(name)
		}
	case *ir.Shared:
		if name, ok := f.r.shared[o]; ok {
			return prim(name)
		}
	case *ir.Decl:
		if name, ok := f.locals[o]; ok {
			return prim(name)
		}
	}
	f.e.fail(ir.Errorf(x.Pos, "wgsl: unresolved identifier %s", x.Name))
	return prim(words.Legal(x.Name))
}

func (f *fn) unary(x *ir.Unary) wx {
	operand := f.expr(x.X)
	if isConst(x.X) && !checkerConst(x.X) {
		// -vec2<i32>(MIN) would be a const-expression overflow in WGSL.
		operand = f.runtime(operand, x.X.Type())
	}
	switch x.Op {
	case ir.OpNeg:
		if ir.ElemScalar(x.Ty) == ir.U32 {
			// WGSL has no unary minus on u32: 0u - x wraps the same way.
			return wx{"0u - " + operand.at(cUnary, cMul), cAdd}
		}
		return wx{"-" + operand.at(), cUnary}
	case ir.OpNot:
		return wx{"!" + operand.at(), cUnary}
	case ir.OpBitNot:
		return wx{"~" + operand.at(), cUnary}
	}
	f.e.fail(ir.Errorf(x.Pos, "wgsl: unexpected unary operator %d", x.Op))
	return operand
}

// binary spells x op y of result type t.
func (f *fn) binary(op ir.BinaryOp, x, y ir.Expr, t ir.Type) wx {
	if (op == ir.OpDiv || op == ir.OpRem) && isIntElem(t) {
		if z, ok := f.constZero(y); ok && z {
			// kc: x / 0 == x and x % 0 == 0; WGSL rejects a constant zero divisor.
			if op == ir.OpDiv {
				return f.expr(x)
			}
			if effects(x) {
				return wx{f.expr(x).at() + " & " + f.zero(t).at(), cBitAnd}
			}
			return f.zero(t)
		}
		if f.needsDivHelper(op, y) {
			return f.divHelper(op, f.expr(x), y, t)
		}
	}
	l := f.expr(x)
	if isConst(x) && isConst(y) && !(checkerConst(x) && checkerConst(y)) && !op.IsComparison() && !op.IsLogical() {
		// WGSL evaluates this at shader creation and rejects an overflow
		// where kc wraps, and the checker, which does not fold vectors,
		// bitcasts or calls, has not ruled one out: evaluate it at run time.
		l = f.runtime(l, x.Type())
	}
	r := f.operandY(op, x, y)
	lok, rok := operands(op)
	if op == ir.OpLt {
		// WGSL's template-list discovery reads `a < b >> c` as a<b> ...:
		// a shift right of < is parenthesised.
		rok = []class{cUnary, cMul, cAdd}
	}
	return wx{l.at(lok...) + " " + op.String() + " " + r.at(rok...), opClass(op)}
}

// joinArgs joins call or constructor arguments. WGSL's template-list
// discovery would read f(a < b, c > d) as f(a<b, c> d): an argument other
// than the last that is a comparison with a < is parenthesised.
func joinArgs(args []wx) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		if i < len(args)-1 && (a.c == cRel || a.c == cLogAnd || a.c == cLogOr) && strings.Contains(a.s, "<") {
			b.WriteString("(" + a.s + ")")
			continue
		}
		b.WriteString(a.s)
	}
	return b.String()
}

// operandY spells the right operand of x op y: a shift amount not known
// to be below 32 is masked (kc and WGSL take it modulo 32, but naga
// v0.19 passes it to SPIR-V, where 32 and more are undefined); a constant
// vector divisor, which might hold a zero, is evaluated at run time.
func (f *fn) operandY(op ir.BinaryOp, x, y ir.Expr) wx {
	r := f.expr(y)
	if op.IsShift() {
		if below32(y) {
			return r
		}
		return wx{r.at() + " & " + f.lit(ir.IntVal(31), y.Type()).s, cBitAnd}
	}
	if (op == ir.OpDiv || op == ir.OpRem) && isIntElem(y.Type()) && isConst(y) {
		if _, ok := f.constZero(y); !ok {
			r = f.runtime(r, y.Type())
		}
	}
	return r
}

// constZero reports, for a constant scalar y, whether it is zero; ok is
// false when y is not a scalar constant the emitter evaluates.
func (f *fn) constZero(y ir.Expr) (zero, ok bool) {
	v, ok := ir.ConstValue(y)
	if !ok {
		return false, false
	}
	switch v.Kind {
	case ir.IntValue:
		return v.Int == 0, true
	case ir.FloatValue:
		return v.Float == 0, true
	}
	return !v.Bool, true
}

// zero is the zero value of a scalar or vector type.
func (f *fn) zero(t ir.Type) wx {
	s := ir.ElemScalar(t)
	switch s {
	case ir.Bool:
		return f.lit(ir.BoolVal(false), t)
	case ir.F32, ir.F16:
		return f.lit(ir.FloatVal(0), t)
	}
	return f.lit(ir.IntVal(0), t)
}

// runtime wraps a value in an identity function so that WGSL evaluates it
// at run time rather than as a const-expression.
func (f *fn) runtime(x wx, t ir.Type) wx {
	name := helperPrefix + "rt_" + tag(t)
	tn := f.e.typeName(t)
	f.e.need(name, func() string {
		return "// " + name + " hides a constant from WGSL's shader-creation evaluation.\n" +
			"fn " + name + "(x: " + tn + ") -> " + tn + " {\n  return x;\n}"
	})
	return prim(name + "(" + x.s + ")")
}

func isScalar(t ir.Type) bool {
	_, ok := t.(ir.Scalar)
	return ok
}

// isConst reports whether WGSL may treat x as a const-expression: it is
// made of literals and constants only.
func isConst(x ir.Expr) bool {
	switch x := x.(type) {
	case *ir.Lit:
		return true
	case *ir.Ident:
		_, ok := x.Obj.(*ir.Const)
		return ok
	case *ir.Unary:
		return isConst(x.X)
	case *ir.Binary:
		return isConst(x.X) && isConst(x.Y)
	case *ir.Convert:
		return isConst(x.X)
	case *ir.Bitcast:
		return isConst(x.X)
	case *ir.Swizzle:
		return isConst(x.X)
	case *ir.Index:
		return isConst(x.X) && isConst(x.Index)
	case *ir.Construct:
		return allConst(x.Args)
	case *ir.ArrayLit:
		return allConst(x.Elems)
	case *ir.StructLit:
		for _, v := range x.Values() {
			if v != nil && !isConst(v) {
				return false
			}
		}
		return true
	case *ir.Field:
		return isConst(x.X)
	case *ir.Call:
		return !x.Func.IsAtomic() && !x.Func.IsSubgroup() && allConst(x.Args)
	}
	return false
}

// checkerConst reports whether x is a scalar constant expression the
// checker evaluated (and so rejected on overflow or a zero divisor):
// literals, named constants, and operators and conversions of those.
func checkerConst(x ir.Expr) bool {
	if !isScalar(x.Type()) {
		return false
	}
	switch x := x.(type) {
	case *ir.Lit:
		return true
	case *ir.Ident:
		_, ok := x.Obj.(*ir.Const)
		return ok
	case *ir.Unary:
		return checkerConst(x.X)
	case *ir.Binary:
		return checkerConst(x.X) && checkerConst(x.Y)
	case *ir.Convert:
		return checkerConst(x.X)
	}
	return false
}

func allConst(xs []ir.Expr) bool {
	for _, a := range xs {
		if !isConst(a) {
			return false
		}
	}
	return true
}

// below32 reports whether a shift amount is known to be below 32: a
// constant, or something masked with a constant.
func below32(y ir.Expr) bool {
	if v, ok := ir.ConstValue(y); ok {
		return v.Int >= 0 && v.Int < 32
	}
	if b, ok := y.(*ir.Binary); ok && b.Op == ir.OpAnd {
		return below32(b.X) || below32(b.Y)
	}
	return false
}

// remI32Src is the i32 remainder helper: |x| % |y| in u32 (|MIN| is 2^31,
// exact) with the sign of x, and 1 in place of a zero divisor. naga lowers
// a WGSL i32 % to OpSRem, which the H200's driver (NVIDIA 580.159) computes
// with the divisor's sign for some negative operands; the unsigned form is
// OpUMod everywhere and needs no MIN / -1 guard (2^31 % 1 == 0).
func (f *fn) remI32Src(name string, t ir.Type) string {
	tn := f.e.typeName(t)
	ut := ir.WithElem(t, ir.U32)
	un := f.e.typeName(ut)
	ulit := func(v int64) string { return f.lit(ir.IntVal(v), ut).s }
	zero := f.lit(ir.IntVal(0), t).s
	return "// " + name + " is x % y with kc's rules: x % 0 == 0, MIN % -1 == 0, the sign of x.\n" +
		"fn " + name + "(x: " + tn + ", y: " + tn + ") -> " + tn + " {\n" +
		"  let ux = select(bitcast<" + un + ">(x), " + ulit(0) + " - bitcast<" + un + ">(x), x < " + zero + ");\n" +
		"  let uy = select(bitcast<" + un + ">(y), " + ulit(0) + " - bitcast<" + un + ">(y), y < " + zero + ");\n" +
		"  let r = bitcast<" + tn + ">(ux % select(uy, " + ulit(1) + ", uy == " + ulit(0) + "));\n" +
		"  return select(r, -r, x < " + zero + ");\n}"
}

// needsDivHelper reports whether integer division or remainder by y needs
// kc's guards: unless y is a constant that is neither 0 (handled apart) nor
// -1, the divisor might be 0, or -1 with a MIN dividend. An i32 remainder
// always goes through its helper, which avoids SPIR-V's OpSRem (see
// remI32Src).
func (f *fn) needsDivHelper(op ir.BinaryOp, y ir.Expr) bool {
	if op == ir.OpRem && ir.ElemScalar(y.Type()) == ir.I32 {
		return true
	}
	v, ok := ir.ConstValue(y)
	return !ok || v.Int == -1 && ir.ElemScalar(y.Type()) == ir.I32
}

// divHelper spells x / y or x % y of integer type t through a helper that
// gives kc's results (x / 0 == x, x % 0 == 0, MIN / -1 == MIN, MIN % -1
// == 0) by dividing by 1 in those cases. WGSL defines the same results,
// but naga v0.19 (wgpu-native) emits a bare SPIR-V division, undefined
// there.
func (f *fn) divHelper(op ir.BinaryOp, x wx, y ir.Expr, t ir.Type) wx {
	kind := "div_"
	if op == ir.OpRem {
		kind = "rem_"
	}
	name := helperPrefix + kind + tag(t)
	f.e.need(name, func() string { return f.divHelperSrc(name, op, t) })
	ys := f.expr(y).s
	if _, vec := t.(ir.Vector); vec && isScalar(y.Type()) {
		ys = f.e.typeName(t) + "(" + ys + ")"
	}
	return prim(name + "(" + x.s + ", " + ys + ")")
}

func (f *fn) divHelperSrc(name string, op ir.BinaryOp, t ir.Type) string {
	if op == ir.OpRem && ir.ElemScalar(t) == ir.I32 {
		return f.remI32Src(name, t)
	}
	tn := f.e.typeName(t)
	lit := func(v int64) string { return f.lit(ir.IntVal(v), t).s }
	cond := "y == " + lit(0)
	what := "x / 0 == x"
	if op == ir.OpRem {
		what = "x % 0 == 0"
	}
	if ir.ElemScalar(t) == ir.I32 {
		cond = "(" + cond + ") | ((x == " + lit(-2147483648) + ") & (y == " + lit(-1) + "))"
		if op == ir.OpRem {
			what += ", MIN % -1 == 0"
		} else {
			what += ", MIN / -1 == MIN"
		}
	}
	return "// " + name + " is x " + op.String() + " y with kc's rules: " + what + ".\n" +
		"fn " + name + "(x: " + tn + ", y: " + tn + ") -> " + tn + " {\n" +
		"  return x " + op.String() + " select(y, " + lit(1) + ", " + cond + ");\n}"
}
