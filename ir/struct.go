package ir

import "strconv"

// Structures, field access, struct and array literals, and the
// host-shareable memory layout of every type.

// Struct is a named structure type declared at module level:
//
//	struct Particle {
//		pos vec3<f32>
//		vel vec3<f32>
//	}
//
// Two struct types are identical only when they are the same *Struct.
type Struct struct {
	Doc []string // comment lines above the declaration, without //
	// DocComments is set only when a /* */ comment is among those above:
	// every one of them as written (with its // or /* */), which kc fmt
	// prints in place of Doc. Doc keeps their text lines, for emitters.
	DocComments []string
	Pos         Pos
	Name        string
	Fields      []*StructField
}

// StructField is one field of a Struct.
type StructField struct {
	Pos  Pos
	Name string
	Type Type
}

func (s *Struct) String() string { return s.Name }
func (*Struct) isType()          {}
func (s *Struct) Position() Pos  { return s.Pos }

// FieldIndex returns the index of the field called name, or -1.
func (s *Struct) FieldIndex(name string) int {
	for i, f := range s.Fields {
		if f != nil && f.Name == name {
			return i
		}
	}
	return -1
}

// Field is X.Name on a struct value or a struct in memory, or old_value
// (Index 0) or exchanged (Index 1) of a CompareExchangeResult. (A .xyzw
// name on a vector is a Swizzle; the parser cannot tell them apart, so
// Check turns a Swizzle on a struct or a result into a Field.)
type Field struct {
	Pos   Pos // the "."
	X     Expr
	Name  string
	Index int  // set by Check: the field's index in the struct
	Ty    Type // set by Check
	Parens
}

// StructLit is `Particle{pos: p, vel: v}`; fields not named are zero.
type StructLit struct {
	Pos    Pos
	Struct *Struct
	Keys   []string // field names as written, one per value
	Vals   []Expr
	Parens
}

// Values returns one expression per field of the struct, in declaration
// order, nil for a field the literal leaves zero. It is valid after Check.
func (e *StructLit) Values() []Expr {
	out := make([]Expr, len(e.Struct.Fields))
	for i, k := range e.Keys {
		if j := e.Struct.FieldIndex(k); j >= 0 && i < len(e.Vals) {
			out[j] = e.Vals[i]
		}
	}
	return out
}

// ArrayLit is `[3]f32{1, 2, 3}`: exactly Len elements.
type ArrayLit struct {
	Pos   Pos
	Array *Array
	Elems []Expr
	Parens
}

func (e *Field) Type() Type     { return e.Ty }
func (e *StructLit) Type() Type { return e.Struct }
func (e *ArrayLit) Type() Type  { return e.Array }

func (*Field) isExpr()     {}
func (*StructLit) isExpr() {}
func (*ArrayLit) isExpr()  {}

func (e *Field) Position() Pos     { return e.Pos }
func (e *StructLit) Position() Pos { return e.Pos }
func (e *ArrayLit) Position() Pos  { return e.Pos }

// Struct returns the struct called name, or nil.
func (m *Module) Struct(name string) *Struct {
	for _, s := range m.Structs {
		if s != nil && s.Name == name {
			return s
		}
	}
	return nil
}

// Layout: WGSL's rules for host-shareable types in the storage address
// space (https://www.w3.org/TR/WGSL/#alignment-and-size), which SPIR-V
// (Offset, ArrayStride decorations; scalar block layout not needed) and
// HLSL (explicit offsets) reproduce:
//
//	type          align        size
//	i32 u32 f32   4            4
//	f16           2            2
//	atomic<T>     4            4
//	vec2<T>       2*size(T)    2*size(T)
//	vec3<T>       4*size(T)    3*size(T)
//	vec4<T>       4*size(T)    4*size(T)
//	[N]E          align(E)     N * roundUp(align(E), size(E))
//	struct S      max align    roundUp(align(S), offset(last) + size(last))
//
// and a field's offset is roundUp(align(field), end of the previous field).
// So a vec3<f32> field takes 12 bytes and the next f32 may follow at offset
// 12, while an array of vec3<f32> has a stride of 16.
//
// bool is not host-shareable; in workgroup and function memory (and the
// interpreter) it is laid out as a 4-byte word, which is what SizeOf and
// AlignOf give for it.

// SizeOf is the size of t in bytes.
func SizeOf(t Type) int {
	switch t := t.(type) {
	case Scalar:
		if t == Bool {
			return 4
		}
		return t.Size()
	case Atomic:
		return 4
	case Vector:
		return t.N * SizeOf(t.Elem)
	case *Array:
		return t.Len * alignUp(SizeOf(t.Elem), AlignOf(t.Elem))
	case *Struct:
		_, size := structLayout(t)
		return size
	}
	return 0
}

// AlignOf is the alignment of t in bytes.
func AlignOf(t Type) int {
	switch t := t.(type) {
	case Scalar, Atomic:
		return SizeOf(t)
	case Vector:
		n := t.N
		if n == 3 {
			n = 4
		}
		return n * SizeOf(t.Elem)
	case *Array:
		return AlignOf(t.Elem)
	case *Struct:
		a := 1
		for _, f := range t.Fields {
			if fa := AlignOf(f.Type); fa > a {
				a = fa
			}
		}
		return a
	}
	return 1
}

// FieldOffsets returns the byte offset of each field of s.
func FieldOffsets(s *Struct) []int {
	offs, _ := structLayout(s)
	return offs
}

func structLayout(s *Struct) (offs []int, size int) {
	end, align := 0, 1
	for _, f := range s.Fields {
		a := AlignOf(f.Type)
		if a > align {
			align = a
		}
		off := alignUp(end, a)
		offs = append(offs, off)
		end = off + SizeOf(f.Type)
	}
	return offs, alignUp(end, align)
}

func alignUp(n, a int) int {
	if a <= 1 {
		return n
	}
	return (n + a - 1) / a * a
}

// StructLayoutString describes a struct's layout for messages and tests:
// "Particle: size 32, align 16; pos@0 vel@16".
func StructLayoutString(s *Struct) string {
	out := s.Name + ": size " + strconv.Itoa(SizeOf(s)) + ", align " + strconv.Itoa(AlignOf(s)) + ";"
	for i, o := range FieldOffsets(s) {
		out += " " + s.Fields[i].Name + "@" + strconv.Itoa(o)
	}
	return out
}
