package hlsl

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file emits statements: declarations, assignments, structured control
// flow, barriers and calls made for their effect. Expressions may hoist
// statements (atomic operations) into f.pre; flush writes them in front of
// the statement that needs their values.

func (f *fn) stmts(list []ir.Stmt) {
	for _, s := range list {
		f.stmt(s)
	}
}

// block emits the statements of b one level deeper.
func (f *fn) block(b *ir.Block) {
	f.indent++
	if b != nil {
		f.stmts(b.Stmts)
	}
	f.indent--
}

// flush writes the hoisted statements at the current position.
func (f *fn) flush() {
	for _, s := range f.pre {
		f.out(f.pos, s)
	}
	f.pre = f.pre[:0]
}

func (f *fn) stmt(s ir.Stmt) {
	if s == nil {
		return
	}
	f.pos = s.Position()
	switch s := s.(type) {
	case *ir.Comment:
		// a /* */ comment may span lines: one // line each
		for _, l := range strings.Split(s.Text, "\n") {
			f.out(s.Pos, comment(l))
		}
	case *ir.Block:
		f.out(s.Pos, "{")
		f.block(s)
		f.out(ir.Pos{}, "}")
	case *ir.Decl:
		f.declStmt(s)
	case *ir.Assign:
		text := f.assign(s)
		f.flush()
		f.out(s.Pos, text+";")
	case *ir.If:
		cond := f.expr(s.Cond)
		f.flush()
		f.ifRest(s, cond, "if (")
	case *ir.For:
		f.forStmt(s)
	case *ir.Break:
		f.out(s.Pos, "break;")
	case *ir.Continue:
		f.continueStmt(s)
	case *ir.Return:
		f.returnStmt(s)
	case *ir.Switch:
		f.switchStmt(s)
	case *ir.CallStmt:
		f.callStmt(s)
	case *ir.Barrier:
		if s.Kind == ir.StorageBarrier {
			f.out(s.Pos, "DeviceMemoryBarrierWithGroupSync();")
		} else {
			f.out(s.Pos, "GroupMemoryBarrierWithGroupSync();")
		}
	case *ir.ExprStmt:
		f.exprStmt(s)
	case *ir.CoopStore:
		f.coopStore(s)
	default:
		f.fail(fmt.Errorf("%s: hlsl: unknown statement %T", s.Position(), s))
	}
}

// comment spells a // comment line. A trailing backslash would splice the
// next line of code into the comment (C preprocessor line splicing), so it
// is dropped.
func comment(text string) string {
	return "//" + strings.TrimRight(text, "\\ \t")
}

// declStmt declares a local under a function-wide unique name (so Go-style
// shadowing and HLSL's legacy for-scope rules cannot clash).
func (f *fn) declStmt(d *ir.Decl) {
	t := d.Ty
	if t == nil {
		t = d.Type
	}
	if lit, ok := d.Init.(*ir.ArrayLit); ok && listable(lit) {
		f.arrayDecl(d, t, lit)
		return
	}
	if d.Init != nil {
		v := f.expr(d.Init)
		f.flush()
		name := f.local.Name(d.Name)
		f.names[d] = name
		f.out(d.Pos, f.declPrefix(t)+decl(t, name)+" = "+v+";")
		return
	}
	name := f.local.Name(d.Name)
	f.names[d] = name
	if _, ok := t.(*ir.Array); ok {
		f.out(d.Pos, f.declPrefix(t)+decl(t, name)+";")
		f.zero(d.Pos, name, t, "", 1)
		return
	}
	if m, ok := t.(ir.CoopMat); ok {
		f.out(d.Pos, decl(t, name)+" = "+coopTypeName(m)+"::Splat("+zeroValue(m.Elem)+");")
		return
	}
	f.out(d.Pos, f.declPrefix(t)+decl(t, name)+" = "+zeroValue(t)+";")
}

// assign returns the text of an assignment (without the semicolon).
func (f *fn) assign(a *ir.Assign) string {
	if x, ok := a.LHS.(*ir.Index); ok && ir.IsCoopMat(x.X.Type()) {
		return f.coopSet(a, x)
	}
	var lhs hx
	if f.hasEffects(a.RHS) {
		// kc finds the target before evaluating the value (func.go).
		lhs = f.lvalue(a.LHS)
	} else {
		lhs = f.ex(a.LHS)
	}
	rhs := f.ex(a.RHS)
	lt := a.LHS.Type()
	if m, ok := lt.(ir.CoopMat); ok {
		if a.Op == ir.OpNone {
			return lhs.s + " = " + rhs.s
		}
		return lhs.s + " = " + f.coopBinop(a.Op, lhs, lt, rhs, a.RHS.Type(), m).s
	}
	if f.precise && holdsFloat(lt) && !f.preciseTarget(a.LHS) {
		// Not a precise variable: compute the value in one (precise.go).
		v := rhs
		if a.Op != ir.OpNone {
			v = f.binop(a.Op, lhs, lt, rhs, a.RHS, lt)
		}
		if a.Op != ir.OpNone || floatArith(a.RHS) {
			v = f.preciseTemp(lt, v)
		}
		return lhs.s + " = " + v.s
	}
	if a.Op == ir.OpNone {
		return lhs.s + " = " + rhs.s
	}
	if simpleCompound(a.Op, lt) {
		if a.Op.IsShift() {
			rhs = f.shiftAmount(a.RHS, rhs)
		}
		return lhs.s + " " + a.Op.String() + "= " + rhs.s
	}
	v := f.binop(a.Op, lhs, lt, rhs, a.RHS, lt)
	return lhs.s + " = " + v.s
}

