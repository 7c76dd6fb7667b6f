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
// the others), or a helper function with effects (FuncHasEffects). Such an
// expression must be evaluated exactly once, in kc's left-to-right order
// (docs/semantics.md § 5).
func HasEffects(x Expr) bool { return hasEffects(x, nil) }

// FuncHasEffects reports whether a call of f has effects whatever its
// arguments: its body, or a function it calls, writes a buffer or shared
// variable (through a resource parameter), runs an atomic operation or a
// barrier.
func FuncHasEffects(f *Func) bool { return funcEffects(f, map[*Func]bool{}) }

// hasEffects is HasEffects with the answers for functions met so far (nil
// until a call is met: the checker forbids recursion, but one function may
// be called from many places).
func hasEffects(x Expr, memo map[*Func]bool) bool {
	anyOf := func(xs []Expr) bool {
		for _, a := range xs {
			if a != nil && hasEffects(a, memo) {
				return true
			}
		}
		return false
	}
	switch x := x.(type) {
	case *Field:
		return hasEffects(x.X, memo)
	case *StructLit:
		return anyOf(x.Vals)
	case *ArrayLit:
		return anyOf(x.Elems)
	case *FnCall:
		if anyOf(x.Args) {
			return true
		}
		if memo == nil {
			memo = map[*Func]bool{}
		}
		return funcEffects(x.Fn, memo)
	case *Unary:
		return hasEffects(x.X, memo)
	case *Binary:
		return hasEffects(x.X, memo) || hasEffects(x.Y, memo)
	case *Convert:
		return hasEffects(x.X, memo)
	case *Bitcast:
		return hasEffects(x.X, memo)
	case *Swizzle:
		return hasEffects(x.X, memo)
	case *Index:
		return hasEffects(x.X, memo) || hasEffects(x.Index, memo)
	case *Construct:
		return anyOf(x.Args)
	case *Call:
		return x.Func.IsAtomic() || anyOf(x.Args)
	}
	return false
}

// funcEffects is FuncHasEffects with memo.
func funcEffects(f *Func, memo map[*Func]bool) bool {
	if f == nil || f.Body == nil {
		return false
	}
	if v, ok := memo[f]; ok {
		return v
	}
	memo[f] = false // no recursion: the checker forbids it
	found := false
	Inspect(f.Body, func(n Node) bool {
		switch n := n.(type) {
		case *Barrier:
			found = true
		case *Assign:
			found = found || writesResource(n.LHS)
		case *Call:
			found = found || n.Func.IsAtomic()
		case *FnCall:
			found = found || funcEffects(n.Fn, memo)
		}
		return !found
	})
	memo[f] = found
	return found
}

// writesResource reports whether an assignment target lies in a buffer or
// a shared variable (reached through a resource parameter or the kernel's
// own shared variable).
func writesResource(x Expr) bool {
	for {
		switch v := x.(type) {
		case *Index:
			x = v.X
		case *Field:
			x = v.X
		case *Swizzle:
			x = v.X
		case *Ident:
			switch o := v.Obj.(type) {
			case *Param:
				return o.Kind == BufferParam || o.Kind == SharedParam
			case *Shared:
				return true
			}
			return false
		default:
			return false
		}
	}
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
