package kctest

import (
	"math"
	"math/rand"
	"testing"
	"time"
)

// NewRand returns a generator seeded from the clock, so that every run
// draws fresh inputs; the seed is logged for reproduction.
func NewRand(t testing.TB) *rand.Rand {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewSource(seed))
}

// Randn returns n values uniform in [lo, hi).
func Randn(rng *rand.Rand, n int, lo, hi float64) []float32 {
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return xs
}

// Tol is an error bound: |got - want| <= Abs + Rel·|want|.
type Tol struct{ Abs, Rel float64 }

// Compare checks got against the float64 reference want within tl,
// reporting the first five values out of bounds and their count. NaN
// always fails (so a poisoned output that a kernel never wrote shows).
func Compare(t testing.TB, what string, got []float32, want []float64, tl Tol) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i, g := range got {
		d := math.Abs(float64(g) - want[i])
		if !(d <= tl.Abs+tl.Rel*math.Abs(want[i])) {
			if bad < 5 {
				t.Errorf("%s[%d] = %g, want %g (|diff| %.3g > %.3g + %.3g·|want|)", what, i, g, want[i], d, tl.Abs, tl.Rel)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d values out of tolerance", what, bad, len(got))
	}
}
