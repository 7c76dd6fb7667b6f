package irgen

import (
	"github.com/kcgo/kc/ir"
)

// Issue 12's constructs, generated with Config.Lang:
//
//	struct S { a u32, b i32, v vec2<u32>, c [2]u32 }   // 24 bytes, no padding
//	const TBL = [8]u32{...}
//	const TBL2 = [2][4]i32{...}
//	fn fiN(pu u32, pi i32, pf f32, in_i read []u32, in_f read []f32,
//		sh shared [W]u32) i32|u32       // integer helpers (lets, if, switch,
//		                                 // loops, early returns, calls of
//		                                 // earlier helpers)
//	fn fsN(s S, k u32) S                // struct in, struct out
//	fn fpN(o read_write []u32, i u32, v u32)   // writes o[i], a call statement
//	fn fbN(sh shared [W]u32, v u32) u32  // publishes v in sh between two
//	                                     // barriers, returns a neighbour's
//
// and the kernel gains in_s read []S (InSLen elements) and out_s
// read_write []S (one element per invocation, written only by its owner).
// Helpers are called inside expressions and as statements anywhere, so
// from uniform and from divergent control flow (fbN, which holds barriers,
// only as a top-level let before any return); switch statements (several
// values per case, default or none, break) appear in the kernel body;
// struct locals are read, assigned field by field, passed through fsN and
// stored to out_s; the constant arrays are indexed at run time. The value
// parameters of fiN are named like the kernel's scalars and its resource
// parameters like the kernel's buffers, so that the expression generator
// writes the same names in both; a call passes the kernel's.
//
// Helpers hold only integer arithmetic and deterministic floats (through
// comparisons and conversions), so their results are exact on every
// target; they never read shf, whose error bound grows as the kernel is
// generated.

// InSLen is the number of elements of in_s.
const InSLen = 16

// langFn is a generated helper and how to call it.
type langFn struct {
	name   string
	kind   byte // 'i' integer helper, 's' struct helper, 'p' buffer writer
	result ir.Scalar
}

// structS makes the struct type of one generated module.
func structS() *ir.Struct {
	return ir.NewStruct("S", "a", ir.U32, "b", ir.I32, "v", ir.Vec(ir.U32, 2), "c", ir.ArrayOf(ir.U32, 2))
}

// langModule generates the struct, the constant arrays' values and the
// helpers, before the kernel that uses them.
func (g *gen) langModule() {
	g.st = structS()
	for i := range g.tbl {
		g.tbl[i] = u32Lits[g.r.IntN(len(u32Lits))]
	}
	for i := range g.tbl2 {
		g.tbl2[i] = i32Lits[g.r.IntN(len(i32Lits))]
	}
	g.structFunc()
	g.putFunc()
	g.barrierFunc()
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		g.intFunc()
	}
}

// langConsts declares TBL and TBL2.
func (g *gen) langConsts() []*ir.Const {
	var t1, t2a, t2b []ir.Expr
	for _, v := range g.tbl {
		t1 = append(t1, ir.Int(v))
	}
	for i, v := range g.tbl2 {
		if i < 4 {
			t2a = append(t2a, ir.Int(v))
		} else {
			t2b = append(t2b, ir.Int(v))
		}
	}
	return []*ir.Const{
		{Name: "TBL", Value: ir.ArrayLitOf(ir.U32, t1...)},
		{Name: "TBL2", Value: ir.ArrayLitOf(ir.ArrayOf(ir.I32, 4), ir.ArrayLitOf(ir.I32, t2a...), ir.ArrayLitOf(ir.I32, t2b...))},
	}
}

// inFunc generates a helper's body with the generator's statement state
// saved: body runs with an empty scope holding the given locals.
func (g *gen) inFunc(f *ir.Func, params []local, body func()) {
	stmts, scopes, budget, loops, depth, tail, returned := g.stmts, g.scopes, g.budget, g.loops, g.depth, g.tail, g.returned
	g.stmts, g.scopes, g.budget, g.loops, g.depth, g.inFn = []*[]ir.Stmt{&f.Body.Stmts}, [][]local{params}, 1<<20, 0, 1, true
	body()
	g.stmts, g.scopes, g.budget, g.loops, g.depth, g.tail, g.returned, g.inFn = stmts, scopes, budget, loops, depth, tail, returned, false
}

