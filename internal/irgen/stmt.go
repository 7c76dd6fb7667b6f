package irgen

import (
	"fmt"
	"math/rand/v2"

	"github.com/kcgo/kc/ir"
)

// local is a variable in scope.
type local struct {
	name  string
	t     ir.Type // U32, I32, F32, Bool or [8]u32
	mut   bool    // may be assigned (loop counters are read-only)
	fb    fbound  // F32: magnitude and error bound
	array bool
}

// gen is the state of one generation.
type gen struct {
	r      *rand.Rand
	cfg    Config
	wg     int // invocations per workgroup
	wgY    int // workgroup size in y (wg/wgY in x)
	cvals  [3]ir.Value
	tol    []float64 // per out_f slot
	htol   []float64 // per out_h slot
	stmts  []*[]ir.Stmt
	scopes [][]local
	names  int
	budget int

	loops    int  // loop nesting
	depth    int  // control-flow nesting
	returned bool // a return has been generated: no more barriers or subgroup ops
	tail     bool // returns are allowed
	shB      fbound
	sgUsed   bool

	// Config.Lang (lang.go).
	st        *ir.Struct
	tbl       [8]int64
	tbl2      [8]int64
	funcs     []*ir.Func
	fns       []langFn
	inFn      bool // generating a helper's body: only its parameters are in scope
	langDepth int  // nesting of langLeaf
}

func (g *gen) name(prefix string) string {
	g.names++
	return fmt.Sprintf("%s%d", prefix, g.names)
}

func (g *gen) emit(s ir.Stmt) {
	p := g.stmts[len(g.stmts)-1]
	*p = append(*p, s)
	g.budget--
}

func (g *gen) declare(l local) { g.scopes[len(g.scopes)-1] = append(g.scopes[len(g.scopes)-1], l) }

// block generates a nested block of up to n statements in a new scope.
func (g *gen) block(n int, extra func()) *ir.Block {
	b := &ir.Block{}
	g.stmts = append(g.stmts, &b.Stmts)
	g.scopes = append(g.scopes, nil)
	g.depth++
	if extra != nil {
		extra()
	}
	for i := 0; i < n && g.budget > 0; i++ {
		g.stmt()
	}
	g.depth--
	g.scopes = g.scopes[:len(g.scopes)-1]
	g.stmts = g.stmts[:len(g.stmts)-1]
	return b
}

// locals returns the locals in scope that satisfy ok.
func (g *gen) locals(ok func(l local) bool) []local {
	var out []local
	for _, sc := range g.scopes {
		for _, l := range sc {
			if ok(l) {
				out = append(out, l)
			}
		}
	}
	return out
}

func (g *gen) pick(ls []local) local { return ls[g.r.IntN(len(ls))] }

