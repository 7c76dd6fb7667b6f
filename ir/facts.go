package ir

// Facts about expressions of a checked module that every emitter needs:
// computed here once, by the same rules, instead of by each target on its
// own output. They hold for any checked tree; they are not cached on the
// nodes, since each is a short walk.

// ConstValue returns the value of a scalar expression that is known at
// compile time, converted to the expression's type: a literal, a named
// constant, and conversions, unary operators and integer or bool binary
// operators of those, evaluated with kc's run-time rules (wrapping
// arithmetic, shifts modulo 32, x / 0 == x, MIN / -1 == MIN: fold.go) on
// the values constant evaluation gave them (consteval.go). Float arithmetic
// is not folded: its rounding is the target's (only its conversions are).
// ok is false for anything else.
func ConstValue(x Expr) (v Value, ok bool) {
	s, ok := x.Type().(Scalar)
	if !ok {
		return Value{}, false
	}
	switch x := x.(type) {
	case *Lit:
		return ConvertValue(x.Val, s), true
	case *Ident:
		if c, ok := x.Obj.(*Const); ok {
			return ConvertValue(c.Val, s), true
		}
	case *Convert:
		if v, ok := ConstValue(x.X); ok {
			return ConvertValue(v, s), true
		}
	case *Unary:
		v, ok := ConstValue(x.X)
		if !ok {
			break
		}
		switch {
		case x.Op == OpNeg && v.Kind == FloatValue:
			return FloatVal(-v.Float), true
		case x.Op == OpNeg:
			return ConvertValue(IntVal(-v.Int), s), true
		case x.Op == OpBitNot:
			return ConvertValue(IntVal(^v.Int), s), true
		case x.Op == OpNot:
			return BoolVal(!v.Bool), true
		}
	case *Binary:
		return constBinary(x)
	}
	return Value{}, false
}

// constBinary evaluates a binary expression on integer or bool scalar
// constants.
func constBinary(x *Binary) (Value, bool) {
	s, ok := x.X.Type().(Scalar)
	if !ok || s.IsFloat() {
		return Value{}, false
	}
	a, ok := ConstValue(x.X)
	if !ok {
		return Value{}, false
	}
	b, ok := ConstValue(x.Y)
	if !ok {
		return Value{}, false
	}
	if s == Bool {
		switch x.Op {
		case OpLogAnd:
			return BoolVal(a.Bool && b.Bool), true
		case OpLogOr:
			return BoolVal(a.Bool || b.Bool), true
		case OpEq:
			return BoolVal(a.Bool == b.Bool), true
		case OpNe:
			return BoolVal(a.Bool != b.Bool), true
		}
		return Value{}, false
	}
	if x.Op.IsComparison() {
		return compareValues(x.Op, a, b), true
	}
	r, ok := FoldInt32(x.Op, uint32(a.Int), uint32(b.Int), s == I32)
	if !ok {
		return Value{}, false
	}
	return ConvertValue(IntVal(int64(r)), s), true
}

// HasEffects reports whether evaluating x touches memory in a way whose
// order matters: it calls an atomic (atomicLoad included, since it observes
// the others). Such an expression must be evaluated exactly once, in kc's
// left-to-right order (docs/semantics.md § 5).
func HasEffects(x Expr) bool {
	switch x := x.(type) {
	case *Unary:
		return HasEffects(x.X)
	case *Binary:
		return HasEffects(x.X) || HasEffects(x.Y)
	case *Convert:
		return HasEffects(x.X)
	case *Bitcast:
		return HasEffects(x.X)
	case *Swizzle:
		return HasEffects(x.X)
	case *Index:
		return HasEffects(x.X) || HasEffects(x.Index)
	case *Construct:
		return AnyEffects(x.Args)
	case *Call:
		return x.Func.IsAtomic() || AnyEffects(x.Args)
	}
	return false
}

// AnyEffects reports whether any of xs has effects (HasEffects).
func AnyEffects(xs []Expr) bool {
	for _, a := range xs {
		if HasEffects(a) {
			return true
		}
	}
	return false
}