// intFunc generates fiN: a few lets and a var, optionally an early return
// under a condition, a switch on the var and a loop with an early return,
// then a return.
func (g *gen) intFunc() {
	t := g.intType()
	name := g.name("fi")
	f := &ir.Func{Name: name, Result: t, Body: &ir.Block{}}
	f.Params = []*ir.Param{
		{Name: "pu", Kind: ir.ValueParam, Type: ir.U32},
		{Name: "pi", Kind: ir.ValueParam, Type: ir.I32},
		{Name: "pf", Kind: ir.ValueParam, Type: ir.F32},
		{Name: "in_i", Kind: ir.BufferParam, Type: ir.U32, Access: ir.Read},
		{Name: "in_f", Kind: ir.BufferParam, Type: ir.F32, Access: ir.Read},
		{Name: "sh", Kind: ir.SharedParam, Type: ir.ArrayOf(ir.U32, g.wg)},
	}
	if g.cfg.F16 {
		f.Params = append(f.Params, &ir.Param{Name: "in_h", Kind: ir.BufferParam, Type: ir.F16, Access: ir.Read})
	}
	params := []local{{name: "pu", t: ir.U32}, {name: "pi", t: ir.I32}}
	g.inFunc(f, params, func() {
		for n := 1 + g.r.IntN(2); n > 0; n-- {
			g.letInt()
		}
		acc := g.name("mv")
		g.emit(&ir.Decl{Name: acc, Mut: true, Type: t, Init: g.intExpr(t, g.cfg.Depth-1, true)})
		g.declare(local{name: acc, t: t, mut: true})
		if g.r.IntN(2) == 0 {
			g.emit(&ir.If{Cond: g.boolExpr(g.cfg.Depth-1, false), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Return{Value: g.intExpr(t, g.cfg.Depth-1, true)}}}})
		}
		if g.r.IntN(2) == 0 {
			g.switchOn(ir.Ref(acc), t, func() {
				g.emit(&ir.Assign{LHS: ir.Ref(acc), Op: assignOps[2+g.r.IntN(6)], RHS: g.intExpr(t, g.cfg.Depth-1, false)})
			})
		}
		if g.r.IntN(2) == 0 {
			i := g.name("li")
			loop := &ir.For{
				Init: &ir.Decl{Name: i, Mut: true, Init: ir.Conv(ir.U32, ir.Int(0))},
				Cond: ir.Lt(ir.Ref(i), ir.Int(int64(1+g.r.IntN(3)))),
				Post: &ir.Assign{LHS: ir.Ref(i), Op: ir.OpAdd, RHS: ir.Int(1)},
			}
			g.emit(loop)
			g.loops++
			loop.Body = g.block(0, func() {
				g.declare(local{name: i, t: ir.U32})
				g.emit(&ir.Assign{LHS: ir.Ref(acc), Op: assignOps[2+g.r.IntN(6)], RHS: g.intExpr(t, g.cfg.Depth-1, false)})
				g.emit(&ir.If{Cond: g.boolExpr(g.cfg.Depth-1, false), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Return{Value: ir.Ref(acc)}}}})
			})
			g.loops--
		}
		g.emit(&ir.Return{Value: ir.Bin(ir.OpXor, ir.Ref(acc), g.intExpr(t, g.cfg.Depth-1, false))})
	})
	g.funcs = append(g.funcs, f)
	g.fns = append(g.fns, langFn{name: name, kind: 'i', result: t})
}

// structFunc generates fsN(s S, k u32) S from a template with random
// operators and constants.
func (g *gen) structFunc() {
	name := g.name("fs")
	f := &ir.Func{Name: name, Result: g.st, Body: &ir.Block{}, Params: []*ir.Param{
		{Name: "s", Kind: ir.ValueParam, Type: g.st},
		{Name: "k", Kind: ir.ValueParam, Type: ir.U32},
	}}
	q, k := ir.Ref("q"), ir.Ref("k")
	op := func() ir.BinaryOp { return assignOps[2+g.r.IntN(6)] }
	b := &f.Body.Stmts
	*b = append(*b,
		&ir.Decl{Name: "q", Mut: true, Init: ir.Ref("s")},
		&ir.Assign{LHS: ir.Sel(q, "a"), Op: op(), RHS: k},
		&ir.Assign{LHS: ir.At(ir.Sel(q, "c"), ir.Bin(ir.OpAnd, k, ir.Int(1))), Op: op(), RHS: ir.Conv(ir.U32, ir.Sel(q, "b"))},
		&ir.Assign{LHS: ir.Sel(q, "v"), RHS: ir.Add(ir.Swz(ir.Sel(q, "v"), "yx"), ir.VecOf(ir.Vec(ir.U32, 2), k))},
		&ir.If{Cond: ir.Gt(k, ir.Int(int64(g.r.IntN(1<<20)))), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Return{Value: q}}}},
		&ir.Assign{LHS: ir.Sel(q, "b"), Op: op(), RHS: ir.Bin(ir.OpSub, ir.Conv(ir.I32, k), ir.Int(int64(g.r.IntN(100))))},
		&ir.Return{Value: q},
	)
	g.funcs = append(g.funcs, f)
	g.fns = append(g.fns, langFn{name: name, kind: 's'})
}

