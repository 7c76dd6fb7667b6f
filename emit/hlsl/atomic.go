package hlsl

import (
	"fmt"

	"github.com/kcgo/kc/ir"
)

// This file emits atomic intrinsics as Interlocked* calls. HLSL cannot pass
// an atomic location to a function, so each operation is a statement
// hoisted in front of the statement that uses it, its original value
// landing in a temporary: atomicLoad is InterlockedOr(p, 0),
// atomicStore is InterlockedExchange, atomicSub adds the negated value,
// atomicCompareExchangeWeak is InterlockedCompareExchange and a struct.

var atomicFuncs = map[ir.Intrinsic]string{
	ir.AtomicAdd: "InterlockedAdd", ir.AtomicSub: "InterlockedAdd",
	ir.AtomicMax: "InterlockedMax", ir.AtomicMin: "InterlockedMin",
	ir.AtomicAnd: "InterlockedAnd", ir.AtomicOr: "InterlockedOr",
	ir.AtomicXor: "InterlockedXor", ir.AtomicExchange: "InterlockedExchange",
}

// atomic hoists the operation c and returns the temporary holding its
// result ("" when used is false or the call yields nothing).
func (f *fn) atomic(c *ir.Call, used bool) string {
	want := 2
	switch c.Func {
	case ir.AtomicLoad:
		want = 1
	case ir.AtomicCompareExchangeWeak:
		want = 3
	}
	if len(c.Args) != want {
		f.fail(fmt.Errorf("%s: hlsl: %s takes %d arguments", c.Pos, c.Func, want))
		return "0"
	}
	loc := f.expr(c.Args[0])
	elem := ir.ElemScalar(c.Args[0].Type())
	if !elem.IsInt() {
		elem = ir.ElemScalar(c.Ty)
	}
	if !elem.IsInt() {
		f.fail(fmt.Errorf("%s: hlsl: %s on a non-integer location", c.Pos, c.Func))
		return "0"
	}
	zero := scalarLit(ir.IntVal(0), elem)
	switch c.Func {
	case ir.AtomicLoad:
		t := f.temp(elem)
		f.pre = append(f.pre, fmt.Sprintf("InterlockedOr(%s, %s, %s);", loc, zero, t))
		return t
	case ir.AtomicStore:
		v := f.expr(c.Args[1])
		t := f.temp(elem)
		f.pre = append(f.pre, fmt.Sprintf("InterlockedExchange(%s, %s, %s);", loc, v, t))
		return ""
	}
	if c.Func == ir.AtomicCompareExchangeWeak {
		return f.compareExchange(c, loc, elem)
	}
	name, ok := atomicFuncs[c.Func]
	if !ok {
		f.fail(unsupported(c.Pos, "atomic "+c.Func.String()))
		return "0"
	}
	v := f.ex(c.Args[1])
	val := v.s
	if c.Func == ir.AtomicSub {
		val = zero + " - " + v.at(precAdd+1)
	}
	if !used && c.Func != ir.AtomicExchange {
		f.pre = append(f.pre, fmt.Sprintf("%s(%s, %s);", name, loc, val))
		return ""
	}
	t := f.temp(elem)
	f.pre = append(f.pre, fmt.Sprintf("%s(%s, %s, %s);", name, loc, val, t))
	return t
}

// compareExchange hoists atomicCompareExchangeWeak as
// InterlockedCompareExchange into a temporary, and builds the result
// struct from the original value: HLSL's exchange is strong, so exchanged
// is original == cmp. cmp is evaluated once, into a temporary of its own.
func (f *fn) compareExchange(c *ir.Call, loc string, elem ir.Scalar) string {
	rt := ir.CompareExchangeResult{Elem: elem}
	st := typeName(rt)
	f.e.need(st, func() string {
		return fmt.Sprintf("// %s is the result of atomicCompareExchangeWeak on %s.\nstruct %s {\n\t%s old_value;\n\tbool exchanged;\n};",
			st, scalarName(elem), st, scalarName(elem))
	})
	cmp := f.temp(elem)
	f.pre = append(f.pre, fmt.Sprintf("%s = %s;", cmp, f.expr(c.Args[1])))
	v := f.expr(c.Args[2])
	old := f.temp(elem)
	f.pre = append(f.pre, fmt.Sprintf("InterlockedCompareExchange(%s, %s, %s, %s);", loc, cmp, v, old))
	r := f.temp(rt)
	f.pre = append(f.pre, fmt.Sprintf("%s.old_value = %s;", r, old), fmt.Sprintf("%s.exchanged = %s == %s;", r, old, cmp))
	return r
}
