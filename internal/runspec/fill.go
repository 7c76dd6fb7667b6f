package runspec

import (
	"encoding/binary"
	"math"
	"math/rand/v2"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// FillBuffer makes the initial bytes of n elements of buffer type t. It is
// the one random fill of kc's tests and of kc run:
//
//	random  floats uniform in [-2, 2); integers any 32-bit value
//	range   uniform in [Lo, Hi) (integers: [Lo, Hi], rounded toward zero)
//	edge    integers: a third of them 0, MIN, -1 (all ones) or below 40
//	wide    floats: any finite f32, half of them scaled up to 2^69
//	zero    zero bytes (atomic counters)
//	poison  0xCD bytes (interp.Poison): unwritten outputs show
//
// A buffer of structs is filled field by field, each field as its scalar
// type says, and its padding is poison (structs.go).
func FillBuffer(r *rand.Rand, f directive.Fill, t ir.Type, n int) []byte {
	size := n * ir.ElemStride(t)
	switch f.Mode {
	case "poison":
		return interp.Poison(size)
	case "zero":
		return make([]byte, size)
	}
	if HasStruct(t) {
		return fillStructs(r, f, t, n)
	}
	s := BaseScalar(t)
	b := make([]byte, size)
	if s.Is8Bit() {
		for i := range b {
			b[i] = byte(randInt(r, f, s))
		}
		return b
	}
	if s == ir.F16 || s == ir.BF16 {
		conv := interp.F32ToF16Bits
		if s == ir.BF16 {
			conv = interp.F32ToBF16Bits
		}
		for i := 0; i+2 <= size; i += 2 {
			binary.LittleEndian.PutUint16(b[i:], conv(float32(randFloat(r, f))))
		}
		return b
	}
	for i := 0; i+4 <= size; i += 4 {
		var w uint32
		if s == ir.F32 {
			w = math.Float32bits(float32(randFloat(r, f)))
		} else {
			w = randInt(r, f, s)
		}
		binary.LittleEndian.PutUint32(b[i:], w)
	}
	return b
}

func randFloat(r *rand.Rand, f directive.Fill) float64 {
	switch f.Mode {
	case "range":
		return f.Lo + r.Float64()*(f.Hi-f.Lo)
	case "wide":
		if r.IntN(2) == 0 {
			return (r.Float64() - 0.5) * math.Ldexp(1, r.IntN(70))
		}
		for {
			v := math.Float32frombits(r.Uint32())
			if !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
				return float64(v)
			}
		}
	}
	return r.Float64()*4 - 2
}

func randInt(r *rand.Rand, f directive.Fill, s ir.Scalar) uint32 {
	switch f.Mode {
	case "range":
		lo, hi := int64(f.Lo), int64(f.Hi)
		v := lo + r.Int64N(hi-lo+1)
		if s == ir.I32 {
			return uint32(int32(v))
		}
		return uint32(v)
	case "edge":
		switch r.IntN(6) {
		case 0:
			return 0
		case 1:
			return 0x80000000
		case 2:
			return 0xffffffff
		case 3:
			return uint32(r.IntN(40))
		}
	}
	return r.Uint32()
}

// BaseScalar is the scalar a buffer element is made of, through arrays
// ([4]f32 is f32).
func BaseScalar(t ir.Type) ir.Scalar {
	if a, ok := t.(*ir.Array); ok {
		return BaseScalar(a.Elem)
	}
	return ir.ElemScalar(t)
}
