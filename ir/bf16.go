package ir

import "math"

// BF16Bits rounds f to the nearest bfloat16 (the high half of an f32),
// ties to even; a NaN stays a quiet NaN of the same sign. It is what
// bf16(x) of an f32 means in every target, so the interpreter and the
// emitters' constants share it.
func BF16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
