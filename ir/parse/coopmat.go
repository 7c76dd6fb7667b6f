package parse

import (
	"strconv"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// Cooperative matrices in .kc: the type coopmat<T, R, C, use[, scope]>
// (T f16, bf16, f32, i8, u8, i32 or u32; R and C integer literals; use a,
// b or acc; scope subgroup, the default, or workgroup) and the operations of
// ir/coopmat.go.

// coopArg is one argument of coopmat<...> as written: a name or a number.
type coopArg struct {
	pos  lexer.Position
	text string
}

// coopMatOf builds coopmat<args...> written at pos, or explains what is wrong.
func coopMatOf(pos lexer.Position, args []coopArg) (ir.CoopMat, error) {
	const form = "coopmat<T, rows, cols, a|b|acc>"
	if len(args) < 4 || len(args) > 5 {
		return ir.CoopMat{}, participle.Errorf(pos, "coopmat takes 4 arguments (%s), not %d", form, len(args))
	}
	var m ir.CoopMat
	s, ok := ir.ScalarByName(args[0].text)
	if !ok {
		return m, participle.Errorf(args[0].pos, "%s is not an element type: %s (T is f16, bf16, f32, i8, u8, i32 or u32)", args[0].text, form)
	}
	m.Elem = s
	for i, d := range []*int{&m.Rows, &m.Cols} {
		a := args[1+i]
		n, err := strconv.Atoi(a.text)
		if err != nil || n <= 0 {
			return m, participle.Errorf(a.pos, "the %s of a cooperative matrix must be a positive integer literal, not %s", []string{"rows", "columns"}[i], a.text)
		}
		*d = n
	}
	u, ok := ir.MatrixUseByName(args[3].text)
	if !ok {
		return m, participle.Errorf(args[3].pos, "%s is not a matrix use: want a, b or acc", args[3].text)
	}
	m.Use = u
	if len(args) == 5 {
		switch args[4].text {
		case "subgroup":
		case "workgroup":
			m.Scope = ir.ScopeWorkgroup
		default:
			return m, participle.Errorf(args[4].pos, "%s is not a matrix scope: want subgroup or workgroup", args[4].text)
		}
	}
	return m, nil
}

// coopType converts a coopmat<...> type as written in a declaration.
func (c *converter) coopType(n *typeAST) ir.Type {
	if n.Arg == nil {
		c.errorf(n.Pos, "coopmat needs arguments, as in coopmat<f16, 16, 16, a>")
		return ir.Invalid
	}
	var args []coopArg
	for _, a := range append([]*typeAST{n.Arg}, n.More...) {
		text := a.Name + a.Num
		if a.Array || a.Arg != nil || text == "" {
			c.errorf(a.Pos, "unexpected type in coopmat<...>: want coopmat<T, rows, cols, a|b|acc>")
			return ir.Invalid
		}
		args = append(args, coopArg{a.Pos, text})
	}
	m, err := coopMatOf(n.Pos, args)
	if pe, ok := err.(participle.Error); ok {
		c.errorf(pe.Position(), "%s", pe.Message())
		return ir.Invalid
	}
	return m
}

// coopMatType parses <T, R, C, use[, scope]> after coopmat in an
// expression. closeShift reports that the type ended with ">>" (as in
// coopLoad<coopmat<...>>), which closes an enclosing "<" too.
func (p *exprParser) coopMatType(t lexer.Token) (m ir.CoopMat, closeShift bool, err error) {
	if err := p.expect("<", `"<" after coopmat, as in coopmat<f16, 16, 16, a>`); err != nil {
		return m, false, err
	}
	var args []coopArg
	for {
		a := p.lex.Peek()
		if a.Type != tokIdent && a.Type != tokInt && a.Value != "workgroup" { // the keyword names a scope here
			return m, false, unexpected(a, "an argument of coopmat<T, rows, cols, a|b|acc>")
		}
		p.lex.Next()
		args = append(args, coopArg{a.Pos, a.Value})
		if p.is(",") {
			p.lex.Next()
			continue
		}
		if p.is(">>") {
			closeShift = true
		} else if !p.is(">") {
			return m, false, unexpected(p.lex.Peek(), `"," or ">" in coopmat<...>`)
		}
		p.lex.Next()
		break
	}
	m, err = coopMatOf(t.Pos, args)
	return m, closeShift, err
}

// coopName parses what starts with coopmat, coopLoad, coopMulAdd or
// coopLength (coopStore is a statement: coopStatement).
func (p *exprParser) coopName(t lexer.Token) (ir.Expr, error) {
	pos := irPos(t.Pos)
	switch t.Value {
	case "coopmat":
		m, shift, err := p.coopMatType(t)
		if err != nil {
			return nil, err
		}
		if shift {
			return nil, participle.Errorf(t.Pos, `unexpected ">>" after coopmat<...>`)
		}
		if !p.is("(") {
			return nil, unexpected(p.lex.Peek(), `"(": `+m.String()+" is a type, its values are built as "+m.String()+"(x)")
		}
		args, err := p.args(m.String())
		if err != nil {
			return nil, err
		}
		if len(args) != 1 {
			return nil, participle.Errorf(t.Pos, "%s(...) takes one argument (a scalar to fill with or a matrix to convert), not %d", m, len(args))
		}
		return &ir.CoopMake{Pos: pos, To: m, X: args[0]}, nil
	case "coopLoad":
		if err := p.expect("<", `"<" after coopLoad, as in coopLoad<coopmat<f16, 16, 16, a>>(buf, offset, stride, row_major)`); err != nil {
			return nil, err
		}
		ct := p.lex.Peek()
		if ct.Type != tokIdent || ct.Value != "coopmat" {
			return nil, unexpected(ct, "a coopmat<...> type after coopLoad<")
		}
		p.lex.Next()
		m, shift, err := p.coopMatType(*ct)
		if err != nil {
			return nil, err
		}
		if !shift {
			if err := p.expect(">", `">" after coopLoad<coopmat<...>`); err != nil {
				return nil, err
			}
		}
		args, err := p.args("coopLoad")
		if err != nil {
			return nil, err
		}
		src, off, stride, layout, err := memArgs(t, args, 0)
		if err != nil {
			return nil, err
		}
		return &ir.CoopLoad{Pos: pos, To: m, Src: src, Offset: off, Stride: stride, Layout: layout}, nil
	case "coopStore":
		return nil, participle.Errorf(t.Pos, "coopStore(...) is a statement and has no value")
	}
	args, err := p.args(t.Value)
	if err != nil {
		return nil, err
	}
	switch t.Value {
	case "coopMulAdd":
		if len(args) != 3 {
			return nil, participle.Errorf(t.Pos, "coopMulAdd takes 3 arguments (a, b, c), not %d", len(args))
		}
		return &ir.CoopMulAdd{Pos: pos, A: args[0], B: args[1], C: args[2]}, nil
	default: // coopLength
		if len(args) != 1 {
			return nil, participle.Errorf(t.Pos, "coopLength takes one matrix, not %d arguments", len(args))
		}
		return &ir.CoopLength{Pos: pos, M: args[0]}, nil
	}
}

// isCoopName reports whether name starts a cooperative-matrix expression.
func isCoopName(name string) bool {
	switch name {
	case "coopmat", "coopLoad", "coopStore", "coopMulAdd", "coopLength":
		return true
	}
	return false
}

// memArgs splits (buf, offset, stride, layout) at args[first:].
func memArgs(t lexer.Token, args []ir.Expr, first int) (*ir.Ident, ir.Expr, ir.Expr, ir.Layout, error) {
	want := first + 4
	if len(args) != want {
		return nil, nil, nil, 0, participle.Errorf(t.Pos, "%s takes %d arguments (%sbuffer or shared array, offset, stride, row_major or col_major), not %d",
			t.Value, want, map[bool]string{true: "matrix, ", false: ""}[first > 0], len(args))
	}
	id, ok := args[first].(*ir.Ident)
	if !ok {
		return nil, nil, nil, 0, participle.Errorf(t.Pos, "%s takes the name of a buffer or shared array, not %s", t.Value, ir.ExprString(args[first]))
	}
	lid, ok := args[first+3].(*ir.Ident)
	var layout ir.Layout
	if ok {
		layout, ok = ir.LayoutByName(lid.Name)
	}
	if !ok {
		return nil, nil, nil, 0, participle.Errorf(t.Pos, "the layout of %s is row_major or col_major, not %s", t.Value, ir.ExprString(args[first+3]))
	}
	return id, args[first+1], args[first+2], layout, nil
}

// coopStatement parses coopStore(m, dst, offset, stride, layout).
func (p *exprParser) coopStatement() (exprNode, error) {
	t := *p.lex.Next()
	args, err := p.args("coopStore")
	if err != nil {
		return nil, err
	}
	dst, off, stride, layout, err := memArgs(t, args, 1)
	if err != nil {
		return nil, err
	}
	s := &ir.CoopStore{Pos: irPos(t.Pos), M: args[0], Dst: dst, Offset: off, Stride: stride, Layout: layout}
	return &exprBox{Pos: t.Pos, Store: s}, nil
}
