package wgsl

import (
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file writes statements.

// fn is the state of one entry point or helper-function instance being
// written.
type fn struct {
	e        *emitter
	k        *ir.Kernel
	r        *resources
	names    *emit.Namer // every local of the function: no shadowing at all
	locals   map[*ir.Decl]string
	builtins map[ir.BuiltinKind]string
	loops    int // depth of enclosing loops

	inst   *ir.Instance         // the function instance written; nil in an entry point
	params map[*ir.Param]string // value parameters of inst
}

func (f *fn) line(pos ir.Pos, parts ...string) { f.e.w.line(pos, parts...) }

// loopBody writes the body of a loop.
func (f *fn) loopBody(b *ir.Block) {
	f.loops++
	f.block(b)
	f.loops--
}

func (f *fn) block(b *ir.Block) {
	f.e.w.indent++
	if b != nil {
		f.stmts(b.Stmts)
	}
	f.e.w.indent--
}

func (f *fn) stmts(list []ir.Stmt) {
	for _, s := range list {
		f.stmt(s)
	}
}

func (f *fn) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Comment:
		// a /* */ comment may span lines: one // line each
		for _, l := range strings.Split(s.Text, "\n") {
			f.line(s.Pos, "//", l)
		}
	case *ir.Block:
		f.line(s.Pos, "{")
		f.block(s)
		f.line(ir.Pos{}, "}")
	case *ir.Decl:
		f.declStmt(s)
	case *ir.Assign:
		f.assign(s)
	case *ir.If:
		f.ifStmt(s, "")
	case *ir.For:
		f.forStmt(s)
	case *ir.Break:
		f.line(s.Pos, "break;")
	case *ir.Continue:
		f.line(s.Pos, "continue;")
	case *ir.Return:
		f.returnStmt(s)
	case *ir.Switch:
		f.switchStmt(s)
	case *ir.CallStmt:
		f.line(s.Pos, f.fnCall(s.Call).s, ";")
	case *ir.Barrier:
		f.line(s.Pos, s.Kind.String(), "();")
	case *ir.ExprStmt:
		f.exprStmt(s)
	case *ir.CoopStore:
		f.coopStore(s)
	default:
		f.e.fail(ir.Errorf(posOf(s), "wgsl: unexpected statement %T", s))
	}
}

func posOf(n ir.Node) ir.Pos {
	if n == nil {
		return ir.Pos{}
	}
	return n.Position()
}

// declStmt writes a declaration. A var declared inside a loop with no or a
// constant initializer is declared, then assigned: naga (wgpu-native v0.19)
// hoists such a variable to the function's entry and initializes it once,
// so the second iteration would see the first one's value, where kc (and
// WGSL) start every iteration from the initializer.
func (f *fn) declStmt(d *ir.Decl) {
	if !d.Mut && holdsArray(declType(d)) {
		// naga v0.19 rejects a run-time index into an array value (a let,
		// or a struct let holding an array): declare a var, which kc's
		// checker has made sure is never assigned.
		v := *d
		v.Mut = true
		f.declStmt(&v)
		f.locals[d] = f.locals[&v]
		return
	}
	if !d.Mut || f.loops == 0 || (d.Init != nil && !isConst(d.Init)) {
		f.line(d.Pos, f.decl(d), ";")
		return
	}
	init := d.Init
	d2 := *d
	d2.Init = nil
	f.line(d.Pos, f.decl(&d2), ";")
	name := f.locals[&d2]
	f.locals[d] = name
	val := f.e.typeName(d2.Ty) + "()"
	if d2.Ty == nil {
		val = f.e.typeName(d.Type) + "()"
	}
	if init != nil {
		val = f.expr(init).s
	}
	f.line(d.Pos, name, " = ", val, ";")
}

// decl spells a declaration without its semicolon: let x: T = e, var x: T.
func (f *fn) decl(d *ir.Decl) string {
	name := f.names.Name(d.Name)
	t := d.Ty
	if t == nil {
		t = d.Type
	}
	kw := "let "
	if d.Mut {
		kw = "var "
	}
	s := kw + name
	if _, isResult := t.(ir.CompareExchangeResult); !isResult {
		// (WGSL's __atomic_compare_exchange_result<T> cannot be spelled)
		s += ": " + f.e.typeName(t)
	}
	if d.Init != nil {
		s += " = " + f.expr(d.Init).s
	}
	// The name is visible only after the initializer, as in kc.
	f.locals[d] = name
	return s
}

func (f *fn) exprStmt(s *ir.ExprStmt) {
	if s.Call == nil {
		f.e.fail(ir.Errorf(s.Pos, "wgsl: expression statement without a call"))
		return
	}
	c := f.call(s.Call)
	if s.Call.Ty == nil || s.Call.Func.IsAtomic() {
		f.line(s.Pos, c.s, ";")
		return
	}
	// WGSL rejects a bare call of a @must_use builtin; a phony assignment
	// evaluates it and drops the value.
	f.line(s.Pos, "_ = ", c.s, ";")
}

