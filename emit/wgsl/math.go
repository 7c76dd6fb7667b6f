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
	}
	args := f.args(x.Args)
	if len(x.Args) > 0 && allConst(x.Args) {
		// sqrt(-1.0), log(0.0), ... on constants are shader-creation
		// errors in WGSL; kc evaluates them at run time.
		args[0] = f.runtime(args[0], x.Args[0].Type())
	}
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
// WGSL evaluates the arguments left to right as written, so b before a:
// where two of the arguments have effects (atomics, helper calls), whose
// order kc fixes (cond, a, b), the call goes through a helper taking them
// in kc's order instead.
func (f *fn) selectCall(x *ir.Call) wx {
	if len(x.Args) != 3 {
		f.e.fail(ir.Errorf(x.Pos, "wgsl: select needs 3 arguments"))
		return prim("0")
	}
	a := f.args(x.Args)
	n := 0
	for _, arg := range x.Args {
		if effects(arg) {
			n++
		}
	}
	if n < 2 {
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
