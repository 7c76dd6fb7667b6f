package spirv

import (
	"github.com/kcgo/kc/ir"
)

// This file lowers atomic intrinsics. The location is a pointer into a
// storage buffer (Device scope) or into workgroup memory (Workgroup scope).
// Every atomic is Relaxed (memory semantics None), as WGSL's atomics are:
// atomicity alone is what the IR promises; ordering against other memory
// comes from workgroupBarrier/storageBarrier, which are AcquireRelease.

var atomicOps = map[ir.Intrinsic][2]op{ // signed, unsigned
	ir.AtomicAdd:      {opAtomicIAdd, opAtomicIAdd},
	ir.AtomicSub:      {opAtomicISub, opAtomicISub},
	ir.AtomicMax:      {opAtomicSMax, opAtomicUMax},
	ir.AtomicMin:      {opAtomicSMin, opAtomicUMin},
	ir.AtomicAnd:      {opAtomicAnd, opAtomicAnd},
	ir.AtomicOr:       {opAtomicOr, opAtomicOr},
	ir.AtomicXor:      {opAtomicXor, opAtomicXor},
	ir.AtomicExchange: {opAtomicExchange, opAtomicExchange},
}

func (f *fn) atomic(e *ir.Call) uint32 {
	if len(e.Args) == 0 {
		fail(ir.Errorf(e.Pos, "spirv: %s without a location", e.Func))
	}
	p, ok := f.placeOf(e.Args[0])
	if !ok {
		fail(ir.Errorf(e.Pos, "spirv: %s of %s, which is not an atomic location", e.Func, ir.ExprString(e.Args[0])))
	}
	ptr := f.pointer(p)
	scope := uint32(scopeDevice)
	if p.sc == scWorkgroup {
		scope = scopeWorkgroup
	}
	sc := f.constU32(scope)
	sem := f.constU32(semRelaxed)
	s := ir.ElemScalar(p.ty)
	vt := f.scalarType(s)
	switch e.Func {
	case ir.AtomicLoad:
		return f.op3(opAtomicLoad, vt, ptr, sc, sem)
	case ir.AtomicStore:
		f.body.inst(opAtomicStore, ptr, sc, sem, f.expr(e.Args[1]))
		return 0
	case ir.AtomicCompareExchangeWeak:
		// SPIR-V's exchange is strong: exchanged is old == cmp.
		cmp, v := f.expr(e.Args[1]), f.expr(e.Args[2])
		r := f.builder.id()
		f.body.inst(opAtomicCompareExchange, vt, r, ptr, sc, sem, sem, v, cmp)
		ex := f.op2(opIEqual, f.tBool(), r, cmp)
		return f.compose(f.tid(e.Ty), r, ex)
	}
	ops, ok := atomicOps[e.Func]
	if !ok {
		fail(ir.Errorf(e.Pos, "spirv: unknown atomic %s", e.Func))
	}
	code := ops[0]
	if s == ir.U32 {
		code = ops[1]
	}
	v := f.expr(e.Args[1])
	r := f.builder.id()
	f.body.inst(code, vt, r, ptr, sc, sem, v)
	return r
}
