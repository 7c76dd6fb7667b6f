package wgsl

import (
	"strconv"

	"github.com/kcgo/kc/ir"
)

// This file writes conversions, vector constructors and bitcasts.
//
// WGSL converts a float to an integer by clamping to the largest integer
// the float type can hold (2147483520 and 4294967040 for f32) and leaves
// NaN indeterminate; kc saturates to the integer range and maps NaN to 0,
// so float-to-integer conversions go through the kc_f2i_* / kc_f2u_*
// helpers. Every other conversion is WGSL's own.

func (f *fn) convert(x *ir.Convert) wx {
	if v, ok := ir.ConstValue(x); ok {
		return f.lit(v, x.To)
	}
	v := f.expr(x.X)
	if x.To == ir.F16 && isConst(x.X) && !checkerConst(x.X) {
		// f16(bitcast<f32>(...)) out of f16's range is a shader-creation
		// error in WGSL; kc rounds to infinity.
		v = f.runtime(v, x.X.Type())
	}
	return f.conv(v, x.X.Type(), x.To)
}

// conv converts value v of type from to type to (scalars, or vectors of
// one width: to is then the vector type's component).
func (f *fn) conv(v wx, from ir.Type, to ir.Scalar) wx {
	fs := ir.ElemScalar(from)
	target := ir.WithElem(from, to)
	switch {
	case fs == to:
		return v
	case fs.IsFloat() && to.IsInt():
		return prim(f.floatToInt(from, to) + "(" + v.s + ")")
	}
	return prim(f.e.typeName(target) + "(" + v.s + ")")
}

func (f *fn) construct(x *ir.Construct) wx {
	if len(x.Args) == 1 {
		if _, ok := x.Args[0].Type().(ir.Vector); ok {
			return f.conv(f.expr(x.Args[0]), x.Args[0].Type(), x.To.Elem)
		}
	}
	return prim(f.e.typeName(x.To) + "(" + joinArgs(f.args(x.Args)) + ")")
}

func (f *fn) bitcast(x *ir.Bitcast) wx {
	v := f.expr(x.X)
	if isConst(x.X) && ir.ElemScalar(x.To).IsFloat() {
		// A const bitcast giving NaN or infinity is a shader-creation error.
		v = f.runtime(v, x.X.Type())
	}
	return prim("bitcast<" + f.e.typeName(x.To) + ">(" + v.s + ")")
}

// floatToInt returns the helper converting from (an f32 or f16 scalar or
// vector) to integer type to with kc's rules, declaring it on first use.
func (f *fn) floatToInt(from ir.Type, to ir.Scalar) string {
	kind := "f2i_"
	if to == ir.U32 {
		kind = "f2u_"
	}
	name := helperPrefix + kind + tag(from)
	return f.e.need(name, func() string { return f.floatToIntHelper(name, from, to) })
}

func (f *fn) floatToIntHelper(name string, from ir.Type, to ir.Scalar) string {
	e := f.e
	target := ir.WithElem(from, to)
	ft, tt := e.typeName(from), e.typeName(target)
	fs := ir.ElemScalar(from)
	splat := func(t ir.Type, s string) string {
		if _, ok := t.(ir.Vector); ok {
			return e.typeName(t) + "(" + s + ")"
		}
		return s
	}
	suffix := "f"
	if fs == ir.F16 {
		suffix = "h"
	}
	// Exact decimal text: these bounds must not depend on literal rounding.
	fl := func(v float64) string { return splat(from, strconv.FormatFloat(v, 'f', -1, 64)+".0"+suffix) }
	// Clamp into the range where the conversion is exact (the largest
	// float below 2^31 or 2^32: naga v0.19 leaves out WGSL's own clamp),
	// then give MAX to values at or beyond 2^31 (2^32), 0 to NaN.
	lo, hi, limit, maxInt := -2147483648.0, 2147483520.0, 2147483648.0, "2147483647i"
	if to == ir.U32 {
		lo, hi, limit, maxInt = 0, 4294967040, 4294967296, "4294967295u"
	}
	if fs == ir.F16 {
		// Every finite f16 fits i32; clamping keeps u32 off negatives.
		lo, hi = max(lo, -65504), 65504
	}
	conv := tt + "(clamp(x, " + fl(lo) + ", " + fl(hi) + "))"
	if fs == ir.F32 {
		conv = "select(" + conv + ", " + splat(target, maxInt) + ", x >= " + fl(limit) + ")"
	}
	zero := "0i"
	if to == ir.U32 {
		zero = "0u"
	}
	return "// " + name + " converts like kc: truncate, saturate to the " + to.String() + " range, NaN gives 0.\n" +
		"fn " + name + "(x: " + ft + ") -> " + tt + " {\n" +
		"  return select(" + conv + ", " + splat(target, zero) + ", x != x);\n}"
}
