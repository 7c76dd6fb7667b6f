package hlsl

import (
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file emits conversions, vector constructors and bitcasts.
//
// Float to integer conversion saturates and maps NaN to 0 (kc_f2i,
// kc_f2u); HLSL's own cast is undefined out of range. glslang's HLSL front
// end cannot convert between half and integers (and crashes on some such
// casts), so those go through float, which is exact: every half is a float
// and every integer that a half can hold (|x| <= 65504) converts to float
// exactly; larger integers become infinity either way.

// cast spells the C-style cast (T)h.
func cast(h hx, t ir.Type) hx {
	if _, ok := t.(ir.Scalar); ok {
		return primary(typeName(t) + "(" + h.s + ")")
	}
	return hx{"(" + typeName(t) + ")" + h.at(precUnary), precUnary}
}

// conv converts h from type from to type to: two scalars, or two vectors of
// one width.
func (f *fn) conv(h hx, from, to ir.Type) hx {
	fs, ts := ir.ElemScalar(from), ir.ElemScalar(to)
	if fs == ts {
		return h
	}
	floatOf := ir.WithElem(to, ir.F32)
	switch {
	case fs == ir.Bool:
		if ts == ir.F16 {
			return cast(cast(h, floatOf), to)
		}
		return cast(h, to)
	case ts == ir.Bool:
		if _, ok := from.(ir.Scalar); ok {
			return hx{h.at(precEq+1) + " != " + scalarLit(ir.IntVal(0), fs), precEq}
		}
		return cast(h, to)
	case fs.IsFloat() && ts.IsInt():
		if fs == ir.F16 {
			h = cast(h, ir.WithElem(from, ir.F32))
		}
		name := f.needF2I(ts, ir.WithElem(from, ir.F32))
		return primary(name + "(" + h.s + ")")
	case fs.IsInt() && ts == ir.F16:
		return cast(cast(h, floatOf), to)
	}
	return cast(h, to)
}

func (f *fn) convert(h hx, from ir.Type, to ir.Scalar) hx {
	if v, ok := from.(ir.Vector); ok {
		// Not produced by the checker; convert componentwise anyway.
		return f.conv(h, from, ir.Vec(to, v.N))
	}
	return f.conv(h, from, to)
}

// needF2I registers the saturating float-to-integer helper for argument
// type arg (f32 scalar or vector) and integer type to.
func (f *fn) needF2I(to ir.Scalar, arg ir.Type) string {
	name := "kc_f2i"
	if to == ir.U32 {
		name = "kc_f2u"
	}
	f.e.need(name[3:]+"_float", func() string { return f2iHelper(to) })
	if v, ok := arg.(ir.Vector); ok {
		f.e.need(name[3:]+"_"+typeName(v), func() string {
			return componentwise(name, ir.Vec(to, v.N), v, v, 1)
		})
	}
	return name
}

func f2iHelper(to ir.Scalar) string {
	// The clamp keeps the conversion inside the integer range (HLSL leaves
	// it undefined outside) and stops a driver from folding
	// uint(float(n)) into n: Mesa's lavapipe does that to an unclamped
	// round trip, which is not exact.
	if to == ir.U32 {
		return `// kc_f2u converts to u32 as ir does: truncation toward zero, saturating
// at 0 and 4294967295, NaN to 0.
uint kc_f2u(float x) {
	if (isnan(x)) {
		return 0u;
	}
	if (x >= 4294967296.0f) {
		return 4294967295u;
	}
	return uint(clamp(x, 0.0f, 4294967040.0f));
}`
	}
	return `// kc_f2i converts to i32 as ir does: truncation toward zero, saturating
// at the i32 range, NaN to 0.
int kc_f2i(float x) {
	if (isnan(x)) {
		return 0;
	}
	if (x >= 2147483648.0f) {
		return 2147483647;
	}
	return int(clamp(x, -2147483648.0f, 2147483520.0f));
}`
}

// construct emits vecN<T>(...): a splat, a componentwise conversion or a
// list of components.
func (f *fn) construct(x *ir.Construct) hx {
	to := x.To
	hs := f.seq(x.Args, false)
	if len(x.Args) == 1 {
		a := x.Args[0]
		at := a.Type()
		h := hs[0]
		if _, ok := at.(ir.Scalar); ok {
			h = f.conv(h, at, to.Elem)
			return hx{"(" + typeName(to) + ")" + h.at(precUnary), precUnary}
		}
		return f.conv(h, at, to)
	}
	parts := make([]string, len(x.Args))
	for i, a := range x.Args {
		at := a.Type()
		parts[i] = f.conv(hs[i], at, ir.WithElem(at, to.Elem)).s
	}
	return primary(typeName(to) + "(" + strings.Join(parts, ", ") + ")")
}

// bitcast reinterprets bits: asuint/asint/asfloat between 32-bit types,
// and packing through f32tof16/f16tof32 for f16 vectors (glslang has no
// asuint16/asfloat16).
func (f *fn) bitcast(h hx, from, to ir.Type) hx {
	if ir.Identical(from, to) {
		return h
	}
	fs, ts := ir.ElemScalar(from), ir.ElemScalar(to)
	fw, tw := ir.Width(from), ir.Width(to)
	as := func(h hx, s ir.Scalar) hx {
		switch s {
		case ir.U32:
			return primary("asuint(" + h.s + ")")
		case ir.I32:
			return primary("asint(" + h.s + ")")
		}
		return primary("asfloat(" + h.s + ")")
	}
	switch {
	case fs.Size() == 4 && ts.Size() == 4 && fw == tw:
		return as(h, ts)
	case fs == ir.F16 && ts.Size() == 4 && fw == 2*tw && (fw == 2 || fw == 4):
		name := f.needPack(fw)
		p := primary(name + "(" + h.s + ")")
		if ts == ir.U32 {
			return p
		}
		return as(p, ts)
	case ts == ir.F16 && fs.Size() == 4 && tw == 2*fw && (tw == 2 || tw == 4):
		name := f.needUnpack(tw)
		if fs != ir.U32 {
			h = as(h, ir.U32)
		}
		return primary(name + "(" + h.s + ")")
	}
	f.fail(unsupported(f.pos, "bitcast from "+from.String()+" to "+to.String()))
	return h
}

func (f *fn) needPack(n int) string {
	f.e.need("pack_h2", func() string {
		return `// kc_pack_h2 returns the bits of a half2 (x in the low 16 bits).
uint kc_pack_h2(half2 v) {
	uint2 b = f32tof16((float2)v);
	return b.x | (b.y << 16);
}`
	})
	if n == 4 {
		f.e.need("pack_h4", func() string {
			return "uint2 kc_pack_h4(half4 v) {\n\treturn uint2(kc_pack_h2(v.xy), kc_pack_h2(v.zw));\n}"
		})
		return "kc_pack_h4"
	}
	return "kc_pack_h2"
}

func (f *fn) needUnpack(n int) string {
	f.e.need("unpack_h2", func() string {
		return `// kc_unpack_h2 reads a half2 from its bits (x in the low 16 bits).
half2 kc_unpack_h2(uint u) {
	return (half2)f16tof32(uint2(u & 0xffffu, u >> 16));
}`
	})
	if n == 4 {
		f.e.need("unpack_h4", func() string {
			return "half4 kc_unpack_h4(uint2 u) {\n\treturn half4(kc_unpack_h2(u.x), kc_unpack_h2(u.y));\n}"
		})
		return "kc_unpack_h4"
	}
	return "kc_unpack_h2"
}