func (f *fn) ifStmt(s *ir.If, prefix string) {
	f.line(s.Pos, prefix, "if ", f.expr(s.Cond).s, " {")
	f.block(s.Then)
	switch el := s.Else.(type) {
	case nil:
		f.line(ir.Pos{}, "}")
	case *ir.If:
		f.ifStmt(el, "} else ")
	case *ir.Block:
		f.line(el.Pos, "} else {")
		f.block(el)
		f.line(ir.Pos{}, "}")
	default:
		f.e.fail(ir.Errorf(s.Pos, "wgsl: unexpected else branch %T", el))
	}
}

// forStmt writes kc's for as WGSL loop (for {}), while (for cond {}) or
// for (init; cond; post), whose continue runs post as kc's does.
func (f *fn) forStmt(s *ir.For) {
	switch {
	case s.Init == nil && s.Cond == nil && s.Post == nil:
		f.line(s.Pos, "loop {")
		f.loopBody(s.Body)
		f.line(ir.Pos{}, "}")
		return
	case s.Init == nil && s.Post == nil:
		f.line(s.Pos, "while ", f.expr(s.Cond).s, " {")
		f.loopBody(s.Body)
		f.line(ir.Pos{}, "}")
		return
	}
	if s.Post != nil && (placeFirst(s.Post) || needsValueFirst(s.Post)) {
		f.continuingLoop(s)
		return
	}
	var init, cond, upd string
	if s.Init != nil {
		init = f.decl(s.Init)
	}
	if s.Cond != nil {
		cond = " " + f.expr(s.Cond).s
	}
	if s.Post != nil {
		upd = " " + f.assignText(s.Post)
	}
	f.line(s.Pos, "for (", init, ";", cond, ";", upd, ") {")
	f.loopBody(s.Body)
	f.line(ir.Pos{}, "}")
}

// continuingLoop writes a for whose post needs lets before it (assign)
// as loop { if !(cond) { break; } body continuing { post } }, in a block
// with init where there is one: WGSL's for update is a single statement,
// while a continuing block, which continue also reaches, takes several.
func (f *fn) continuingLoop(s *ir.For) {
	if s.Init != nil {
		f.line(s.Pos, "{")
		f.e.w.indent++
		f.line(s.Init.Pos, f.decl(s.Init), ";")
	}
	f.line(s.Pos, "loop {")
	f.e.w.indent++
	if s.Cond != nil {
		f.line(posOf(s.Cond), "if !(", f.expr(s.Cond).s, ") {")
		f.e.w.indent++
		f.line(posOf(s.Cond), "break;")
		f.e.w.indent--
		f.line(ir.Pos{}, "}")
	}
	f.e.w.indent--
	f.loopBody(s.Body)
	f.e.w.indent++
	f.line(s.Post.Pos, "continuing {")
	f.e.w.indent++
	f.assign(s.Post)
	f.e.w.indent--
	f.line(ir.Pos{}, "}")
	f.e.w.indent--
	f.line(ir.Pos{}, "}")
	if s.Init != nil {
		f.e.w.indent--
		f.line(ir.Pos{}, "}")
	}
}

func (f *fn) assign(s *ir.Assign) {
	if placeFirst(s) {
		s = &ir.Assign{Pos: s.Pos, LHS: f.hoistIndexes(s.Pos, s.LHS), Op: s.Op, RHS: s.RHS}
	}
	if v := f.valueFirst(s); v != nil {
		s = &ir.Assign{Pos: s.Pos, LHS: s.LHS, Op: s.Op, RHS: v}
	}
	f.line(s.Pos, f.assignText(s), ";")
}

// placeFirst reports whether the target's indexes must be evaluated into
// lets before the statement: kc evaluates the location once, then rhs
// (docs/semantics.md § 6). An index with effects in lhs op= rhs would run
// twice where assignText spells lhs twice (lhs = kc_div(lhs, …)), and an
// index reading writable memory must be read before an rhs with effects
// writes it; WGSL's own spelling promises neither.
func placeFirst(s *ir.Assign) bool {
	if _, ok := s.LHS.Type().(ir.CoopMat); ok {
		return false // coopAssign spells these
	}
	rhsEffects := ir.HasEffects(s.RHS)
	return anyIndex(s.LHS, func(i ir.Expr) bool {
		return effects(i) && (s.Op != ir.OpNone || rhsEffects) || rhsEffects && readsMutable(i)
	})
}

// anyIndex reports whether pred holds for an index expression of the
// assignment target x (a[i].f[j]: j, then i).
func anyIndex(x ir.Expr, pred func(ir.Expr) bool) bool {
	for {
		switch v := x.(type) {
		case *ir.Index:
			if pred(v.Index) {
				return true
			}
			x = v.X
		case *ir.Field:
			x = v.X
		case *ir.Swizzle:
			x = v.X
		default:
			return false
		}
	}
}

