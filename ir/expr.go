package ir

// Expr is an expression. Expressions are pure except calls of atomic
// intrinsics; operands are evaluated left to right. After Check, Type
// returns the expression's concrete type (never untyped).
type Expr interface {
	Node
	Type() Type
	isExpr()
	parens() *Parens
}

// Parens is embedded in every expression node. Paren counts the pairs of
// parentheses the author wrote around the expression beyond the one that
// precedence needs (`(x)`, `a + (b >> 8)`, `-(y)`, `((a))`); Print keeps
// them, as gofmt does. The parser sets it (AddParen, TrimNeededParens);
// it has no meaning to the checker, the emitters or the interpreter. A
// byte bounds what a damaged tree can make Print write; AddParen stops at
// 255 pairs.
type Parens struct {
	Paren uint8
}

func (p *Parens) parens() *Parens { return p }

// ValueKind is the kind of a constant Value.
type ValueKind uint8

const (
	IntValue ValueKind = iota + 1
	FloatValue
	BoolValue
)

// Value is a compile-time constant. Integers of every type are held in Int
// (a u32 as its unsigned value), floats in Float.
type Value struct {
	Kind  ValueKind
	Int   int64
	Float float64
	Bool  bool
}

// IntVal, FloatVal and BoolVal build Values.
func IntVal(i int64) Value     { return Value{Kind: IntValue, Int: i} }
func FloatVal(f float64) Value { return Value{Kind: FloatValue, Float: f} }
func BoolVal(b bool) Value     { return Value{Kind: BoolValue, Bool: b} }

// Lit is a literal. Literals are untyped as written (like Go's constants):
// an integer literal takes the type its context needs and defaults to i32,
// a float literal defaults to f32. Check stores the type chosen in Ty.
type Lit struct {
	Pos Pos
	Val Value
	Ty  Type
	// Text is the literal as the author wrote it (0x5a5a5a5a, 16777216.0),
	// which kc fmt prints; empty for literals built from Go or made by the
	// compiler, which print from Val.
	Text string
	Parens
}

// Ident names a parameter, buffer, shared variable, constant or local.
type Ident struct {
	Pos  Pos
	Name string
	Obj  Object // set by Check
	Ty   Type   // set by Check
	Parens
}

// BuiltinValue is a compute builtin such as global_id.
type BuiltinValue struct {
	Pos  Pos
	Kind BuiltinKind
	Parens
}

// Unary is op X.
type Unary struct {
	Pos Pos
	Op  UnaryOp
	X   Expr
	Ty  Type
	Parens
}

// Binary is X op Y. Arithmetic needs operands of one type, except that a
// vector may be combined with a scalar of its component type; shifts take
// a u32 (or u32 vector) amount, reduced modulo the bit width.
type Binary struct {
	Pos  Pos
	Op   BinaryOp
	X, Y Expr
	Ty   Type
	Parens
}

// Call applies an intrinsic from the op table.
type Call struct {
	Pos  Pos
	Func Intrinsic
	Args []Expr
	Ty   Type // nil for atomicStore, which yields no value
	Parens
}

// Convert is a value conversion to a scalar type: `f32(i)`, `u32(x)`.
// Float to integer truncates toward zero and saturates at the type's range.
type Convert struct {
	Pos Pos
	To  Scalar
	X   Expr
	Parens
}

// Construct builds a vector: `vec4<f32>(a, b, c, d)` from components (scalars
// or smaller vectors totalling N), `vec4<f32>(s)` as a splat of a scalar, or
// `vec4<f32>(v)` as a componentwise conversion of a vector of the same width.
type Construct struct {
	Pos  Pos
	To   Vector
	Args []Expr
	Parens
}

// Bitcast reinterprets the bits of X: `bitcast<u32>(f)`. Sizes must match.
type Bitcast struct {
	Pos Pos
	To  Type
	X   Expr
	Parens
}

// Index is X[Index] on a buffer, array or vector; Index is i32 or u32.
type Index struct {
	Pos   Pos
	X     Expr
	Index Expr
	Ty    Type
	Parens
}

// Swizzle selects vector components: v.x, v.zyx. Comps uses xyzw.
type Swizzle struct {
	Pos   Pos
	X     Expr
	Comps string
	Ty    Type
	Parens
}

// Len is len(buf), the number of elements of a storage buffer, as u32.
type Len struct {
	Pos Pos
	Buf *Ident
	Parens
}

func (e *Lit) Type() Type          { return e.Ty }
func (e *Ident) Type() Type        { return e.Ty }
func (e *BuiltinValue) Type() Type { return e.Kind.Type() }
func (e *Unary) Type() Type        { return e.Ty }
func (e *Binary) Type() Type       { return e.Ty }
func (e *Call) Type() Type         { return e.Ty }
func (e *Convert) Type() Type      { return e.To }
func (e *Construct) Type() Type    { return e.To }
func (e *Bitcast) Type() Type      { return e.To }
func (e *Index) Type() Type        { return e.Ty }
func (e *Swizzle) Type() Type      { return e.Ty }
func (e *Len) Type() Type          { return U32 }

func (*Lit) isExpr()          {}
func (*Ident) isExpr()        {}
func (*BuiltinValue) isExpr() {}
func (*Unary) isExpr()        {}
func (*Binary) isExpr()       {}
func (*Call) isExpr()         {}
func (*Convert) isExpr()      {}
func (*Construct) isExpr()    {}
func (*Bitcast) isExpr()      {}
func (*Index) isExpr()        {}
func (*Swizzle) isExpr()      {}
func (*Len) isExpr()          {}

func (e *Lit) Position() Pos          { return e.Pos }
func (e *Ident) Position() Pos        { return e.Pos }
func (e *BuiltinValue) Position() Pos { return e.Pos }
func (e *Unary) Position() Pos        { return e.Pos }
func (e *Binary) Position() Pos       { return e.Pos }
func (e *Call) Position() Pos         { return e.Pos }
func (e *Convert) Position() Pos      { return e.Pos }
func (e *Construct) Position() Pos    { return e.Pos }
func (e *Bitcast) Position() Pos      { return e.Pos }
func (e *Index) Position() Pos        { return e.Pos }
func (e *Swizzle) Position() Pos      { return e.Pos }
func (e *Len) Position() Pos          { return e.Pos }
