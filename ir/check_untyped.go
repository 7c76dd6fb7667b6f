package ir

import "fmt"

// Untyped constants, as in Go: a literal, an untyped constant, or an
// operator applied to untyped operands has no type of its own until its
// context gives it one (the other operand, the assignment target, the
// declared type, an intrinsic's other arguments, an index); without one it
// defaults to i32 (integers) or f32 (floats). Once typed, the whole untyped
// tree takes the type, node by node, so that emitters see a fully typed
// tree; every intermediate constant must be representable in that type.

// untyped is the internal "type" of an expression still waiting for one.
// It never survives a successful Check.
type untyped uint8

const (
	untypedInt untyped = iota + 1
	untypedFloat
	noValue // the "type" of a call that yields nothing (atomicStore)
)

func (u untyped) String() string {
	switch u {
	case untypedInt:
		return "untyped int"
	case untypedFloat:
		return "untyped float"
	}
	return "no value"
}

func (untyped) isType() {}

func isUntyped(t Type) bool { return t == Type(untypedInt) || t == Type(untypedFloat) }

// maxKind is the kind of an operation on two untyped operands.
func maxKind(a, b Type) Type {
	if a == Type(untypedFloat) || b == Type(untypedFloat) {
		return untypedFloat
	}
	return untypedInt
}

// defaultType is the type an untyped kind takes without context.
func defaultType(t Type) Scalar {
	if t == Type(untypedFloat) {
		return F32
	}
	return I32
}

// toDefault gives an untyped expression its default type.
func (c *checker) toDefault(e Expr, t Type) Type {
	if !isUntyped(t) {
		return t
	}
	return c.convertUntyped(e, t, defaultType(t))
}

// assignTo checks that e (of type t) can be stored in a target of type
// want, giving an untyped e that type. ctx names the context in messages.
func (c *checker) assignTo(e Expr, t, want Type, ctx string) bool {
	if bad(t) || bad(want) {
		return false
	}
	if isUntyped(t) {
		return !bad(c.convertUntyped(e, t, want))
	}
	if !Identical(t, want) {
		c.errorf(posOf(e, c.at), "cannot use %s as %s value in %s", c.describe(e, t), typeText(want), ctx)
		return false
	}
	return true
}

// convertUntyped gives the untyped expression e (of kind t) the type want,
// checking that its value is representable. It returns want or Invalid.
func (c *checker) convertUntyped(e Expr, t, want Type) Type {
	if bad(want) {
		return Invalid
	}
	s, ok := want.(Scalar)
	if !ok || !s.IsNumeric() {
		c.errorf(posOf(e, c.at), "cannot use %s as %s value", c.describe(e, t), typeText(want))
		return Invalid
	}
	if c.konst[e] {
		v, err := c.untypedValue(e, t)
		if err != "" {
			c.errorf(posOf(e, c.at), "%s", err)
			return Invalid
		}
		if _, why := representable(v, s); why != "" {
			c.errorf(posOf(e, c.at), "constant %s %s %s", constText(e, v), why, s)
			return Invalid
		}
	}
	if !c.setUntyped(e, s) {
		return Invalid
	}
	if UsesF16(s) {
		c.useFeature(FeatureF16, posOf(e, c.at), "f16")
	}
	return s
}

// constText names a constant value in messages: "2.5", or "F (2.5)" for
// a named constant.
func constText(e Expr, v Value) string {
	if id, ok := e.(*Ident); ok {
		return id.Name + " (" + LitText(v) + ")"
	}
	return LitText(v)
}

// setUntyped stores type s in every node of the untyped tree e and folds
// the constant nodes in s, reporting operators s does not have and
// intermediate values that do not fit.
func (c *checker) setUntyped(e Expr, s Scalar) bool {
	if prev, ok := c.untypedAs[e]; ok && prev != s {
		c.errorf(posOf(e, c.at), "%s is used as both %s and %s: a node built through the Go API may not be shared by contexts that need different types", c.text(e), prev, s)
		return false
	}
	c.untypedAs[e] = s
	switch e := e.(type) {
	case *Lit:
		e.Ty = s
		v, why := representable(e.Val, s)
		if why != "" {
			c.errorf(posOf(e, c.at), "constant %s %s %s", LitText(e.Val), why, s)
			return false
		}
		c.vals[e] = v
		return true
	case *Ident:
		k, _ := e.Obj.(*Const)
		if k == nil {
			return false
		}
		e.Ty = s
		v, why := representable(k.Val, s)
		if why != "" {
			c.errorf(posOf(e, c.at), "constant %s (%s) %s %s", e.Name, LitText(k.Val), why, s)
			return false
		}
		c.vals[e] = v
		return true
	case *Unary:
		return c.setUntypedUnary(e, s)
	case *Binary:
		return c.setUntypedBinary(e, s)
	}
	return false
}

func (c *checker) setUntypedUnary(e *Unary, s Scalar) bool {
	if !c.setUntyped(e.X, s) {
		return false
	}
	if !unaryDefined(e.Op, s) {
		c.errorf(posOf(e, c.at), "invalid operation: operator %s not defined on %s (constant of type %s)", e.Op, c.text(e.X), s)
		return false
	}
	e.Ty = s
	return c.foldUnary(e)
}

func (c *checker) setUntypedBinary(e *Binary, s Scalar) bool {
	if e.Op.IsShift() {
		if !s.IsInt() {
			c.errorf(posOf(e, c.at), "invalid operation: shifted operand %s must be integer (here %s)", c.text(e.X), s)
			return false
		}
		if !c.setUntyped(e.X, s) {
			return false
		}
	} else {
		if !c.setUntyped(e.X, s) || !c.setUntyped(e.Y, s) {
			return false
		}
		if e.Op.IsBitwise() && !s.IsInt() {
			c.errorf(posOf(e, c.at), "invalid operation: operator %s not defined on %s (constant of type %s)", e.Op, c.text(e.X), s)
			return false
		}
	}
	e.Ty = s
	if !c.konst[e] {
		return true
	}
	return c.foldBinary(e)
}

// untypedValue evaluates the untyped constant tree e exactly (int64 or
// float64) in kind t, the kind of the whole tree.
func (c *checker) untypedValue(e Expr, t Type) (Value, string) {
	switch e := e.(type) {
	case *Lit:
		return toKind(e.Val, t), ""
	case *Ident:
		if k, ok := e.Obj.(*Const); ok {
			return toKind(k.Val, t), ""
		}
	case *Unary:
		x, err := c.untypedValue(e.X, t)
		if err != "" {
			return Value{}, err
		}
		return exactUnary(e.Op, x)
	case *Binary:
		return c.untypedBinaryValue(e, t)
	}
	return Value{}, fmt.Sprintf("%s is not constant", c.text(e))
}

func (c *checker) untypedBinaryValue(e *Binary, t Type) (Value, string) {
	x, err := c.untypedValue(e.X, t)
	if err != "" {
		return Value{}, err
	}
	var y Value
	if e.Op.IsShift() {
		v, ok := c.vals[e.Y]
		if !ok {
			return Value{}, fmt.Sprintf("%s is not constant", c.text(e.Y))
		}
		y = v
	} else if y, err = c.untypedValue(e.Y, t); err != "" {
		return Value{}, err
	}
	return exactBinary(e.Op, x, y)
}

// toKind converts an exact value to the representation of kind t.
func toKind(v Value, t Type) Value {
	if t == Type(untypedFloat) && v.Kind == IntValue {
		return FloatVal(float64(v.Int))
	}
	return v
}
