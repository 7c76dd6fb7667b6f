package ir

import (
	"fmt"
	"strings"
)

// Helper functions: signatures, bodies, calls, returns, the recursion
// check and the features a kernel inherits from the functions it calls.

// callEdge is one call of a function, for the recursion check.
type callEdge struct {
	callee *Func
	pos    Pos
}

// declareFuncs adds the functions to the module scope (after the constants).
func (c *checker) declareFuncs() {
	c.scope = c.top
	for _, f := range c.m.Funcs {
		if f == nil {
			c.errorf(c.m.Position(), "nil function")
			continue
		}
		f.Features, f.FeatPos, f.Coops = 0, nil, nil
		c.declare(f, f.Pos, f.Name, "function")
	}
	c.scope = nil
}

// funcSigs checks every function's parameters and result, before any body
// is checked (a call needs only the callee's signature).
func (c *checker) funcSigs() {
	c.scope = c.top // array lengths name module constants
	defer func() { c.scope = nil }()
	for _, f := range c.m.Funcs {
		if f == nil {
			continue
		}
		c.at = f.Pos
		for _, p := range f.Params {
			if p == nil {
				c.errorf(f.Pos, "function %s: nil parameter", f.Name)
				continue
			}
			if !c.funcParam(f, p) {
				c.badObj[p] = true
				c.badFunc[f] = true
			}
		}
		if f.Result != nil && !c.valueType(f.Result, f.Pos, "result of "+f.Name) {
			c.badFunc[f] = true
		}
	}
}

func (c *checker) funcParam(f *Func, p *Param) bool {
	switch p.Kind {
	case ValueParam:
		return c.valueType(p.Type, p.Pos, "parameter "+p.Name)
	case BufferParam:
		return c.bufferParamDecl(p)
	case SharedParam:
		return c.validType(p.Type, p.Pos)
	case ScalarParam:
		c.errorf(p.Pos, "function %s: parameter %s has kind ScalarParam (use ValueParam in functions)", f.Name, p.Name)
	default:
		c.errorf(p.Pos, "parameter %s: invalid kind %d", p.Name, p.Kind)
	}
	return false
}

// valueType checks a type that values of are passed or returned.
func (c *checker) valueType(t Type, pos Pos, what string) bool {
	if !c.validType(t, pos) {
		return false
	}
	if hasAtomic(t) {
		c.errorf(pos, "%s: atomic types cannot be passed or returned by value", what)
		return false
	}
	if IsCoopMat(t) {
		c.errorf(pos, "%s: cooperative matrices cannot be passed to or returned from functions yet", what)
		return false
	}
	return true
}

// funcBody checks the body of f in a scope holding its parameters.
func (c *checker) funcBody(f *Func) {
	c.fn, c.featErr, c.loopDepth, c.switchDepth = f, 0, 0, 0
	defer func() { c.fn = nil }()
	nerr := len(c.errs)
	c.checkName(f.Pos, f.Name, "function")
	for _, k := range c.m.Kernels {
		if k != nil && k.Name == f.Name {
			c.errorf(f.Pos, "function %s has the name of a kernel%s", f.Name, prevDecl(k.Pos))
		}
	}
	c.scope = newScope(c.top)
	for _, p := range f.Params {
		if p != nil {
			c.declare(p, p.Pos, p.Name, "parameter")
		}
	}
	if f.Body == nil {
		c.errorf(f.Pos, "function %s has no body", f.Name)
	} else {
		c.at = f.Pos
		c.stmts(f.Body.Stmts, f.Body.Pos)
		c.rewriteFields(f.Body)
		if f.Result != nil && !terminates(f.Body) {
			c.errorf(c.closing(f), "missing return at the end of function %s", f.Name)
		}
	}
	c.scope = nil
	if len(c.errs) > nerr {
		c.badFunc[f] = true
	}
}

// closing is where a function's missing return is reported: its last
// statement, or the function itself.
func (c *checker) closing(f *Func) Pos {
	if n := len(f.Body.Stmts); n > 0 && f.Body.Stmts[n-1] != nil {
		return c.orPos(f.Body.Stmts[n-1].Position())
	}
	return f.Pos
}

