package ir

import (
	"fmt"
	"strconv"
)

// Type is the type of a value, a buffer element or a variable. The concrete
// types are Scalar, Vector, *Array, *Struct, Atomic and CoopMat. Scalar, Vector, Atomic
// and CoopMat are comparable values, so == decides their identity; use
// Identical for any two Types (it also handles *Array).
type Type interface {
	String() string
	isType()
}

// Scalar is a scalar type.
type Scalar uint8

const (
	Invalid Scalar = iota
	Bool
	I32
	U32
	F32
	F16
	// BF16 is bfloat16 (8 exponent bits, 7 fraction bits): a storage type
	// and a cooperative-matrix element type. Its only operations are
	// conversion to and from f32 ("enable bf16"); it is not IsFloat.
	BF16
	// I8 and U8 are 8-bit integers: storage types and cooperative-matrix
	// input elements (with i32/u32 accumulators). Their only operations are
	// conversion to and from i32 and u32 ("enable int8"); they are not IsInt.
	I8
	U8
)

var scalarNames = [...]string{Invalid: "invalid", Bool: "bool", I32: "i32", U32: "u32", F32: "f32", F16: "f16", BF16: "bf16", I8: "i8", U8: "u8"}

func (s Scalar) String() string {
	if int(s) < len(scalarNames) {
		return scalarNames[s]
	}
	return "Scalar(" + strconv.Itoa(int(s)) + ")"
}

// ScalarByName maps "f32" and friends to their Scalar; ok is false otherwise.
func ScalarByName(name string) (s Scalar, ok bool) {
	for i, n := range scalarNames {
		if i != 0 && n == name {
			return Scalar(i), true
		}
	}
	return Invalid, false
}

// IsFloat reports whether s is f32 or f16.
func (s Scalar) IsFloat() bool { return s == F32 || s == F16 }

// IsInt reports whether s is i32 or u32.
func (s Scalar) IsInt() bool { return s == I32 || s == U32 }

// IsNumeric reports whether s is an integer or float type.
func (s Scalar) IsNumeric() bool { return s.IsInt() || s.IsFloat() }

// Size is the size of s in bytes in host-shareable memory (bool has none).
func (s Scalar) Size() int {
	switch s {
	case I8, U8:
		return 1
	case F16, BF16:
		return 2
	case I32, U32, F32:
		return 4
	}
	return 0
}

func (Scalar) isType() {}

// Vector is vecN<Elem>, N in 2..4.
type Vector struct {
	Elem Scalar
	N    int
}

// Vec returns the vector type vecN<elem>.
func Vec(elem Scalar, n int) Vector { return Vector{Elem: elem, N: n} }

func (v Vector) String() string { return fmt.Sprintf("vec%d<%s>", v.N, v.Elem) }
func (Vector) isType()          {}

// Array is a fixed-size array [Len]Elem. Until the checker has run, LenExpr
// holds the length as written (it may name compile-time constants) and Len
// is 0; the checker evaluates LenExpr and sets Len.
type Array struct {
	Elem    Type
	Len     int
	LenExpr Expr
}

// ArrayOf returns [n]elem with a resolved length.
func ArrayOf(elem Type, n int) *Array { return &Array{Elem: elem, Len: n} }

func (a *Array) String() string {
	if a.Len == 0 && a.LenExpr != nil {
		return "[" + ExprString(a.LenExpr) + "]" + a.Elem.String()
	}
	return "[" + strconv.Itoa(a.Len) + "]" + a.Elem.String()
}
func (*Array) isType() {}

// Atomic is atomic<Elem>, Elem being i32 or u32. Atomics live only in
// read_write buffers and workgroup arrays.
type Atomic struct{ Elem Scalar }

func (a Atomic) String() string { return "atomic<" + a.Elem.String() + ">" }
func (Atomic) isType()          {}

// CompareExchangeResult is the result of atomicCompareExchangeWeak on an
// atomic<Elem>: a built-in pair, like WGSL's
// __atomic_compare_exchange_result<T>, with fields old_value (Elem, the
// value before the operation) and exchanged (bool). It cannot be written
// in .kc: a let takes it from the call, and its fields are read as
// r.old_value and r.exchanged (a Field, Index 0 and 1).
type CompareExchangeResult struct{ Elem Scalar }

func (r CompareExchangeResult) String() string {
	return "atomic_compare_exchange_result<" + r.Elem.String() + ">"
}
func (CompareExchangeResult) isType() {}

// Result fields of CompareExchangeResult, as Field.Name spells them.
const (
	FieldOldValue  = "old_value"
	FieldExchanged = "exchanged"
)

// MatrixUse says which operand of a cooperative multiply-add a matrix is.
type MatrixUse uint8

const (
	UseA MatrixUse = iota
	UseB
	UseAccumulator
)

