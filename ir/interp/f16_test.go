package interp

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestF16KnownValues(t *testing.T) {
	for _, c := range []struct {
		h uint16
		f float32
	}{
		{0x0000, 0}, {0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125},
		{0x7bff, 65504}, {0x0400, 1.0 / (1 << 14)}, {0x0001, 1.0 / (1 << 24)},
		{0x03ff, 1023.0 / (1 << 24)}, {0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))},
	} {
		if got := F16BitsToF32(c.h); got != c.f {
			t.Errorf("F16BitsToF32(%#04x) = %g, want %g", c.h, got, c.f)
		}
		if got := F32ToF16Bits(c.f); got != c.h {
			t.Errorf("F32ToF16Bits(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
	}
	if got := F32ToF16Bits(float32(math.Copysign(0, -1))); got != 0x8000 {
		t.Errorf("-0 -> %#04x, want 0x8000", got)
	}
	nan := F32ToF16Bits(float32(math.NaN()))
	if nan&0x7c00 != 0x7c00 || nan&0x3ff == 0 {
		t.Errorf("NaN -> %#04x, not a NaN", nan)
	}
	if f := F16BitsToF32(0x7e00); f == f {
		t.Errorf("F16BitsToF32(0x7e00) = %g, want NaN", f)
	}
}

// TestF16Exhaustive checks every half, and the rounding of the points just
// below, at and just above every midpoint between neighbouring halves.
func TestF16Exhaustive(t *testing.T) {
	for h := 0; h < 0x7c00; h++ { // positive finite halves
		for _, sign := range []uint16{0, 0x8000} {
			hb := uint16(h) | sign
			f := F16BitsToF32(hb)
			if got := F32ToF16Bits(f); got != hb {
				t.Fatalf("round trip %#04x -> %g -> %#04x", hb, f, got)
			}
		}
		lo := float64(F16BitsToF32(uint16(h)))
		var hi float64
		if h == 0x7bff {
			hi = 65536 // the next value if the exponent range went on: ties to it go to Inf
		} else {
			hi = float64(F16BitsToF32(uint16(h + 1)))
		}
		mid := (lo + hi) / 2
		below := math.Nextafter32(float32(mid), float32(lo))
		above := math.Nextafter32(float32(mid), float32(hi))
		// float32 has enough bits to represent the midpoint exactly
		if float64(float32(mid)) != mid {
			t.Fatalf("midpoint %g not exact in float32", mid)
		}
		even := uint16(h)
		if h&1 == 1 {
			even = uint16(h + 1)
		}
		if got := F32ToF16Bits(below); got != uint16(h) {
			t.Fatalf("below midpoint %g of %#04x: got %#04x", below, h, got)
		}
		if float64(below) == mid || float64(above) == mid {
			t.Fatalf("nextafter failed at %g", mid)
		}
		if got := F32ToF16Bits(float32(mid)); got != even {
			t.Fatalf("midpoint %g between %#04x and %#04x: got %#04x, want even %#04x", mid, h, h+1, got, even)
		}
		if got := F32ToF16Bits(above); got != uint16(h+1) {
			t.Fatalf("above midpoint %g of %#04x: got %#04x", above, h, got)
		}
	}
}

func TestF16OverflowAndUnderflow(t *testing.T) {
	for _, c := range []struct {
		f float64
		h uint16
	}{
		{65519.99, 0x7bff}, {65520, 0x7c00}, {1e6, 0x7c00}, {-1e6, 0xfc00}, {math.MaxFloat32, 0x7c00},
		{math.Ldexp(1, -25), 0}, // tie between 0 and the smallest subnormal: even is 0
		{math.Ldexp(1.0000001, -25), 1}, {math.Ldexp(3, -25), 2}, {math.Ldexp(5, -25), 2},
		{math.Ldexp(1, -26), 0}, {-math.Ldexp(1, -26), 0x8000}, {1e-30, 0},
		{math.Ldexp(2047, -25), 0x0400}, // largest subnormal + half ulp rounds (to even) up into the normals
	} {
		if got := F64ToF16Bits(c.f); got != c.h {
			t.Errorf("F64ToF16Bits(%g) = %#04x, want %#04x", c.f, got, c.h)
		}
		if f32 := float32(c.f); float64(f32) == c.f {
			if got := F32ToF16Bits(f32); got != c.h {
				t.Errorf("F32ToF16Bits(%g) = %#04x, want %#04x", c.f, got, c.h)
			}
		}
	}
}

// TestF16RandomNearest checks random float32 values against the nearest
// half found by comparing distances to the neighbours.
func TestF16RandomNearest(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < 200000; i++ {
		f := math.Float32frombits(r.Uint32())
		if f != f || math.Abs(float64(f)) >= 65520 {
			continue
		}
		h := F32ToF16Bits(f)
		d := math.Abs(float64(f) - float64(F16BitsToF32(h)))
		for _, n := range []uint16{h - 1, h + 1} {
			if n&0x7c00 == 0x7c00 || (n^h)&0x8000 != 0 {
				continue
			}
			dn := math.Abs(float64(f) - float64(F16BitsToF32(n)))
			if dn < d || (dn == d && n&1 == 0) {
				t.Fatalf("seed %d: %g -> %#04x (distance %g), but %#04x is at %g", seed, f, h, d, n, dn)
			}
		}
	}
}

func TestCodec(t *testing.T) {
	f := []float32{1, -2.5, float32(math.Inf(1))}
	b := Encode(f)
	if len(b) != 12 || b[4] != 0 || b[7] != 0xc0 {
		t.Fatalf("Encode(%v) = % x", f, b)
	}
	back, err := Decode[float32](b)
	if err != nil || back[1] != -2.5 || !math.IsInf(float64(back[2]), 1) {
		t.Fatalf("Decode = %v, %v", back, err)
	}
	h := Encode([]uint16{0x3c00, 0xc000})
	if len(h) != 4 || h[1] != 0x3c || h[3] != 0xc0 {
		t.Fatalf("Encode f16 = % x", h)
	}
	if _, err := Decode[uint32](make([]byte, 6)); err == nil || err.Error() != "interp: 6 bytes is not a whole number of 4-byte elements" {
		t.Fatalf("Decode of 6 bytes: %v", err)
	}
	iv, _ := Decode[int32](Encode([]int32{-1, math.MinInt32}))
	if iv[0] != -1 || iv[1] != math.MinInt32 {
		t.Fatalf("int32 round trip: %v", iv)
	}
}
