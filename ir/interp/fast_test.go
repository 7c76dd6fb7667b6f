package interp

import (
	"math"
	"testing"

	"github.com/kcgo/kc/ir"
)

// TestFastPathsMatch checks every fast path against the general scalar
// function on random operands (with NaN, infinities, zeros and integer
// extremes among them).
func TestFastPathsMatch(t *testing.T) {
	r := newRNG(t)
	const n = 256
	c := &compiler{m: &machine{n: n}}
	a, b := c.m.newCol(), c.m.newCol()
	special := []uint32{0, 0x80000000, 0x7fffffff, 0xffffffff, 1, math.Float32bits(float32(math.NaN())),
		math.Float32bits(float32(math.Inf(1))), math.Float32bits(float32(math.Inf(-1))), math.Float32bits(1), math.Float32bits(-2.5)}
	for l := 0; l < n; l++ {
		a[4*l], b[4*l] = r.Uint32(), r.Uint32()
		if r.IntN(3) == 0 {
			a[4*l] = special[r.IntN(len(special))]
		}
		if r.IntN(3) == 0 {
			b[4*l] = special[r.IntN(len(special))]
		}
		if r.IntN(8) == 0 {
			b[4*l] = a[4*l]
		}
	}
	x := func([]int32) []uint32 { return a }
	y := func([]int32) []uint32 { return b }
	act := make([]int32, 0, n)
	for l := 0; l < n; l += 1 + r.IntN(2) {
		act = append(act, int32(l))
	}
	tried := 0
	for _, s := range []ir.Scalar{ir.F32, ir.U32, ir.I32} {
		for op := ir.OpAdd; op <= ir.OpGe; op++ {
			fast := c.fastBinary(op, s, x, y)
			if fast == nil {
				continue
			}
			tried++
			slow := binaryFn(op, s)
			got := fast(act)
			for _, l := range act {
				o := 4 * l
				if want := slow(a[o], b[o]); got[o] != want && !(s == ir.F32 && want&0x7f800000 == 0x7f800000 && want&0x7fffff != 0 && got[o]&0x7fffff != 0) {
					t.Errorf("%s %s: %#x, %#x -> %#x, want %#x", s, op, a[o], b[o], got[o], want)
				}
			}
		}
	}
	if tried < 12 {
		t.Errorf("only %d fast paths", tried)
	}
}
