package irgen

import (
	"math/rand/v2"
	"testing"
)

// Seeds returns n consecutive seeds from a fresh random base (short of
// them under go test -short) and logs the base on t, so that every run
// tries new kernels and a failure can be generated again from its seed.
func Seeds(t testing.TB, n, short int) []uint64 {
	t.Helper()
	if testing.Short() {
		n = short
	}
	base := rand.Uint64()
	t.Logf("base seed %#x", base)
	out := make([]uint64, n)
	for i := range out {
		out[i] = base + uint64(i)
	}
	return out
}
