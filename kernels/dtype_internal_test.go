package kernels

import (
	"math"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir/interp"
)

// TestF16Bits: the fast host conversion equals interp's on edge cases
// (ties, subnormals, overflow, infinities, NaN) and on random bit patterns.
func TestF16Bits(t *testing.T) {
	rng := kctest.NewRand(t)
	edges := []float32{0, float32(math.Copysign(0, -1)), 1, -2, 65504, 65519.99, 65520, 1e6, 6.1035156e-05, 5.9604645e-08,
		2.9802322e-08, 2.9802326e-08, 8.940697e-08, 1 + 1.0/2048, 1 + 3.0/2048, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	for _, f := range edges {
		if g, w := f16Bits(f), interp.F32ToF16Bits(f); g != w {
			t.Errorf("f16Bits(%g) = %#04x, want %#04x", f, g, w)
		}
	}
	for i := 0; i < 200000; i++ {
		b := rng.Uint32()
		if i%2 == 0 { // half of them near f16's range
			b = b&0x807fffff | uint32(100+rng.Intn(50))<<23
		}
		f := math.Float32frombits(b)
		if g, w := f16Bits(f), interp.F32ToF16Bits(f); g != w && !(f != f && g&0x7c00 == 0x7c00 && g&0x3ff != 0) {
			t.Fatalf("f16Bits(%g, bits %#08x) = %#04x, want %#04x", f, b, g, w)
		}
	}
}