var matrixUseNames = [...]string{UseA: "a", UseB: "b", UseAccumulator: "acc"}

func (u MatrixUse) String() string {
	if int(u) < len(matrixUseNames) {
		return matrixUseNames[u]
	}
	return "MatrixUse(" + strconv.Itoa(int(u)) + ")"
}

// MatrixUseByName maps "a", "b" and "acc" to their MatrixUse.
func MatrixUseByName(name string) (MatrixUse, bool) {
	for i, n := range matrixUseNames {
		if n == name {
			return MatrixUse(i), true
		}
	}
	return 0, false
}

// MatrixScope is the set of invocations that owns a cooperative matrix.
type MatrixScope uint8

const (
	// ScopeSubgroup: one matrix per subgroup (SPV_KHR/NV_cooperative_matrix).
	ScopeSubgroup MatrixScope = iota
	// ScopeWorkgroup: one matrix per workgroup (NV cooperative_matrix2;
	// `enable cooperative_matrix2`).
	ScopeWorkgroup
)

func (s MatrixScope) String() string {
	if s == ScopeWorkgroup {
		return "workgroup"
	}
	return "subgroup"
}

// CoopMat is a cooperative matrix coopmat<Elem, Rows, Cols, Use>, owned
// jointly by the invocations of a subgroup or, with ScopeWorkgroup, of the
// whole workgroup (Scope): one value per subgroup (workgroup),
// its elements spread over the invocations in a way each target decides.
// Elem is f16, bf16 or f32. See coopmat.go for its operations.
type CoopMat struct {
	Elem       Scalar
	Rows, Cols int
	Use        MatrixUse
	Scope      MatrixScope
}

func (c CoopMat) String() string {
	if c.Scope != ScopeSubgroup {
		return fmt.Sprintf("coopmat<%s, %d, %d, %s, %s>", c.Elem, c.Rows, c.Cols, c.Use, c.Scope)
	}
	return fmt.Sprintf("coopmat<%s, %d, %d, %s>", c.Elem, c.Rows, c.Cols, c.Use)
}
func (CoopMat) isType() {}

// Identical reports whether a and b denote the same type.
func Identical(a, b Type) bool {
	if x, ok := a.(*Array); ok {
		y, ok := b.(*Array)
		return ok && x.Len == y.Len && Identical(x.Elem, y.Elem)
	}
	return a == b
}

// ElemScalar returns the scalar a type is made of: the type itself for a
// scalar, the component type of a vector, the value type of an atomic.
// It returns Invalid for arrays and matrices.
func ElemScalar(t Type) Scalar {
	switch t := t.(type) {
	case Scalar:
		return t
	case Vector:
		return t.Elem
	case Atomic:
		return t.Elem
	}
	return Invalid
}

// Width is the number of components of a scalar (1) or vector (N); 0 otherwise.
func Width(t Type) int {
	switch t := t.(type) {
	case Scalar:
		return 1
	case Vector:
		return t.N
	}
	return 0
}

// WithElem returns t with its scalar component type replaced by s: a scalar
// becomes s, vecN<T> becomes vecN<s>.
func WithElem(t Type, s Scalar) Type {
	if v, ok := t.(Vector); ok {
		return Vector{Elem: s, N: v.N}
	}
	return s
}

// HostShareable reports whether t may be the element type of a storage buffer.
func HostShareable(t Type) bool {
	switch t := t.(type) {
	case Scalar:
		return t != Bool && t != Invalid
	case Vector:
		return t.Elem != Bool
	case Atomic:
		return true
	case *Array:
		return HostShareable(t.Elem)
	case *Struct:
		for _, f := range t.Fields {
			if !HostShareable(f.Type) {
				return false
			}
		}
		return len(t.Fields) > 0
	}
	return false
}

// UsesF16 reports whether t mentions f16 anywhere.
func UsesF16(t Type) bool { return usesScalar(t, F16) }

// UsesBF16 reports whether t mentions bf16 anywhere.
func UsesBF16(t Type) bool { return usesScalar(t, BF16) }

// UsesInt8 reports whether t mentions i8 or u8 anywhere.
func UsesInt8(t Type) bool { return usesScalar(t, I8) || usesScalar(t, U8) }

// Is8Bit reports whether s is i8 or u8.
func (s Scalar) Is8Bit() bool { return s == I8 || s == U8 }

// usesScalar reports whether t mentions the scalar s anywhere.
func usesScalar(t Type, s Scalar) bool {
	switch t := t.(type) {
	case *Array:
		return usesScalar(t.Elem, s)
	case CoopMat:
		return t.Elem == s
	case *Struct:
		for _, f := range t.Fields {
			if f != nil && usesScalar(f.Type, s) {
				return true
			}
		}
		return false
	case nil:
		return false
	}
	return ElemScalar(t) == s
}
