package ir

import (
	"fmt"
	"math"
)

// Constant evaluation. Untyped constants are evaluated exactly enough
// (int64, float64) with overflow reported; typed constants are evaluated in
// their type: integer results must fit it (as in Go and WGSL's
// const-expressions, overflow is an error, not a wrap), integer division or
// remainder by zero is an error, f32 results are rounded to binary32 and
// f16 results to binary16. Conversions of typed constants follow the run
// time rules (ir/doc.go): integers reinterpret between i32 and u32, floats
// truncate and saturate to integers, bool converts to 0 or 1.

const (
	minI32 = math.MinInt32
	maxI32 = math.MaxInt32
	maxU32 = math.MaxUint32
	maxF16 = 65504
)

// ConvertValue returns v (an exact or typed constant) converted to the
// scalar type t by the run-time conversion rules: the value an emitter
// writes for a literal or constant whose checked type is t.
func ConvertValue(v Value, t Scalar) Value {
	switch t {
	case Bool:
		switch v.Kind {
		case IntValue:
			return BoolVal(v.Int != 0)
		case FloatValue:
			return BoolVal(v.Float != 0)
		}
		return v
	case I32, U32:
		return IntVal(intConvert(v, t))
	case F32, F16:
		f := v.Float
		switch v.Kind {
		case IntValue:
			f = float64(v.Int)
		case BoolValue:
			f = b2f(v.Bool)
		}
		return FloatVal(roundFloat(f, t))
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// intConvert converts v to i32 or u32: integers reinterpret their low 32
// bits, floats truncate and saturate (NaN gives 0), bool gives 0 or 1.
func intConvert(v Value, t Scalar) int64 {
	switch v.Kind {
	case BoolValue:
		return int64(b2f(v.Bool))
	case FloatValue:
		f := math.Trunc(v.Float)
		lo, hi := float64(minI32), float64(maxI32)
		if t == U32 {
			lo, hi = 0, maxU32
		}
		switch {
		case math.IsNaN(f):
			return 0
		case f <= lo:
			return int64(lo)
		case f >= hi:
			return int64(hi)
		}
		return int64(f)
	}
	if t == U32 {
		return int64(uint32(v.Int))
	}
	return int64(int32(v.Int))
}

// roundFloat rounds f to the precision of t (f32 or f16).
func roundFloat(f float64, t Scalar) float64 {
	if t == F16 {
		return roundF16(f)
	}
	return float64(float32(f))
}

// roundF16 rounds f to the nearest binary16 value (ties to even); values
// beyond the largest finite f16 become infinities.
func roundF16(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) || f == 0 {
		return f
	}
	if math.Abs(f) >= 65520 {
		return math.Inf(int(math.Copysign(1, f)))
	}
	if math.Abs(f) < 0x1p-14 {
		const step = 0x1p-24
		return math.RoundToEven(f/step) * step
	}
	_, exp := math.Frexp(f)
	scale := math.Ldexp(1, 11-exp)
	return math.RoundToEven(f*scale) / scale
}

// representable converts the exact constant v to type s, reporting why it
// cannot be ("overflows", "truncated to").
func representable(v Value, s Scalar) (Value, string) {
	switch {
	case v.Kind == BoolValue || s == Bool:
		if v.Kind == BoolValue && s == Bool {
			return v, ""
		}
		return v, "cannot be represented as"
	case s.IsInt():
		return representableInt(v, s)
	case s.IsFloat():
		f := v.Float
		if v.Kind == IntValue {
			f = float64(v.Int)
		}
		r := roundFloat(f, s)
		if math.IsInf(r, 0) && !math.IsInf(f, 0) {
			return v, "overflows"
		}
		return FloatVal(r), ""
	}
	return v, "cannot be represented as"
}

func representableInt(v Value, s Scalar) (Value, string) {
	i := v.Int
	if v.Kind == FloatValue {
		f := v.Float
		if f != math.Trunc(f) || math.IsNaN(f) {
			return v, "truncated to"
		}
		if math.Abs(f) > 1<<62 {
			return v, "overflows"
		}
		i = int64(f)
	}
	lo, hi := int64(minI32), int64(maxI32)
	if s == U32 {
		lo, hi = 0, maxU32
	}
	if i < lo || i > hi {
		return v, "overflows"
	}
	return IntVal(i), ""
}

// exactUnary evaluates an operator on an untyped constant.
func exactUnary(op UnaryOp, x Value) (Value, string) {
	switch {
	case op == OpNeg && x.Kind == IntValue:
		if x.Int == math.MinInt64 {
			return x, "constant overflow"
		}
		return IntVal(-x.Int), ""
	case op == OpNeg && x.Kind == FloatValue:
		return FloatVal(-x.Float), ""
	case op == OpBitNot && x.Kind == IntValue:
		return IntVal(^x.Int), ""
	}
	return x, fmt.Sprintf("invalid operation: operator %s not defined on untyped constant %s", op, LitText(x))
}

// exactBinary evaluates an operator on untyped constants of one kind
// (the amount of a shift is a u32 constant).
func exactBinary(op BinaryOp, x, y Value) (Value, string) {
	if x.Kind == FloatValue {
		return exactFloat(op, x.Float, y.Float)
	}
	a, b := x.Int, y.Int
	switch op {
	case OpAdd:
		if r := a + b; (r > a) == (b > 0) {
			return IntVal(r), ""
		}
	case OpSub:
		if r := a - b; (r < a) == (b > 0) {
			return IntVal(r), ""
		}
	case OpMul:
		if a == 0 || b == 0 {
			return IntVal(0), ""
		}
		if r := a * b; r/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64) {
			return IntVal(r), ""
		}
	case OpDiv, OpRem:
		return exactDivRem(op, a, b)
	case OpAnd:
		return IntVal(a & b), ""
	case OpOr:
		return IntVal(a | b), ""
	case OpXor:
		return IntVal(a ^ b), ""
	case OpShl:
		if b < 63 && (a<<b)>>b == a {
			return IntVal(a << b), ""
		}
		if a == 0 {
			return IntVal(0), ""
		}
	case OpShr:
		return IntVal(a >> min(b, 63)), ""
	default:
		return x, fmt.Sprintf("invalid operation: operator %s on untyped constants", op)
	}
	return x, "constant overflow"
}

