package interp

import (
	"math"

	"github.com/kcgo/kc/ir"
)

// bfloat16: the high half of an f32. Conversion from f32 rounds to nearest
// even (NaN stays a quiet NaN); conversion to f32 is exact.

// F32ToBF16Bits rounds f to the nearest bfloat16 (ties to even): ir.BF16Bits.
func F32ToBF16Bits(f float32) uint16 { return ir.BF16Bits(f) }

// BF16BitsToF32 widens a bfloat16 to f32 (exactly).
func BF16BitsToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

func bf(a uint32) float32  { return BF16BitsToF32(uint16(a)) }
func bbf(f float32) uint32 { return uint32(F32ToBF16Bits(f)) }
