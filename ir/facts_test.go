package ir_test

import (
	"fmt"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// rhsOf checks src (a kernel k whose body assigns to out[0], out[1], ...)
// and returns the right-hand side of each assignment.
func rhsOf(t *testing.T, src string) []ir.Expr {
	t.Helper()
	m, err := parse.Load("facts.kc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []ir.Expr
	for _, s := range m.Kernels[0].Body.Stmts {
		if a, ok := s.(*ir.Assign); ok {
			out = append(out, a.RHS)
		}
	}
	return out
}

func TestConstValue(t *testing.T) {
	xs := rhsOf(t, `const TILE = 16
const NEG i32 = -7
kernel k(n u32, x read []u32, out read_write []u32, o2 read_write []i32, o3 read_write []f32) workgroup(1) {
	out[0] = TILE * TILE / (4 * 2)
	out[1] = u32(NEG) >> 1
	o2[0] = NEG / -1 % 4
	o2[1] = -NEG * ^3
	o3[0] = f32(NEG) * 0.5
	o3[1] = f32(16777217)
	out[2] = n * 2
	out[3] = x[0]
}
`)
	want := []string{"32", "2147483644", "3", "-28", "", "1.6777216e+07", "", ""}
	if len(xs) != len(want) {
		t.Fatalf("%d assignments", len(xs))
	}
	for i, x := range xs {
		got := ""
		if v, ok := ir.ConstValue(x); ok {
			got = fmt.Sprint(v.Int)
			if v.Kind == ir.FloatValue {
				got = fmt.Sprint(v.Float)
			}
		}
		if got != want[i] {
			t.Errorf("row %d (%s): %q, want %q", i, ir.ExprString(x), got, want[i])
		}
	}
}

func TestHasEffects(t *testing.T) {
	xs := rhsOf(t, `kernel k(h read_write []atomic<u32>, x read []u32, out read_write []u32) workgroup(1) {
	out[0] = x[0] + 1
	out[1] = atomicLoad(h[0])
	out[2] = select(x[0] > 0, 1, atomicAdd(h[1], 2)) * 3
	out[3] = x[atomicAdd(h[0], 1)]
	out[4] = max(x[0], x[1])
}
`)
	want := []bool{false, true, true, true, false}
	for i, x := range xs {
		if got := ir.HasEffects(x); got != want[i] {
			t.Errorf("row %d (%s): %v, want %v", i, ir.ExprString(x), got, want[i])
		}
	}
}

// TestHasEffectsCalls: a call of a helper function has effects when the
// function, or one it calls, writes a buffer or shared variable, runs an
// atomic or a barrier; a function that only reads or computes has none,
// unless an argument has.
func TestHasEffectsCalls(t *testing.T) {
	xs := rhsOf(t, `fn pure(v u32) u32 {
	var t = v * 3
	t += 1
	return t
}

fn reads(x read []u32, i u32) u32 {
	return x[i]
}

fn writes(o read_write []u32, i u32) u32 {
	o[i] = 7
	return i
}

fn counts(h read_write []atomic<u32>) u32 {
	return atomicLoad(h[0])
}

fn waits(s shared [4]u32) u32 {
	workgroupBarrier()
	return s[0]
}

fn fills(s shared [4]u32) u32 {
	s[1] = 2
	return 0
}

fn outer(o read_write []u32) u32 {
	return pure(1) + writes(o, 0)
}

kernel k(h read_write []atomic<u32>, x read []u32, out read_write []u32) workgroup(1) {
	shared s [4]u32
	out[0] = pure(x[0])
	out[1] = reads(x, 1)
	out[2] = writes(out, 2)
	out[3] = counts(h)
	out[4] = waits(s)
	out[5] = fills(s)
	out[6] = outer(out)
	out[7] = pure(atomicAdd(h[0], 1))
	out[8] = pure(reads(x, 0)) + pure(1)
}
`)
	want := []bool{false, false, true, true, true, true, true, true, false}
	if len(xs) != len(want) {
		t.Fatalf("%d rows, want %d", len(xs), len(want))
	}
	for i, x := range xs {
		if got := ir.HasEffects(x); got != want[i] {
			t.Errorf("row %d (%s): %v, want %v", i, ir.ExprString(x), got, want[i])
		}
	}
}
