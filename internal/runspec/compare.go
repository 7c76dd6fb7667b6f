package runspec

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// Compare checks a device's bytes got against the interpreter's want for a
// buffer of scalar type s and describes the mismatches ("" when they
// agree). Integers must match bit for bit; floats within tol(i) of element
// i (interp.Tol.Within: NaN matches NaN, values below the smallest normal
// match zero). floatBits, when not nil, marks elements of an integer
// buffer that hold f32 bits and are compared as f32. An element the
// interpreter left as poison must stay poison. label, when not nil,
// describes element i in messages.
func Compare(s ir.Scalar, got, want []byte, tol func(i int) Tol, floatBits func(i int) bool, label func(i int) string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	size := 4
	switch {
	case s == ir.F16 || s == ir.BF16:
		size = 2
	case s.Is8Bit():
		size = 1
	}
	var bad []string
	nbad := 0
	for i := 0; i+size <= len(want); i += size {
		e := i / size
		gb, wb := word(got[i:], size), word(want[i:], size)
		if gb == wb {
			continue
		}
		es := s
		if floatBits != nil && !s.IsFloat() && floatBits(e) {
			es = ir.F32
		}
		g, w := asFloat(es, gb), asFloat(es, wb)
		poison := wb == uint32(0xCDCDCDCD)>>(32-8*size)
		if isFloat(es) && tol != nil && !poison && tol(e).Within(es, 0, w, g) {
			continue
		}
		nbad++
		if len(bad) >= 5 {
			continue
		}
		where := fmt.Sprintf("[%d]", e)
		if label != nil {
			where += " (" + label(e) + ")"
		}
		if isFloat(es) {
			msg := fmt.Sprintf("%s = %g (%#x), want %g (%#x)", where, g, gb, w, wb)
			if tol != nil {
				if b := tol(e).Bound(es, 0, w); b > 0 {
					msg += fmt.Sprintf(", |diff| %.3g > bound %.3g", math.Abs(g-w), b)
				}
			}
			bad = append(bad, msg)
		} else {
			bad = append(bad, fmt.Sprintf("%s = %#x, want %#x", where, gb, wb))
		}
	}
	if nbad == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d elements differ: %s", nbad, len(want)/size, strings.Join(bad, "; "))
}

func word(b []byte, size int) uint32 {
	if size == 1 {
		return uint32(b[0])
	}
	if size == 2 {
		return uint32(binary.LittleEndian.Uint16(b))
	}
	return binary.LittleEndian.Uint32(b)
}

func asFloat(s ir.Scalar, w uint32) float64 {
	switch s {
	case ir.F16:
		return float64(interp.F16BitsToF32(uint16(w)))
	case ir.BF16:
		return float64(interp.BF16BitsToF32(uint16(w)))
	case ir.F32:
		return float64(math.Float32frombits(w))
	}
	return float64(w)
}

// Tol is interp's tolerance, which Compare applies.
type Tol = interp.Tol

// Check compares one output buffer of r's kernel: tol(BUF) and
// f32bits(BUF) from the directives, exact when they say nothing (or r is
// nil).
func Check(r *directive.Run, b *ir.Param, got, want []byte) string {
	tol, bits := Rules(r, b)
	return CompareBuffer(b.Type, got, want, tol, bits)
}

// CompareBuffer is Compare for a buffer of element type t: a buffer of
// structs field by field with its padding skipped (structs.go), any other
// by its base scalar. tol and floatBits take the element index.
func CompareBuffer(t ir.Type, got, want []byte, tol func(i int) Tol, floatBits func(i int) bool) string {
	if HasStruct(t) {
		return compareStructs(t, got, want, tol, floatBits)
	}
	return Compare(BaseScalar(t), got, want, tol, floatBits, nil)
}

// Rules are the per-element arguments of Compare that r's directives give
// buffer b: the tolerance (the zero Tol, exact, when r says none) and which
// elements of an integer buffer hold f32 bits (nil when none do).
func Rules(r *directive.Run, b *ir.Param) (tol func(int) Tol, bits func(int) bool) {
	tol = func(int) Tol { return Tol{} }
	if r == nil {
		return tol, nil
	}
	if t, ok := r.Tols[b.Name]; ok {
		it := Tol{ULP: t.ULP, Abs: t.Abs, AbsF16: t.Abs}
		tol = func(int) Tol { return it }
	}
	if sl, ok := r.F32Bits[b.Name]; ok {
		bits = sl.Has
	}
	return tol, bits
}

// isFloat reports whether elements of s compare as floats (bf16 too).
func isFloat(s ir.Scalar) bool { return s.IsFloat() || s == ir.BF16 }
