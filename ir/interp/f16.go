package interp

import "math"

// F32ToF16Bits rounds f to the nearest binary16 value, ties to even, and
// returns its bits. Values beyond the largest finite half (65504) round to
// ±Inf as IEEE 754 requires (anything at or above 65520 in magnitude);
// values below the smallest subnormal (2^-24) round to ±0 or to it. A NaN
// stays a quiet NaN with the sign and the top payload bits of f.
func F32ToF16Bits(f float32) uint16 { return f64ToF16(float64(f)) }

// F16BitsToF32 returns the binary16 value with bits h as a float32 (exact:
// every half is a float).
func F16BitsToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // Inf or NaN
		if mant != 0 {
			return math.Float32frombits(sign | 0x7fc00000 | mant<<13)
		}
		return math.Float32frombits(sign | 0x7f800000)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// subnormal: mant * 2^-24, exact in float32
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// F16BitsToF64 is F16BitsToF32 widened to float64 (exact).
func F16BitsToF64(h uint16) float64 { return float64(F16BitsToF32(h)) }

// F64ToF16Bits rounds f (once, ties to even) to binary16; see F32ToF16Bits.
func F64ToF16Bits(f float64) uint16 { return f64ToF16(f) }

// f64ToF16 rounds the exact value f to binary16 with one rounding.
func f64ToF16(f float64) uint16 {
	b := math.Float64bits(f)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	mant := b & (1<<52 - 1)
	switch {
	case exp == 0x7ff:
		if mant != 0 {
			return sign | 0x7e00 | uint16(mant>>42)
		}
		return sign | 0x7c00
	case exp == 0:
		return sign // float64 subnormals are far below half's range
	}
	e := exp - 1023
	if e > 15 {
		return sign | 0x7c00
	}
	m := mant | 1<<52
	shift := 42
	if e < -14 {
		shift += -14 - e
	}
	if shift > 60 {
		return sign
	}
	q := m >> uint(shift)
	rem := m & (1<<uint(shift) - 1)
	half := uint64(1) << uint(shift-1)
	if rem > half || (rem == half && q&1 == 1) {
		q++
	}
	if e < -14 {
		return sign | uint16(q) // subnormal; q == 1<<10 is the smallest normal
	}
	bits := uint64(e+14)<<10 + q
	if bits >= 0x7c00 {
		return sign | 0x7c00
	}
	return sign | uint16(bits)
}

// F32sToF16Bits converts a slice of float32 to half bits, rounding each.
func F32sToF16Bits(v []float32) []uint16 {
	out := make([]uint16, len(v))
	for i, f := range v {
		out[i] = F32ToF16Bits(f)
	}
	return out
}

// F16BitsToF32s converts a slice of half bits to float32 (exact).
func F16BitsToF32s(v []uint16) []float32 {
	out := make([]float32, len(v))
	for i, h := range v {
		out[i] = F16BitsToF32(h)
	}
	return out
}
