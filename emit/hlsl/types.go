package hlsl

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// scalarName spells a scalar type. f16 is `half`, which is a true 16-bit
// float under dxc's -enable-16bit-types and glslang's
// --hlsl-enable-16bit-types (glslang does not know float16_t).
func scalarName(s ir.Scalar) string {
	switch s {
	case ir.Bool:
		return "bool"
	case ir.I32:
		return "int"
	case ir.U32:
		return "uint"
	case ir.F32:
		return "float"
	case ir.F16:
		return "half"
	}
	return "invalid"
}

// typeName spells a scalar, vector or atomic type (atomics are plain
// integers operated on by Interlocked*). Arrays are spelled by decl.
func typeName(t ir.Type) string {
	switch t := t.(type) {
	case ir.Scalar:
		return scalarName(t)
	case ir.Vector:
		return scalarName(t.Elem) + strconv.Itoa(t.N)
	case ir.Atomic:
		return scalarName(t.Elem)
	case *ir.Array:
		return typeName(t.Elem) + "[" + strconv.Itoa(t.Len) + "]"
	case *ir.Struct:
		return structName(t)
	case ir.CompareExchangeResult:
		return "kc_compare_exchange_result_" + scalarName(t.Elem) // declared by atomic.go
	case ir.CoopMat:
		return coopTypeName(t)
	}
	return "invalid"
}

// decl spells a declaration of name with type t: "float x", "float a[4][2]".
func decl(t ir.Type, name string) string {
	dims := ""
	for {
		a, ok := t.(*ir.Array)
		if !ok {
			break
		}
		dims += "[" + strconv.Itoa(a.Len) + "]"
		t = a.Elem
	}
	return typeName(t) + " " + name + dims
}

// arrayShape returns the lengths of nested arrays and the innermost element.
func arrayShape(t ir.Type) (dims []int, elem ir.Type) {
	for {
		a, ok := t.(*ir.Array)
		if !ok {
			return dims, t
		}
		dims = append(dims, a.Len)
		t = a.Elem
	}
}

// zeroValue spells the zero of a scalar, vector, atomic or struct type.
func zeroValue(t ir.Type) string {
	if st, ok := t.(*ir.Struct); ok {
		return "(" + structName(st) + ")0"
	}
	s := ir.ElemScalar(t)
	z := scalarLit(ir.IntVal(0), s)
	if v, ok := t.(ir.Vector); ok {
		return "(" + typeName(v) + ")" + z
	}
	return z
}

// literal spells a constant of type t (scalar, or a vector as a splat).
func literal(v ir.Value, t ir.Type) string {
	if vt, ok := t.(ir.Vector); ok {
		return "(" + typeName(vt) + ")" + paren(scalarLit(v, vt.Elem))
	}
	return scalarLit(v, ir.ElemScalar(t))
}

// paren wraps s in parentheses when it starts with a sign.
func paren(s string) string {
	if strings.HasPrefix(s, "-") {
		return "(" + s + ")"
	}
	return s
}

// scalarLit spells a constant of scalar type s, converting v to s the way
// the checker does for constants (integers in floats, floats truncated).
func scalarLit(v ir.Value, s ir.Scalar) string {
	switch s {
	case ir.Bool:
		if v.Kind == ir.BoolValue {
			return strconv.FormatBool(v.Bool)
		}
		return strconv.FormatBool(v.Int != 0 || v.Float != 0)
	case ir.I32:
		n := int32(intOf(v))
		if n == math.MinInt32 {
			return "int(0x80000000u)"
		}
		return strconv.FormatInt(int64(n), 10)
	case ir.U32:
		return strconv.FormatUint(uint64(uint32(intOf(v))), 10) + "u"
	case ir.F32:
		return floatLit(float32(floatOf(v)))
	case ir.F16:
		return "half(" + floatLit(float32(roundF16(floatOf(v)))) + ")"
	}
	return "0"
}

func intOf(v ir.Value) int64 {
	switch v.Kind {
	case ir.FloatValue:
		return int64(v.Float)
	case ir.BoolValue:
		if v.Bool {
			return 1
		}
		return 0
	}
	return v.Int
}

func floatOf(v ir.Value) float64 {
	switch v.Kind {
	case ir.IntValue:
		return float64(v.Int)
	case ir.BoolValue:
		if v.Bool {
			return 1
		}
		return 0
	}
	return v.Float
}

// floatLit spells an f32 so that dxc and glslang (which parse the digits as
// a double and round to float) read back exactly f. Infinities and NaN are
// spelled through their bits.
func floatLit(f float32) string {
	if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
		return fmt.Sprintf("asfloat(0x%08xu)", math.Float32bits(f))
	}
	s := strconv.FormatFloat(float64(f), 'g', -1, 32)
	if p, err := strconv.ParseFloat(s, 64); err != nil || float32(p) != f {
		// The shortest float32 spelling rounds twice on the way back;
		// the double spelling of the same value does not.
		s = strconv.FormatFloat(float64(f), 'g', -1, 64)
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s + "f"
}

// roundF16 rounds x to the nearest binary16 value (ties to even), returning
// it as a float64; out-of-range values become infinities.
func roundF16(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	a := math.Abs(x)
	if a >= 65520 { // the largest half is 65504; 65520 is the tie, which goes to even: infinity
		return math.Copysign(math.Inf(1), x)
	}
	q := 0x1p-24 // spacing of subnormals
	if a >= 0x1p-14 {
		_, e := math.Frexp(a) // a = f * 2^e, f in [0.5, 1)
		q = math.Ldexp(1, e-11)
	}
	return math.Copysign(math.RoundToEven(a/q)*q, x)
}
