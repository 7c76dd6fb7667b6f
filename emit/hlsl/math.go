package hlsl

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file emits the math, numeric, integer-bit and select intrinsics.

// floatFuncs maps the float intrinsics that HLSL spells differently or the
// same (componentwise on float and half).
var floatFuncs = map[ir.Intrinsic]string{
	ir.Exp: "exp", ir.Exp2: "exp2", ir.Log: "log", ir.Log2: "log2",
	ir.Sqrt: "sqrt", ir.InverseSqrt: "rsqrt", ir.Sin: "sin", ir.Cos: "cos",
	ir.Tan: "tan", ir.Tanh: "tanh", ir.Floor: "floor", ir.Ceil: "ceil",
	ir.Round: "round", // HLSL's round is to nearest even (RoundEven / round_ne)
	ir.Trunc: "trunc", ir.Fract: "frac", ir.Pow: "pow",
	ir.Fma: "mad", // HLSL's fma is double-only; mad lowers to GLSL.std.450 Fma / dx.op.fmad
}

// call emits an intrinsic call.
func (f *fn) call(c *ir.Call) hx {
	switch {
	case c.Func.IsAtomic():
		return primary(f.atomic(c, true))
	case c.Func.IsSubgroup():
		return f.subgroup(c)
	}
	// In order (func.go); in precise code, float arguments of an
	// intrinsic with a non-float result leave the precise data flow.
	args := f.seq(c.Args, !holdsFloat(c.Ty))
	types := make([]ir.Type, len(c.Args))
	for i, a := range c.Args {
		types[i] = a.Type()
	}
	h := f.mathCall(c, args, types)
	if ir.ElemScalar(c.Ty) == ir.F16 && h.p == precPrimary {
		// glslang evaluates HLSL intrinsics on half in float and returns
		// float; round back (a no-op under dxc).
		return cast(h, c.Ty)
	}
	return h
}

// mathCall emits the intrinsics other than atomics and subgroup operations.
func (f *fn) mathCall(c *ir.Call, args []hx, types []ir.Type) hx {
	if name, ok := floatFuncs[c.Func]; ok {
		return apply(name, args...)
	}
	switch c.Func {
	case ir.Mix:
		if f.precise {
			return f.preciseMix(args, types)
		}
		// lerp(a, b, t) = a + t * (b - a); a scalar t is splatted.
		return apply("lerp", args[0], args[1], splat(args[2], types[2], types[0]))
	case ir.Dot:
		return f.dot(args, types)
	case ir.Abs:
		if ir.ElemScalar(types[0]) == ir.U32 {
			return args[0]
		}
		return apply("abs", args[0])
	case ir.Min, ir.Max:
		return apply(c.Func.String(), args[0], args[1])
	case ir.Clamp:
		// min(max(x, lo), hi): WGSL's definition, also for lo > hi.
		inner := apply("max", args[0], args[1])
		if ir.ElemScalar(c.Ty) == ir.F16 {
			inner = cast(inner, c.Ty)
		}
		return apply("min", inner, args[2])
	case ir.Sign:
		// HLSL's sign returns int; floats convert back through float.
		t := c.Ty
		a := args[0]
		if ir.ElemScalar(t) == ir.F16 {
			a = cast(a, ir.WithElem(t, ir.F32)) // glslang cannot turn half into int
		}
		s := apply("sign", a)
		if ir.ElemScalar(t).IsFloat() {
			return f.conv(cast(s, ir.WithElem(t, ir.I32)), ir.WithElem(t, ir.I32), t)
		}
		return s
	case ir.CountOneBits:
		return f.bits("countbits", args[0], types[0])
	case ir.ReverseBits:
		return f.bits("reversebits", args[0], types[0])
	case ir.FirstTrailingBit:
		return f.bits("firstbitlow", args[0], types[0])
	case ir.FirstLeadingBit:
		// firstbithigh on int finds the first bit that differs from the
		// sign (FindSMsb), as WGSL's firstLeadingBit on i32 does.
		if ir.ElemScalar(types[0]) == ir.I32 {
			return cast(apply("firstbithigh", args[0]), types[0])
		}
		return apply("firstbithigh", args[0])
	case ir.Select:
		// select(cond, a, b) = cond ? a : b; cond is a scalar bool, which
		// both HLSL 2018 and 2021 accept with vector operands.
		return hx{args[0].at(precLOr) + " ? " + args[1].at(precLOr) + " : " + args[2].at(precLOr), precTernary}
	}
	f.fail(unsupported(c.Pos, "intrinsic "+c.Func.String()))
	return primary("0")
}

// apply spells name(args...).
func apply(name string, args ...hx) hx {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.s
	}
	return primary(name + "(" + strings.Join(parts, ", ") + ")")
}

// bits applies an integer bit function that HLSL defines on uint, going
// through uint for i32 operands.
func (f *fn) bits(name string, x hx, t ir.Type) hx {
	if ir.ElemScalar(t) == ir.U32 {
		return apply(name, x)
	}
	u := ir.WithElem(t, ir.U32)
	return cast(apply(name, cast(x, u)), t)
}

// dot is HLSL's dot for floats and an explicit wrapping sum of products
// (kc_dot) for integer vectors.
func (f *fn) dot(args []hx, types []ir.Type) hx {
	v, ok := types[0].(ir.Vector)
	if !ok {
		f.fail(fmt.Errorf("%s: hlsl: dot of a non-vector", f.pos))
		return primary("0")
	}
	if v.Elem.IsFloat() && f.precise {
		return f.preciseDot(args, v)
	}
	if v.Elem.IsFloat() {
		return apply("dot", args...)
	}
	f.e.need("dot_"+typeName(v), func() string {
		var b strings.Builder
		n, s := typeName(v), scalarName(v.Elem)
		fmt.Fprintf(&b, "// kc_dot is the wrapping integer dot product.\n%s kc_dot(%s x, %s y) {\n\treturn ", s, n, n)
		for c := 0; c < v.N; c++ {
			if c > 0 {
				b.WriteString(" + ")
			}
			fmt.Fprintf(&b, "x.%c * y.%c", "xyzw"[c], "xyzw"[c])
		}
		b.WriteString(";\n}")
		return b.String()
	})
	return apply("kc_dot", args...)
}
