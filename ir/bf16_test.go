package ir

import (
	"math"
	"testing"
)

// TestBF16Bits: rounding to nearest even at the halfway points, above
// them, infinities and a signalling NaN made quiet.
func TestBF16Bits(t *testing.T) {
	for _, c := range []struct {
		f    float32
		want uint16
	}{{0, 0}, {1, 0x3f80}, {-2, 0xc000}, {math.Float32frombits(0x3f808000), 0x3f80}, {math.Float32frombits(0x3f818000), 0x3f82},
		{math.Float32frombits(0x3f808001), 0x3f81}, {float32(math.Inf(1)), 0x7f80}, {math.Float32frombits(0x7f800001), 0x7fc0}} {
		if got := BF16Bits(c.f); got != c.want {
			t.Errorf("BF16Bits(%#x) = %#x, want %#x", math.Float32bits(c.f), got, c.want)
		}
	}
}
