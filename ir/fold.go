package ir

// FoldInt32 computes a op b for the arithmetic and bitwise operators on
// 32-bit patterns with ir/doc.go's run-time semantics (wrapping; shift
// amounts modulo 32, >> arithmetic when signed; x / 0 == x, x % 0 == 0,
// MIN / -1 == MIN, MIN % -1 == 0). Emitters use it to fold constant
// operands exactly as the program would compute them. ok is false for
// operators it does not fold (comparisons, logical operators).
func FoldInt32(op BinaryOp, a, b uint32, signed bool) (r uint32, ok bool) {
	const minI32 = 0x80000000
	switch op {
	case OpAdd:
		return a + b, true
	case OpSub:
		return a - b, true
	case OpMul:
		return a * b, true
	case OpAnd:
		return a & b, true
	case OpOr:
		return a | b, true
	case OpXor:
		return a ^ b, true
	case OpShl:
		return a << (b & 31), true
	case OpShr:
		if signed {
			return uint32(int32(a) >> (b & 31)), true
		}
		return a >> (b & 31), true
	case OpDiv, OpRem:
		if b == 0 || signed && a == minI32 && b == 0xffffffff {
			if op == OpDiv {
				return a, true
			}
			return 0, true
		}
		switch {
		case signed && op == OpDiv:
			return uint32(int32(a) / int32(b)), true
		case signed:
			return uint32(int32(a) % int32(b)), true
		case op == OpDiv:
			return a / b, true
		}
		return a % b, true
	}
	return 0, false
}