// putFunc generates fpN(o read_write []u32, i u32, v u32): o[i] op= v, or
// a switch on v choosing the operation.
func (g *gen) putFunc() {
	name := g.name("fp")
	f := &ir.Func{Name: name, Body: &ir.Block{}, Params: []*ir.Param{
		{Name: "o", Kind: ir.BufferParam, Type: ir.U32, Access: ir.ReadWrite},
		{Name: "i", Kind: ir.ValueParam, Type: ir.U32},
		{Name: "v", Kind: ir.ValueParam, Type: ir.U32},
	}}
	lhs := func() ir.Expr { return ir.At(ir.Ref("o"), ir.Ref("i")) }
	if g.r.IntN(2) == 0 {
		f.Body.Stmts = []ir.Stmt{&ir.Assign{LHS: lhs(), Op: assignOps[2+g.r.IntN(6)], RHS: ir.Ref("v")}}
	} else {
		f.Body.Stmts = []ir.Stmt{&ir.Switch{Tag: ir.Bin(ir.OpAnd, ir.Ref("v"), ir.Int(3)), Cases: []*ir.Case{
			{Values: []ir.Expr{ir.Int(0)}, Body: &ir.Block{Stmts: []ir.Stmt{&ir.Return{}}}},
			{Values: []ir.Expr{ir.Int(1), ir.Int(2)}, Body: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{LHS: lhs(), Op: ir.OpXor, RHS: ir.Ref("v")}}}},
			{Default: true, Body: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{LHS: lhs(), Op: ir.OpAdd, RHS: ir.Ref("v")}}}},
		}}}
	}
	g.funcs = append(g.funcs, f)
	g.fns = append(g.fns, langFn{name: name, kind: 'p'})
}

// barrierFunc generates fbN: a shared phase (see sharedPhase) inside a
// helper, which therefore may be called only from uniform flow.
func (g *gen) barrierFunc() {
	name := g.name("fb")
	li := ir.Builtin(ir.LocalIndex)
	f := &ir.Func{Name: name, Result: ir.U32, Body: &ir.Block{}, Params: []*ir.Param{
		{Name: "sh", Kind: ir.SharedParam, Type: ir.ArrayOf(ir.U32, g.wg)},
		{Name: "v", Kind: ir.ValueParam, Type: ir.U32},
	}}
	f.Body.Stmts = []ir.Stmt{
		&ir.Barrier{Kind: ir.WorkgroupBarrier},
		&ir.Assign{LHS: ir.At(ir.Ref("sh"), li), RHS: ir.Ref("v")},
		&ir.Barrier{Kind: ir.WorkgroupBarrier},
		&ir.Return{Value: ir.At(ir.Ref("sh"), g.mask(ir.Add(li, ir.Int(int64(1+g.r.IntN(g.wg-1)))), g.wg-1))},
	}
	g.funcs = append(g.funcs, f)
	g.fns = append(g.fns, langFn{name: name, kind: 'b', result: ir.U32})
}

// barrierCall binds the result of fbN, at the top level before any return.
func (g *gen) barrierCall() {
	n := g.name("tv")
	g.emit(&ir.Decl{Name: n, Type: ir.U32, Init: ir.CallFn(g.fnOf('b').name, ir.Ref("sh"), g.intExpr(ir.U32, g.cfg.Depth, true))})
	g.declare(local{name: n, t: ir.U32})
}

