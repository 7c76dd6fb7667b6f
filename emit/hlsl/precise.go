package hlsl

import (
	"fmt"

	"github.com/kcgo/kc/ir"
)

// This file lowers `precise`. HLSL's precise is a modifier of a variable:
// the compiler may not contract or reassociate the float operations whose
// results flow into it. glslang 12 implements it by tracing every
// assignment to a precise variable back through the whole expression
// (arithmetic, conversions, intrinsic calls, constructors, member stores)
// and decorating each float operation on the way with NoContraction
// (measured with spirv-dis); without it glslang itself fuses a*b + c into
// GLSL.std.450 Fma. So in a precise body every local and temporary that
// holds floats is precise, and a float expression whose value leaves
// without passing through one (stored into a buffer or shared variable,
// returned, passed as an argument, compared, converted to an integer,
// swizzled: glslang's trace stops at a swizzle of a computed vector) is
// first evaluated into a precise temporary. dot and mix are spelled out as
// the interpreter computes them (preciseDot, preciseMix).

// preciseNote heads a precise function or kernel.
const preciseNote = "// precise: every float local and temporary is precise (no contraction)"

// declPrefix returns "precise " for a variable of type t in a precise body
// when t holds floats, "" otherwise.
func (f *fn) declPrefix(t ir.Type) string {
	if f.precise && holdsFloat(t) {
		return "precise "
	}
	return ""
}

// holdsFloat reports whether t is or contains a float.
func holdsFloat(t ir.Type) bool {
	switch t := t.(type) {
	case *ir.Array:
		return holdsFloat(t.Elem)
	case *ir.Struct:
		for _, fl := range t.Fields {
			if holdsFloat(fl.Type) {
				return true
			}
		}
		return false
	case nil:
		return false
	}
	return ir.ElemScalar(t).IsFloat()
}

// sink evaluates h, the text of x, into a precise temporary when x
// computes floats in a precise body and its value is about to leave it.
func (f *fn) sink(x ir.Expr, h hx) hx {
	if !f.precise || !holdsFloat(x.Type()) || !floatArith(x) {
		return h
	}
	return f.preciseTemp(x.Type(), h)
}

// preciseTemp evaluates h (of type t) into a precise temporary.
func (f *fn) preciseTemp(t ir.Type, h hx) hx {
	if isName(h.s) {
		return h
	}
	name := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
	f.tmp++
	f.pre = append(f.pre, "precise "+decl(t, name)+" = "+h.s+";")
	return primary(name)
}

// floatArith reports whether evaluating x performs a float operation that
// a compiler could contract or reassociate.
func floatArith(x ir.Expr) bool {
	found := false
	walkExprs(&ir.ExprStmt{Call: &ir.Call{Args: []ir.Expr{x}}}, func(n ir.Expr) {
		switch n := n.(type) {
		case *ir.Binary:
			if !n.Op.IsComparison() && !n.Op.IsLogical() && ir.ElemScalar(n.X.Type()).IsFloat() {
				found = true
			}
		case *ir.Unary:
			if ir.ElemScalar(n.X.Type()).IsFloat() {
				found = true
			}
		case *ir.Call:
			if n.Func == ir.Dot || n.Func == ir.Fma || n.Func == ir.Mix {
				found = true
			}
		}
	})
	return found
}

// preciseTarget reports whether an assignment to lhs is traced by precise:
// a local variable (or a part of one) of a precise body. Buffers and shared
// variables are not precise variables.
func (f *fn) preciseTarget(lhs ir.Expr) bool {
	for {
		switch v := lhs.(type) {
		case *ir.Index:
			lhs = v.X
		case *ir.Field:
			lhs = v.X
		case *ir.Swizzle:
			lhs = v.X
		case *ir.Ident:
			_, ok := v.Obj.(*ir.Decl)
			return ok
		default:
			return false
		}
	}
}

// preciseDot spells a float dot product in precise code as the products
// summed in order, as the interpreter computes it: glslang writes dot as
// OpDot, which it never decorates NoContraction (measured), and a driver
// may fuse inside it.
func (f *fn) preciseDot(args []hx, v ir.Vector) hx {
	a, b := f.preciseTemp(v, args[0]), f.preciseTemp(v, args[1])
	s := ""
	for c := 0; c < v.N; c++ {
		if c > 0 {
			s += " + "
		}
		comp := string("xyzw"[c])
		s += a.s + "." + comp + " * " + b.s + "." + comp
	}
	return hx{s, precAdd}
}

// preciseMix spells mix(x, y, a) in precise code as x * (1 - a) + y * a,
// the interpreter's formula: lerp becomes GLSL.std.450 FMix, an extended
// instruction NoContraction cannot mark.
func (f *fn) preciseMix(args []hx, types []ir.Type) hx {
	x, y, a := f.preciseTemp(types[0], args[0]), f.preciseTemp(types[1], args[1]), f.preciseTemp(types[2], args[2])
	one := scalarLit(ir.FloatVal(1), ir.ElemScalar(types[2]))
	return hx{x.s + " * (" + one + " - " + a.s + ") + " + y.s + " * " + a.s, precAdd}
}
