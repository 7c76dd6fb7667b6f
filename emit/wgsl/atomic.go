package wgsl

import (
	"github.com/kcgo/kc/ir"
)

// This file writes atomic and subgroup operations.

// atomic writes atomicOp(&location, args...): WGSL takes a pointer to the
// atomic, kc names the location.
func (f *fn) atomic(x *ir.Call) wx {
	if len(x.Args) == 0 {
		f.e.fail(ir.Errorf(x.Pos, "wgsl: %s needs an atomic location", x.Func))
		return prim("0")
	}
	args := f.args(x.Args)
	args[0] = wx{"&" + args[0].at(), cUnary}
	return prim(x.Func.String() + "(" + joinArgs(args) + ")")
}

// subgroup writes a subgroup operation; the names are WGSL's. The lane of
// subgroupBroadcast must be a const-expression in WGSL: kc's constant lane
// arrives as a literal.
func (f *fn) subgroup(x *ir.Call) wx {
	return prim(x.Func.String() + "(" + joinArgs(f.args(x.Args)) + ")")
}
