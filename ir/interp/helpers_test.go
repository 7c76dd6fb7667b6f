package interp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// compile parses and checks src (a .kc file named test.kc).
func compile(t testing.TB, src string) *ir.Module {
	t.Helper()
	src = strings.TrimLeft(src, "\n")
	m, err := parse.File("test.kc", []byte(src))
	if err != nil {
		t.Fatalf("parse:\n%v", err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatalf("check:\n%v", err)
	}
	return m
}

// rng is a fresh random source; its seed is logged when the test fails.
type rng struct {
	*rand.Rand
	seed uint64
}

func newRNG(t testing.TB) *rng {
	seed := uint64(time.Now().UnixNano())
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("random seed %d", seed)
		}
	})
	return &rng{rand.New(rand.NewPCG(seed, 0x6b63)), seed}
}

// floats returns n values uniform in [lo, hi).
func (r *rng) floats(n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return v
}

func (r *rng) u32s(n int) []uint32 {
	v := make([]uint32, n)
	for i := range v {
		v[i] = r.Uint32()
	}
	return v
}

// i32s returns n values, a quarter of them special (0, ±1, MIN, MAX).
func (r *rng) i32s(n int) []int32 {
	special := []int32{0, 1, -1, math.MinInt32, math.MaxInt32}
	v := make([]int32, n)
	for i := range v {
		if r.IntN(4) == 0 {
			v[i] = special[r.IntN(len(special))]
		} else {
			v[i] = int32(r.Uint32())
		}
	}
	return v
}

func f32s(t testing.TB, b []byte) []float32 {
	t.Helper()
	v, err := Decode[float32](b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func u32s(t testing.TB, b []byte) []uint32 {
	t.Helper()
	v, err := Decode[uint32](b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func i32s(t testing.TB, b []byte) []int32 {
	t.Helper()
	v, err := Decode[int32](b)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// params builds a Params map from name, value pairs (int, uint32, int32,
// float32 or float64 values).
func params(kv ...any) map[string]ir.Value {
	p := map[string]ir.Value{}
	for i := 0; i < len(kv); i += 2 {
		name := kv[i].(string)
		switch v := kv[i+1].(type) {
		case int:
			p[name] = ir.IntVal(int64(v))
		case uint32:
			p[name] = ir.IntVal(int64(v))
		case int32:
			p[name] = ir.IntVal(int64(v))
		case float32:
			p[name] = ir.FloatVal(float64(v))
		case float64:
			p[name] = ir.FloatVal(v)
		}
	}
	return p
}

// mustRun runs kernel and fails t on an error.
func mustRun(t testing.TB, m *ir.Module, kernel string, groups [3]int, a *Args, opts Options) {
	t.Helper()
	if err := Run(m, kernel, groups, a, opts); err != nil {
		t.Fatalf("run %s: %v", kernel, err)
	}
}

// closeTo fails t when got is farther than tol from want at index i.
func closeTo(t testing.TB, what string, i int, got float32, want, tol float64) bool {
	t.Helper()
	g := float64(got)
	if g != g || math.Abs(g-want) > tol {
		t.Errorf("%s[%d] = %g, want %g (tolerance %g, error %g)", what, i, got, want, tol, math.Abs(g-want))
		return false
	}
	return true
}

// dotRef sums term(k) for k < n in float64 and returns the sum with the
// sum of the terms' magnitudes (what a rounding-error bound scales with).
func dotRef(n int, term func(k int) float64) (sum, mag float64) {
	for k := 0; k < n; k++ {
		p := term(k)
		sum += p
		mag += math.Abs(p)
	}
	return sum, mag
}

const eps32 = 0x1p-24 // half an ulp of 1 in f32: the unit roundoff

func ceilDiv(a, b int) int { return (a + b - 1) / b }
