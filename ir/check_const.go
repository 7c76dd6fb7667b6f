package ir

// Module constants. They are checked on demand (a constant may use one
// declared after it, as in Go) with cycle detection, in the module scope
// only. An untyped constant keeps its exact value in Val and has Ty nil;
// its uses take their type from context. A constant with a declared type,
// or whose value is a typed expression, has that type.

func (c *checker) constDecl(k *Const) {
	switch c.consts[k] {
	case constDone:
		return
	case constInProgress:
		c.errorf(k.Pos, "initialization cycle: constant %s refers to itself", k.Name)
		return
	}
	c.consts[k] = constInProgress
	defer func() { c.consts[k] = constDone }()
	savedScope, savedK, savedFn, savedAt, savedFeat := c.scope, c.k, c.fn, c.at, c.featErr
	c.scope, c.k, c.fn, c.at, c.featErr = c.top, nil, nil, k.Pos, 0
	defer func() { c.scope, c.k, c.fn, c.at, c.featErr = savedScope, savedK, savedFn, savedAt, savedFeat }()
	k.Val, k.Ty = Value{}, nil
	if k.Value == nil || isNil(k.Value) {
		c.errorf(k.Pos, "constant %s has no value", k.Name)
		return
	}
	if lit, ok := k.Value.(*ArrayLit); ok {
		c.constArray(k, lit)
		return
	}
	if k.Type != nil && !c.constType(k) {
		c.expr(k.Value)
		return
	}
	t := c.value(k.Value)
	if bad(t) {
		return
	}
	if !c.konst[k.Value] {
		c.errorf(posOf(k.Value, k.Pos), "%s is not constant", c.describe(k.Value, t))
		return
	}
	c.constValue(k, t)
}

// constType checks a constant's declared type: a scalar.
func (c *checker) constType(k *Const) bool {
	if !c.validType(k.Type, k.Pos) {
		return false
	}
	if _, ok := k.Type.(Scalar); !ok {
		c.errorf(k.Pos, "constant %s: type %s is not a scalar type", k.Name, k.Type)
		return false
	}
	return true
}

// constValue stores the value (and type) of a checked constant expression.
func (c *checker) constValue(k *Const, t Type) {
	switch {
	case k.Type != nil:
		if !c.assignTo(k.Value, t, k.Type, "constant declaration") {
			return
		}
		k.Ty = k.Type
		k.Val = c.vals[k.Value]
	case isUntyped(t):
		v, err := c.untypedValue(k.Value, t)
		if err != "" {
			c.errorf(posOf(k.Value, k.Pos), "%s", err)
			return
		}
		k.Val = toKind(v, t)
		annotateDefault(k.Value, defaultType(t))
	default:
		if _, ok := t.(Scalar); !ok {
			c.errorf(k.Pos, "constant %s: type %s is not a scalar type", k.Name, t)
			return
		}
		k.Ty = t
		k.Val = c.vals[k.Value]
	}
}

// annotateDefault gives the nodes of an untyped constant's value its
// default type, for tools that print or walk it. The constant itself stays
// untyped: its uses are typed by their context.
func annotateDefault(e Expr, s Scalar) {
	switch e := e.(type) {
	case *Lit:
		e.Ty = s
	case *Ident:
		e.Ty = s
	case *Unary:
		e.Ty = s
		annotateDefault(e.X, s)
	case *Binary:
		e.Ty = s
		annotateDefault(e.X, s)
		if !e.Op.IsShift() {
			annotateDefault(e.Y, s)
		}
	}
}
