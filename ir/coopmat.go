package ir

// Cooperative-matrix operations (issue 13). A cooperative matrix
// (CoopMat) is one value owned by a whole subgroup: every cooperative
// operation is executed by all invocations of the subgroup together, in
// uniform control flow, with the same operands, and acts once for the
// subgroup (a load reads the matrix once, a store writes it once). A
// workgroup-scope matrix (coopmat<..., workgroup>, NV cooperative_matrix2)
// is the same with the workgroup in place of the subgroup. In .kc:
//
//	coopmat<f32, 16, 16, acc>(0.0)                    fill (CoopMake)
//	coopmat<f16, 16, 16, acc>(m)                      element-type conversion (CoopMake)
//	coopLoad<coopmat<f16, 16, 16, a>>(buf, off, stride, row_major)   (CoopLoad)
//	coopStore(m, buf, off, stride, col_major)         a statement (CoopStore)
//	coopMulAdd(a, b, c)                               a*b + c (CoopMulAdd)
//	coopLength(m)                                     elements per invocation (CoopLength)
//	m + n, m - n, m * n, m / n, -m                    element-wise, one matrix type
//	m * s, s * m, m / s                               scaling by a scalar of the element type
//	m[i], m[i] = x                                    this invocation's element i (i < coopLength(m))
//
// Element access (an Index of a matrix) is the one per-invocation
// operation: each invocation holds coopLength(m) of the elements, which
// ones is up to the target (the interpreter: its element i is element
// i*S + lane in row-major order, S the subgroup size, lane the
// invocation's index in its subgroup; 0 past the end of the matrix). A
// read may happen anywhere; an assignment m[i] = x is executed by the
// whole subgroup together (uniform control flow), each invocation writing
// its own element. Only uses that treat every element alike (m[i] =
// f(m[i]) for all i < coopLength(m)) give the same result on every target.

// Layout is how a cooperative load or store addresses memory: element (i, j)
// of an R x C matrix is at off + i*stride + j (RowMajor) or
// off + j*stride + i (ColMajor), in elements of the buffer or array.
//
// The buffer or array may also be packed: its elements of another type
// than the matrix's (CoopPacks), as SPV_KHR_cooperative_matrix allows. Then
// offset and stride count the memory's elements, and a row (RowMajor; a
// column for ColMajor) is read from consecutive bytes: with P the byte
// size of the memory's element type and E that of the matrix's, element
// (i, j) starts at byte (off + i*stride)*P + j*E. When the types are the
// same, P = E and this is the rule above.
type Layout uint8

const (
	RowMajor Layout = iota + 1
	ColMajor
)

func (l Layout) String() string {
	if l == ColMajor {
		return "col_major"
	}
	return "row_major"
}

// LayoutByName maps "row_major" and "col_major" to their Layout.
func LayoutByName(name string) (Layout, bool) {
	switch name {
	case "row_major":
		return RowMajor, true
	case "col_major":
		return ColMajor, true
	}
	return 0, false
}

// CoopMake is `coopmat<T, R, C, use>(x)`: a matrix with every element x
// (x a scalar, converted to T as by T(x)) or, when x is a cooperative matrix
// of the same shape and use, x with its elements converted to T.
type CoopMake struct {
	Pos Pos
	To  CoopMat
	X   Expr
	Parens
}

// IsConversion reports whether e converts a matrix (rather than filling one
// from a scalar); valid after Check.
func (e *CoopMake) IsConversion() bool {
	_, ok := e.X.Type().(CoopMat)
	return ok
}

// CoopLoad is `coopLoad<coopmat<...>>(src, offset, stride, layout)`: a
// matrix read from Src, a storage buffer or a shared array whose element
// type is the matrix's element type, or packed (CoopPacks: say a shared
// array of vec4<u32> holding f16 matrices, which kernels fill with
// 16-byte stores). Offset and Stride (i32 or u32) count elements of Src
// (Layout) and must be the same for all invocations of the subgroup.
type CoopLoad struct {
	Pos            Pos
	To             CoopMat
	Src            *Ident
	Offset, Stride Expr
	Layout         Layout
	Parens
}

