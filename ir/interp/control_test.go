package interp

import (
	"testing"

	"github.com/kcgo/kc/ir"
)

// nonUniform replaces the condition of the first if of kernel k, written
// uniform so that the checker accepts the barriers, by the local named
// name: the checker forbids barriers after a non-uniform return, but the
// interpreter must still define them (a returned invocation no longer
// takes part) and catch a truly divergent barrier.
func nonUniform(t *testing.T, m *ir.Module, k, name string) {
	t.Helper()
	var decl *ir.Decl
	for _, s := range m.Kernel(k).Body.Stmts {
		switch s := s.(type) {
		case *ir.Decl:
			if s.Name == name {
				decl = s
			}
		case *ir.If:
			s.Cond = &ir.Ident{Pos: s.Cond.Position(), Name: name, Obj: decl, Ty: ir.Bool}
			return
		}
	}
	t.Fatalf("no if in %s", k)
}

const barrierSrc = `
kernel early(n u32, y read_write []u32) workgroup(64) {
	shared s [64]u32
	let lid = local_index
	let odd = lid % 2 == 1 || lid >= n
	if n == 0 {
		return
	}
	s[lid] = lid * 10 + n
	for k := u32(0); k < 3; k++ {
		workgroupBarrier()
		let t = s[lid ^ 2]
		workgroupBarrier()
		s[lid] += t
	}
	y[lid] = s[lid]
}

kernel divergent(n u32, y read_write []u32) workgroup(64) {
	let lid = local_index
	let odd = lid % 2 == 1
	if n == 0 {
		workgroupBarrier()
	}
	y[lid] = lid
}
`

func TestBarrierAfterEarlyReturn(t *testing.T) {
	r := newRNG(t)
	m := compile(t, barrierSrc)
	nonUniform(t, m, "early", "odd")
	n := uint32(32 + r.IntN(33))
	y := Poison(64 * 4)
	mustRun(t, m, "early", [3]int{1, 1, 1}, &Args{Params: params("n", n), Buffers: map[string][]byte{"y": y}}, Options{Races: true})
	// reference: even lanes below n pair up with lid^2 (also even)
	var s [64]uint32
	live := func(l int) bool { return l%2 == 0 && uint32(l) < n }
	for l := range s {
		if live(l) { // the others returned before storing: shared memory starts zeroed
			s[l] = uint32(l)*10 + n
		}
	}
	for k := 0; k < 3; k++ {
		var next [64]uint32
		for l := range s {
			if live(l) {
				next[l] = s[l] + s[l^2]
			}
		}
		for l := range s {
			if live(l) {
				s[l] = next[l]
			}
		}
	}
	got := u32s(t, y)
	for l := range got {
		want := uint32(0xcdcdcdcd)
		if live(l) {
			want = s[l]
		}
		if got[l] != want {
			t.Errorf("n=%d: y[%d] = %#x, want %#x", n, l, got[l], want)
		}
	}
}

func TestBarrierSharedZeroedPerWorkgroup(t *testing.T) {
	m := compile(t, `
kernel z(y read_write []u32) workgroup(4) {
	shared s [4]u32
	s[local_index] += workgroup_id.x + 1
	workgroupBarrier()
	y[global_id.x] = s[3 - local_index]
}
`)
	y := Poison(3 * 16)
	mustRun(t, m, "z", [3]int{3, 1, 1}, &Args{Buffers: map[string][]byte{"y": y}}, Options{Races: true})
	for i, v := range u32s(t, y) {
		if want := uint32(i/4 + 1); v != want {
			t.Errorf("y[%d] = %d, want %d", i, v, want)
		}
	}
}

func TestDivergentBarrier(t *testing.T) {
	m := compile(t, barrierSrc)
	nonUniform(t, m, "divergent", "odd")
	err := Run(m, "divergent", [3]int{2, 1, 1}, &Args{Params: params("n", 1), Buffers: map[string][]byte{"y": Poison(256)}}, Options{Races: true})
	want := "test.kc:22:3: kernel divergent, invocation global_id (0, 0, 0): workgroupBarrier() in divergent control flow: reached by 32 of 64 invocations still running; this one is elsewhere"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}

// TestLoopsDiverge runs loops whose trip count differs per invocation, with
// break, continue and return inside, and checks every invocation's path.
func TestLoopsDiverge(t *testing.T) {
	m := compile(t, `
kernel loops(x read []u32, y read_write []u32) workgroup(32) {
	let lid = local_index
	let v = x[lid]
	var acc u32
	for i := u32(0); i < v % 13; i++ {
		if i == 7 {
			break
		}
		if i % 3 == 1 {
			continue
		}
		if v % 97 == i {
			y[lid] = 1000000 + acc
			return
		}
		acc += i * i + 1
	}
	var w = v % 9
	for {
		if w == 0 {
			break
		}
		w--
		acc = acc * 3 + w
	}
	y[lid] = acc
}
`)
	r := newRNG(t)
	x := r.u32s(32)
	y := Poison(32 * 4)
	mustRun(t, m, "loops", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"x": Encode(x), "y": y}}, Options{Races: true})
	got := u32s(t, y)
	for l, v := range x {
		want := func() uint32 {
			var acc uint32
			for i := uint32(0); i < v%13; i++ {
				if i == 7 {
					break
				}
				if i%3 == 1 {
					continue
				}
				if v%97 == i {
					return 1000000 + acc
				}
				acc += i*i + 1
			}
			for w := v % 9; w != 0; {
				w--
				acc = acc*3 + w
			}
			return acc
		}()
		if got[l] != want {
			t.Errorf("x=%d: y = %d, want %d", v, got[l], want)
		}
	}
}
