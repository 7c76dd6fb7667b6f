package wgsl

import (
	"github.com/kcgo/kc/ir"
)

// This file writes intrinsic calls. kc's intrinsics carry WGSL's names, so
// most calls are spelled as written; select reorders its arguments.

func (f *fn) call(x *ir.Call) wx {
	switch {
	case x.Func.IsAtomic():
		return f.atomic(x)
	case x.Func.IsSubgroup():
		return f.subgroup(x)
	case x.Func == ir.Select:
		return f.selectCall(x)
	case x.Func == ir.ExtractBits || x.Func == ir.InsertBits:
		return f.bitField(x)
	}
	args := f.args(x.Args)
	if len(x.Args) > 0 && allConst(x.Args) {
		// sqrt(-1.0), log(0.0), ... on constants are shader-creation
		// errors in WGSL; kc evaluates them at run time.
		args[0] = f.runtime(args[0], x.Args[0].Type())
	}
	f.hideConstBounds(x, args)
	if x.Func == ir.Clamp && len(args) == 3 {
		// kc's clamp is min(max(x, lo), hi), lo > hi included. WGSL's float
		// clamp may be a median instead, and WGSL rejects constant bounds
		// with lo > hi.
		return prim("min(max(" + joinArgs(args[:2]) + "), " + args[2].s + ")")
	}
	return prim(x.Func.String() + "(" + joinArgs(args) + ")")
}

func (f *fn) args(xs []ir.Expr) []wx {
	out := make([]wx, len(xs))
	for i, a := range xs {
		out[i] = f.expr(a)
	}
	return out
}

// selectCall writes kc's select(cond, a, b) as WGSL's select(b, a, cond).
// WGSL evaluates the arguments left to right as written, so b before a,
// every pair of arguments the other way round: where the order is
// observable, because one argument has effects (atomics, helper calls) and
// another has effects too or reads memory that can be written, the call
// goes through a helper taking them in kc's order (cond, a, b) instead.
func (f *fn) selectCall(x *ir.Call) wx {
	if len(x.Args) != 3 {
		f.e.fail(ir.Errorf(x.Pos, "wgsl: select needs 3 arguments"))
		return prim("0")
	}
	a := f.args(x.Args)
	n, reads := 0, 0
	for _, arg := range x.Args {
		switch {
		case effects(arg):
			n++
		case readsMutable(arg):
			reads++
		}
	}
	if n == 0 || n == 1 && reads == 0 {
		return prim("select(" + joinArgs([]wx{a[2], a[1], a[0]}) + ")")
	}
	ct, vt := x.Args[0].Type(), x.Args[1].Type()
	name := helperPrefix + "select_" + tag(vt) + "_" + tag(ct)
	f.e.need(name, func() string {
		cn, vn := f.e.typeName(ct), f.e.typeName(vt)
		return "// " + name + " is kc's select(c, a, b) with its arguments evaluated in kc's order.\n" +
			"fn " + name + "(c: " + cn + ", a: " + vn + ", b: " + vn + ") -> " + vn + " {\n  return select(b, a, c);\n}"
	})
	return prim(name + "(" + joinArgs(a) + ")")
}

// hideConstBounds moves constant operands that WGSL would reject at
// shader-creation time out of its constant evaluation: smoothstep's lo and
// hi with lo >= hi (kc defines it at run time, as WGSL's run-time rules do).
func (f *fn) hideConstBounds(x *ir.Call, args []wx) {
	switch x.Func {
	case ir.Smoothstep:
		lo, okLo := constFloat(x.Args[0])
		hi, okHi := constFloat(x.Args[1])
		if okLo && okHi && lo >= hi {
			args[0] = f.runtime(args[0], x.Args[0].Type())
		}
	}
}

// constFloat is the value of a literal or named constant, as a float.
func constFloat(e ir.Expr) (float64, bool) {
	v, ok := ir.ConstValue(e)
	switch {
	case !ok:
		return 0, false
	case v.Kind == ir.FloatValue:
		return v.Float, true
	}
	return float64(v.Int), v.Kind == ir.IntValue
}

// bitField calls a helper that clamps extractBits' and insertBits' offset
// and count as WGSL defines (offset to 32, count to 32 - offset) before
// calling the builtin: naga v0.19 (the wgpu driver's) passes them to
// SPIR-V's OpBitField* unclamped, where offset + count > 32 is undefined
// (found by the wgpu corpus test). The helper's parameters are not
// const-expressions, so constant arguments with offset + count > 32 are
// not shader-creation errors either.
func (f *fn) bitField(x *ir.Call) wx {
	t := x.Type()
	tn := f.e.typeName(t)
	name := helperPrefix + x.Func.String() + "_" + tag(t)
	f.e.need(name, func() string {
		params, call := "e: "+tn, "e"
		if x.Func == ir.InsertBits {
			params, call = params+", newbits: "+tn, call+", newbits"
		}
		return "// " + name + " is " + x.Func.String() + " with its offset and count clamped.\n" +
			"fn " + name + "(" + params + ", offset: u32, count: u32) -> " + tn + " {\n" +
			"  let o = min(offset, 32u);\n" +
			"  return " + x.Func.String() + "(" + call + ", o, min(count, 32u - o));\n}"
	})
	return prim(name + "(" + joinArgs(f.args(x.Args)) + ")")
}
