package parse

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// Struct and array literals, and the types written inside expressions.

// structLit parses {key: value, ...} after a struct's name.
func (p *exprParser) structLit(t lexer.Token, s *ir.Struct) (ir.Expr, error) {
	p.lex.Next() // {
	lit := &ir.StructLit{Pos: irPos(t.Pos), Struct: s}
	for {
		p.skipNewlines()
		if p.is("}") {
			p.lex.Next()
			return lit, nil
		}
		k := *p.lex.Peek()
		if k.Type != tokIdent {
			return nil, unexpected(&k, "a field name or \"}\" in a "+s.Name+" literal")
		}
		p.lex.Next()
		if err := p.expect(":", `":" after field name `+k.Value+` (struct literals name their fields: `+s.Name+`{`+k.Value+`: value})`); err != nil {
			return nil, err
		}
		v, err := p.expr("a value for field " + k.Value)
		if err != nil {
			return nil, err
		}
		lit.Keys = append(lit.Keys, k.Value)
		lit.Vals = append(lit.Vals, v)
		p.skipNewlines()
		if p.is(",") {
			p.lex.Next()
			continue
		}
		if !p.is("}") {
			return nil, unexpected(p.lex.Peek(), `"," or "}" in a `+s.Name+" literal")
		}
	}
}

// arrayLit parses [N]T{e, ...}.
func (p *exprParser) arrayLit() (ir.Expr, error) {
	start := *p.lex.Peek()
	t, err := p.typeExpr()
	if err != nil {
		return nil, err
	}
	at, ok := t.(*ir.Array)
	if !ok {
		return nil, participle.Errorf(start.Pos, "expected an array type")
	}
	if !p.is("{") {
		return nil, unexpected(p.lex.Peek(), `"{": array values are written `+ir.TypeString(at)+`{a, b, ...}`)
	}
	p.lex.Next()
	lit := &ir.ArrayLit{Pos: irPos(start.Pos), Array: at}
	for {
		p.skipNewlines()
		if p.is("}") {
			p.lex.Next()
			return lit, nil
		}
		e, err := p.expr("an element or \"}\" in an array literal")
		if err != nil {
			return nil, err
		}
		lit.Elems = append(lit.Elems, e)
		p.skipNewlines()
		if p.is(",") {
			p.lex.Next()
			continue
		}
		if !p.is("}") {
			return nil, unexpected(p.lex.Peek(), `"," or "}" in an array literal`)
		}
	}
}

// typeExpr parses a type inside an expression: [N]T, a scalar, vecN<T> or
// a struct name.
func (p *exprParser) typeExpr() (ir.Type, error) {
	t := *p.lex.Peek()
	if t.Type == tokPunct && t.Value == "[" {
		p.lex.Next()
		if p.is("]") {
			return nil, participle.Errorf(t.Pos, "array literals need a length, as in [4]f32{...}")
		}
		n, err := p.expr("an array length")
		if err != nil {
			return nil, err
		}
		if err := p.expect("]", `"]"`); err != nil {
			return nil, err
		}
		elem, err := p.typeExpr()
		if err != nil {
			return nil, err
		}
		return &ir.Array{Elem: elem, LenExpr: n}, nil
	}
	if t.Type != tokIdent {
		return nil, unexpected(&t, "an element type")
	}
	p.lex.Next()
	if s, ok := ir.ScalarByName(t.Value); ok {
		return s, nil
	}
	if s := p.structs[t.Value]; s != nil {
		return s, nil
	}
	if n := vecWidth(t.Value); n > 0 {
		if err := p.expect("<", `"<" after `+t.Value); err != nil {
			return nil, err
		}
		elem, err := p.scalarName(t.Value + "<...>")
		if err != nil {
			return nil, err
		}
		if err := p.expect(">", `">"`); err != nil {
			return nil, err
		}
		return ir.Vec(elem, n), nil
	}
	return nil, participle.Errorf(t.Pos, "unknown type %s", t.Value)
}
