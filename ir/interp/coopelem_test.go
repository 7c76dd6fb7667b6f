package interp

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestCoopMatElements: a portable element-wise use (every element i <
// coopLength of every invocation, m[i] = m[i]*m[i] + s) gives the
// element-wise result whatever the mapping; the mapping itself (element i
// of lane l is row-major element i*S + l) shows in each invocation's
// reads, written to out, at two subgroup sizes; a copy taken before the
// writes keeps the old elements; elements past the matrix read 0.
func TestCoopMatElements(t *testing.T) {
	m := compile(t, `
enable cooperative_matrix

kernel k(x read []f32, s f32, y read_write []f32, old read_write []f32, own read_write []f32) workgroup(32) {
	var m = coopLoad<coopmat<f32, 6, 4, acc>>(x, 0, 4, row_major)
	let keep = m
	let n = coopLength(m)
	for i := u32(0); i < n; i++ {
		own[local_index * n + i] = m[i]
		m[i] = m[i] * m[i] + s
	}
	coopStore(m, y, 0, 4, row_major)
	coopStore(keep, old, 0, 4, row_major)
}
`)
	for _, sg := range []int{8, 32} {
		r := newRNG(t)
		x := r.floats(24, -2, 2)
		s := float32(r.Float64())
		n := (24 + sg - 1) / sg
		y, old, own := Poison(4*24), Poison(4*24), Poison(4*32*n)
		mustRun(t, m, "k", [3]int{1, 1, 1}, &Args{
			Params:  params("s", s),
			Buffers: map[string][]byte{"x": Encode(x), "y": y, "old": old, "own": own},
		}, Options{SubgroupSize: sg})
		gotY, _ := Decode[float32](y)
		gotOld, _ := Decode[float32](old)
		gotOwn, _ := Decode[float32](own)
		for e := range x {
			if want := float32(x[e]*x[e]) + s; gotY[e] != want {
				t.Errorf("subgroup size %d: y[%d] = %g, want %g", sg, e, gotY[e], want)
			}
			if gotOld[e] != x[e] {
				t.Errorf("subgroup size %d: the copy changed: old[%d] = %g, want %g", sg, e, gotOld[e], x[e])
			}
		}
		for l := 0; l < 32; l++ {
			for i := 0; i < n; i++ {
				want := float32(0) // past the matrix
				if f := i*sg + l%sg; f < 24 {
					want = x[f]
				}
				if got := gotOwn[l*n+i]; got != want {
					t.Errorf("subgroup size %d: invocation %d element %d = %g, want %g", sg, l, i, got, want)
				}
			}
		}
	}
}

// TestCoopMatElementErrors: an index past coopLength stops the run with
// the position and both numbers.
func TestCoopMatElementErrors(t *testing.T) {
	m := compile(t, `
enable cooperative_matrix

kernel k(y read_write []f32, i u32) workgroup(32) {
	var m = coopmat<f32, 16, 16, acc>(1.0)
	m[i] = 2.0
	coopStore(m, y, 0, 16, row_major)
}
`)
	run := func(i int) error {
		return Run(m, "k", [3]int{1, 1, 1}, &Args{Params: params("i", i), Buffers: map[string][]byte{"y": Poison(4 * 256)}}, Options{SubgroupSize: 32})
	}
	if err := run(7); err != nil {
		t.Fatalf("i = 7: %v", err)
	}
	want := "test.kc:5:2: kernel k, invocation global_id (0, 0, 0): element 8 of coopmat<f32, 16, 16, acc> out of bounds: an invocation holds coopLength = 8 elements (subgroup size 32)"
	if err := run(8); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("i = 8: %v, want an error containing %q", err, want)
	}
}

func init() { corpusChecks["coopmat_elements"] = checkCoopElementsCorpus }

// checkCoopElementsCorpus: y = scale * max(x, 0) exactly (one rounding, the
// product), at subgroup sizes 8, 16 and 32 (the mapping of elements to
// invocations changes with it; the result must not).
func checkCoopElementsCorpus(t *testing.T, c kctest.Case, m *ir.Module, r *rng) {
	n := 1 + r.IntN(4)
	scale := float32(0.5 + 1.5*r.Float64())
	x := r.floats(n*256, -4, 4)
	for _, sg := range []int{8, 16, 32} {
		y := Poison(4 * n * 256)
		mustRun(t, m, "coopmat_elements", [3]int{n, 1, 1}, &Args{
			Params:  params("n", n, "scale", scale),
			Buffers: map[string][]byte{"x": Encode(x), "y": y},
		}, Options{SubgroupSize: sg})
		got := f32s(t, y)
		for i, v := range x {
			if want := float32(max(v, 0) * scale); got[i] != want {
				t.Fatalf("subgroup size %d: y[%d] = %g, want %g", sg, i, got[i], want)
			}
		}
	}
}
