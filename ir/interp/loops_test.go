package interp

import (
	"testing"
)

// loopCountSrc gives every invocation its own loop iterations: a plain
// loop, a nest whose inner loop breaks, a loop that continues, and a loop
// in a called function.
const loopCountSrc = `
fn spin(k u32) u32 {
	var s u32
	for i := u32(0); i < k; i++ {
		s += i
	}
	return s
}

kernel loops(p read []u32, y read_write []u32) workgroup(16) {
	let g = global_id.x
	let a = p[4 * g]
	let b = p[4 * g + 1]
	let c = p[4 * g + 2]
	let d = p[4 * g + 3]
	var s u32
	for i := u32(0); i < a; i++ {
		s++
	}
	for i := u32(0); i < 3; i++ {
		for j := u32(0); j < b; j++ {
			if j == c {
				break
			}
			s++
		}
	}
	for i := u32(0); i < d; i++ {
		if i % 2 == 0 {
			continue
		}
		s++
	}
	y[g] = s + spin(a)
}
`

// TestLoopIterations: Stats.MaxLoopIterations is the largest per-invocation
// count over the run, each pass of a loop counting as llvmpipe counts it
// (n iterations ending on the condition: n+1; a break on pass k: k).
func TestLoopIterations(t *testing.T) {
	m := compile(t, loopCountSrc)
	r := newRNG(t)
	const groups, n = 3, 48
	ps := r.u32s(4 * n)
	for i := range ps {
		ps[i] %= 30
	}
	// one invocation, in the last workgroup, runs the most by far
	big := 2*16 + int(ps[0]%16)
	ps[4*big] = 1000
	count := func(g int) int64 {
		a, b, c, d := int64(ps[4*g]), int64(ps[4*g+1]), int64(ps[4*g+2]), int64(ps[4*g+3])
		inner := min(b, c) + 1 // ends on j < b, or breaks on pass c+1
		return (a + 1) + (3 + 1) + 3*inner + (d + 1) + (a + 1)
	}
	want := int64(0)
	for g := 0; g < n; g++ {
		want = max(want, count(g))
	}
	args := &Args{Buffers: map[string][]byte{"p": Encode(ps), "y": Poison(4 * n)}}
	st, err := RunStats(m, "loops", [3]int{groups, 1, 1}, args, Options{SubgroupSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	if st.MaxLoopIterations != want || st.MaxLoopInvocation != [3]uint32{uint32(big), 0, 0} {
		t.Fatalf("stats %+v, want %d iterations at invocation %d (p = %v)", st, want, big, ps[4*big:4*big+4])
	}
	// a run without loops counts none
	m2 := compile(t, "kernel k(y read_write []u32) workgroup(1) { y[0] = 1 }")
	st, err = RunStats(m2, "k", [3]int{1, 1, 1}, &Args{Buffers: map[string][]byte{"y": Poison(4)}}, Options{})
	if err != nil || st.MaxLoopIterations != 0 {
		t.Fatalf("no loops: %+v, %v", st, err)
	}
}

// TestLoopIterationsOnError: when an error stops a run, Stats counts the
// part that ran, the stopped workgroup's passes included; on a tie the
// earlier invocation keeps MaxLoopInvocation.
func TestLoopIterationsOnError(t *testing.T) {
	m := compile(t, `kernel k(p read []u32, y read_write []u32) workgroup(8) {
	let g = global_id.x
	var s u32
	for i := u32(0); i < p[g]; i++ {
		s++
	}
	y[g + p[g] / 1000 * 100] = s
}`)
	r := newRNG(t)
	ps := make([]uint32, 16)
	for i := range ps {
		ps[i] = r.u32s(1)[0] % 20
	}
	// invocations 10 and 13, of the second workgroup, run the most
	// passes (1001); the out-of-bounds store stops the run there
	ps[10], ps[13] = 1000, 1000
	args := &Args{Buffers: map[string][]byte{"p": Encode(ps), "y": Poison(4 * 16)}}
	st, err := RunStats(m, "k", [3]int{2, 1, 1}, args, Options{})
	if err == nil {
		t.Fatal("no out-of-bounds error")
	}
	if st.MaxLoopIterations != 1001 || st.MaxLoopInvocation != [3]uint32{10, 0, 0} {
		t.Errorf("stats %+v, want 1001 passes at invocation 10 (error %v)", st, err)
	}
}
