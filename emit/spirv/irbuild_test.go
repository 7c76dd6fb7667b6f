package spirv

import (
	"github.com/kcgo/kc/ir"
)

// Hand-built, already annotated IR for tests that must not depend on the
// parser and checker: every node carries the types Check would set.

type kb struct {
	k *ir.Kernel
}

func newKernel(name string, size int) *kb {
	return &kb{k: &ir.Kernel{Name: name, Size: [3]int{size, 1, 1}, Body: &ir.Block{}}}
}

func (b *kb) module() *ir.Module {
	return &ir.Module{File: "hand.kc", Kernels: []*ir.Kernel{b.k}, Checked: true}
}

func (b *kb) param(name string, t ir.Scalar) *ir.Param {
	p := &ir.Param{Name: name, Kind: ir.ScalarParam, Type: t}
	b.k.Params = append(b.k.Params, p)
	return p
}

func (b *kb) buffer(name string, t ir.Type, acc ir.Access) *ir.Param {
	p := &ir.Param{Name: name, Kind: ir.BufferParam, Type: t, Access: acc}
	b.k.Params = append(b.k.Params, p)
	return p
}

func (b *kb) add(s ...ir.Stmt) { b.k.Body.Stmts = append(b.k.Body.Stmts, s...) }

func (b *kb) let(name string, e ir.Expr) *ir.Decl {
	d := &ir.Decl{Name: name, Init: e, Ty: e.Type()}
	b.add(d)
	return d
}

func ref(o ir.Object) *ir.Ident {
	var t ir.Type
	switch o := o.(type) {
	case *ir.Param:
		t = o.Type
	case *ir.Decl:
		t = o.Ty
	case *ir.Shared:
		t = o.Type
	case *ir.Const:
		t = o.Ty
	}
	return &ir.Ident{Name: o.ObjName(), Obj: o, Ty: t}
}

func litI(v int64, t ir.Scalar) *ir.Lit   { return &ir.Lit{Val: ir.IntVal(v), Ty: t} }
func litF(v float64, t ir.Scalar) *ir.Lit { return &ir.Lit{Val: ir.FloatVal(v), Ty: t} }

func bin(op ir.BinaryOp, x, y ir.Expr) *ir.Binary {
	t := x.Type()
	if op.IsComparison() || op.IsLogical() {
		t = ir.Bool
	} else if _, ok := y.Type().(ir.Vector); ok {
		t = y.Type()
	}
	return &ir.Binary{Op: op, X: x, Y: y, Ty: t}
}

func at(buf *ir.Param, i ir.Expr) *ir.Index {
	return &ir.Index{X: ref(buf), Index: i, Ty: buf.Type}
}

func gidX() ir.Expr {
	return &ir.Swizzle{X: &ir.BuiltinValue{Kind: ir.GlobalID}, Comps: "x", Ty: ir.U32}
}

func assign(lhs, rhs ir.Expr) *ir.Assign { return &ir.Assign{LHS: lhs, RHS: rhs} }

func call(f ir.Intrinsic, t ir.Type, args ...ir.Expr) *ir.Call {
	return &ir.Call{Func: f, Args: args, Ty: t}
}

