package ir

import "fmt"

// Operators: arithmetic (+ - * / %) on one numeric type or a vector with a
// scalar of its component type; bitwise (& | ^) on one integer type;
// shifts with a u32 amount of the operand's width; comparisons on two
// scalars or vectors of one type (== and != also on bool) yielding bool or a
// vector of bool; && and || on bool; unary - on i32 and floats, ! on bool
// (and bool vectors), ^ on integers.

func (c *checker) unary(e *Unary) Type {
	e.Ty = nil
	if e.Op < OpNeg || e.Op > OpBitNot {
		c.errorf(c.at, "invalid unary operator (%d)", e.Op)
		return Invalid
	}
	t := c.value(e.X)
	if bad(t) {
		return Invalid
	}
	if isUntyped(t) {
		if e.Op == OpNot || (e.Op == OpBitNot && t == Type(untypedFloat)) {
			c.errorf(c.at, "invalid operation: operator %s not defined on %s", e.Op, c.describe(e.X, t))
			return Invalid
		}
		c.konst[e] = c.konst[e.X]
		return t
	}
	if m, ok := t.(CoopMat); ok && e.Op == OpNeg {
		if !c.coopElementwiseOK(e.Op, m) {
			return Invalid
		}
		e.Ty = t
		return t
	}
	if Width(t) == 0 || !unaryDefined(e.Op, ElemScalar(t)) {
		c.errorf(c.at, "invalid operation: operator %s not defined on %s", e.Op, c.describe(e.X, t))
		return Invalid
	}
	e.Ty = t
	if !c.foldUnary(e) {
		return Invalid
	}
	return t
}

func (c *checker) binary(e *Binary) Type {
	e.Ty = nil
	if e.Op <= OpNone || e.Op >= numBinaryOps {
		c.errorf(c.at, "invalid binary operator (%d)", e.Op)
		return Invalid
	}
	x := c.value(e.X)
	y := c.value(e.Y)
	if bad(x) || bad(y) {
		return Invalid
	}
	t := c.binaryOp(e.Op, e.X, x, e.Y, y)
	if bad(t) {
		return Invalid
	}
	if isUntyped(t) {
		c.konst[e] = c.konst[e.X] && c.konst[e.Y]
		return t
	}
	e.Ty = t
	if c.konst[e.X] && c.konst[e.Y] && !c.foldBinary(e) {
		return Invalid
	}
	return t
}

// binaryOp types x op y (operand types xt, yt, already checked as values),
// giving untyped operands their type from the other operand. It returns the
// result type: concrete, untyped (both operands untyped) or Invalid.
func (c *checker) binaryOp(op BinaryOp, x Expr, xt Type, y Expr, yt Type) Type {
	switch {
	case op.IsShift():
		return c.shift(op, x, xt, y, yt)
	case op.IsComparison():
		return c.comparison(op, x, xt, y, yt)
	case op.IsLogical():
		return c.logical(op, x, xt, y, yt)
	}
	return c.arith(op, x, xt, y, yt)
}

// unifyOperands gives an untyped operand the (component) type of the other.
// both reports whether both stay untyped.
func (c *checker) unifyOperands(x Expr, xt Type, y Expr, yt Type) (Type, Type, bool) {
	ux, uy := isUntyped(xt), isUntyped(yt)
	switch {
	case ux && uy:
		return xt, yt, true
	case ux:
		xt = c.convertUntyped(x, xt, operandScalar(yt))
	case uy:
		yt = c.convertUntyped(y, yt, operandScalar(xt))
	}
	return xt, yt, false
}

// operandScalar is the type an untyped operand takes next to an operand of
// type t: t itself, or the component type of a vector.
func operandScalar(t Type) Type {
	if v, ok := t.(Vector); ok {
		return v.Elem
	}
	return t
}

func (c *checker) arith(op BinaryOp, x Expr, xt Type, y Expr, yt Type) Type {
	if IsCoopMat(xt) || IsCoopMat(yt) {
		return c.coopArith(op, x, xt, y, yt)
	}
	xt, yt, both := c.unifyOperands(x, xt, y, yt)
	if both {
		k := maxKind(xt, yt)
		if op.IsBitwise() && k == Type(untypedFloat) {
			c.errorf(c.at, "invalid operation: operator %s not defined on untyped float constants", op)
			return Invalid
		}
		return k
	}
	if bad(xt) || bad(yt) {
		return Invalid
	}
	for _, o := range [2]struct {
		e Expr
		t Type
	}{{x, xt}, {y, yt}} {
		s := ElemScalar(o.t)
		if Width(o.t) == 0 || !s.IsNumeric() || (op.IsBitwise() && !s.IsInt()) {
			c.errorf(c.at, "invalid operation: operator %s not defined on %s", op, c.describe(o.e, o.t))
			return Invalid
		}
	}
	if t, ok := arithResult(op, xt, yt); ok {
		if op == OpDiv || op == OpRem {
			c.checkDivisor(y, yt)
		}
		return t
	}
	c.errorf(c.at, "invalid operation: %s %s %s (mismatched types %s and %s)", c.text(x), op, c.text(y), xt, yt)
	return Invalid
}