// hoistIndexes evaluates every index of the target x that is not a
// constant into a let, in kc's order (a[i][j]: i, then j), and returns x
// with the lets in their place.
func (f *fn) hoistIndexes(pos ir.Pos, x ir.Expr) ir.Expr {
	switch v := x.(type) {
	case *ir.Index:
		c := *v
		c.X = f.hoistIndexes(pos, v.X)
		if !isConst(v.Index) {
			c.Index = f.letValue(pos, v.Index, "kc_i")
		}
		return &c
	case *ir.Field:
		c := *v
		c.X = f.hoistIndexes(pos, v.X)
		return &c
	case *ir.Swizzle:
		c := *v
		c.X = f.hoistIndexes(pos, v.X)
		return &c
	}
	return x
}

// letValue writes let name = x (name fresh from base) at pos and returns
// an identifier naming it.
func (f *fn) letValue(pos ir.Pos, x ir.Expr, base string) ir.Expr {
	t := x.Type()
	d := &ir.Decl{Pos: pos, Name: base, Init: x, Ty: t}
	name := f.names.Fresh(base)
	f.line(pos, "let ", name, ": ", f.e.typeName(t), " = ", f.expr(x).s, ";")
	f.locals[d] = name
	return &ir.Ident{Pos: pos, Name: name, Obj: d, Ty: t}
}

// valueFirst keeps kc's order in lhs op= rhs where rhs has effects (an
// atomic, a helper that writes: ir.HasEffects; one that only reads cannot
// change the target). kc evaluates the location, then rhs, then loads
// (docs/semantics.md § 6), but WGSL's e1 op= e2 is e1 = e1 op (e2), which
// loads before e2, so a call in rhs writing the target would go unseen.
// It evaluates rhs into a let first and returns the let's name, or nil
// where there is nothing to do. A location that must come before rhs
// (an index reading writable memory, or with effects) has been put into
// lets by placeFirst before this is called.
func (f *fn) valueFirst(s *ir.Assign) ir.Expr {
	if !needsValueFirst(s) {
		return nil
	}
	return f.letValue(s.Pos, s.RHS, "kc_v")
}

// needsValueFirst reports whether valueFirst has something to do.
func needsValueFirst(s *ir.Assign) bool {
	if s.Op == ir.OpNone || !ir.HasEffects(s.RHS) || !stableLocation(s.LHS) {
		return false
	}
	_, coop := s.LHS.Type().(ir.CoopMat)
	return !coop
}

// stableLocation reports whether evaluating the assignment target x (its
// indexes) neither has effects nor reads writable memory, so that it may
// follow the value's evaluation.
func stableLocation(x ir.Expr) bool {
	return !anyIndex(x, func(i ir.Expr) bool { return effects(i) || readsMutable(i) })
}

// assignText spells an assignment as one WGSL statement without its
// semicolon (so that it can be a for update).
func (f *fn) assignText(s *ir.Assign) string {
	if sw, ok := s.LHS.(*ir.Swizzle); ok && len(sw.Comps) > 1 {
		// The checker allows one component only, as WGSL does.
		f.e.fail(ir.Errorf(s.Pos, "wgsl: assignment to several vector components (.%s)", sw.Comps))
	}
	if m, ok := s.LHS.Type().(ir.CoopMat); ok {
		return f.coopAssign(s, m)
	}
	lhs := f.expr(s.LHS).s
	t := s.LHS.Type()
	switch {
	case s.Op == ir.OpNone:
		return lhs + " = " + f.expr(s.RHS).s
	case s.Op.IsLogical():
		return lhs + " = " + f.binary(s.Op, s.LHS, s.RHS, t).s
	case isIntScalar(t) && isOne(s.RHS) && (s.Op == ir.OpAdd || s.Op == ir.OpSub):
		return lhs + s.Op.String() + s.Op.String()
	}
	if (s.Op == ir.OpDiv || s.Op == ir.OpRem) && isIntElem(t) {
		if z, ok := f.constZero(s.RHS); ok && z {
			// kc: x / 0 == x, x % 0 == 0; WGSL rejects a constant zero divisor.
			if s.Op == ir.OpDiv {
				return lhs + " = " + lhs
			}
			return lhs + " = " + f.zero(t).s
		}
		if f.needsDivHelper(s.Op, s.RHS) {
			return lhs + " = " + f.divHelper(s.Op, prim(lhs), s.RHS, t).s
		}
	}
	return lhs + " " + s.Op.String() + "= " + f.operandY(s.Op, s.LHS, s.RHS).s
}

func isOne(x ir.Expr) bool {
	l, ok := x.(*ir.Lit)
	return ok && l.Val.Kind == ir.IntValue && l.Val.Int == 1
}

func isIntScalar(t ir.Type) bool {
	s, ok := t.(ir.Scalar)
	return ok && s.IsInt()
}

func isIntElem(t ir.Type) bool { return ir.ElemScalar(t).IsInt() }
