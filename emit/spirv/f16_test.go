package spirv

import (
	"math"
	"testing"
)

// TestF16 checks the constant conversion to binary16: every finite value
// converts to itself, the midpoint between neighbours rounds to the even
// one, values just off the midpoint round to the nearer one, and overflow
// gives infinity.
func TestF16(t *testing.T) {
	for h := uint32(0); h < 0x7c00; h++ {
		for _, sign := range []uint32{0, 0x8000} {
			x := uint16(h | sign)
			v := float64(f16ToFloat32(x))
			if got := f16bits(v); got != x {
				t.Fatalf("f16bits(%v) = %#04x, want %#04x", v, got, x)
			}
			if h == 0x7bff {
				continue
			}
			next := float64(f16ToFloat32(x + 1))
			mid := (v + next) / 2
			even := x
			if x&1 == 1 {
				even = x + 1
			}
			if got := f16bits(mid); got != even {
				t.Fatalf("f16bits(midpoint %v) = %#04x, want %#04x", mid, got, even)
			}
			if got := f16bits(math.Nextafter(mid, v)); got != x {
				t.Fatalf("f16bits(just below the midpoint %v) = %#04x, want %#04x", mid, got, x)
			}
			if got := f16bits(math.Nextafter(mid, 2*next)); got != x+1 && sign == 0 {
				t.Fatalf("f16bits(just above the midpoint %v) = %#04x, want %#04x", mid, got, x+1)
			}
		}
	}
	for _, c := range []struct {
		v    float64
		want uint16
	}{{65504, 0x7bff}, {65519.99, 0x7bff}, {65520, 0x7c00}, {1e10, 0x7c00}, {-1e10, 0xfc00},
		{math.Inf(1), 0x7c00}, {0x1p-25, 0}, {0x1.0000001p-25, 1}, {0x1p-24, 1}} {
		if got := f16bits(c.v); got != c.want {
			t.Errorf("f16bits(%v) = %#04x, want %#04x", c.v, got, c.want)
		}
	}
	if got := f16bits(math.NaN()); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("f16bits(NaN) = %#04x, not a NaN", got)
	}
}