func (g *gen) kernel() *ir.Kernel {
	k := &ir.Kernel{Name: "gen", Workgroup: []ir.Expr{ir.Int(int64(g.wg / g.wgY))}, Body: &ir.Block{}}
	if g.wgY > 1 {
		k.Workgroup = append(k.Workgroup, ir.Int(int64(g.wgY)))
	}
	k.Params = []*ir.Param{
		{Name: "pu", Kind: ir.ScalarParam, Type: ir.U32},
		{Name: "pi", Kind: ir.ScalarParam, Type: ir.I32},
		{Name: "pf", Kind: ir.ScalarParam, Type: ir.F32},
		{Name: "in_i", Kind: ir.BufferParam, Type: ir.U32, Access: ir.Read},
		{Name: "in_f", Kind: ir.BufferParam, Type: ir.F32, Access: ir.Read},
		{Name: "out_i", Kind: ir.BufferParam, Type: ir.U32, Access: ir.ReadWrite},
		{Name: "out_f", Kind: ir.BufferParam, Type: ir.F32, Access: ir.ReadWrite},
		{Name: "acc", Kind: ir.BufferParam, Type: ir.Atomic{Elem: ir.U32}, Access: ir.ReadWrite},
		{Name: "acci", Kind: ir.BufferParam, Type: ir.Atomic{Elem: ir.I32}, Access: ir.ReadWrite},
	}
	if g.cfg.F16 {
		k.Params = append(k.Params,
			&ir.Param{Name: "in_h", Kind: ir.BufferParam, Type: ir.F16, Access: ir.Read},
			&ir.Param{Name: "out_h", Kind: ir.BufferParam, Type: ir.F16, Access: ir.ReadWrite})
	}
	if g.cfg.Lang {
		k.Params = append(k.Params,
			&ir.Param{Name: "in_s", Kind: ir.BufferParam, Type: g.st, Access: ir.Read},
			&ir.Param{Name: "out_s", Kind: ir.BufferParam, Type: g.st, Access: ir.ReadWrite})
	}
	k.Shared = []*ir.Shared{
		{Name: "sh", Type: ir.ArrayOf(ir.U32, g.wg)},
		{Name: "shf", Type: ir.ArrayOf(ir.F32, g.wg)},
	}
	g.stmts = []*[]ir.Stmt{&k.Body.Stmts}
	g.scopes = [][]local{nil}
	g.budget = g.cfg.Stmts
	g.shB = fbound{B: 0x1p-20}
	inv := ir.Add(ir.Mul(ir.X(ir.Builtin(ir.WorkgroupID)), ir.Int(int64(g.wg))), ir.Builtin(ir.LocalIndex))
	g.emit(&ir.Decl{Name: "base", Init: ir.Mul(inv, ir.Int(Slots))})
	g.budget++
	for g.budget > 0 {
		if !g.tail && g.r.IntN(g.cfg.Stmts) < 4 {
			g.tail = true
		}
		if g.cfg.Lang && !g.returned && g.r.IntN(20) == 0 {
			g.barrierCall()
			continue
		}
		if !g.returned {
			switch n := g.r.IntN(20); {
			case n < 2:
				g.sharedPhase()
				continue
			case n < 3:
				g.sharedFloatPhase()
				continue
			case n < 6 && g.cfg.Subgroups:
				g.subgroupLet()
				continue
			case n < 7:
				g.emit(&ir.Barrier{Kind: ir.StorageBarrier})
				continue
			}
		}
		g.stmt()
	}
	g.flush()
	return k
}

// flush folds some top-level locals into the outputs, so that values
// computed but never stored are compared too.
func (g *gen) flush() {
	ls := g.scopes[0]
	if g.cfg.Lang {
		g.flushStruct(ls)
	}
	for i := 0; i < 8 && len(ls) > 0; i++ {
		l := ls[g.r.IntN(len(ls))]
		s := g.r.IntN(Slots)
		switch l.t {
		case ir.U32:
			g.emit(&ir.Assign{LHS: g.slot("out_i", s), Op: ir.OpXor, RHS: ir.Ref(l.name)})
		case ir.I32, ir.Bool:
			g.emit(&ir.Assign{LHS: g.slot("out_i", s), Op: ir.OpAdd, RHS: ir.Conv(ir.U32, ir.Ref(l.name))})
		case ir.F32:
			if !precise(l.fb) {
				continue
			}
			g.tol[s] = max(g.tol[s], l.fb.E)
			g.emit(&ir.Assign{LHS: g.slot("out_f", s), RHS: ir.Ref(l.name)})
		case ir.F16:
			if l.fb.E > 0x1p-6*max(l.fb.B, 1) {
				continue
			}
			g.htol[s] = max(g.htol[s], l.fb.E)
			g.emit(&ir.Assign{LHS: g.slot("out_h", s), RHS: ir.Ref(l.name)})
		}
	}
}

// stmt generates one statement at the current position.
func (g *gen) stmt() {
	if g.cfg.Lang && !g.inFn && g.r.IntN(100) < 20 {
		g.langStmt()
		return
	}
	switch n := g.r.IntN(100); {
	case n < 12:
		g.letInt()
	case n < 17:
		g.letFloat()
	case n < 20:
		g.letBool()
	case n < 26:
		g.varInt()
	case n < 29:
		g.varFloat()
	case n < 38:
		g.assignInt()
	case n < 41:
		g.assignFloat()
	case n < 43:
		g.arrayStmt()
	case n < 45:
		g.vectorStmt()
	case n < 55:
		g.storeInt()
	case n < 63:
		g.storeFloat()
	case n < 68:
		g.atomic()
	case n < 78:
		g.ifStmt()
	case n < 86:
		g.forStmt()
	case n < 90:
		g.whileStmt()
	case n < 95:
		g.jump()
	case g.cfg.F16 && n < 98:
		g.storeHalf()
	case g.cfg.F16:
		g.letHalf()
	default:
		g.letInt()
	}
}

func (g *gen) intType() ir.Scalar {
	if g.r.IntN(2) == 0 {
		return ir.I32
	}
	return ir.U32
}

