package ir

import "strings"

// Printing of the cooperative-matrix operations (coopmat.go).

func (p *printer) coopExpr(e Expr) {
	switch e := e.(type) {
	case *CoopMake:
		p.call(e.To.String(), []Expr{e.X})
	case *CoopLoad:
		p.buf.WriteString("coopLoad<" + e.To.String() + ">(" + identName(e.Src) + ", ")
		p.expr(e.Offset)
		p.buf.WriteString(", ")
		p.expr(e.Stride)
		p.buf.WriteString(", " + e.Layout.String() + ")")
	case *CoopMulAdd:
		p.call("coopMulAdd", []Expr{e.A, e.B, e.C})
	case *CoopLength:
		p.call("coopLength", []Expr{e.M})
	}
}

// identName spells a buffer argument, with the author's parentheses.
func identName(id *Ident) string {
	if id == nil {
		return "<nil>"
	}
	return ExprString(id)
}

// coopStoreString spells a CoopStore statement.
func coopStoreString(s *CoopStore) string {
	var b strings.Builder
	b.WriteString("coopStore(" + exprText(s.M) + ", " + identName(s.Dst) + ", ")
	b.WriteString(exprText(s.Offset) + ", " + exprText(s.Stride) + ", " + s.Layout.String() + ")")
	return b.String()
}

func exprText(e Expr) string {
	if isNil(e) {
		return "<nil>"
	}
	return ExprString(e)
}