// langStmt generates a switch, a struct statement or a call statement.
func (g *gen) langStmt() {
	switch n := g.r.IntN(10); {
	case n < 3:
		if g.depth >= 3 {
			g.storeInt()
			return
		}
		t := g.intType()
		tag := g.intExpr(t, g.cfg.Depth-1, false)
		if g.r.IntN(2) == 0 {
			tag = g.mask(tag, 7)
		}
		g.switchOn(tag, t, func() {
			for i := 1 + g.r.IntN(3); i > 0 && g.budget > 0; i-- {
				g.stmt()
			}
		})
	case n < 8:
		g.structStmt()
	default:
		fp := g.fnOf('p')
		g.emit(&ir.CallStmt{Call: ir.CallFn(fp.name, ir.Ref("out_i"), ir.Add(ir.Ref("base"), ir.Int(int64(g.r.IntN(Slots)))), g.intExpr(ir.U32, g.cfg.Depth-1, true))})
	}
}

// switchOn emits a switch on tag (of type t) with 1 to 3 cases of one or
// two values, sometimes a default, each case body made by body, sometimes
// behind a guarded break.
func (g *gen) switchOn(tag ir.Expr, t ir.Scalar, body func()) {
	pool := []int64{0, 1, 2, 3, 4, 5, 6, 7, 0xffffffff, 0x80000000}
	if t == ir.I32 {
		pool = []int64{0, 1, 2, 3, 4, 5, 6, 7, -1, -2, -2147483648}
	}
	g.r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	s := &ir.Switch{Tag: tag}
	g.emit(s)
	ncase := 1 + g.r.IntN(3)
	def := -1
	if g.r.IntN(2) == 0 {
		def = g.r.IntN(ncase + 1)
	}
	for i := 0; i <= ncase; i++ {
		c := &ir.Case{}
		switch {
		case i == def:
			c.Default = true
		case i == ncase:
			continue
		default:
			for n := 1 + g.r.IntN(2); n > 0; n-- {
				c.Values = append(c.Values, ir.Int(pool[0]))
				pool = pool[1:]
			}
		}
		c.Body = g.block(0, func() {
			if g.r.IntN(4) == 0 {
				g.emit(&ir.If{Cond: g.boolExpr(1, false), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}}})
			}
			body()
		})
		s.Cases = append(s.Cases, c)
	}
}

// structStmt declares a struct local, assigns a field of one, passes one
// through fsN, or stores one (or a field) to the invocation's out_s
// element.
func (g *gen) structStmt() {
	ss := g.locals(func(l local) bool { return l.t == g.st && l.mut })
	if len(ss) == 0 || g.r.IntN(4) == 0 {
		n := g.name("sv")
		var init ir.Expr
		switch g.r.IntN(4) {
		case 0:
			init = ir.StructOf(g.st)
		case 1:
			init = ir.StructOf(g.st, "b", g.intExpr(ir.I32, g.cfg.Depth-1, true),
				"v", ir.VecOf(ir.Vec(ir.U32, 2), g.intExpr(ir.U32, 1, false), g.intExpr(ir.U32, 1, true)),
				"c", ir.ArrayLitOf(ir.U32, g.intExpr(ir.U32, 1, true), g.intExpr(ir.U32, 1, false)))
		case 2:
			init = g.inS()
		default:
			init = ir.CallFn(g.fnOf('s').name, g.inS(), g.intExpr(ir.U32, g.cfg.Depth-1, false))
		}
		g.emit(&ir.Decl{Name: n, Mut: true, Type: g.st, Init: init})
		g.declare(local{name: n, t: g.st, mut: true})
		return
	}
	s := ir.Ref(g.pick(ss).name)
	inv := ir.Bin(ir.OpDiv, ir.Ref("base"), ir.Int(Slots))
	switch g.r.IntN(6) {
	case 0:
		g.emit(&ir.Assign{LHS: ir.At(ir.Ref("out_s"), inv), RHS: s})
	case 1:
		op, rhs := g.compound(ir.I32)
		g.emit(&ir.Assign{LHS: ir.Sel(ir.At(ir.Ref("out_s"), inv), "b"), Op: op, RHS: rhs})
	case 2:
		g.emit(&ir.Assign{LHS: s, RHS: ir.CallFn(g.fnOf('s').name, s, g.intExpr(ir.U32, g.cfg.Depth-1, false))})
	case 3:
		op, rhs := g.compound(ir.U32)
		g.emit(&ir.Assign{LHS: ir.At(ir.Sel(s, "c"), g.mask(g.intLeaf(ir.U32), 1)), Op: op, RHS: rhs})
	case 4:
		op, rhs := g.compound(ir.U32)
		g.emit(&ir.Assign{LHS: ir.Swz(ir.Sel(s, "v"), string("xy"[g.r.IntN(2)])), Op: op, RHS: rhs})
	default:
		op, rhs := g.compound(ir.U32)
		g.emit(&ir.Assign{LHS: ir.Sel(s, "a"), Op: op, RHS: rhs})
	}
}

