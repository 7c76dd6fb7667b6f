package ir

// Switch is `switch tag { case 1, 2: ... default: ... }` on an i32 or u32
// tag. Case values are constant, of the tag's type, and distinct; at most
// one case is the default. There is no fallthrough: exactly one case body
// runs (none when no value matches and there is no default). A break
// inside a case leaves the switch (as in Go, WGSL and HLSL); continue
// continues the enclosing for.
type Switch struct {
	Pos   Pos
	Tag   Expr
	Cases []*Case
}

// Case is one clause of a Switch. Default is true for `default:`, which has
// no Values. Body is the clause's statements (a scope of their own).
type Case struct {
	Pos     Pos
	Default bool
	Values  []Expr
	Body    *Block

	Vals []Value // set by Check: the evaluated Values, in order
}

func (*Switch) isStmt()         {}
func (s *Switch) Position() Pos { return s.Pos }
func (c *Case) Position() Pos   { return c.Pos }