func (g *gen) letInt() {
	t := g.intType()
	n := g.name("iv")
	g.emit(&ir.Decl{Name: n, Type: t, Init: g.intExpr(t, g.cfg.Depth, false)})
	g.declare(local{name: n, t: t})
}

func (g *gen) letBool() {
	n := g.name("bv")
	g.emit(&ir.Decl{Name: n, Init: g.boolExpr(g.cfg.Depth, false)})
	g.declare(local{name: n, t: ir.Bool})
}

func (g *gen) varInt() {
	t := g.intType()
	n := g.name("mv")
	d := &ir.Decl{Name: n, Mut: true, Type: t}
	if g.r.IntN(3) > 0 {
		d.Init = g.intExpr(t, g.cfg.Depth, true)
	}
	g.emit(d)
	g.declare(local{name: n, t: t, mut: true})
}

var assignOps = []ir.BinaryOp{ir.OpNone, ir.OpNone, ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr}

func (g *gen) assignInt() {
	vs := g.locals(func(l local) bool { return l.mut && (l.t == ir.I32 || l.t == ir.U32) })
	if len(vs) == 0 {
		g.varInt()
		return
	}
	v := g.pick(vs)
	t := v.t.(ir.Scalar)
	op := assignOps[g.r.IntN(len(assignOps))]
	var rhs ir.Expr
	switch {
	case op.IsShift():
		rhs = g.intExpr(ir.U32, g.cfg.Depth-1, false)
	case op == ir.OpDiv || op == ir.OpRem:
		rhs = g.intExpr(t, g.cfg.Depth-1, false)
	default:
		rhs = g.intExpr(t, g.cfg.Depth, true)
	}
	g.emit(&ir.Assign{LHS: ir.Ref(v.name), Op: op, RHS: rhs})
}

// arrayStmt declares a local array or writes an element of one.
func (g *gen) arrayStmt() {
	as := g.locals(func(l local) bool { return l.array })
	if len(as) == 0 || g.r.IntN(4) == 0 {
		n := g.name("arr")
		g.emit(&ir.Decl{Name: n, Mut: true, Type: ir.ArrayOf(ir.U32, 8)})
		g.declare(local{name: n, t: ir.ArrayOf(ir.U32, 8), mut: true, array: true})
		return
	}
	a := g.pick(as)
	lhs := ir.At(ir.Ref(a.name), g.mask(g.intExpr(ir.U32, g.cfg.Depth-1, false), 7))
	g.emit(&ir.Assign{LHS: lhs, Op: assignOps[g.r.IntN(4)], RHS: g.intExpr(ir.U32, g.cfg.Depth, true)})
}

// slot is out_*[base + s].
func (g *gen) slot(buf string, s int) ir.Expr {
	return ir.At(ir.Ref(buf), ir.Add(ir.Ref("base"), ir.Int(int64(s))))
}

func (g *gen) storeInt() {
	op := ir.OpNone
	if g.r.IntN(3) == 0 {
		op = assignOps[2+g.r.IntN(4)]
	}
	g.emit(&ir.Assign{LHS: g.slot("out_i", g.r.IntN(Slots)), Op: op, RHS: g.intExpr(ir.U32, g.cfg.Depth, op != ir.OpDiv)})
}

// precise reports whether an approximate float's error bound is small
// enough for a comparison to mean something: 2^-10 relative to its
// magnitude bound (or absolute below 1).
func precise(fb fbound) bool { return fb.E <= 0x1p-10*max(fb.B, 1) }

// checkedFloat is a float expression whose bound is precise: a few tries,
// then a deterministic one.
func (g *gen) checkedFloat() (ir.Expr, fbound) {
	det := g.r.IntN(3) == 0
	for try := 0; try < 4; try++ {
		e, fb := g.floatExpr(g.cfg.Depth, det || try == 3)
		if precise(fb) {
			return e, fb
		}
	}
	panic("unreachable: a deterministic float has no error")
}

func (g *gen) storeFloat() {
	s := g.r.IntN(Slots)
	e, fb := g.checkedFloat()
	g.tol[s] = max(g.tol[s], fb.E)
	g.emit(&ir.Assign{LHS: g.slot("out_f", s), RHS: e})
}

// atomicClass is the one operation each slot of acc and acci sees.
var atomicClass = [AccLen][]ir.Intrinsic{
	{ir.AtomicAdd, ir.AtomicSub}, {ir.AtomicAdd, ir.AtomicSub}, {ir.AtomicMax}, {ir.AtomicMin},
	{ir.AtomicOr}, {ir.AtomicAnd}, {ir.AtomicXor}, {ir.AtomicAdd},
}

