package runspec_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

const saxpy = `kernel saxpy(a f32, n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = a * x[i] + y[i]
	}
}
`

// TestPlan: ranges are drawn inside their bounds, lengths and grid follow
// the params, overrides win, and evaluation errors carry positions.
func TestPlan(t *testing.T) {
	src := []byte(saxpy + "\n//kc:run a=-2..2 n=100..200 len(x)=n len(y)=n+3 fill(y)=zero grid=ceil(n/64)\n")
	f, err := directive.Parse("k.kc", src)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.Load("k.kc", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := m.Kernels[0]
	r, _ := f.For(m, k)
	rnd := rand.New(rand.NewPCG(rand.Uint64(), 1))
	for range 50 {
		p, err := runspec.Draw(r, m, k, rnd, runspec.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		n, a := int(p.Params["n"].Int), p.Params["a"].Float
		if n < 100 || n > 200 || a < -2 || a >= 2 {
			t.Fatalf("n = %d, a = %g: outside the ranges", n, a)
		}
		if len(p.Bufs[0]) != 4*n || len(p.Bufs[1]) != 4*(n+3) || p.Grid != [3]int{(n + 63) / 64, 1, 1} {
			t.Fatalf("n = %d: buffers %d, %d bytes, grid %v", n, len(p.Bufs[0]), len(p.Bufs[1]), p.Grid)
		}
		for _, b := range p.Bufs[1] {
			if b != 0 {
				t.Fatal("fill(y)=zero left a non-zero byte")
			}
		}
	}
	p, err := runspec.Draw(r, m, k, rnd, runspec.Overrides{Params: map[string]string{"n": "7"}, Lens: map[string]int{"x": 9}, Grid: []int{5, 2}})
	if err != nil || p.Params["n"].Int != 7 || len(p.Bufs[0]) != 36 || len(p.Bufs[1]) != 40 || p.Grid != [3]int{5, 2, 1} {
		t.Fatalf("overrides: %v, %+v", err, p)
	}
	if _, err := runspec.Draw(r, m, k, rnd, runspec.Overrides{Params: map[string]string{"n": "-1"}}); err == nil || err.Error() != "parameter n=-1: not a u32" {
		t.Errorf("n=-1: %v", err)
	}
	bad := []byte(saxpy + "\n//kc:run a=1 n=4 len(x)=n/3 len(y)=q grid=1\n")
	f, _ = directive.Parse("k.kc", bad)
	r, _ = f.For(m, k)
	if _, err := runspec.Draw(r, m, k, rnd, runspec.Overrides{}); err == nil || err.Error() != "k.kc:8:25: len(x) = n/3 = 1.33333, want a whole number in [1, 536870912]" {
		t.Errorf("n/3: %v", err)
	}
}

// TestCompare: the one comparison's rules.
func TestCompare(t *testing.T) {
	f32 := func(vs ...float32) []byte {
		b := make([]byte, 4*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	}
	ulp1 := func(int) runspec.Tol { return runspec.Tol{ULP: 1} }
	exact := func(int) runspec.Tol { return runspec.Tol{} }
	next := math.Nextafter32(1, 2)
	for _, c := range []struct {
		name      string
		got, want []byte
		tol       func(int) runspec.Tol
		ok        bool
	}{
		{"equal", f32(1, 2), f32(1, 2), exact, true},
		{"one ulp, exact", f32(next), f32(1), exact, false},
		{"one ulp, ulp:1", f32(next), f32(1), ulp1, true},
		{"two ulp, ulp:1", f32(math.Nextafter32(next, 2)), f32(1), ulp1, false},
		{"-0 and +0", f32(float32(math.Copysign(0, -1))), f32(0), exact, true},
		{"NaN and NaN", f32(float32(math.NaN())), f32(float32(math.NaN())), exact, true},
		{"poison kept", interp.Poison(4), interp.Poison(4), ulp1, true},
		{"poison overwritten", f32(-4.3e-9), interp.Poison(4), nil, false},
	} {
		tol := c.tol
		if tol == nil {
			tol = func(int) runspec.Tol { return runspec.Tol{Abs: 1} }
		}
		msg := runspec.Compare(ir.F32, c.got, c.want, tol, nil, nil)
		if (msg == "") != c.ok {
			t.Errorf("%s: %q", c.name, msg)
		}
	}
	// Integers: bit for bit, except slots that hold float bits.
	got, want := f32(next, next), f32(1, 1)
	if msg := runspec.Compare(ir.U32, got, want, ulp1, nil, nil); !strings.HasPrefix(msg, "2 of 2 elements differ: [0] = 0x3f800001, want 0x3f800000") {
		t.Errorf("u32: %q", msg)
	}
	if msg := runspec.Compare(ir.U32, got, want, ulp1, func(i int) bool { return i == 1 }, nil); !strings.HasPrefix(msg, "1 of 2 elements differ: [0]") {
		t.Errorf("u32 with float slot 1: %q", msg)
	}
}

// TestCorpusRunsOnInterp: every corpus kernel's //kc:run plans and runs on
// the reference interpreter (race detector on) without an out-of-bounds
// access, and writes every element of its outputs that it should (no
// poison left where the grid covers).
func TestCorpusRunsOnInterp(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	for _, c := range kctest.Cases(t) {
		m := c.Module(t)
		for _, k := range m.Kernels {
			t.Run(c.Name+"/"+k.Name, func(t *testing.T) {
				r := c.Run(t, m, k)
				p, err := runspec.Draw(r, m, k, rand.New(rand.NewPCG(seed, uint64(len(k.Name)))), runspec.Overrides{})
				if err != nil {
					t.Fatal(err)
				}
				args := &interp.Args{Params: p.Params, Buffers: map[string][]byte{}}
				for i, b := range ir.Buffers(k) {
					args.Buffers[b.Name] = p.Bufs[i]
				}
				if err := interp.Run(m, k.Name, p.Grid, args, interp.Options{SubgroupSize: 8, Races: true}); err != nil {
					t.Fatalf("grid %v, params %v: %v", p.Grid, p.Params, err)
				}
			})
		}
	}
}
