package ir

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
)

// This file is the canonical text form of .kc (kc fmt). The parser accepts
// everything printed here; parse(Print(m)) equals m up to positions.

// Print returns the canonical .kc text of m.
func Print(m *Module) []byte {
	var p printer
	p.module(m)
	return p.buf.Bytes()
}

// Fprint writes the canonical .kc text of m to w.
func Fprint(w io.Writer, m *Module) error {
	_, err := w.Write(Print(m))
	return err
}

// ExprString returns the canonical text of one expression.
func ExprString(e Expr) string {
	var p printer
	p.expr(e)
	return p.buf.String()
}

// TypeString returns the .kc spelling of a type (including an unresolved array length).
func TypeString(t Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.String()
}

type printer struct {
	buf      bytes.Buffer
	indent   int
	canTrail bool // the last line may take a trailing comment
}

func (p *printer) line(parts ...string) {
	for i := 0; i < p.indent; i++ {
		p.buf.WriteByte('\t')
	}
	for _, s := range parts {
		p.buf.WriteString(s)
	}
	p.buf.WriteByte('\n')
	p.canTrail = true
}

// trail appends a comment to the line printed last, or prints it on a line
// of its own when that line is not the one it followed in the source.
func (p *printer) trail(text string) {
	b := p.buf.Bytes()
	if !p.canTrail || len(b) == 0 || b[len(b)-1] != '\n' {
		p.line(text)
		return
	}
	p.buf.Truncate(len(b) - 1)
	p.buf.WriteString(" " + text + "\n")
}

// CommentLines gives the text of a comment as written (// or /* */)
// without its delimiters and trailing blanks, one element a line: what a
// text emitter prints after its own //. (The emitters declare a shared
// variable outside the body, so they print its Doc there.)
func CommentLines(c string) []string {
	lines := []string{strings.TrimPrefix(c, "//")}
	if t, ok := strings.CutPrefix(c, "/*"); ok {
		lines = strings.Split(strings.TrimSuffix(t, "*/"), "\n")
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return lines
}

// commentText spells a comment statement.
func commentText(c *Comment) string {
	if c.Block {
		return "/*" + c.Text + "*/"
	}
	return "//" + c.Text
}

// docs prints a declaration's documentation: its comments as written
// when one was a /* */ comment, else each line as a // comment.
func (p *printer) docs(lines, comments []string) {
	if len(comments) > 0 {
		for _, c := range comments {
			p.line(c)
		}
		return
	}
	for _, l := range lines {
		p.line("//", l)
	}
}

func (p *printer) module(m *Module) {
	sep := false
	blank := func() {
		if sep {
			p.buf.WriteByte('\n')
			p.canTrail = false
		}
		sep = true
	}
	if len(m.Doc) > 0 && len(m.Enables) > 0 {
		blank()
		p.docs(m.Doc, m.DocComments)
	}
	if len(m.Enables) > 0 {
		blank()
		for _, e := range m.Enables {
			p.line("enable ", e.Feature.Name())
		}
	}
	if len(m.Consts) > 0 {
		blank()
		for _, c := range m.Consts {
			p.docs(c.Doc, c.DocComments)
			if c.Type != nil {
				p.line("const ", c.Name, " ", TypeString(c.Type), " = ", ExprString(c.Value))
			} else {
				p.line("const ", c.Name, " = ", ExprString(c.Value))
			}
			if c.Comment != "" {
				p.trail(c.Comment)
			}
		}
	}
	for _, s := range m.Structs {
		blank()
		p.structDecl(s)
	}
	for _, f := range m.Funcs {
		blank()
		p.funcDecl(f)
	}
	for _, k := range m.Kernels {
		blank()
		p.kernel(k)
	}
	for _, c := range m.Trailer {
		if c == "" {
			p.buf.WriteByte('\n')
			p.canTrail = false
			continue
		}
		p.line(c)
	}
}

func (p *printer) kernel(k *Kernel) {
	p.docs(k.Doc, k.DocComments)
	params := paramList(k.Params)
	var wg []string
	for _, e := range k.Workgroup {
		wg = append(wg, ExprString(e))
	}
	tail := ") workgroup(" + strings.Join(wg, ", ") + ") {"
	if hasParamComments(k) {
		// one parameter a line, with its comments (as gofmt lays out a
		// parameter list that holds comments)
		p.line(preciseText(k.Precise), "kernel ", k.Name, "(")
		p.indent++
		for i, prm := range k.Params {
			for _, d := range prm.Doc {
				p.line(d)
			}
			p.line(params[i], ",")
			if prm.Comment != "" {
				p.trail(prm.Comment)
			}
		}
		p.indent--
		p.line(tail)
	} else {
		p.line(preciseText(k.Precise), "kernel ", k.Name, "(", strings.Join(params, ", "), tail)
	}
	var body []Stmt
	if k.Body != nil {
		body = k.Body.Stmts
	}
	if len(body) > 0 {
		if c, ok := body[0].(*Comment); ok && c.Trailing {
			// the comment after the "{", before the shared lines
			p.trail(commentText(c))
			body = body[1:]
		}
	}
	p.indent++
	for _, s := range k.Shared {
		for _, d := range s.Doc {
			p.line(d)
		}
		p.line("shared ", s.Name, " ", TypeString(s.Type))
		if s.Comment != "" {
			p.trail(s.Comment)
		}
	}
	if len(k.Shared) > 0 {
		p.canTrail = false // what follows did not trail a shared line
	}
	p.stmts(body)
	p.indent--
	p.line("}")
}

func (p *printer) stmts(list []Stmt) {
	for _, s := range list {
		p.stmt(s)
	}
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *Comment:
		if s.Trailing {
			p.trail(commentText(s))
		} else {
			p.line(commentText(s))
		}
	case *Block:
		p.line("{")
		p.indent++
		p.stmts(s.Stmts)
		p.indent--
		p.line("}")
	case *Decl:
		p.line(declText(s))
	case *Assign:
		p.line(assignText(s))
	case *If:
		p.ifStmt(s, "")
	case *For:
		p.forStmt(s)
	case *Break:
		p.line("break")
	case *Continue:
		p.line("continue")
	case *Return:
		if s.Value != nil {
			p.line("return ", ExprString(s.Value))
		} else {
			p.line("return")
		}
	case *Switch:
		p.switchStmt(s)
	case *CallStmt:
		p.line(ExprString(s.Call))
	case *Barrier:
		p.line(s.Kind.String(), "()")
	case *ExprStmt:
		p.line(ExprString(s.Call))
	case *CoopStore:
		p.line(coopStoreString(s))
	default:
		p.line("/* unknown statement */")
	}
}