func (g *gen) atomic() {
	buf, t := "acc", ir.U32
	if g.r.IntN(2) == 0 {
		buf, t = "acci", ir.I32
	}
	s := g.r.IntN(AccLen)
	fns := atomicClass[s]
	f := fns[g.r.IntN(len(fns))]
	var idx ir.Expr = ir.Int(int64(s))
	if s < 2 && g.r.IntN(2) == 0 { // slots 0 and 1 share add/sub: a dynamic index
		idx = g.mask(g.intExpr(ir.U32, 1, false), 1)
	}
	if (f == ir.AtomicMax || f == ir.AtomicMin) && g.r.IntN(3) == 0 {
		g.casLoop(buf, t, s, f == ir.AtomicMax)
		return
	}
	g.emit(&ir.ExprStmt{Call: ir.CallOf(f, ir.At(ir.Ref(buf), idx), g.intExpr(t, g.cfg.Depth-1, false))})
}

// casLoop is atomicMax (or atomicMin) of slot s written as a
// compare-exchange loop, whose final value is as order-independent:
//
//	{
//		let v = e
//		for {
//			let m = atomicLoad(buf[s])
//			if v <= m { break }           // v >= m for min
//			let r = atomicCompareExchangeWeak(buf[s], m, v)
//			if r.exchanged { break }
//		}
//	}
func (g *gen) casLoop(buf string, t ir.Scalar, s int, isMax bool) {
	v, m, r := g.name("casv"), g.name("casm"), g.name("casr")
	loc := func() ir.Expr { return ir.At(ir.Ref(buf), ir.Int(int64(s))) }
	done := ir.OpLe
	if !isMax {
		done = ir.OpGe
	}
	brk := func(c ir.Expr) ir.Stmt { return &ir.If{Cond: c, Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}}} }
	g.emit(&ir.Block{Stmts: []ir.Stmt{
		&ir.Decl{Name: v, Init: g.intExpr(t, g.cfg.Depth-1, false)},
		&ir.For{Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.Decl{Name: m, Init: ir.CallOf(ir.AtomicLoad, loc())},
			brk(ir.Bin(done, ir.Ref(v), ir.Ref(m))),
			&ir.Decl{Name: r, Init: ir.CallOf(ir.AtomicCompareExchangeWeak, loc(), ir.Ref(m), ir.Ref(v))},
			brk(ir.Sel(ir.Ref(r), ir.FieldExchanged)),
		}}},
	}})
}

func (g *gen) ifStmt() {
	if g.depth >= 3 {
		g.storeInt()
		return
	}
	s := &ir.If{Cond: g.boolExpr(g.cfg.Depth, false)}
	g.emit(s)
	s.Then = g.block(1+g.r.IntN(3), nil)
	if g.r.IntN(2) == 0 {
		s.Else = g.block(1+g.r.IntN(3), nil)
	}
}

func (g *gen) forStmt() {
	if g.depth >= 3 || g.loops >= 2 {
		g.storeFloat()
		return
	}
	i := g.name("li")
	var bound ir.Expr = ir.Int(int64(1 + g.r.IntN(4)))
	if g.r.IntN(2) == 0 {
		bound = ir.Add(g.mask(g.intExpr(ir.U32, 1, false), 3), ir.Int(1))
	}
	f := &ir.For{
		Init: &ir.Decl{Name: i, Mut: true, Init: ir.Conv(ir.U32, ir.Int(0))},
		Cond: ir.Lt(ir.Ref(i), bound),
		Post: &ir.Assign{LHS: ir.Ref(i), Op: ir.OpAdd, RHS: ir.Int(1)},
	}
	g.emit(f)
	g.loops++
	f.Body = g.block(1+g.r.IntN(4), func() { g.declare(local{name: i, t: ir.U32}) })
	g.loops--
}

// whileStmt is `var w = 0; for w < N { w++; ... }` or the same with an
// infinite loop and a break.
func (g *gen) whileStmt() {
	if g.depth >= 3 || g.loops >= 2 {
		g.storeInt()
		return
	}
	w := g.name("wv")
	g.emit(&ir.Decl{Name: w, Mut: true, Type: ir.U32})
	g.declare(local{name: w, t: ir.U32})
	n := ir.Int(int64(1 + g.r.IntN(3)))
	inc := &ir.Assign{LHS: ir.Ref(w), Op: ir.OpAdd, RHS: ir.Int(1)}
	f := &ir.For{}
	g.emit(f)
	g.loops++
	if g.r.IntN(2) == 0 {
		f.Cond = ir.Lt(ir.Ref(w), n)
		f.Body = g.block(1+g.r.IntN(3), func() { g.emit(inc); g.budget++ })
	} else {
		f.Body = g.block(1+g.r.IntN(3), func() {
			g.emit(&ir.If{Cond: ir.Ge(ir.Ref(w), n), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}}})
			g.emit(inc)
			g.budget += 2
		})
	}
	g.loops--
}

