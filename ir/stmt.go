package ir

// Stmt is a statement. Statements execute in order; control flow is
// structured (no goto), so every construct has one entry and one merge point.
type Stmt interface {
	Node
	isStmt()
}

// Block is a braced statement list; it opens a scope.
type Block struct {
	Pos   Pos
	Stmts []Stmt
}

// Decl declares a local: `let x = e` (immutable), `var x T`, `var x = e`,
// `var x T = e`. A var without an initializer is zero-valued.
type Decl struct {
	Pos  Pos
	Name string
	Mut  bool // var rather than let
	Type Type // as written; nil when inferred from Init
	Init Expr // nil only for a var with a Type

	Ty Type // set by Check: the variable's type
}

// Assign is `lhs = rhs` or, with Op set, the compound `lhs op= rhs`.
// `x++` and `x--` are Assign{Op: OpAdd/OpSub, RHS: untyped 1}.
type Assign struct {
	Pos Pos
	LHS Expr
	Op  BinaryOp // OpNone for plain assignment
	RHS Expr
}

// If is `if cond { ... } else ...`; Else is nil, a *Block or an *If.
type If struct {
	Pos  Pos
	Cond Expr
	Then *Block
	Else Stmt
}

// For is Go's for statement: `for init; cond; post { }`, `for cond { }` or
// `for { }`. Init declares the loop variable (a var Decl), Post updates it.
// Any of Init, Cond and Post may be nil. continue runs Post, then Cond.
type For struct {
	Pos  Pos
	Init *Decl
	Cond Expr
	Post *Assign
	Body *Block
}

// Break leaves the innermost for.
type Break struct{ Pos Pos }

// Continue starts the next iteration of the innermost for.
type Continue struct{ Pos Pos }

// Return ends the invocation (in a kernel) or the function call (in a
// function), with Value as the function's result (nil in a kernel and in a
// function without a result).
type Return struct {
	Pos   Pos
	Value Expr
}

// Barrier is workgroupBarrier() or storageBarrier(): every invocation of the
// workgroup must reach it in uniform control flow.
type Barrier struct {
	Pos  Pos
	Kind BarrierKind
}

// ExprStmt is a call evaluated for its effect (atomicStore, atomicAdd, ...).
type ExprStmt struct {
	Pos  Pos
	Call *Call
}

// Comment is a // comment line kept between statements so that `kc fmt`
// preserves it. It has no effect; emitters may copy or drop it.
type Comment struct {
	Pos  Pos
	Text string // without the leading // (or the /* and */ of a Block comment)
	// Trailing: the comment ended a line that had code before it; Print
	// appends it to the line before (the previous statement, or the line
	// opening the block).
	Trailing bool
	// Block: a /* */ comment, printed as /*Text*/ (Text may span lines).
	Block bool
}

func (*Comment) isStmt()         {}
func (s *Comment) Position() Pos { return s.Pos }

func (*Block) isStmt()    {}
func (*Decl) isStmt()     {}
func (*Assign) isStmt()   {}
func (*If) isStmt()       {}
func (*For) isStmt()      {}
func (*Break) isStmt()    {}
func (*Continue) isStmt() {}
func (*Return) isStmt()   {}
func (*Barrier) isStmt()  {}
func (*ExprStmt) isStmt() {}

func (s *Block) Position() Pos    { return s.Pos }
func (s *Decl) Position() Pos     { return s.Pos }
func (s *Assign) Position() Pos   { return s.Pos }
func (s *If) Position() Pos       { return s.Pos }
func (s *For) Position() Pos      { return s.Pos }
func (s *Break) Position() Pos    { return s.Pos }
func (s *Continue) Position() Pos { return s.Pos }
func (s *Return) Position() Pos   { return s.Pos }
func (s *Barrier) Position() Pos  { return s.Pos }
func (s *ExprStmt) Position() Pos { return s.Pos }