func declText(d *Decl) string {
	kw := "let "
	if d.Mut {
		kw = "var "
	}
	s := kw + d.Name
	if d.Type != nil {
		s += " " + TypeString(d.Type)
	}
	if d.Init != nil {
		s += " = " + ExprString(d.Init)
	}
	return s
}

func assignText(a *Assign) string {
	if a.Op == OpAdd || a.Op == OpSub {
		// x += 1 prints as x++ (the author's x += (1) keeps its spelling).
		if l, ok := a.RHS.(*Lit); ok && l.Val.Kind == IntValue && l.Val.Int == 1 && l.Paren == 0 {
			return ExprString(a.LHS) + a.Op.String() + a.Op.String()
		}
	}
	return ExprString(a.LHS) + " " + a.Op.String() + "= " + ExprString(a.RHS)
}

func (p *printer) ifStmt(s *If, prefix string) {
	p.line(prefix, "if ", ExprString(s.Cond), " {")
	p.indent++
	p.stmts(s.Then.Stmts)
	p.indent--
	switch e := s.Else.(type) {
	case nil:
		p.line("}")
	case *If:
		// "} else if" continues on the closing brace's line.
		p.ifStmt(e, "} else ")
	case *Block:
		p.line("} else {")
		p.indent++
		p.stmts(e.Stmts)
		p.indent--
		p.line("}")
	}
}

func (p *printer) forStmt(s *For) {
	var head string
	switch {
	case s.Init == nil && s.Post == nil && s.Cond == nil:
		head = "for {"
	case s.Init == nil && s.Post == nil:
		head = "for " + ExprString(s.Cond) + " {"
	default:
		var init, cond, post string
		if s.Init != nil {
			init = s.Init.Name + " := " + ExprString(s.Init.Init)
		}
		if s.Cond != nil {
			cond = " " + ExprString(s.Cond)
		}
		if s.Post != nil {
			post = " " + assignText(s.Post)
		}
		head = "for " + init + ";" + cond + ";" + post + " {"
	}
	p.line(head)
	p.indent++
	p.stmts(s.Body.Stmts)
	p.indent--
	p.line("}")
}

// expr prints e with the parentheses its author wrote around it (Paren).
func (p *printer) expr(e Expr) {
	n := 0
	if e != nil {
		n = int(e.parens().Paren)
	}
	for i := 0; i < n; i++ {
		p.buf.WriteByte('(')
	}
	p.bare(e)
	for i := 0; i < n; i++ {
		p.buf.WriteByte(')')
	}
}

// operand prints x as an operand of parent (right: the right operand of a
// binary operator), in parentheses where the text needs them.
func (p *printer) operand(parent, x Expr, right bool) {
	if needParens(parent, x, right) {
		p.buf.WriteByte('(')
		p.expr(x)
		p.buf.WriteByte(')')
		return
	}
	p.expr(x)
}

