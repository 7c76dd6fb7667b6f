package ir

import (
	"fmt"
	"reflect"
)

// Expression checking, part 1: the dispatcher, operands, identifiers,
// builtin values, literals, indexing, swizzles and len. Operators are in
// check_binary.go, calls in check_call.go, conversions in check_conv.go,
// untyped constants in check_untyped.go.
//
// An expression with an error gets the type Invalid, which suppresses
// further errors about the expressions that contain it.

// bad reports whether t is the type of an erroneous (or missing) expression.
func bad(t Type) bool {
	// A type assertion, not t == Type(Invalid): comparing interfaces
	// compares through runtime.ifaceeq, and this runs on every node.
	s, ok := t.(Scalar)
	return t == nil || ok && s == Invalid
}

// isNil reports whether a node or type interface is nil or holds a nil pointer.
func isNil(x any) bool {
	if x == nil {
		return true
	}
	v := reflect.ValueOf(x)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// posOf returns e's position, or fallback when e has none.
func posOf(e Node, fallback Pos) Pos {
	if isNil(e) {
		return fallback
	}
	if p := e.Position(); p != (Pos{}) {
		return p
	}
	return fallback
}

// expr checks e and returns its type: a concrete type, an untyped kind
// (untypedInt, untypedFloat) for a constant expression whose type comes
// from its context, noValue for a call without a result, or Invalid.
func (c *checker) expr(e Expr) Type {
	if isNil(e) {
		c.errorf(c.at, "missing expression")
		return Invalid
	}
	if p := e.Position(); p != (Pos{}) {
		defer func(saved Pos) { c.at = saved }(c.at)
		c.at = p
	}
	t := c.exprSwitch(e)
	if !bad(t) && UsesF16(t) {
		c.useFeature(FeatureF16, c.at, "f16")
	}
	if !bad(t) && UsesBF16(t) {
		c.useFeature(FeatureBF16, c.at, "bf16")
	}
	if !bad(t) && UsesInt8(t) {
		c.useFeature(FeatureInt8, c.at, "i8/u8")
	}
	return t
}

func (c *checker) exprSwitch(e Expr) Type {
	switch e := e.(type) {
	case *Lit:
		return c.lit(e)
	case *Ident:
		return c.ident(e)
	case *BuiltinValue:
		return c.builtinValue(e)
	case *Unary:
		return c.unary(e)
	case *Binary:
		return c.binary(e)
	case *Call:
		return c.call(e)
	case *Convert:
		return c.convert(e)
	case *Construct:
		return c.construct(e)
	case *Bitcast:
		return c.bitcast(e)
	case *Index:
		return c.index(e)
	case *Swizzle:
		return c.swizzle(e)
	case *Len:
		return c.length(e)
	case *FnCall:
		return c.fnCall(e)
	case *Field:
		return c.field(e)
	case *StructLit:
		return c.structLit(e)
	case *ArrayLit:
		return c.arrayLit(e)
	case *CoopMake, *CoopLoad, *CoopMulAdd, *CoopLength:
		return c.coopExpr(e)
	}
	c.errorf(c.at, "unknown expression %T", e)
	return Invalid
}

// value checks e as an operand: a buffer, an atomic or a call without a
// result cannot be used as a value.
func (c *checker) value(e Expr) Type {
	t := c.expr(e)
	return c.asValue(e, t)
}

func (c *checker) asValue(e Expr, t Type) Type {
	if bad(t) {
		return Invalid
	}
	if t == noValue {
		c.errorf(posOf(e, c.at), "%s (no value) used as value", c.text(e))
		return Invalid
	}
	if buf := c.bufferParam(e); buf != nil {
		c.errorf(posOf(e, c.at), "cannot use buffer %s as a value (index it: %s[i])", buf.Name, buf.Name)
		return Invalid
	}
	if hasAtomic(t) {
		c.errorf(posOf(e, c.at), "cannot use %s (%s) as a value: use atomicLoad", c.text(e), t)
		return Invalid
	}
	return t
}

// bufferParam returns the buffer parameter e names, if e is a bare buffer identifier.
func (c *checker) bufferParam(e Expr) *Param {
	id, ok := e.(*Ident)
	if !ok || id == nil {
		return nil
	}
	if p, ok := id.Obj.(*Param); ok && p != nil && p.Kind == BufferParam {
		return p
	}
	return nil
}

// hasAtomic reports whether t is or contains an atomic.
func hasAtomic(t Type) bool {
	switch t := t.(type) {
	case Atomic:
		return true
	case *Array:
		return t != nil && hasAtomic(t.Elem)
	}
	return false
}

// text is the source text of e for messages; it never panics.
func (c *checker) text(e Expr) (s string) {
	defer func() {
		if recover() != nil {
			s = "expression"
		}
	}()
	return ExprString(e)
}

// describe is Go's operand description: "x (variable of type f32)",
// "1 (untyped int constant)", "a + b (value of type i32)".
func (c *checker) describe(e Expr, t Type) string {
	s := c.text(e)
	switch {
	case isUntyped(t):
		return fmt.Sprintf("%s (%s constant)", s, t)
	case c.konst[e]:
		return fmt.Sprintf("%s (constant of type %s)", s, typeText(t))
	}
	if id, ok := e.(*Ident); ok && id != nil {
		if _, ok := id.Obj.(*Const); !ok {
			return fmt.Sprintf("%s (variable of type %s)", s, typeText(t))
		}
	}
	return fmt.Sprintf("%s (value of type %s)", s, typeText(t))
}

func (c *checker) lit(e *Lit) Type {
	e.Ty = nil
	switch e.Val.Kind {
	case IntValue:
		c.konst[e] = true
		return untypedInt
	case FloatValue:
		c.konst[e] = true
		return untypedFloat
	case BoolValue:
		e.Ty = Bool
		c.konst[e] = true
		c.vals[e] = e.Val
		return Bool
	}
	c.errorf(c.at, "invalid literal (value kind %d)", e.Val.Kind)
	return Invalid
}

func (c *checker) ident(e *Ident) Type {
	e.Obj, e.Ty = nil, nil
	obj := c.scope.lookup(e.Name)
	if obj == nil {
		c.errorf(c.at, "undefined: %s", e.Name)
		return Invalid
	}
	e.Obj = obj
	if c.badObj[obj] {
		return Invalid
	}
	switch o := obj.(type) {
	case *Param:
		e.Ty = o.Type
	case *Shared:
		e.Ty = o.Type
	case *Decl:
		e.Ty = o.Ty
	case *Const:
		return c.constIdent(e, o)
	case *Func:
		c.errorf(c.at, "%s (function) used as a value: call it, as in %s(...)", e.Name, e.Name)
		return Invalid
	}
	if bad(e.Ty) {
		e.Ty = nil
		return Invalid
	}
	return e.Ty
}

// constIdent types a use of a constant: untyped constants stay untyped
// until their context gives them a type.
func (c *checker) constIdent(e *Ident, k *Const) Type {
	c.constDecl(k)
	if a, ok := k.Ty.(*Array); ok && c.consts[k] == constDone && k.Elems != nil {
		e.Ty = a // a constant array: a value, not a constant expression
		return a
	}
	if c.consts[k] != constDone || k.Val.Kind == 0 {
		return Invalid
	}
	c.konst[e] = true
	if k.Ty == nil {
		if k.Val.Kind == FloatValue {
			return untypedFloat
		}
		return untypedInt
	}
	e.Ty = k.Ty
	c.vals[e] = k.Val
	return k.Ty
}

func (c *checker) builtinValue(e *BuiltinValue) Type {
	if e.Kind < GlobalID || e.Kind >= numBuiltins {
		c.errorf(c.at, "invalid builtin value (kind %d)", e.Kind)
		return Invalid
	}
	if e.Kind == SubgroupSize || e.Kind == SubgroupInvocationID {
		c.useFeature(FeatureSubgroups, c.at, e.Kind.String())
	}
	return e.Kind.Type()
}

// index checks x[i] on a buffer, an array or a vector.
func (c *checker) index(e *Index) Type {
	e.Ty = nil
	elem, n := c.indexBase(e.X)
	it := c.value(e.Index)
	if isUntyped(it) {
		it = c.convertUntyped(e.Index, it, I32)
	}
	if bad(elem) || bad(it) {
		return Invalid
	}
	if it != Type(I32) && it != Type(U32) {
		c.errorf(posOf(e.Index, c.at), "invalid argument: index %s must be i32 or u32", c.describe(e.Index, it))
		return Invalid
	}
	if v, ok := c.vals[e.Index]; ok && c.konst[e.Index] {
		if v.Int < 0 || (n > 0 && v.Int >= int64(n)) {
			c.errorf(posOf(e.Index, c.at), "invalid argument: index %d out of bounds%s", v.Int, boundsText(n))
			return Invalid
		}
	}
	e.Ty = elem
	return elem
}

func boundsText(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(" [0:%d]", n)
}

// indexBase returns the element type of an indexable operand and its
// length (0 for a buffer, whose length is known only at run time).
func (c *checker) indexBase(x Expr) (Type, int) {
	t := c.expr(x)
	if bad(t) {
		return Invalid, 0
	}
	if c.bufferParam(x) != nil {
		return t, 0
	}
	switch bt := t.(type) {
	case *Array:
		return bt.Elem, bt.Len
	case Vector:
		return bt.Elem, bt.N
	case CoopMat:
		// this invocation's elements: coopLength(m) of them, a number
		// only the target knows (coopmat.go)
		if bt.Scope != ScopeSubgroup {
			c.errorf(posOf(x, c.at), "invalid operation: cannot index %s: element access is for subgroup-scope matrices only", c.describe(x, t))
			return Invalid, 0
		}
		return bt.Elem, 0
	}
	if t == noValue || isUntyped(t) {
		c.asValue(x, t)
		if isUntyped(t) {
			c.errorf(posOf(x, c.at), "invalid operation: cannot index %s", c.describe(x, t))
		}
		return Invalid, 0
	}
	c.errorf(posOf(x, c.at), "invalid operation: cannot index %s", c.describe(x, t))
	return Invalid, 0
}

func (c *checker) swizzle(e *Swizzle) Type {
	e.Ty = nil
	t := c.value(e.X)
	if bad(t) {
		return Invalid
	}
	_, isStruct := t.(*Struct)
	if _, isResult := t.(CompareExchangeResult); isStruct || isResult {
		// a field, parsed (or built) as a swizzle: Check makes it a Field
		f := &Field{Pos: e.Pos, X: e.X, Name: e.Comps}
		c.fieldOf[e] = f
		return c.fieldOfType(f, t)
	}
	v, ok := t.(Vector)
	if !ok {
		c.errorf(c.at, "invalid operation: %s has no components (.%s)", c.describe(e.X, t), e.Comps)
		return Invalid
	}
	if len(e.Comps) < 1 || len(e.Comps) > 4 {
		c.errorf(c.at, "invalid swizzle .%s: select 1 to 4 components", e.Comps)
		return Invalid
	}
	for i := 0; i < len(e.Comps); i++ {
		if k := swizzleIndex(e.Comps[i]); k < 0 || k >= v.N {
			c.errorf(c.at, "invalid swizzle .%s: %s has no component %q", e.Comps, v, e.Comps[i])
			return Invalid
		}
	}
	if len(e.Comps) == 1 {
		e.Ty = v.Elem
	} else {
		e.Ty = Vec(v.Elem, len(e.Comps))
	}
	return e.Ty
}

// resultField types r.old_value and r.exchanged of an
// atomicCompareExchangeWeak result r.
func (c *checker) resultField(e *Field, r CompareExchangeResult) Type {
	switch e.Name {
	case FieldOldValue:
		e.Index, e.Ty = 0, r.Elem
	case FieldExchanged:
		e.Index, e.Ty = 1, Bool
	default:
		c.errorf(c.at, "%s has no field %s (it has old_value and exchanged)", c.describe(e.X, r), e.Name)
		return Invalid
	}
	return e.Ty
}

// swizzleIndex maps x, y, z, w to 0..3 and anything else to -1.
func swizzleIndex(ch byte) int {
	switch ch {
	case 'x':
		return 0
	case 'y':
		return 1
	case 'z':
		return 2
	case 'w':
		return 3
	}
	return -1
}

func (c *checker) length(e *Len) Type {
	if e.Buf == nil {
		c.errorf(c.at, "len needs a buffer argument")
		return Invalid
	}
	t := c.ident(e.Buf)
	if bad(t) {
		return Invalid
	}
	if c.bufferParam(e.Buf) == nil {
		c.errorf(posOf(e.Buf, c.at), "invalid argument: %s for built-in len (not a buffer)", c.describe(e.Buf, t))
		return Invalid
	}
	return U32
}

// typeText is the spelling of t for messages; it never panics, even on a
// malformed type built through the Go API.
func typeText(t Type) (s string) {
	defer func() {
		if recover() != nil {
			s = "malformed type"
		}
	}()
	return TypeString(t)
}