// compound picks an assignment operator (plain, arithmetic or bitwise) and
// a right side of type t for it: no constant divisor, which could be zero.
func (g *gen) compound(t ir.Scalar) (ir.BinaryOp, ir.Expr) {
	op := assignOps[g.r.IntN(10)]
	return op, g.intExpr(t, g.cfg.Depth-1, op != ir.OpDiv && op != ir.OpRem)
}

// inS is in_s[masked index].
func (g *gen) inS() ir.Expr { return ir.At(ir.Ref("in_s"), g.mask(g.intLeaf(ir.U32), InSLen-1)) }

// fnOf returns the first generated helper of a kind.
func (g *gen) fnOf(kind byte) langFn {
	for _, f := range g.fns {
		if f.kind == kind {
			return f
		}
	}
	panic("irgen: no helper of kind " + string(kind))
}

// langLeaf is an integer leaf of type t from issue 12's constructs: a
// constant array indexed at run time, a call of an integer helper, or a
// field of a struct (a local or an in_s element).
func (g *gen) langLeaf(t ir.Scalar) ir.Expr {
	g.langDepth++
	defer func() { g.langDepth-- }()
	switch g.r.IntN(5) {
	case 0:
		return toInt(t, ir.I32, ir.At(ir.At(ir.Ref("TBL2"), g.mask(g.intLeaf(ir.U32), 1)), g.mask(g.intLeaf(ir.U32), 3)))
	case 1, 2:
		var fis []langFn
		for _, f := range g.fns {
			if f.kind == 'i' {
				fis = append(fis, f)
			}
		}
		// No calls in the arguments of calls (or in indices of the other
		// leaves here): lavapipe inlines every call, and nested calls
		// multiply the code it compiles.
		if len(fis) > 0 && g.langDepth == 1 {
			f := fis[g.r.IntN(len(fis))]
			pf, _ := g.detFloat(1, true)
			args := []ir.Expr{g.intExpr(ir.U32, 1, true), g.intExpr(ir.I32, 1, true), pf, ir.Ref("in_i"), ir.Ref("in_f"), ir.Ref("sh")}
			if g.cfg.F16 {
				args = append(args, ir.Ref("in_h"))
			}
			return toInt(t, f.result, ir.CallFn(f.name, args...))
		}
	case 3:
		if !g.inFn {
			var s ir.Expr = g.inS()
			if ss := g.locals(func(l local) bool { return l.t == g.st }); len(ss) > 0 && g.r.IntN(3) > 0 {
				s = ir.Ref(g.pick(ss).name)
			}
			switch g.r.IntN(4) {
			case 0:
				return toInt(t, ir.U32, ir.Sel(s, "a"))
			case 1:
				return toInt(t, ir.I32, ir.Sel(s, "b"))
			case 2:
				return toInt(t, ir.U32, ir.Swz(ir.Sel(s, "v"), string("xy"[g.r.IntN(2)])))
			}
			return toInt(t, ir.U32, ir.At(ir.Sel(s, "c"), g.mask(g.intLeaf(ir.U32), 1)))
		}
	}
	return toInt(t, ir.U32, ir.At(ir.Ref("TBL"), g.mask(g.intLeaf(ir.U32), 7)))
}

// flushStruct stores one of the top-level struct locals to the
// invocation's out_s element.
func (g *gen) flushStruct(ls []local) {
	var ss []local
	for _, l := range ls {
		if l.t == g.st {
			ss = append(ss, l)
		}
	}
	if len(ss) > 0 {
		inv := ir.Bin(ir.OpDiv, ir.Ref("base"), ir.Int(Slots))
		g.emit(&ir.Assign{LHS: ir.At(ir.Ref("out_s"), inv), RHS: ir.Ref(g.pick(ss).name)})
	}
}