// simpleCompound reports whether `x op= y` has ir's meaning in HLSL as is.
func simpleCompound(op ir.BinaryOp, t ir.Type) bool {
	switch op {
	case ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr:
		return true
	case ir.OpDiv:
		return ir.ElemScalar(t).IsFloat()
	}
	return false
}

// ifRest emits an if statement whose condition text is cond, and its else
// chain; head is "if (" or "} else if (".
func (f *fn) ifRest(s *ir.If, cond, head string) {
	f.out(s.Pos, head+cond+") {")
	f.block(s.Then)
	switch e := s.Else.(type) {
	case nil:
		f.out(ir.Pos{}, "}")
	case *ir.Block:
		f.out(e.Pos, "} else {")
		f.block(e)
		f.out(ir.Pos{}, "}")
	case *ir.If:
		f.pos = e.Pos
		c := f.expr(e.Cond)
		if len(f.pre) == 0 {
			f.ifRest(e, c, "} else if (")
			return
		}
		// The condition needs statements of its own: nest the if.
		f.out(e.Pos, "} else {")
		f.indent++
		f.flush()
		f.ifRest(e, c, "if (")
		f.indent--
		f.out(ir.Pos{}, "}")
	default:
		f.fail(fmt.Errorf("%s: hlsl: unexpected else branch %T", s.Pos, e))
	}
}

// forStmt emits a for loop. A loop whose condition needs hoisted statements
// tests it at the top of the body instead (continue still runs the post
// statement, then the test). A loop whose post statement needs hoisted
// statements (an atomic operation, a call with effects) runs it at the end
// of the body and before each of its continues (continueStmt): the for
// header holds expressions only.
func (f *fn) forStmt(s *ir.For) {
	init := ""
	wrap := false
	if s.Init != nil {
		f.pos = s.Init.Pos
		var v string
		if s.Init.Init != nil {
			v = f.expr(s.Init.Init)
		}
		name := f.local.Name(s.Init.Name)
		f.names[s.Init] = name
		t := s.Init.Ty
		if t == nil {
			t = s.Init.Type
		}
		if v == "" {
			v = zeroValue(t)
		}
		init = f.declPrefix(t) + decl(t, name) + " = " + v
		if len(f.pre) > 0 {
			wrap = true
			f.out(s.Pos, "{")
			f.indent++
			f.flush()
			f.out(s.Init.Pos, init+";")
			init = ""
		}
	}
	f.pos = s.Pos
	cond := ""
	var condPre []string
	if s.Cond != nil {
		cond = f.expr(s.Cond)
		condPre = append(condPre, f.pre...)
		f.pre = f.pre[:0]
	}
	post := ""
	var postStmts []string // non-nil: the post needs hoisted statements
	if s.Post != nil {
		f.pos = s.Post.Pos
		post = f.assign(s.Post)
		if len(f.pre) > 0 {
			postStmts = append(append(postStmts, f.pre...), post+";")
			f.pre = f.pre[:0]
			post = ""
		}
	}
	f.pos = s.Pos
	if len(condPre) > 0 || postStmts != nil {
		f.out(s.Pos, "for ("+init+"; ; "+post+") {")
		f.indent++
		for _, p := range condPre {
			f.out(s.Pos, p)
		}
		if cond != "" {
			f.out(s.Pos, "if (!("+cond+")) {")
			f.out(s.Pos, "\tbreak;")
			f.out(s.Pos, "}")
		}
		f.indent--
	} else {
		head := "for (" + init + "; " + cond + "; " + post + ") {"
		if init == "" && cond == "" && post == "" {
			head = "for (;;) {"
		}
		f.out(s.Pos, head)
	}
	f.posts = append(f.posts, postStmts)
	f.block(s.Body)
	f.posts = f.posts[:len(f.posts)-1]
	if postStmts != nil {
		f.indent++
		f.postStmts(s.Post.Pos, postStmts)
		f.indent--
	}
	f.out(ir.Pos{}, "}")
	if wrap {
		f.indent--
		f.out(ir.Pos{}, "}")
	}
}

// continueStmt emits continue. In a loop whose post statement needs hoisted
// statements, the post sits at the end of the body rather than in the for
// header, so each continue of that loop runs it first, in a block of its own
// (the hoisted temporaries are declared once per copy). Copying the post is
// simpler than wrapping the body in do { } while (false): there, break would
// have to be rewritten instead, with a flag, and continue can only occur
// at this loop's level in its own body (an inner loop pushes its own entry).
func (f *fn) continueStmt(s *ir.Continue) {
	if n := len(f.posts); n > 0 && f.posts[n-1] != nil {
		f.out(s.Pos, "{")
		f.indent++
		f.postStmts(s.Pos, f.posts[n-1])
		f.out(s.Pos, "continue;")
		f.indent--
		f.out(ir.Pos{}, "}")
		return
	}
	f.out(s.Pos, "continue;")
}

// postStmts writes a for statement's post statement with its hoisted parts.
func (f *fn) postStmts(pos ir.Pos, stmts []string) {
	for _, p := range stmts {
		f.out(pos, p)
	}
}

// exprStmt emits a call made for its effect.
func (f *fn) exprStmt(s *ir.ExprStmt) {
	if s.Call == nil {
		return
	}
	if s.Call.Func.IsAtomic() {
		f.atomic(s.Call, false)
		f.flush()
		return
	}
	// Other intrinsics are pure: only their hoisted parts matter.
	f.expr(s.Call)
	f.flush()
}
