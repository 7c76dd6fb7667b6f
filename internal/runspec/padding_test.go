package runspec_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Out has padding gaps before members (in after x, y after b), inside a
// nested struct (v after a) and in an array of structs; T is byte-sized
// (stride 2, no padding). Layouts by hand (WGSL storage rules):
//
//	In:  a u8 @0, v vec3<f32> @16, h f16 @28; size 32
//	Out: x u8 @0, in [2]In @16, b bf16 @80, y u32 @84; size 96
const padSrc = `enable f16
enable int8
enable bf16

struct In {
	a u8
	v vec3<f32>
	h f16
}

struct Out {
	x u8
	in [2]In
	b bf16
	y u32
}

struct T {
	a u8
	b i8
}

kernel k(os read_write []Out, ts read_write []T) workgroup(1) {
	os[0].y = 1
	ts[0].a = u8(1)
}
`

// padBytes are Out's padding bytes, from the layout above.
func padBytes() map[int]bool {
	pad := map[int]bool{}
	gap := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pad[i] = true
		}
	}
	gap(1, 16)
	for _, in := range []int{16, 48} {
		gap(in+1, in+16)
		gap(in+30, in+32)
	}
	gap(82, 84)
	gap(88, 96)
	return pad
}

// TestStructPaddingOnly: flipping any one byte of a buffer of Out (or T)
// fails the comparison unless the byte is padding, so skipping padding
// hides no member: not one after a gap, in a nested struct or in an array
// of structs, nor a byte-sized one.
func TestStructPaddingOnly(t *testing.T) {
	m, err := parse.Load("pad.kc", []byte(padSrc), nil)
	if err != nil {
		t.Fatal(err)
	}
	bufs := ir.Buffers(m.Kernels[0])
	out, tt := bufs[0].Type, bufs[1].Type
	if s := ir.ElemStride(out); s != 96 {
		t.Fatalf("Out stride %d, want 96", s)
	}
	if s := ir.ElemStride(tt); s != 2 {
		t.Fatalf("T stride %d, want 2", s)
	}
	pad := padBytes()
	exact := func(int) runspec.Tol { return runspec.Tol{} }
	for _, c := range []struct {
		typ ir.Type
		pad func(i int) bool
	}{
		{out, func(i int) bool { return pad[i%96] }},
		{tt, func(int) bool { return false }},
	} {
		r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		want := runspec.FillBuffer(r, directive.Fill{Mode: "range", Lo: 1, Hi: 2}, c.typ, 3)
		for i := range want {
			if c.pad(i) && want[i] != 0xCD {
				t.Errorf("%v: padding byte %d = %#x, want poison", c.typ, i, want[i])
			}
		}
		for i := range want {
			got := bytes.Clone(want)
			got[i] ^= 1
			msg := runspec.CompareBuffer(c.typ, got, want, exact, nil)
			if c.pad(i) && msg != "" {
				t.Errorf("%v: padding byte %d compared: %s", c.typ, i, msg)
			}
			if !c.pad(i) && msg == "" {
				t.Errorf("%v: byte %d changed and not seen", c.typ, i)
			}
		}
	}
}
