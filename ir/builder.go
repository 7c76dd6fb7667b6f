package ir

// The builder constructs the same IR as the .kc parser, from Go. Kernel
// generators (matmul tiles, library kernels) use it; nodes it makes carry
// no positions. A typical use:
//
//	b := ir.NewKernel("saxpy", 64)
//	a, n := b.Param("a", ir.F32), b.Param("n", ir.U32)
//	x, y := b.Buffer("x", ir.F32, ir.Read), b.Buffer("y", ir.F32, ir.ReadWrite)
//	i := b.Let("i", ir.X(ir.Builtin(ir.GlobalID)))
//	b.If(ir.Ge(i, n), func() { b.Return() })
//	b.Assign(ir.At(y, i), ir.Add(ir.Mul(a, ir.At(x, i)), ir.At(y, i)))
//	m := &ir.Module{Kernels: []*ir.Kernel{b.Kernel()}}

// KernelBuilder appends statements to a kernel under construction. The
// statement methods add to the innermost open block.
type KernelBuilder struct {
	k      *Kernel
	blocks []*Block
}

// NewKernel starts a kernel with a constant workgroup size (one to three
// dimensions).
func NewKernel(name string, workgroup ...int) *KernelBuilder {
	k := &Kernel{Name: name, Body: &Block{}}
	for _, n := range workgroup {
		k.Workgroup = append(k.Workgroup, Int(int64(n)))
	}
	return &KernelBuilder{k: k, blocks: []*Block{k.Body}}
}

// WorkgroupExprs replaces the workgroup size with expressions, for sizes
// that name compile-time constants.
func (b *KernelBuilder) WorkgroupExprs(dims ...Expr) { b.k.Workgroup = dims }

// Kernel returns the kernel built so far.
func (b *KernelBuilder) Kernel() *Kernel { return b.k }

// Param adds a scalar parameter (params uniform block) and returns a reference to it.
func (b *KernelBuilder) Param(name string, t Scalar) *Ident {
	b.k.Params = append(b.k.Params, &Param{Name: name, Kind: ScalarParam, Type: t})
	return Ref(name)
}

// Buffer adds a storage-buffer parameter of elem values.
func (b *KernelBuilder) Buffer(name string, elem Type, access Access) *Ident {
	b.k.Params = append(b.k.Params, &Param{Name: name, Kind: BufferParam, Type: elem, Access: access})
	return Ref(name)
}

// Shared adds a workgroup-shared variable.
func (b *KernelBuilder) Shared(name string, t Type) *Ident {
	b.k.Shared = append(b.k.Shared, &Shared{Name: name, Type: t})
	return Ref(name)
}

func (b *KernelBuilder) add(s Stmt) {
	blk := b.blocks[len(b.blocks)-1]
	blk.Stmts = append(blk.Stmts, s)
}

// block runs fill with a fresh block open and returns it.
func (b *KernelBuilder) block(fill func()) *Block {
	blk := &Block{}
	b.blocks = append(b.blocks, blk)
	if fill != nil {
		fill()
	}
	b.blocks = b.blocks[:len(b.blocks)-1]
	return blk
}

// Let declares an immutable local.
func (b *KernelBuilder) Let(name string, init Expr) *Ident {
	b.add(&Decl{Name: name, Init: init})
	return Ref(name)
}

// Var declares a mutable local; t or init may be nil (not both).
func (b *KernelBuilder) Var(name string, t Type, init Expr) *Ident {
	b.add(&Decl{Name: name, Mut: true, Type: t, Init: init})
	return Ref(name)
}

// Assign adds lhs = rhs.
func (b *KernelBuilder) Assign(lhs, rhs Expr) { b.add(&Assign{LHS: lhs, RHS: rhs}) }

// AssignOp adds lhs op= rhs.
func (b *KernelBuilder) AssignOp(lhs Expr, op BinaryOp, rhs Expr) {
	b.add(&Assign{LHS: lhs, Op: op, RHS: rhs})
}

// If adds if cond { then }.
func (b *KernelBuilder) If(cond Expr, then func()) {
	b.add(&If{Cond: cond, Then: b.block(then)})
}

// IfElse adds if cond { then } else { els }.
func (b *KernelBuilder) IfElse(cond Expr, then, els func()) {
	b.add(&If{Cond: cond, Then: b.block(then), Else: b.block(els)})
}