func exactDivRem(op BinaryOp, a, b int64) (Value, string) {
	if b == 0 {
		return IntVal(0), "invalid operation: division by zero"
	}
	if a == math.MinInt64 && b == -1 {
		return IntVal(0), "constant overflow"
	}
	if op == OpDiv {
		return IntVal(a / b), ""
	}
	return IntVal(a % b), ""
}

func exactFloat(op BinaryOp, a, b float64) (Value, string) {
	switch op {
	case OpAdd:
		return FloatVal(a + b), ""
	case OpSub:
		return FloatVal(a - b), ""
	case OpMul:
		return FloatVal(a * b), ""
	case OpDiv, OpRem:
		if b == 0 {
			return FloatVal(0), "invalid operation: division by zero"
		}
		if op == OpRem {
			return FloatVal(math.Mod(a, b)), ""
		}
		return FloatVal(a / b), ""
	}
	return FloatVal(0), fmt.Sprintf("invalid operation: operator %s not defined on untyped float constants", op)
}

// typedBinary evaluates x op y for constants of scalar type s (the
// operands' type; the amount of a shift is u32).
func typedBinary(op BinaryOp, x, y Value, s Scalar) (Value, string) {
	switch {
	case op.IsComparison():
		return compareValues(op, x, y), ""
	case op.IsLogical():
		if op == OpLogAnd {
			return BoolVal(x.Bool && y.Bool), ""
		}
		return BoolVal(x.Bool || y.Bool), ""
	case s.IsFloat():
		return typedFloat(op, x.Float, y.Float, s)
	}
	r, err := exactBinary(op, x, y)
	if err != "" {
		return r, err
	}
	if op == OpShr && s == I32 {
		r = IntVal(int64(int32(x.Int) >> min(y.Int, 31)))
	}
	if v, why := representableInt(r, s); why != "" {
		return v, fmt.Sprintf("constant %d overflows %s", r.Int, s)
	}
	return r, ""
}

