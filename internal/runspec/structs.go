package runspec

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// Buffers of structs (and of arrays holding structs) are filled and
// compared field by field. Their padding bytes are nobody's: a store
// writes the fields' bytes only (the interpreter as a GPU), so padding
// starts as poison and is never compared.

// HasStruct reports whether buffer element type t holds a struct.
func HasStruct(t ir.Type) bool {
	switch t := t.(type) {
	case *ir.Struct:
		return true
	case *ir.Array:
		return HasStruct(t.Elem)
	}
	return false
}

// Leaves calls fn with the byte offset and scalar type of every scalar of
// a value of type t stored at offset off (WGSL's storage layout, which
// every target uses): struct fields at ir.FieldOffsets, array elements at
// their stride, vector components; padding is skipped.
func Leaves(t ir.Type, off int, fn func(off int, s ir.Scalar)) {
	switch t := t.(type) {
	case ir.Scalar:
		fn(off, t)
	case ir.Atomic:
		fn(off, t.Elem)
	case ir.Vector:
		for i := 0; i < t.N; i++ {
			fn(off+t.Elem.Size()*i, t.Elem)
		}
	case *ir.Array:
		for i := 0; i < t.Len; i++ {
			Leaves(t.Elem, off+i*ir.ElemStride(t.Elem), fn)
		}
	case *ir.Struct:
		for i, o := range ir.FieldOffsets(t) {
			Leaves(t.Fields[i].Type, off+o, fn)
		}
	}
}

// fillStructs fills n elements of struct-holding type t leaf by leaf, as
// FillBuffer fills scalars of each leaf's type, each leaf writing its own
// bytes only (u8 one, bf16 two); padding is poison.
func fillStructs(r *rand.Rand, f directive.Fill, t ir.Type, n int) []byte {
	stride := ir.ElemStride(t)
	b := interp.Poison(n * stride)
	for e := 0; e < n; e++ {
		Leaves(t, e*stride, func(off int, s ir.Scalar) {
			switch s {
			case ir.F16:
				binary.LittleEndian.PutUint16(b[off:], interp.F32ToF16Bits(float32(randFloat(r, f))))
			case ir.BF16:
				binary.LittleEndian.PutUint16(b[off:], interp.F32ToBF16Bits(float32(randFloat(r, f))))
			case ir.I8, ir.U8:
				b[off] = byte(randInt(r, f, s))
			case ir.F32:
				binary.LittleEndian.PutUint32(b[off:], math.Float32bits(float32(randFloat(r, f))))
			default:
				binary.LittleEndian.PutUint32(b[off:], randInt(r, f, s))
			}
		})
	}
	return b
}

// compareStructs is Compare for a buffer of struct-holding type t: every
// leaf of every element as Compare checks a scalar (tol and floatBits by
// element index), padding skipped; messages name the element and offset.
func compareStructs(t ir.Type, got, want []byte, tol func(i int) Tol, floatBits func(i int) bool) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	stride := ir.ElemStride(t)
	var bad []string
	nbad, leaves := 0, 0
	for e := 0; e+stride <= len(want); e += stride {
		i := e / stride
		Leaves(t, e, func(off int, s ir.Scalar) {
			leaves++
			sz := s.Size()
			lt := func(int) Tol { return tol(i) }
			var lb func(int) bool
			if floatBits != nil {
				lb = func(int) bool { return floatBits(i) }
			}
			if msg := Compare(s, got[off:off+sz], want[off:off+sz], lt, lb, func(int) string {
				return fmt.Sprintf("element %d, byte %d", i, off-e)
			}); msg != "" {
				nbad++
				if len(bad) < 5 {
					_, m, _ := strings.Cut(msg, ": ")
					bad = append(bad, m)
				}
			}
		})
	}
	if nbad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d scalars differ: %s", nbad, leaves, strings.Join(bad, "; "))
}
