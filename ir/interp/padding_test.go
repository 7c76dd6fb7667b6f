package interp

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/kcgo/kc/ir"
)

// docs/semantics.md §4: a store of a whole struct, or of one field, writes
// the fields' bytes only; padding keeps whatever the buffer held (a GPU
// leaves it alone). Struct literals, locals, shared variables and nested
// structs are stored whole; fields (a nested struct, an array element, a
// vector) singly.
const paddingSrc = `
struct Inner {
	a f32
	v vec3<f32>
}

struct S {
	id u32
	in Inner
	arr [2]vec3<f32>
	k u32
}

kernel pad(n u32, x read []f32, out read_write []S) workgroup(32) {
	shared sh [32]S
	let i = global_id.x
	if i >= n {
		return
	}
	let f = x[i]
	let lit = S{id: i, in: Inner{a: f, v: vec3<f32>(f, 2.0 * f, 3.0)}, arr: [2]vec3<f32>{vec3<f32>(f), vec3<f32>(-f)}, k: u32(7)}
	switch i % 4 {
	case 0:
		out[i] = lit
	case 1:
		var s = lit
		s.k = u32(9)
		out[i] = s
	case 2:
		sh[local_index] = lit
		out[i] = sh[local_index]
	default:
		out[i].id = i
		out[i].in = Inner{a: f, v: vec3<f32>(f, 2.0 * f, 3.0)}
		out[i].arr[0] = vec3<f32>(f)
		out[i].arr[1] = vec3<f32>(-f)
		out[i].k = u32(7)
	}
}
`

// The WGSL storage layout of S: id@0, in@16 (a@16, v@32), arr@48 (stride
// 16), k@80, size 96. Everything else is padding.
var paddingFields = []struct{ off, n int }{{0, 4}, {16, 4}, {32, 12}, {48, 12}, {64, 12}, {80, 4}}

func TestStructStoresLeavePadding(t *testing.T) {
	m := compile(t, paddingSrc)
	var s *ir.Struct
	for _, st := range m.Structs {
		if st.Name == "S" {
			s = st
		}
	}
	if s == nil || ir.SizeOf(s) != 96 || ir.FieldOffsets(s)[1] != 16 || ir.FieldOffsets(s)[2] != 48 || ir.FieldOffsets(s)[3] != 80 {
		t.Fatalf("layout of S changed: this test's offsets need updating")
	}
	r := newRNG(t)
	const groups = 3
	n := 32*groups - r.IntN(8)
	x := r.floats(n, -4, 4)
	out := Poison(96 * 32 * groups)
	mustRun(t, m, "pad", [3]int{groups, 1, 1}, &Args{
		Params:  params("n", uint32(n)),
		Buffers: map[string][]byte{"x": Encode(x), "out": out},
	}, Options{SubgroupSize: 8, Races: true})
	isField := make([]bool, 96)
	for _, f := range paddingFields {
		for b := f.off; b < f.off+f.n; b++ {
			isField[b] = true
		}
	}
	for i := 0; i < n; i++ {
		e := out[96*i : 96*(i+1)]
		for b, fld := range isField {
			if !fld && e[b] != 0xCD {
				t.Fatalf("element %d (case %d): padding byte %d = %#x, want 0xcd untouched", i, i%4, b, e[b])
			}
		}
		f := x[i]
		u := func(off int) uint32 { return binary.LittleEndian.Uint32(e[off:]) }
		fl := func(off int) float32 { return math.Float32frombits(u(off)) }
		k := uint32(7)
		if i%4 == 1 {
			k = 9
		}
		got := []float32{fl(16), fl(32), fl(36), fl(40), fl(48), fl(52), fl(56), fl(64), fl(68), fl(72)}
		want := []float32{f, f, 2 * f, 3, f, f, f, -f, -f, -f}
		if u(0) != uint32(i) || u(80) != k {
			t.Fatalf("element %d: id %d k %d, want %d %d", i, u(0), u(80), i, k)
		}
		for j := range want {
			if got[j] != want[j] {
				t.Fatalf("element %d: float %d = %g, want %g", i, j, got[j], want[j])
			}
		}
	}
	// Elements past n are never written at all.
	for b := 96 * n; b < len(out); b++ {
		if out[b] != 0xCD {
			t.Fatalf("byte %d past the last element written", b)
		}
	}
}
