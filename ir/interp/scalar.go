package interp

import (
	"math"
	"math/bits"

	"github.com/kcgo/kc/ir"
)

// Scalar values are uint32 bit patterns: i32 in two's complement, u32 as
// is, f32 as its IEEE bits, f16 as its bits in the low half, bool as 0 or 1.

type fn1 func(a uint32) uint32
type fn2 func(a, b uint32) uint32
type fn3 func(a, b, c uint32) uint32

func f32(a uint32) float32  { return math.Float32frombits(a) }
func b32(f float32) uint32  { return math.Float32bits(f) }
func h16(a uint32) float32  { return F16BitsToF32(uint16(a)) }
func bh16(f float32) uint32 { return uint32(F32ToF16Bits(f)) }
func fromF64(f float64, s ir.Scalar) uint32 {
	if s == ir.F16 {
		return uint32(f64ToF16(f))
	}
	return b32(float32(f))
}
func toF64(a uint32, s ir.Scalar) float64 {
	if s == ir.F16 {
		return float64(h16(a))
	}
	return float64(f32(a))
}
func boolBits(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// floatOp2 lifts a float32 operation to f32 or f16 bits. For f16 the f32
// result of +, -, *, / is rounded once more to half; since binary32 has
// more than 2*11+2 significand bits, that double rounding equals a single
// correct rounding.
func floatOp2(s ir.Scalar, f func(x, y float32) float32) fn2 {
	if s == ir.F16 {
		return func(a, b uint32) uint32 { return bh16(f(h16(a), h16(b))) }
	}
	return func(a, b uint32) uint32 { return b32(f(f32(a), f32(b))) }
}

func floatCmp(s ir.Scalar, f func(x, y float32) bool) fn2 {
	if s == ir.F16 {
		return func(a, b uint32) uint32 { return boolBits(f(h16(a), h16(b))) }
	}
	return func(a, b uint32) uint32 { return boolBits(f(f32(a), f32(b))) }
}

// binaryFn returns the scalar function of op on operands of type s (the
// left operand's component type).
func binaryFn(op ir.BinaryOp, s ir.Scalar) fn2 {
	switch {
	case s.IsFloat():
		return floatBinary(op, s)
	case s == ir.I32:
		return i32Binary(op)
	case s == ir.U32:
		return u32Binary(op)
	case s == ir.Bool:
		return boolBinary(op)
	}
	return nil
}

func floatBinary(op ir.BinaryOp, s ir.Scalar) fn2 {
	switch op {
	case ir.OpAdd:
		return floatOp2(s, func(x, y float32) float32 { return x + y })
	case ir.OpSub:
		return floatOp2(s, func(x, y float32) float32 { return x - y })
	case ir.OpMul:
		return floatOp2(s, func(x, y float32) float32 { return x * y })
	case ir.OpDiv:
		return floatOp2(s, func(x, y float32) float32 { return x / y })
	case ir.OpRem:
		if s == ir.F16 {
			// each step rounded to half, as the WGSL definition reads
			return func(a, b uint32) uint32 {
				x, y := h16(a), h16(b)
				q := h16(bh16(x / y))
				t := float32(math.Trunc(float64(q)))
				p := h16(bh16(y * t))
				return bh16(x - p)
			}
		}
		return floatOp2(s, fremF32)
	case ir.OpEq:
		return floatCmp(s, func(x, y float32) bool { return x == y })
	case ir.OpNe:
		return floatCmp(s, func(x, y float32) bool { return x != y })
	case ir.OpLt:
		return floatCmp(s, func(x, y float32) bool { return x < y })
	case ir.OpLe:
		return floatCmp(s, func(x, y float32) bool { return x <= y })
	case ir.OpGt:
		return floatCmp(s, func(x, y float32) bool { return x > y })
	case ir.OpGe:
		return floatCmp(s, func(x, y float32) bool { return x >= y })
	}
	return nil
}

// fremF32 is WGSL's float remainder x - y*trunc(x/y), every step in f32.
func fremF32(x, y float32) float32 {
	q := x / y
	t := float32(math.Trunc(float64(q)))
	p := y * t
	return x - p
}

func i32Binary(op ir.BinaryOp) fn2 {
	switch op {
	case ir.OpDiv:
		return func(a, b uint32) uint32 {
			x, y := int32(a), int32(b)
			if y == 0 || (x == math.MinInt32 && y == -1) {
				return a
			}
			return uint32(x / y)
		}
	case ir.OpRem:
		return func(a, b uint32) uint32 {
			x, y := int32(a), int32(b)
			if y == 0 || y == -1 {
				return 0
			}
			return uint32(x % y)
		}
	case ir.OpShr:
		return func(a, b uint32) uint32 { return uint32(int32(a) >> (b & 31)) }
	case ir.OpLt:
		return func(a, b uint32) uint32 { return boolBits(int32(a) < int32(b)) }
	case ir.OpLe:
		return func(a, b uint32) uint32 { return boolBits(int32(a) <= int32(b)) }
	case ir.OpGt:
		return func(a, b uint32) uint32 { return boolBits(int32(a) > int32(b)) }
	case ir.OpGe:
		return func(a, b uint32) uint32 { return boolBits(int32(a) >= int32(b)) }
	}
	return u32Binary(op) // the same bits for the rest
}

func u32Binary(op ir.BinaryOp) fn2 {
	switch op {
	case ir.OpAdd:
		return func(a, b uint32) uint32 { return a + b }
	case ir.OpSub:
		return func(a, b uint32) uint32 { return a - b }
	case ir.OpMul:
		return func(a, b uint32) uint32 { return a * b }
	case ir.OpDiv:
		return func(a, b uint32) uint32 {
			if b == 0 {
				return a
			}
			return a / b
		}
	case ir.OpRem:
		return func(a, b uint32) uint32 {
			if b == 0 {
				return 0
			}
			return a % b
		}
	case ir.OpAnd:
		return func(a, b uint32) uint32 { return a & b }
	case ir.OpOr:
		return func(a, b uint32) uint32 { return a | b }
	case ir.OpXor:
		return func(a, b uint32) uint32 { return a ^ b }
	case ir.OpShl:
		return func(a, b uint32) uint32 { return a << (b & 31) }
	case ir.OpShr:
		return func(a, b uint32) uint32 { return a >> (b & 31) }
	case ir.OpEq:
		return func(a, b uint32) uint32 { return boolBits(a == b) }
	case ir.OpNe:
		return func(a, b uint32) uint32 { return boolBits(a != b) }
	case ir.OpLt:
		return func(a, b uint32) uint32 { return boolBits(a < b) }
	case ir.OpLe:
		return func(a, b uint32) uint32 { return boolBits(a <= b) }
	case ir.OpGt:
		return func(a, b uint32) uint32 { return boolBits(a > b) }
	case ir.OpGe:
		return func(a, b uint32) uint32 { return boolBits(a >= b) }
	}
	return nil
}

func boolBinary(op ir.BinaryOp) fn2 {
	switch op {
	case ir.OpEq:
		return func(a, b uint32) uint32 { return boolBits(a == b) }
	case ir.OpNe, ir.OpXor:
		return func(a, b uint32) uint32 { return boolBits(a != b) }
	case ir.OpLogAnd, ir.OpAnd:
		return func(a, b uint32) uint32 { return a & b }
	case ir.OpLogOr, ir.OpOr:
		return func(a, b uint32) uint32 { return a | b }
	}
	return nil
}

// unaryFn returns the scalar function of op on type s.
func unaryFn(op ir.UnaryOp, s ir.Scalar) fn1 {
	switch op {
	case ir.OpNeg:
		switch s {
		case ir.F32:
			return func(a uint32) uint32 { return a ^ 0x80000000 }
		case ir.F16:
			return func(a uint32) uint32 { return a ^ 0x8000 }
		case ir.I32, ir.U32:
			return func(a uint32) uint32 { return -a }
		}
	case ir.OpNot:
		if s == ir.Bool {
			return func(a uint32) uint32 { return a ^ 1 }
		}
	case ir.OpBitNot:
		if s.IsInt() {
			return func(a uint32) uint32 { return ^a }
		}
	}
	return nil
}

// convertFn converts a scalar of type from to type to (a value conversion).
func convertFn(from, to ir.Scalar) fn1 {
	if from == to {
		return func(a uint32) uint32 { return a }
	}
	switch {
	case from == ir.F32 && to == ir.BF16:
		return func(a uint32) uint32 { return bbf(f32(a)) }
	case from == ir.BF16 && to == ir.F32:
		return func(a uint32) uint32 { return b32(bf(a)) }
	case from == ir.BF16 || to == ir.BF16:
		return nil // bf16 converts only to and from f32
	case from == ir.I8 && to.IsInt():
		return func(a uint32) uint32 { return uint32(int32(int8(a))) } // sign-extend
	case from == ir.U8 && to.IsInt():
		return func(a uint32) uint32 { return a & 0xff }
	case to.Is8Bit() && from.IsInt():
		return func(a uint32) uint32 { return a & 0xff } // truncate
	case from.Is8Bit() || to.Is8Bit():
		return nil // i8 and u8 convert only to and from i32 and u32
	}
	switch to {
	case ir.Bool:
		switch from {
		case ir.F32:
			return func(a uint32) uint32 { return boolBits(f32(a) != 0) }
		case ir.F16:
			return func(a uint32) uint32 { return boolBits(h16(a) != 0) }
		}
		return func(a uint32) uint32 { return boolBits(a != 0) }
	case ir.I32, ir.U32:
		switch from {
		case ir.F32:
			return func(a uint32) uint32 { return floatToInt(float64(f32(a)), to) }
		case ir.F16:
			return func(a uint32) uint32 { return floatToInt(float64(h16(a)), to) }
		}
		return func(a uint32) uint32 { return a } // bool 0/1, or the same bits
	case ir.F32, ir.F16:
		switch from {
		case ir.Bool, ir.U32:
			return func(a uint32) uint32 { return fromF64(float64(a), to) }
		case ir.I32:
			return func(a uint32) uint32 { return fromF64(float64(int32(a)), to) }
		case ir.F32:
			return func(a uint32) uint32 { return bh16(f32(a)) }
		case ir.F16:
			return func(a uint32) uint32 { return b32(h16(a)) }
		}
	}
	return nil
}

// floatToInt truncates toward zero and saturates; NaN converts to 0.
func floatToInt(f float64, to ir.Scalar) uint32 {
	if f != f {
		return 0
	}
	f = math.Trunc(f)
	if to == ir.I32 {
		switch {
		case f >= math.MaxInt32:
			return math.MaxInt32
		case f <= math.MinInt32:
			return 1 << 31
		}
		return uint32(int32(f))
	}
	switch {
	case f >= math.MaxUint32:
		return math.MaxUint32
	case f <= 0:
		return 0
	}
	return uint32(f)
}

// constBits converts a checked constant to the bits of type s.
func constBits(v ir.Value, s ir.Scalar) uint32 {
	switch v.Kind {
	case ir.BoolValue:
		return convertFn(ir.Bool, s)(boolBits(v.Bool))
	case ir.IntValue:
		switch s {
		case ir.F32, ir.F16:
			return fromF64(float64(v.Int), s)
		case ir.Bool:
			return boolBits(v.Int != 0)
		}
		return uint32(v.Int)
	case ir.FloatValue:
		switch s {
		case ir.F32, ir.F16:
			return fromF64(v.Float, s)
		case ir.I32, ir.U32:
			return floatToInt(v.Float, s)
		case ir.Bool:
			return boolBits(v.Float != 0)
		}
	}
	return 0
}

// Integer bit intrinsics (WGSL definitions).

func countOneBits(a uint32) uint32 { return uint32(bits.OnesCount32(a)) }
func reverseBits(a uint32) uint32  { return bits.Reverse32(a) }

func firstTrailingBit(a uint32) uint32 {
	if a == 0 {
		return math.MaxUint32
	}
	return uint32(bits.TrailingZeros32(a))
}

func firstLeadingBitU(a uint32) uint32 {
	if a == 0 {
		return math.MaxUint32
	}
	return uint32(31 - bits.LeadingZeros32(a))
}

// firstLeadingBitI is the position of the most significant bit that
// differs from the sign bit; -1 for 0 and -1.
func firstLeadingBitI(a uint32) uint32 {
	if int32(a) < 0 {
		a = ^a
	}
	return firstLeadingBitU(a)
}