// jump generates a guarded break, continue or return.
func (g *gen) jump() {
	var s ir.Stmt
	switch {
	case g.loops > 0 && g.r.IntN(2) == 0:
		s = &ir.Break{}
	case g.loops > 0 && g.r.IntN(2) == 0:
		s = &ir.Continue{}
	case g.tail && g.r.IntN(2) == 0:
		s = &ir.Return{}
		g.returned = true
	default:
		g.storeInt()
		return
	}
	g.emit(&ir.If{Cond: g.boolExpr(g.cfg.Depth-1, false), Then: &ir.Block{Stmts: []ir.Stmt{s}}})
}

// sharedPhase writes sh[local_index] between two barriers at the top level.
func (g *gen) sharedPhase() {
	// The value is computed before the first barrier: it may read sh.
	n := g.name("tv")
	g.emit(&ir.Decl{Name: n, Type: ir.U32, Init: g.intExpr(ir.U32, g.cfg.Depth, true)})
	g.emit(&ir.Barrier{Kind: ir.WorkgroupBarrier})
	g.emit(&ir.Assign{LHS: ir.At(ir.Ref("sh"), ir.Builtin(ir.LocalIndex)), RHS: ir.Ref(n)})
	g.emit(&ir.Barrier{Kind: ir.WorkgroupBarrier})
}

func (g *gen) sharedFloatPhase() {
	e, fb := g.checkedFloat()
	g.shB = fbound{B: max(g.shB.B, fb.B), E: max(g.shB.E, fb.E)}
	n := g.name("tv")
	g.emit(&ir.Decl{Name: n, Init: e})
	g.emit(&ir.Barrier{Kind: ir.WorkgroupBarrier})
	g.emit(&ir.Assign{LHS: ir.At(ir.Ref("shf"), ir.Builtin(ir.LocalIndex)), RHS: ir.Ref(n)})
	g.emit(&ir.Barrier{Kind: ir.WorkgroupBarrier})
}

// mask is e & m (m+1 a power of two).
func (g *gen) mask(e ir.Expr, m int) ir.Expr { return ir.Bin(ir.OpAnd, e, ir.Int(int64(m))) }

// vectorStmt declares a vec4 var or assigns one of its components, by
// swizzle or by a masked dynamic index.
func (g *gen) vectorStmt() {
	t := g.intType()
	vt := ir.Vec(t, 4)
	vs := g.locals(func(l local) bool { return l.t == vt })
	if len(vs) == 0 || g.r.IntN(4) == 0 {
		n := g.name("vv")
		d := &ir.Decl{Name: n, Mut: true, Type: vt}
		if g.r.IntN(2) == 0 {
			d.Init = ir.VecOf(vt, g.intExpr(t, g.cfg.Depth-1, false))
		}
		g.emit(d)
		g.declare(local{name: n, t: vt, mut: true})
		return
	}
	v := g.pick(vs)
	var lhs ir.Expr = ir.Swz(ir.Ref(v.name), string("xyzw"[g.r.IntN(4)]))
	if g.r.IntN(2) == 0 {
		lhs = ir.At(ir.Ref(v.name), g.mask(g.intExpr(ir.U32, 1, false), 3))
	}
	op := assignOps[g.r.IntN(5)]
	g.emit(&ir.Assign{LHS: lhs, Op: op, RHS: g.intExpr(t, g.cfg.Depth-1, true)})
}

// consts declares the module constants C0 (untyped), CU (u32), CF (f32).
func (g *gen) consts() []*ir.Const {
	c0 := []int64{3, 5, 17, 31}[g.r.IntN(4)]
	cu := []int64{0xff00ff00, 12345, 1}[g.r.IntN(3)]
	cf := []float64{0.75, -1.5, 3}[g.r.IntN(3)]
	return []*ir.Const{
		{Name: "C0", Value: ir.Int(c0)},
		{Name: "CU", Type: ir.U32, Value: ir.Int(cu)},
		{Name: "CF", Type: ir.F32, Value: ir.Float(cf)},
	}
}