// For adds `for name := from; cond(name); name += step { body(name) }`.
func (b *KernelBuilder) For(name string, from Expr, cond func(i *Ident) Expr, step Expr, body func(i *Ident)) {
	f := &For{
		Init: &Decl{Name: name, Mut: true, Init: from},
		Cond: cond(Ref(name)),
		Post: &Assign{LHS: Ref(name), Op: OpAdd, RHS: step},
	}
	f.Body = b.block(func() { body(Ref(name)) })
	b.add(f)
}

// Loop adds `for { body }`; leave it with Break or Return.
func (b *KernelBuilder) Loop(body func()) { b.add(&For{Body: b.block(body)}) }

// While adds `for cond { body }`.
func (b *KernelBuilder) While(cond Expr, body func()) {
	b.add(&For{Cond: cond, Body: b.block(body)})
}

// Break, Continue and Return add the jump statements.
func (b *KernelBuilder) Break()    { b.add(&Break{}) }
func (b *KernelBuilder) Continue() { b.add(&Continue{}) }
func (b *KernelBuilder) Return()   { b.add(&Return{}) }

// Barrier adds workgroupBarrier() or storageBarrier().
func (b *KernelBuilder) Barrier(kind BarrierKind) { b.add(&Barrier{Kind: kind}) }

// Do adds a call evaluated for its effect, such as atomicAdd.
func (b *KernelBuilder) Do(f Intrinsic, args ...Expr) {
	b.add(&ExprStmt{Call: &Call{Func: f, Args: args}})
}

// Expression constructors.

// Int, Float and BoolLit make untyped literals.
func Int(v int64) *Lit     { return &Lit{Val: IntVal(v)} }
func Float(v float64) *Lit { return &Lit{Val: FloatVal(v)} }
func BoolLit(v bool) *Lit  { return &Lit{Val: BoolVal(v)} }

// Ref refers to a parameter, buffer, shared variable, constant or local by name.
func Ref(name string) *Ident { return &Ident{Name: name} }

// Builtin is a compute builtin value.
func Builtin(k BuiltinKind) *BuiltinValue { return &BuiltinValue{Kind: k} }

// Bin is x op y; Add, Sub, ... are shorthands.
func Bin(op BinaryOp, x, y Expr) *Binary { return &Binary{Op: op, X: x, Y: y} }

func Add(x, y Expr) *Binary { return Bin(OpAdd, x, y) }
func Sub(x, y Expr) *Binary { return Bin(OpSub, x, y) }
func Mul(x, y Expr) *Binary { return Bin(OpMul, x, y) }
func Div(x, y Expr) *Binary { return Bin(OpDiv, x, y) }
func Rem(x, y Expr) *Binary { return Bin(OpRem, x, y) }
func Lt(x, y Expr) *Binary  { return Bin(OpLt, x, y) }
func Le(x, y Expr) *Binary  { return Bin(OpLe, x, y) }
func Gt(x, y Expr) *Binary  { return Bin(OpGt, x, y) }
func Ge(x, y Expr) *Binary  { return Bin(OpGe, x, y) }
func Eq(x, y Expr) *Binary  { return Bin(OpEq, x, y) }
func Ne(x, y Expr) *Binary  { return Bin(OpNe, x, y) }

// Neg is -x; Not is !x.
func Neg(x Expr) *Unary { return &Unary{Op: OpNeg, X: x} }
func Not(x Expr) *Unary { return &Unary{Op: OpNot, X: x} }

// CallOf applies an intrinsic.
func CallOf(f Intrinsic, args ...Expr) *Call { return &Call{Func: f, Args: args} }

// Conv converts x to a scalar type; Vec constructs a vector.
func Conv(to Scalar, x Expr) *Convert          { return &Convert{To: to, X: x} }
func VecOf(to Vector, args ...Expr) *Construct { return &Construct{To: to, Args: args} }

// At indexes a buffer, array or vector.
func At(x, i Expr) *Index { return &Index{X: x, Index: i} }

// Swz selects vector components ("x", "xy", ...); X, Y and Z are shorthands.
func Swz(x Expr, comps string) *Swizzle { return &Swizzle{X: x, Comps: comps} }
func X(v Expr) *Swizzle                 { return Swz(v, "x") }
func Y(v Expr) *Swizzle                 { return Swz(v, "y") }
func Z(v Expr) *Swizzle                 { return Swz(v, "z") }

// LenOf is len(buf).
func LenOf(buf *Ident) *Len { return &Len{Buf: buf} }