// CoopStore is the statement `coopStore(m, dst, offset, stride, layout)`:
// matrix M written to Dst (a read_write storage buffer or a shared array)
// with CoopLoad's addressing.
type CoopStore struct {
	Pos            Pos
	M              Expr
	Dst            *Ident
	Offset, Stride Expr
	Layout         Layout
}

// CoopMulAdd is `coopMulAdd(a, b, c)`: A*B + C with A an M x K matrix of
// use a, B a K x N matrix of use b (same element type as A) and C an M x N
// accumulator; the result has C's type.
type CoopMulAdd struct {
	Pos     Pos
	A, B, C Expr
	Ty      Type
	Parens
}

// CoopLength is `coopLength(m)`: the number of elements of m each invocation
// holds, a u32 that depends on the target (the interpreter: rows*cols
// divided by the subgroup size, or for workgroup scope by the workgroup's
// invocations, rounded up). Only m's type matters.
type CoopLength struct {
	Pos Pos
	M   Expr
	Parens
}

func (e *CoopMake) Type() Type   { return e.To }
func (e *CoopLoad) Type() Type   { return e.To }
func (e *CoopMulAdd) Type() Type { return e.Ty }
func (e *CoopLength) Type() Type { return U32 }

func (*CoopMake) isExpr()   {}
func (*CoopLoad) isExpr()   {}
func (*CoopMulAdd) isExpr() {}
func (*CoopLength) isExpr() {}
func (*CoopStore) isStmt()  {}

func (e *CoopMake) Position() Pos   { return e.Pos }
func (e *CoopLoad) Position() Pos   { return e.Pos }
func (e *CoopMulAdd) Position() Pos { return e.Pos }
func (e *CoopLength) Position() Pos { return e.Pos }
func (s *CoopStore) Position() Pos  { return s.Pos }

// CoopPacks reports whether cooperative loads and stores of matrices with
// element type elem may address memory (a buffer or shared array) whose
// elements are of type mem: mem is elem itself, or packed words: u32 or
// i32, or a vec2 or vec4 of them, holding the matrix's elements as bits
// (vec3 is left out: its array stride is not its size). Other mismatches,
// such as f16 matrices in an f32 array, stay errors: they are more likely
// mistakes than packing.
func CoopPacks(mem Type, elem Scalar) bool {
	if mem == Type(elem) {
		return true
	}
	if v, ok := mem.(Vector); ok && (v.N == 2 || v.N == 4) {
		mem = v.Elem
	}
	return (mem == Type(U32) || mem == Type(I32)) && elem.Size() > 0
}

// CoopAlign is the byte alignment Vulkan requires of a cooperative load's
// or store's address and stride (VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986,
// and VUID-...-OpCooperativeMatrixLoadNV-06324 for the NV flavour, the same
// rule; workgroup-scope matrices use the KHR instructions and so the same
// rule): the lesser of 16 and the byte size of one row (RowMajor) or one
// column (ColMajor) of t, counted in the matrix's element size. kc states
// it as: off*P and stride*P (P the byte size of the memory's element,
// packed words included) are multiples of CoopAlign (docs/semantics.md
// §7.2). A misaligned access is undefined on every Vulkan device.
func CoopAlign(t CoopMat, l Layout) int {
	n := t.Cols
	if l == ColMajor {
		n = t.Rows
	}
	if b := n * t.Elem.Size(); b < 16 {
		return b
	}
	return 16
}

// CoopAlignRule names the rule CoopAlign states, for error messages.
const CoopAlignRule = "Vulkan's VUID-RuntimeSpirv-OpCooperativeMatrixLoadKHR-08986"

// IsCoopMat reports whether t is a cooperative matrix type.
func IsCoopMat(t Type) bool {
	_, ok := t.(CoopMat)
	return ok
}
