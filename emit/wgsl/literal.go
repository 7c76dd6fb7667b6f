package wgsl

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file spells constants: literals with WGSL's type suffixes and the
// values of scalar constant expressions the emitter evaluates itself.

// lit spells constant v as a value of type t (a scalar, or a vector as a
// splat), converting it by kc's rules (ir.ConvertValue).
func (f *fn) lit(v ir.Value, t ir.Type) wx {
	switch t := t.(type) {
	case ir.Scalar:
		return f.scalarLit(ir.ConvertValue(v, t), t)
	case ir.Vector:
		return prim(f.e.typeName(t) + "(" + f.scalarLit(ir.ConvertValue(v, t.Elem), t.Elem).s + ")")
	}
	f.e.fail(fmt.Errorf("wgsl: constant %s of type %s", ir.LitText(v), ir.TypeString(t)))
	return prim("0")
}

// scalarLit spells v, already of type s.
func (f *fn) scalarLit(v ir.Value, s ir.Scalar) wx {
	switch s {
	case ir.Bool:
		return prim(strconv.FormatBool(v.Bool))
	case ir.I32:
		return intLit(v.Int)
	case ir.U32:
		return prim(strconv.FormatUint(uint64(uint32(v.Int)), 10) + "u")
	case ir.F32, ir.F16:
		if math.IsInf(v.Float, 0) || math.IsNaN(v.Float) {
			return f.nonFinite(v.Float, s)
		}
		return floatLit(v.Float, s)
	}
	f.e.fail(fmt.Errorf("wgsl: constant of type %s", s))
	return prim("0")
}

// intLit spells an i32. WGSL has no negative literals: -5i is unary minus
// on 5i, and 2147483648i does not exist, so MIN is i32(-2147483648), an
// AbstractInt converted.
func intLit(i int64) wx {
	switch {
	case i == math.MinInt32:
		return prim("i32(-2147483648)")
	case i < 0:
		return wx{"-" + strconv.FormatInt(-i, 10) + "i", cUnary}
	}
	return prim(strconv.FormatInt(i, 10) + "i")
}

// floatLit spells a finite f32 or f16 value with the fewest digits that
// read back as the same value, with suffix f or h.
func floatLit(x float64, s ir.Scalar) wx {
	var text string
	if s == ir.F32 {
		text = strconv.FormatFloat(x, 'g', -1, 32)
		if back, _ := strconv.ParseFloat(text, 64); math.Abs(back) > math.MaxFloat32 {
			// The shortest text of the largest f32 (3.4028235e+38) lies
			// beyond it, and WGSL rejects a literal outside the finite range.
			text = strconv.FormatFloat(x, 'g', -1, 64)
		}
	} else {
		text = shortestF16(x)
	}
	if !strings.ContainsAny(text, ".e") {
		text += ".0"
	}
	suffix := "f"
	if s == ir.F16 {
		suffix = "h"
	}
	if math.Signbit(x) {
		return wx{text + suffix, cUnary}
	}
	return prim(text + suffix)
}

const maxF16 = 65504

// shortestF16 returns the shortest decimal text that rounds to the f16
// value x (already an f16 value).
func shortestF16(x float64) string {
	for prec := 1; prec < 17; prec++ {
		t := strconv.FormatFloat(x, 'g', prec, 64)
		back, err := strconv.ParseFloat(t, 64)
		if err == nil && math.Abs(back) <= maxF16 && ir.ConvertValue(ir.FloatVal(back), ir.F16).Float == x {
			return t
		}
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// nonFinite spells an infinity or NaN, for which WGSL has no literal and
// which a const-expression must not produce, as a run-time bitcast.
func (f *fn) nonFinite(x float64, s ir.Scalar) wx {
	if s == ir.F32 {
		name := f.e.need(helperPrefix+"f32_bits", func() string {
			return "// kc_f32_bits is the f32 with bits b (infinities and NaNs have no literal).\n" +
				"fn kc_f32_bits(b: u32) -> f32 {\n  return bitcast<f32>(b);\n}"
		})
		return prim(fmt.Sprintf("%s(0x%08xu)", name, math.Float32bits(float32(x))))
	}
	name := f.e.need(helperPrefix+"f16_bits", func() string {
		return "// kc_f16_bits is the f16 with bits b (infinities and NaNs have no literal).\n" +
			"fn kc_f16_bits(b: u32) -> f16 {\n  return bitcast<vec2<f16>>(b).x;\n}"
	})
	var bits uint32
	switch {
	case math.IsNaN(x):
		bits = 0x7e00
	case x > 0:
		bits = 0x7c00
	default:
		bits = 0xfc00
	}
	return prim(fmt.Sprintf("%s(0x%04xu)", name, bits))
}
