package kctest

import (
	"math"
	"math/rand"
	"os"
	"sort"
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

// CheckAll reports whether KC_TEST_ALL=1 asks sampled tests to check
// every configuration (Sample).
func CheckAll() bool { return os.Getenv("KC_TEST_ALL") == "1" }

// Sample returns the part of xs one run checks, where xs are
// configurations of a kernel equally worth checking but together too
// slow to compile and run on every run on a CPU device (lavapipe): all of
// them where all is true (the caller's choice: a GPU) or KC_TEST_ALL=1 is
// set, else n of them drawn afresh with rng, in their order, so that the
// runs together cover the list. A failure names its configuration; the
// seed rng logged draws the same sample again.
func Sample[T any](t testing.TB, rng *rand.Rand, xs []T, n int, all bool) []T {
	if all || CheckAll() || n >= len(xs) {
		return xs
	}
	pick := rng.Perm(len(xs))[:n]
	sort.Ints(pick)
	out := make([]T, n)
	for i, j := range pick {
		out[i] = xs[j]
	}
	t.Logf("checking %d of %d configurations, drawn afresh (KC_TEST_ALL=1: all)", n, len(xs))
	return out
}