func typedFloat(op BinaryOp, a, b float64, s Scalar) (Value, string) {
	r, err := exactFloat(op, a, b)
	if err != "" {
		return r, err
	}
	f := roundFloat(r.Float, s)
	if math.IsInf(f, 0) && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
		return r, fmt.Sprintf("constant %s overflows %s", LitText(r), s)
	}
	return FloatVal(f), ""
}

func compareValues(op BinaryOp, x, y Value) Value {
	var c int // -1, 0, 1; 2 when unordered (NaN)
	switch x.Kind {
	case BoolValue:
		if x.Bool != y.Bool {
			c = 1
		}
	case IntValue:
		c = cmp3(x.Int < y.Int, x.Int > y.Int)
	case FloatValue:
		c = cmp3(x.Float < y.Float, x.Float > y.Float)
		if math.IsNaN(x.Float) || math.IsNaN(y.Float) {
			c = 2
		}
	}
	switch op {
	case OpEq:
		return BoolVal(c == 0)
	case OpNe:
		return BoolVal(c != 0)
	case OpLt:
		return BoolVal(c == -1)
	case OpLe:
		return BoolVal(c == -1 || c == 0)
	case OpGt:
		return BoolVal(c == 1)
	}
	return BoolVal(c == 1 || c == 0)
}

func cmp3(lt, gt bool) int {
	switch {
	case lt:
		return -1
	case gt:
		return 1
	}
	return 0
}

// typedUnary evaluates op x for a constant of scalar type s.
func typedUnary(op UnaryOp, x Value, s Scalar) (Value, string) {
	switch op {
	case OpNot:
		return BoolVal(!x.Bool), ""
	case OpBitNot:
		if s == U32 {
			return IntVal(int64(^uint32(x.Int))), ""
		}
		return IntVal(^x.Int), ""
	}
	if s.IsFloat() {
		return FloatVal(-x.Float), ""
	}
	if x.Int == minI32 {
		return x, fmt.Sprintf("constant %d overflows %s", -x.Int, s)
	}
	return IntVal(-x.Int), ""
}

// unaryDefined reports whether op applies to values of scalar type s.
func unaryDefined(op UnaryOp, s Scalar) bool {
	switch op {
	case OpNeg:
		return s == I32 || s.IsFloat()
	case OpNot:
		return s == Bool
	case OpBitNot:
		return s.IsInt()
	}
	return false
}

// foldUnary computes the value of a typed constant unary expression.
func (c *checker) foldUnary(e *Unary) bool {
	x, ok := c.vals[e.X]
	if !ok || !c.konst[e.X] {
		return true
	}
	c.konst[e] = true
	v, err := typedUnary(e.Op, x, ElemScalar(e.Ty))
	if err != "" {
		c.errorf(posOf(e, c.at), "%s", err)
		return false
	}
	c.vals[e] = v
	return true
}

// foldBinary computes the value of a typed constant binary expression.
func (c *checker) foldBinary(e *Binary) bool {
	x, okx := c.vals[e.X]
	y, oky := c.vals[e.Y]
	if !okx || !oky {
		c.konst[e] = false
		return true
	}
	c.konst[e] = true
	v, err := typedBinary(e.Op, x, y, ElemScalar(e.X.Type()))
	if err != "" {
		c.errorf(posOf(e, c.at), "%s", err)
		return false
	}
	c.vals[e] = v
	return true
}