// guardKernel computes, for element i, every guarded operation of
// ir/doc.go on inputs xi, yi (i32), xu, yu (u32) and xf (f32):
//
//	oi[8i+0..] = xi/yi, xi%yi, xi<<yu, xi>>yu, i32(xf), bitcast(u32(xf)), sat f16->i32, 0
//	ou[4i+0..] = xu/yu, xu%yu, xu<<yu, xu>>yu
func guardKernel() *ir.Module {
	b := newKernel("guards", 64)
	xi := b.buffer("xi", ir.I32, ir.Read)
	yi := b.buffer("yi", ir.I32, ir.Read)
	xu := b.buffer("xu", ir.U32, ir.Read)
	yu := b.buffer("yu", ir.U32, ir.Read)
	xf := b.buffer("xf", ir.F32, ir.Read)
	oi := b.buffer("oi", ir.I32, ir.ReadWrite)
	ou := b.buffer("ou", ir.U32, ir.ReadWrite)
	i := b.let("i", gidX())
	a := b.let("a", at(xi, ref(i)))
	c := b.let("c", at(yi, ref(i)))
	u := b.let("u", at(xu, ref(i)))
	v := b.let("v", at(yu, ref(i)))
	x := b.let("x", at(xf, ref(i)))
	o8 := func(k int64) ir.Expr { return bin(ir.OpAdd, bin(ir.OpMul, ref(i), litI(8, ir.U32)), litI(k, ir.U32)) }
	o4 := func(k int64) ir.Expr { return bin(ir.OpAdd, bin(ir.OpMul, ref(i), litI(4, ir.U32)), litI(k, ir.U32)) }
	b.add(
		assign(at(oi, o8(0)), bin(ir.OpDiv, ref(a), ref(c))),
		assign(at(oi, o8(1)), bin(ir.OpRem, ref(a), ref(c))),
		assign(at(oi, o8(2)), bin(ir.OpShl, ref(a), ref(v))),
		assign(at(oi, o8(3)), bin(ir.OpShr, ref(a), ref(v))),
		assign(at(oi, o8(4)), &ir.Convert{To: ir.I32, X: ref(x)}),
		assign(at(oi, o8(5)), &ir.Bitcast{To: ir.I32, X: &ir.Convert{To: ir.U32, X: ref(x)}}),
		assign(at(oi, o8(6)), &ir.Convert{To: ir.I32, X: &ir.Convert{To: ir.F16, X: ref(x)}}),
		assign(at(ou, o4(0)), bin(ir.OpDiv, ref(u), ref(v))),
		assign(at(ou, o4(1)), bin(ir.OpRem, ref(u), ref(v))),
		assign(at(ou, o4(2)), bin(ir.OpShl, ref(u), ref(v))),
		assign(at(ou, o4(3)), bin(ir.OpShr, ref(u), ref(v))),
	)
	return b.module()
}

// controlKernel exercises structured control flow: a counted loop with
// continue and break, a nested if/else chain, an early return, a var and a
// short-circuit && whose right side reads memory.
func controlKernel() *ir.Module {
	b := newKernel("control", 32)
	n := b.param("n", ir.U32)
	scale := b.param("scale", ir.F32)
	in := b.buffer("in", ir.F32, ir.Read)
	out := b.buffer("out", ir.F32, ir.ReadWrite)
	i := b.let("i", gidX())
	b.add(&ir.If{Cond: bin(ir.OpGe, ref(i), ref(n)), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Return{}}}})
	acc := &ir.Decl{Name: "acc", Mut: true, Type: ir.F32, Ty: ir.F32}
	b.add(acc)
	k := &ir.Decl{Name: "k", Mut: true, Init: litI(0, ir.U32), Ty: ir.U32}
	loop := &ir.For{
		Init: k,
		Cond: bin(ir.OpLt, ref(k), ref(n)),
		Post: &ir.Assign{LHS: ref(k), Op: ir.OpAdd, RHS: litI(1, ir.U32)},
		Body: &ir.Block{Stmts: []ir.Stmt{
			&ir.If{Cond: bin(ir.OpEq, bin(ir.OpRem, ref(k), litI(3, ir.U32)), litI(1, ir.U32)),
				Then: &ir.Block{Stmts: []ir.Stmt{&ir.Continue{}}}},
			&ir.If{Cond: bin(ir.OpLogAnd, bin(ir.OpGt, ref(k), litI(100, ir.U32)), bin(ir.OpLt, at(in, ref(k)), litF(0, ir.F32))),
				Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}},
				Else: &ir.If{Cond: bin(ir.OpGt, at(in, ref(k)), ref(scale)),
					Then: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{LHS: ref(acc), Op: ir.OpAdd, RHS: at(in, ref(k))}}},
					Else: &ir.Block{Stmts: []ir.Stmt{&ir.Assign{LHS: ref(acc), Op: ir.OpSub, RHS: ref(scale)}}}}},
		}},
	}
	b.add(loop)
	inf := &ir.For{Body: &ir.Block{Stmts: []ir.Stmt{
		&ir.Assign{LHS: ref(acc), Op: ir.OpMul, RHS: litF(0.5, ir.F32)},
		&ir.If{Cond: bin(ir.OpLt, call(ir.Abs, ir.F32, ref(acc)), litF(1, ir.F32)), Then: &ir.Block{Stmts: []ir.Stmt{&ir.Break{}}}},
	}}}
	b.add(inf)
	b.add(assign(at(out, ref(i)), ref(acc)))
	return b.module()
}
