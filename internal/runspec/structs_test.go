package runspec_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// A struct with padding after pos (vec3 at 0, u32 id at 12, vel at 16,
// mass at 28: no gap) and after flag (32 + 4 .. 48): stride 48.
const structSrc = `struct P {
	pos vec3<f32>
	id u32
	vel vec3<f32>
	mass f32
	flag i32
}

kernel k(ps read_write []P) workgroup(1) {
	ps[0].id = 1
}
`

func structBuf(t *testing.T) *ir.Param {
	t.Helper()
	m, err := parse.Load("s.kc", []byte(structSrc), nil)
	if err != nil {
		t.Fatal(err)
	}
	return ir.Buffers(m.Kernels[0])[0]
}

// TestStructFill: a struct buffer is filled field by field as each field's
// type says (floats in the range, integers in it too), and its padding is
// poison.
func TestStructFill(t *testing.T) {
	b := structBuf(t)
	if got := ir.ElemStride(b.Type); got != 48 {
		t.Fatalf("stride %d, want 48", got)
	}
	r := rand.New(rand.NewPCG(rand.Uint64(), 1))
	data := runspec.FillBuffer(r, directive.Fill{Mode: "range", Lo: 1, Hi: 2}, b.Type, 10)
	if len(data) != 480 {
		t.Fatalf("%d bytes, want 480", len(data))
	}
	leaf := map[int]bool{}
	for e := 0; e < 10; e++ {
		runspec.Leaves(b.Type, 48*e, func(off int, s ir.Scalar) {
			leaf[off] = true
			w := binary.LittleEndian.Uint32(data[off:])
			switch s {
			case ir.F32:
				if f := math.Float32frombits(w); f < 1 || f >= 2 {
					t.Errorf("f32 leaf at %d = %g, not in [1, 2)", off, f)
				}
			default:
				if w != 1 && w != 2 {
					t.Errorf("%v leaf at %d = %d, not in [1, 2]", s, off, w)
				}
			}
		})
	}
	if len(leaf) != 10*9 {
		t.Errorf("%d leaves, want 90", len(leaf))
	}
	for i := 0; i < len(data); i++ {
		if !leaf[i-i%4] && data[i] != 0xCD {
			t.Fatalf("padding byte %d = %#x, want poison", i, data[i])
		}
	}
}

// TestStructCompare: padding is never compared; a field that differs is
// reported with its element and offset, within tol it passes.
func TestStructCompare(t *testing.T) {
	b := structBuf(t)
	r := rand.New(rand.NewPCG(rand.Uint64(), 2))
	want := runspec.FillBuffer(r, directive.Fill{}, b.Type, 4)
	got := bytes.Clone(want)
	got[44], got[47+48] = 0, 1 // padding of elements 0 and 1
	tol := func(int) runspec.Tol { return runspec.Tol{Abs: 1e-3} }
	if msg := runspec.CompareBuffer(b.Type, got, want, tol, nil); msg != "" {
		t.Fatalf("padding compared: %s", msg)
	}
	f := math.Float32frombits(binary.LittleEndian.Uint32(want[48*2+28:]))
	binary.LittleEndian.PutUint32(got[48*2+28:], math.Float32bits(f+1e-4)) // mass, within tol
	if msg := runspec.CompareBuffer(b.Type, got, want, tol, nil); msg != "" {
		t.Fatalf("within tol: %s", msg)
	}
	binary.LittleEndian.PutUint32(got[48*3+12:], binary.LittleEndian.Uint32(want[48*3+12:])^1) // id
	msg := runspec.CompareBuffer(b.Type, got, want, tol, nil)
	if !strings.Contains(msg, "1 of 36 scalars differ") || !strings.Contains(msg, "element 3, byte 12") {
		t.Errorf("changed id: %q", msg)
	}
	exact := runspec.CompareBuffer(b.Type, got, want, func(int) runspec.Tol { return runspec.Tol{} }, nil)
	if !strings.Contains(exact, "2 of 36 scalars differ") {
		t.Errorf("exact: %q", exact)
	}
	// Poison the interpreter left must stay poison.
	want2 := interp.Poison(48)
	if msg := runspec.CompareBuffer(b.Type, want[:48], want2, tol, nil); msg == "" {
		t.Error("a written element passed against poison")
	}
}
