package ir

// Node is any syntax node; every node knows where it came from.
type Node interface {
	Position() Pos
}

// Module is one .kc file: enable directives, compile-time constants,
// struct types, helper functions and kernels.
type Module struct {
	File string
	Doc  []string // comment lines above the first enable directive, without //
	// DocComments is set only when a /* */ comment is among those above:
	// every one of them as written (with its // or /* */), which kc fmt
	// prints in place of Doc. Doc keeps their text lines, for emitters.
	DocComments []string
	// Trailer holds the comments after the last declaration, as written
	// (with their // or /* */), and "" for a blank line before or between
	// them: run directives (//kc:run) live there, and kc fmt keeps them.
	Trailer []string
	Enables []*Enable
	Consts  []*Const
	Structs []*Struct
	Funcs   []*Func
	Kernels []*Kernel

	// Checked is set by Check when the module passed without errors; the
	// emitters refuse unchecked modules because they need its annotations.
	Checked bool
}

// Enable is `enable f16` or `enable subgroups`.
type Enable struct {
	Pos     Pos
	Feature Feature
}

// Const is a module-level compile-time constant: `const TILE = 16` or
// `const EPS f32 = 1e-5`. Specialize replaces Value before checking.
type Const struct {
	Doc []string // comment lines above the declaration, without //
	// DocComments is set only when a /* */ comment is among those above:
	// every one of them as written (with its // or /* */), which kc fmt
	// prints in place of Doc. Doc keeps their text lines, for emitters.
	DocComments []string
	Pos         Pos
	Name        string
	Type        Type // as written; nil for an untyped constant
	Value       Expr
	// Comment is a comment after the declaration on its line, as written
	// (with its // or /* */); kc fmt keeps it there.
	Comment string

	Val Value // set by Check: the evaluated value (scalar constants)
	Ty  Type  // set by Check: Type, or nil when the constant is untyped

	// Elems is set by Check for a constant array (`const W = [3]f32{...}`,
	// Ty the *Array): the values of its scalar elements, flattened in
	// element order (row-major for nested arrays), each of Ty's scalar type.
	Elems []Value
}

// Kernel is one compute entry point.
type Kernel struct {
	Doc []string // comment lines above the kernel, without //
	// DocComments is set only when a /* */ comment is among those above:
	// every one of them as written (with its // or /* */), which kc fmt
	// prints in place of Doc. Doc keeps their text lines, for emitters.
	DocComments []string
	Pos         Pos
	Name        string
	Precise     bool // `precise kernel`: no contraction or reassociation of float operations in the body
	Params      []*Param
	Workgroup   []Expr // one to three constant expressions, as written
	Shared      []*Shared
	Body        *Block

	// Set by Check.
	Size     [3]int          // the evaluated workgroup size
	Features Features        // optional capabilities the kernel uses
	FeatPos  map[Feature]Pos // where each of Features is first used
	// Coops lists the cooperative-matrix types the kernel and its callees
	// use, in order of first use (a device offers only some element types
	// and shapes).
	Coops []CoopMat
}

// ParamKind separates uniform scalar parameters from storage buffers.
type ParamKind uint8

const (
	ScalarParam ParamKind = iota + 1 // packed into the params uniform block (binding 0)
	BufferParam                      // a storage buffer []Type (bindings 1.., in order)
	ValueParam                       // a function's value parameter (any value type)
	SharedParam                      // a function's workgroup-variable parameter: `tile shared [64]f32`
)

// Param is a kernel parameter. For a scalar parameter Type is its type; for
// a buffer, Type is the element type and Access says how it may be used.
type Param struct {
	Pos    Pos
	Name   string
	Kind   ParamKind
	Type   Type
	Access Access // buffers only
	// Comments written in the parameter list, kept by kc fmt, as written
	// (with their // or /* */): Doc on the lines above the parameter,
	// Comment after it on its line.
	Doc     []string
	Comment string
}

// Shared is a workgroup-shared variable: `shared tile [16][17]f32`.
type Shared struct {
	Pos  Pos
	Name string
	Type Type
	// Comments written with the declaration, kept by kc fmt, which hoists
	// the declaration to the top of the kernel body: as written (with
	// their // or /* */), Doc on the lines above it, Comment after it on
	// its line.
	Doc     []string
	Comment string
}

// Object is what an identifier can refer to: *Param, *Shared, *Const or
// *Decl (and, for the callee of a FnCall, *Func).
type Object interface {
	Node
	ObjName() string
}

func (p *Param) ObjName() string  { return p.Name }
func (s *Shared) ObjName() string { return s.Name }
func (c *Const) ObjName() string  { return c.Name }
func (d *Decl) ObjName() string   { return d.Name }

func (m *Module) Position() Pos { return Pos{File: m.File, Line: 1, Col: 1} }
func (e *Enable) Position() Pos { return e.Pos }
func (c *Const) Position() Pos  { return c.Pos }
func (k *Kernel) Position() Pos { return k.Pos }
func (p *Param) Position() Pos  { return p.Pos }
func (s *Shared) Position() Pos { return s.Pos }

// Kernel returns the kernel called name, or nil.
func (m *Module) Kernel(name string) *Kernel {
	for _, k := range m.Kernels {
		if k.Name == name {
			return k
		}
	}
	return nil
}
