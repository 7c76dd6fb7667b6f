package ir

import "fmt"

// Assignments: the target must be a var local, a shared variable, an
// element of a read_write buffer, or a component or element of one of
// those (a swizzle target selects one component). Atomics change only
// through the atomic intrinsics.

func (c *checker) assign(a *Assign) {
	lt := c.expr(a.LHS)
	okLHS := c.assignable(a.LHS, lt)
	rt := c.value(a.RHS)
	if !okLHS || bad(rt) {
		if isUntyped(rt) {
			c.toDefault(a.RHS, rt)
		}
		return
	}
	if a.Op == OpNone {
		c.assignTo(a.RHS, rt, lt, "assignment")
		return
	}
	c.compoundOp(a, lt, rt)
}

// assignable reports whether lhs (of type t) may be assigned, explaining why not.
func (c *checker) assignable(lhs Expr, t Type) bool {
	if bad(t) {
		return false
	}
	what := c.text(lhs)
	if hasAtomic(t) && c.bufferParam(lhs) == nil {
		c.errorf(c.at, "cannot assign to %s (%s): use atomicStore", what, t)
		return false
	}
	if why := c.notAssignable(lhs, true); why != "" {
		c.errorf(c.at, "cannot assign to %s: %s", what, why)
		return false
	}
	return true
}

// notAssignable explains why e is not a mutable location ("" if it is).
// top is true for the whole target (a bare buffer cannot be assigned).
func (c *checker) notAssignable(e Expr, top bool) string {
	switch e := e.(type) {
	case *Ident:
		return identNotAssignable(e, top)
	case *Index:
		return c.notAssignable(e.X, false)
	case *Swizzle:
		if len(e.Comps) != 1 {
			return "only a single vector component can be assigned"
		}
		return c.notAssignable(e.X, false)
	case *Field:
		return c.notAssignable(e.X, false)
	case *BuiltinValue:
		return fmt.Sprintf("%s is a builtin value", e.Kind)
	}
	return "neither a variable nor an element of one"
}

func identNotAssignable(e *Ident, top bool) string {
	switch o := e.Obj.(type) {
	case *Decl:
		if !o.Mut {
			return fmt.Sprintf("%s is declared with let", e.Name)
		}
	case *Shared:
	case *Param:
		switch {
		case o.Kind == SharedParam:
		case o.Kind != BufferParam:
			return fmt.Sprintf("%s is a parameter", e.Name)
		case top:
			return fmt.Sprintf("buffer %s must be indexed", e.Name)
		case o.Access != ReadWrite:
			return fmt.Sprintf("buffer %s is read-only (declared read)", e.Name)
		}
	case *Const:
		return fmt.Sprintf("%s is a constant", e.Name)
	case *Func:
		return fmt.Sprintf("%s is a function", e.Name)
	default:
		return "not a variable"
	}
	return ""
}