// terminates is Go's "terminating statement" rule, restricted to kc's
// statements: a function with a result must end in one.
func terminates(s Stmt) bool {
	switch s := s.(type) {
	case *Return:
		return true
	case *Block:
		return s != nil && len(s.Stmts) > 0 && terminates(s.Stmts[len(s.Stmts)-1])
	case *If:
		return s.Else != nil && s.Then != nil && terminates(s.Then) && terminates(s.Else)
	case *For:
		return s.Cond == nil && !hasBreak(s.Body, false)
	case *Switch:
		hasDefault := false
		for _, k := range s.Cases {
			if k == nil || k.Body == nil || !terminates(k.Body) || hasBreak(k.Body, false) {
				return false
			}
			hasDefault = hasDefault || k.Default
		}
		return hasDefault
	}
	return false
}

// hasBreak reports whether n holds a break that leaves the for or switch n
// is the body of (nested: n is already inside a nested for or switch, whose
// breaks are its own).
func hasBreak(n Node, nested bool) bool {
	found := false
	var walk func(s Stmt, nested bool)
	walk = func(s Stmt, nested bool) {
		switch s := s.(type) {
		case *Break:
			found = found || !nested
		case *Block:
			if s != nil {
				for _, t := range s.Stmts {
					walk(t, nested)
				}
			}
		case *If:
			walk(s.Then, nested)
			if s.Else != nil {
				walk(s.Else, nested)
			}
		case *For:
			walk(s.Body, true)
		case *Switch:
			for _, k := range s.Cases {
				if k != nil {
					walk(k.Body, true)
				}
			}
		}
	}
	if s, ok := n.(Stmt); ok {
		walk(s, nested)
	}
	return found
}

// returnStmt checks a return: none in a kernel or in a function without a
// result, one of the result type otherwise.
func (c *checker) returnStmt(s *Return) {
	switch {
	case c.fn == nil && s.Value != nil:
		c.expr(s.Value)
		c.errorf(c.at, "too many return values: a kernel returns nothing")
	case c.fn == nil:
	case c.fn.Result == nil && s.Value != nil:
		c.expr(s.Value)
		c.errorf(c.at, "too many return values: function %s has no result", c.fn.Name)
	case c.fn.Result != nil && s.Value == nil:
		c.errorf(c.at, "not enough return values: function %s returns %s", c.fn.Name, typeText(c.fn.Result))
	case s.Value != nil:
		t := c.value(s.Value)
		if bad(c.fn.Result) {
			return
		}
		c.assignTo(s.Value, t, c.fn.Result, "return statement")
	}
}

// fnCall checks a call of a helper function.
func (c *checker) fnCall(e *FnCall) Type {
	e.Fn, e.Ty = nil, nil
	obj := c.scope.lookup(e.Name)
	f, ok := obj.(*Func)
	if !ok {
		c.checkArgs(e.Args)
		if obj == nil {
			c.errorf(c.at, "undefined function: %s", e.Name)
		} else {
			c.errorf(c.at, "invalid operation: cannot call non-function %s", e.Name)
		}
		return Invalid
	}
	e.Fn = f
	c.recordCall(f, c.at)
	if len(e.Args) != len(f.Params) {
		c.checkArgs(e.Args)
		c.errorf(c.at, "%s arguments in call to %s: have %d, want %d", arityWord(len(e.Args), len(f.Params)), f.Name, len(e.Args), len(f.Params))
		return Invalid
	}
	okArgs := true
	for i, a := range e.Args {
		p := f.Params[i]
		if p == nil || c.badObj[p] {
			c.expr(a)
			okArgs = false
			continue
		}
		if !c.argument(f, p, a) {
			okArgs = false
		}
	}
	if !okArgs || c.badFunc[f] && f.Result != nil && bad(f.Result) {
		return Invalid
	}
	if f.Result == nil {
		return noValue
	}
	e.Ty = f.Result
	return f.Result
}

// argument checks one argument against its parameter.
func (c *checker) argument(f *Func, p *Param, a Expr) bool {
	ctx := "argument to " + f.Name
	if p.Kind == ValueParam {
		return c.assignTo(a, c.value(a), p.Type, ctx)
	}
	t := c.expr(a)
	if bad(t) {
		return false
	}
	id, _ := a.(*Ident)
	var obj Object
	if id != nil {
		obj = id.Obj
	}
	arg, _ := obj.(*Param)
	sh, isShared := obj.(*Shared)
	switch p.Kind {
	case BufferParam:
		if arg == nil || arg.Kind != BufferParam {
			c.errorf(posOf(a, c.at), "cannot use %s as buffer %s of %s: pass a buffer by its name", c.text(a), p.Name, f.Name)
			return false
		}
		if !Identical(arg.Type, p.Type) {
			c.errorf(posOf(a, c.at), "cannot use buffer %s ([]%s) as []%s in %s", arg.Name, typeText(arg.Type), typeText(p.Type), ctx)
			return false
		}
		if p.Access == ReadWrite && arg.Access != ReadWrite {
			c.errorf(posOf(a, c.at), "cannot pass read-only buffer %s to %s read_write []%s of %s", arg.Name, p.Name, typeText(p.Type), f.Name)
			return false
		}
	case SharedParam:
		if !isShared && (arg == nil || arg.Kind != SharedParam) {
			c.errorf(posOf(a, c.at), "cannot use %s as shared %s of %s: pass a shared variable by its name", c.text(a), p.Name, f.Name)
			return false
		}
		at := Type(nil)
		if isShared {
			at = sh.Type
		} else {
			at = arg.Type
		}
		if !Identical(at, p.Type) {
			c.errorf(posOf(a, c.at), "cannot use shared %s (%s) as %s in %s", c.text(a), typeText(at), typeText(p.Type), ctx)
			return false
		}
	}
	return true
}

