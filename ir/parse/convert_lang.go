package parse

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// Conversion of structs, functions and switch statements.

// structDecl fills the *ir.Struct that structNames made for the name.
func (c *converter) structDecl(d *structAST) *ir.Struct {
	c.checkName(d.Pos, d.Name)
	s := c.structs[d.Name]
	if s == nil { // not found by the token scan: cannot happen, but never panic
		s = &ir.Struct{Name: d.Name}
	}
	if c.declared[d.Name] {
		c.errorf(d.Pos, "struct %s redeclared (previous declaration at %s)", d.Name, s.Pos)
		return nil
	}
	if c.declared == nil {
		c.declared = map[string]bool{}
	}
	c.declared[d.Name] = true
	s.Pos = irPos(d.Pos)
	for _, f := range d.Fields {
		s.Fields = append(s.Fields, &ir.StructField{Pos: irPos(f.Pos), Name: f.Name, Type: c.typ(f.Type)})
	}
	return s
}

func (c *converter) funcDecl(d *funcAST, precise bool) *ir.Func {
	c.checkName(d.Pos, d.Name)
	f := &ir.Func{Pos: irPos(d.Pos), Name: d.Name, Precise: precise}
	for _, p := range d.Params {
		f.Params = append(f.Params, c.param(p, true))
	}
	if d.Result != nil {
		f.Result = c.typ(d.Result)
	}
	f.Body = c.block(d.Body, false)
	return f
}

// switchStmt converts a switch whose "switch" is at pos.
func (c *converter) switchStmt(s *switchAST, pos lexer.Position) *ir.Switch {
	out := &ir.Switch{Pos: irPos(pos), Tag: c.needValue(s.Tag, pos, "switch")}
	for _, cs := range s.Cases {
		k := &ir.Case{Pos: irPos(cs.Pos), Default: cs.Default}
		for _, v := range cs.Values {
			k.Values = append(k.Values, c.value(v))
		}
		// The clause's statements form a block that starts after the ":".
		k.Body = c.block(&blockAST{Pos: cs.Pos, EndPos: cs.EndPos, Items: cs.Items}, false)
		out.Cases = append(out.Cases, k)
	}
	return out
}
