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
	ir.Fma:  "mad",                                                       // HLSL's fma is double-only; mad lowers to GLSL.std.450 Fma / dx.op.fmad
	ir.Asin: "asin", ir.Acos: "acos", ir.Atan: "atan", ir.Atan2: "atan2", // atan2(y, x) as kc
	ir.Sinh: "sinh", ir.Cosh: "cosh",
	ir.Step:       "step", // step(edge, x) = x >= edge ? 1 : 0, kc's order
	ir.Smoothstep: "smoothstep", ir.Cross: "cross", ir.ReflectVector: "reflect",
	ir.Normalize: "normalize",
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
	if c.Func == ir.Normalize && ir.ElemScalar(c.Ty) == ir.F16 {
		// glslang finds no half overload of normalize (ambiguous under
		// implicit conversion): normalize in float (call rounds back)
		return apply("normalize", cast(args[0], ir.WithElem(types[0], ir.F32)))
	}
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
	case ir.Length, ir.Distance:
		return f.lengthCall(c, args, types)
	case ir.Pack4x8Snorm, ir.Pack4x8Unorm, ir.Pack2x16Float, ir.Unpack4x8Snorm, ir.Unpack4x8Unorm, ir.Unpack2x16Float:
		return f.pack(c, args)
	case ir.ExtractBits, ir.InsertBits:
		return f.bitField(c, args)
	case ir.All, ir.Any:
		if _, vec := types[0].(ir.Vector); !vec {
			return args[0] // of one bool: itself (glslang's OpAll/OpAny take only vectors)
		}
		return apply(c.Func.String(), args[0])
	case ir.Dot4I8Packed, ir.Dot4U8Packed:
		// shader model 6.4, dxc only (emit.Entry.Restricted)
		if f.sm64 == "" {
			f.sm64, f.pos64 = c.Func.String(), c.Pos
		}
		if c.Func == ir.Dot4I8Packed {
			return apply("dot4add_i8packed", args[0], args[1], primary("0"))
		}
		return apply("dot4add_u8packed", args[0], args[1], primary("0u"))
	case ir.Select:
		if _, vecCond := types[0].(ir.Vector); vecCond {
			return f.selectVec(c, args)
		}
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

// lengthCall is HLSL's length and distance on vectors; on scalars (which HLSL
// defines only as one-component vectors) abs(x) and abs(a - b).
func (f *fn) lengthCall(c *ir.Call, args []hx, types []ir.Type) hx {
	if _, isVec := types[0].(ir.Vector); isVec {
		return apply(c.Func.String(), args...)
	}
	if c.Func == ir.Distance {
		return apply("abs", hx{args[0].at(precAdd) + " - " + args[1].at(precMul), precAdd})
	}
	return apply("abs", args[0])
}

// packHelpers are the HLSL bodies of the packing intrinsics, which HLSL
// lacks (f32tof16/f16tof32 are its half conversions): WGSL's definitions.
var packHelpers = map[ir.Intrinsic]string{
	ir.Pack4x8Snorm: `uint kc_pack4x8snorm(float4 v) {
	uint4 b = uint4(int4(round(clamp(v, -1.0, 1.0) * 127.0))) & 0xffu;
	return b.x | b.y << 8 | b.z << 16 | b.w << 24;
}`,
	ir.Pack4x8Unorm: `uint kc_pack4x8unorm(float4 v) {
	uint4 b = uint4(round(clamp(v, 0.0, 1.0) * 255.0));
	return b.x | b.y << 8 | b.z << 16 | b.w << 24;
}`,
	ir.Pack2x16Float: `uint kc_pack2x16float(float2 v) {
	return f32tof16(v.x) | f32tof16(v.y) << 16;
}`,
	ir.Unpack4x8Snorm: `float4 kc_unpack4x8snorm(uint u) {
	int4 b = int4(u << 24, u << 16, u << 8, u) >> 24;
	return max(float4(b) / 127.0, -1.0);
}`,
	ir.Unpack4x8Unorm: `float4 kc_unpack4x8unorm(uint u) {
	return float4(u & 0xffu, u >> 8 & 0xffu, u >> 16 & 0xffu, u >> 24) / 255.0;
}`,
	ir.Unpack2x16Float: `float2 kc_unpack2x16float(uint u) {
	return float2(f16tof32(u), f16tof32(u >> 16));
}`,
}

// pack calls the helper of a packing intrinsic.
func (f *fn) pack(c *ir.Call, args []hx) hx {
	name := "kc_" + c.Func.String()
	f.e.need(name, func() string { return "// " + name + " is WGSL's " + c.Func.String() + ".\n" + packHelpers[c.Func] })
	return apply(name, args...)
}

// bitField calls a helper with WGSL's extractBits and insertBits: offset
// clamped to 32, count to 32 - offset; an i32 field is sign-extended.
// HLSL masks shift amounts to 5 bits, which the helpers never exceed.
func (f *fn) bitField(c *ir.Call, args []hx) hx {
	t := typeName(c.Ty)
	name := "kc_" + c.Func.String() + "_" + t
	f.e.need(name, func() string {
		head := "\tuint o = min(offset, 32u);\n\tuint c = min(count, 32u - o);\n"
		if c.Func == ir.ExtractBits {
			return fmt.Sprintf("// %s is WGSL's extractBits on %s.\n%s %s(%s e, uint offset, uint count) {\n%s"+
				"\tif (c == 0u) {\n\t\treturn (%s)0;\n\t}\n\treturn (e << (32u - o - c)) >> (32u - c);\n}",
				name, t, t, name, t, head, t)
		}
		return fmt.Sprintf("// %s is WGSL's insertBits on %s.\n%s %s(%s e, %s newbits, uint offset, uint count) {\n%s"+
			"\tuint mask = c == 32u ? 0xffffffffu : ((1u << c) - 1u) << o;\n"+
			"\treturn (e & ~(%s)mask) | ((newbits << o) & (%s)mask);\n}",
			name, t, t, name, t, t, head, t, t)
	})
	return apply(name, args...)
}

// selectVec is select with a bool-vector condition, componentwise. HLSL
// 2021 refuses ?: on vectors (its select() is 2021-only), so a helper
// picks each component; it evaluates each argument once.
func (f *fn) selectVec(c *ir.Call, args []hx) hx {
	v := c.Ty.(ir.Vector)
	t, bt := typeName(v), typeName(ir.Vec(ir.Bool, v.N))
	name := "kc_select_" + t
	f.e.need(name, func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "// %s is select(c, a, b) componentwise: a where c is true.\n%s %s(%s c, %s a, %s b) {\n\t%s r;\n", name, t, name, bt, t, t, t)
		for i := 0; i < v.N; i++ {
			x := "xyzw"[i : i+1]
			fmt.Fprintf(&b, "\tr.%s = c.%s ? a.%s : b.%s;\n", x, x, x, x)
		}
		b.WriteString("\treturn r;\n}")
		return b.String()
	})
	return apply(name, args...)
}