// needParens reports whether x, an operand of parent, needs parentheses
// in the text: a binary operand of lower precedence (or of equal on the
// right), any binary operand of a unary or postfix operator, a unary
// operand of x[i] or x.f, "-(-x)" (not the decrement "--x"), and a number
// under a minus or a negative one (the parser folds a minus directly on a
// number into the literal). The parser removes one pair of the author's
// parentheses where this holds (TrimNeededParens), so Paren counts only
// the optional ones and parse(print(m)) equals m.
func needParens(parent, x Expr, right bool) bool {
	switch pe := parent.(type) {
	case *Binary:
		if b, ok := x.(*Binary); ok {
			pp, xp := pe.Op.Precedence(), b.Op.Precedence()
			return xp < pp || right && xp == pp
		}
	case *Unary:
		switch x := x.(type) {
		case *Binary:
			return true
		case *Unary:
			return x.Op == pe.Op && pe.Op == OpNeg
		case *Lit:
			return x.Val.Kind != BoolValue && (isNegative(x.Val) || pe.Op == OpNeg)
		}
	case *Index, *Swizzle, *Field:
		switch x := x.(type) {
		case *Binary, *Unary:
			return true
		case *Lit:
			return isNegative(x.Val)
		}
	}
	return false
}

// AddParen records one more pair of parentheses the author wrote around e
// (up to 255; more print as 255).
func AddParen(e Expr) {
	if pr := e.parens(); pr.Paren < math.MaxUint8 {
		pr.Paren++
	}
}

// TrimNeededParens removes, from each operand of e (a binary, unary or
// postfix expression just built by a parser), one pair of the author's
// parentheses where Print writes one anyway, so that Paren counts only the
// optional ones.
func TrimNeededParens(e Expr) {
	trim := func(x Expr, right bool) {
		if x != nil && x.parens().Paren > 0 && needParens(e, x, right) {
			x.parens().Paren--
		}
	}
	switch e := e.(type) {
	case *Binary:
		trim(e.X, false)
		trim(e.Y, true)
	case *Unary:
		trim(e.X, false)
	case *Index:
		trim(e.X, false)
	case *Swizzle:
		trim(e.X, false)
	case *Field:
		trim(e.X, false)
	}
}

// bare prints e without the author's parentheses around it.
func (p *printer) bare(e Expr) {
	switch e := e.(type) {
	case *Binary:
		p.operand(e, e.X, false)
		p.buf.WriteString(" " + e.Op.String() + " ")
		p.operand(e, e.Y, true)
	case *Unary:
		p.buf.WriteString(e.Op.String())
		p.operand(e, e.X, false)
	case *Lit:
		if e.Text != "" {
			p.buf.WriteString(e.Text)
		} else {
			p.buf.WriteString(LitText(e.Val))
		}
	case *Ident:
		p.buf.WriteString(e.Name)
	case *BuiltinValue:
		p.buf.WriteString(e.Kind.String())
	case *Call:
		p.call(e.Func.String(), e.Args)
	case *Convert:
		p.call(e.To.String(), []Expr{e.X})
	case *Construct:
		p.call(e.To.String(), e.Args)
	case *Bitcast:
		p.call("bitcast<"+TypeString(e.To)+">", []Expr{e.X})
	case *Index:
		p.operand(e, e.X, false)
		p.buf.WriteByte('[')
		p.expr(e.Index)
		p.buf.WriteByte(']')
	case *Swizzle:
		p.operand(e, e.X, false)
		p.buf.WriteByte('.')
		p.buf.WriteString(e.Comps)
	case *Len:
		p.buf.WriteString("len(")
		if e.Buf != nil {
			p.expr(e.Buf)
		}
		p.buf.WriteByte(')')
	case *FnCall:
		p.call(e.Name, e.Args)
	case *Field:
		p.operand(e, e.X, false)
		p.buf.WriteByte('.')
		p.buf.WriteString(e.Name)
	case *StructLit:
		p.structLit(e)
	case *ArrayLit:
		p.buf.WriteString(TypeString(e.Array))
		p.buf.WriteByte('{')
		for i, a := range e.Elems {
			if i > 0 {
				p.buf.WriteString(", ")
			}
			p.expr(a)
		}
		p.buf.WriteByte('}')
	case *CoopMake, *CoopLoad, *CoopMulAdd, *CoopLength:
		p.coopExpr(e)
	default:
		p.buf.WriteString("/* unknown expression */")
	}
}

func (p *printer) call(name string, args []Expr) {
	p.buf.WriteString(name)
	p.buf.WriteByte('(')
	for i, a := range args {
		if i > 0 {
			p.buf.WriteString(", ")
		}
		p.expr(a)
	}
	p.buf.WriteByte(')')
}

func isNegative(v Value) bool {
	switch v.Kind {
	case IntValue:
		return v.Int < 0
	case FloatValue:
		return math.Signbit(v.Float)
	}
	return false
}

// LitText spells a constant as .kc source: integers in decimal, floats in the
// shortest form that reads back as the same float64 and always with a '.' or
// an exponent, so that they stay floats.
func LitText(v Value) string {
	switch v.Kind {
	case IntValue:
		return strconv.FormatInt(v.Int, 10)
	case BoolValue:
		return strconv.FormatBool(v.Bool)
	case FloatValue:
		f := v.Float
		switch {
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		case math.IsNaN(f):
			return "nan"
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	}
	return "?"
}

func hasParamComments(k *Kernel) bool {
	for _, p := range k.Params {
		if len(p.Doc) > 0 || p.Comment != "" {
			return true
		}
	}
	return false
}