// arithResult is the type of x op y for numeric operands, if they match.
func arithResult(op BinaryOp, xt, yt Type) (Type, bool) {
	if xt == yt {
		return xt, true
	}
	if op.IsBitwise() || ElemScalar(xt) != ElemScalar(yt) {
		return nil, false
	}
	if _, ok := xt.(Vector); ok && Width(yt) == 1 {
		return xt, true
	}
	if _, ok := yt.(Vector); ok && Width(xt) == 1 {
		return yt, true
	}
	return nil, false
}

// checkDivisor rejects an integer division or remainder by a constant zero
// (Go and WGSL both do).
func (c *checker) checkDivisor(y Expr, yt Type) {
	if v, ok := c.vals[y]; ok && c.konst[y] && ElemScalar(yt).IsInt() && v.Int == 0 {
		c.errorf(posOf(y, c.at), "invalid operation: division by zero")
	}
}

func (c *checker) shift(op BinaryOp, x Expr, xt Type, y Expr, yt Type) Type {
	if isUntyped(yt) {
		yt = c.convertUntyped(y, yt, U32)
	}
	if bad(yt) {
		return Invalid
	}
	if isUntyped(xt) {
		if xt == Type(untypedFloat) {
			c.errorf(c.at, "invalid operation: shifted operand %s must be integer", c.describe(x, xt))
			return Invalid
		}
	} else if Width(xt) == 0 || !ElemScalar(xt).IsInt() {
		c.errorf(c.at, "invalid operation: shifted operand %s must be integer", c.describe(x, xt))
		return Invalid
	}
	w := Width(xt)
	if isUntyped(xt) {
		w = 1
	}
	if ElemScalar(yt) != U32 || Width(yt) != w {
		c.errorf(posOf(y, c.at), "invalid operation: shift amount %s must be %s", c.describe(y, yt), WithElem(xtOrScalar(xt), U32))
		return Invalid
	}
	if v, ok := c.vals[y]; ok && c.konst[y] && v.Int >= 32 && !isUntyped(xt) {
		c.errorf(posOf(y, c.at), "invalid operation: shift amount %d out of range (must be less than 32)", v.Int)
		return Invalid
	}
	return xt
}

// xtOrScalar maps an untyped kind to a scalar so that WithElem can use it.
func xtOrScalar(t Type) Type {
	if isUntyped(t) {
		return I32
	}
	return t
}

func (c *checker) comparison(op BinaryOp, x Expr, xt Type, y Expr, yt Type) Type {
	xt, yt, both := c.unifyOperands(x, xt, y, yt)
	if both {
		k := defaultType(maxKind(xt, yt))
		xt, yt = c.convertUntyped(x, xt, k), c.convertUntyped(y, yt, k)
	}
	if bad(xt) || bad(yt) {
		return Invalid
	}
	if xt != yt {
		c.errorf(c.at, "invalid operation: %s %s %s (mismatched types %s and %s)", c.text(x), op, c.text(y), typeText(xt), typeText(yt))
		return Invalid
	}
	s, n := ElemScalar(xt), Width(xt)
	switch {
	case n == 0:
		c.errorf(c.at, "invalid operation: %s %s %s (comparison of %s values; compare components)", c.text(x), op, c.text(y), typeText(xt))
		return Invalid
	case s == Bool && op != OpEq && op != OpNe:
		c.errorf(c.at, "invalid operation: operator %s not defined on %s", op, c.describe(x, xt))
		return Invalid
	}
	// Vectors compare componentwise into a vector of bool (reduce it with
	// all or any).
	return WithElem(xt, Bool)
}

func (c *checker) logical(op BinaryOp, x Expr, xt Type, y Expr, yt Type) Type {
	for _, o := range [2]struct {
		e Expr
		t Type
	}{{x, xt}, {y, yt}} {
		if o.t != Type(Bool) {
			c.errorf(posOf(o.e, c.at), "invalid operation: operator %s not defined on %s", op, c.describe(o.e, o.t))
			return Invalid
		}
	}
	return Bool
}

// compoundOp checks lhs op= rhs: the result of lhs op rhs must have lhs's type.
func (c *checker) compoundOp(a *Assign, lt, rt Type) {
	if a.Op <= OpNone || a.Op >= numBinaryOps || a.Op.IsComparison() || a.Op.IsLogical() {
		c.errorf(a.Pos, "invalid compound assignment operator %s=", opText(a.Op))
		return
	}
	t := c.binaryOp(a.Op, a.LHS, lt, a.RHS, rt)
	if bad(t) {
		return
	}
	if isUntyped(t) {
		return // the LHS had an error
	}
	if !Identical(t, lt) {
		c.errorf(a.Pos, "invalid operation: %s %s= %s (result of type %s cannot be assigned to %s)", c.text(a.LHS), a.Op, c.text(a.RHS), t, lt)
	}
}

func opText(op BinaryOp) string {
	if op < numBinaryOps {
		return op.String()
	}
	return fmt.Sprintf("BinaryOp(%d)", op)
}