// recordCall notes a call from the body being checked, for the recursion
// check and the kernel's inherited features.
func (c *checker) recordCall(f *Func, pos Pos) {
	var from Node = c.k
	if c.fn != nil {
		from = c.fn
	}
	if from == nil || isNil(from) {
		return
	}
	c.calls[from] = append(c.calls[from], callEdge{f, pos})
}

// recursion reports every cycle of calls once, at the call that closes it
// first in source order: "recursive call: f calls g at 3:9, g calls f at 7:2".
func (c *checker) recursion() {
	const (
		white = iota
		onStack
		done
	)
	state := map[*Func]int{}
	var stack []callEdge // the path from the root, each edge into the next function
	var visit func(f *Func)
	visit = func(f *Func) {
		state[f] = onStack
		for _, e := range c.calls[f] {
			switch state[e.callee] {
			case white:
				stack = append(stack, e)
				visit(e.callee)
				stack = stack[:len(stack)-1]
			case onStack:
				c.reportCycle(e, stack)
			}
		}
		state[f] = done
	}
	for _, f := range c.m.Funcs {
		if f != nil && state[f] == white {
			visit(f)
		}
	}
}

// reportCycle reports the cycle closed by edge e. stack holds the edges
// from the root of the search to e's caller; e.callee is on that path.
func (c *checker) reportCycle(e callEdge, stack []callEdge) {
	c.recursive = true
	start := 0 // e.callee is the root unless an edge on the stack enters it
	for j := len(stack) - 1; j >= 0; j-- {
		if stack[j].callee == e.callee {
			start = j + 1
			break
		}
	}
	edges := append(append([]callEdge{}, stack[start:]...), e)
	var parts []string
	caller := e.callee
	for _, ed := range edges {
		parts = append(parts, fmt.Sprintf("%s calls %s%s", caller.Name, ed.callee.Name, atText(ed.pos)))
		caller = ed.callee
	}
	c.errorf(c.orPos(e.pos), "recursive call: %s (functions cannot be recursive)", strings.Join(parts, ", "))
}

// inheritFeatures adds to k the features of every function it calls,
// directly or not.
func (c *checker) inheritFeatures(k *Kernel) {
	seen := map[*Func]bool{}
	var visit func(n Node)
	visit = func(n Node) {
		for _, e := range c.calls[n] {
			f := e.callee
			if seen[f] {
				continue
			}
			seen[f] = true
			for _, ft := range featureOrder {
				if f.Features&ft == 0 {
					continue
				}
				if k.FeatPos == nil {
					k.FeatPos = map[Feature]Pos{}
				}
				if k.Features&ft == 0 {
					k.FeatPos[ft] = f.FeatPos[ft]
				}
				k.Features |= ft
			}
			for _, t := range f.Coops {
				k.Coops = addCoop(k.Coops, t)
			}
			visit(f)
		}
	}
	visit(k)
}

// structDeclared reports whether s is one of the module's structs.
func (c *checker) structDeclared(s *Struct) bool {
	for _, t := range c.m.Structs {
		if t == s {
			return true
		}
	}
	return false
}

// calleeErrors reports whether k calls, directly or not, a function with
// errors (the uniformity analysis walks callees' bodies, which must be well typed).
func (c *checker) calleeErrors(k *Kernel) bool {
	seen := map[*Func]bool{}
	var bad func(n Node) bool
	bad = func(n Node) bool {
		for _, e := range c.calls[n] {
			if seen[e.callee] {
				continue
			}
			seen[e.callee] = true
			if c.badFunc[e.callee] || bad(e.callee) {
				return true
			}
		}
		return false
	}
	return bad(k)
}
