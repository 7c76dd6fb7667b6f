package ir

import "strings"

// The canonical text of structs, functions, switch and literals (see print.go).

func preciseText(precise bool) string {
	if precise {
		return "precise "
	}
	return ""
}

// paramsText is a kernel's or function's parameter list, without parentheses.
func paramsText(params []*Param) string { return strings.Join(paramList(params), ", ") }

// paramList spells each parameter as a declaration does.
func paramList(params []*Param) []string {
	var out []string
	for _, prm := range params {
		switch prm.Kind {
		case BufferParam:
			out = append(out, prm.Name+" "+prm.Access.String()+" []"+TypeString(prm.Type))
		case SharedParam:
			out = append(out, prm.Name+" shared "+TypeString(prm.Type))
		default:
			out = append(out, prm.Name+" "+TypeString(prm.Type))
		}
	}
	return out
}

func (p *printer) structDecl(s *Struct) {
	p.docs(s.Doc, s.DocComments)
	p.line("struct ", s.Name, " {")
	p.indent++
	for _, f := range s.Fields {
		p.line(f.Name, " ", TypeString(f.Type))
	}
	p.indent--
	p.line("}")
}

func (p *printer) funcDecl(f *Func) {
	p.docs(f.Doc, f.DocComments)
	result := ""
	if f.Result != nil {
		result = " " + TypeString(f.Result)
	}
	p.line(preciseText(f.Precise), "fn ", f.Name, "(", paramsText(f.Params), ")", result, " {")
	p.indent++
	if f.Body != nil {
		p.stmts(f.Body.Stmts)
	}
	p.indent--
	p.line("}")
}

// switchStmt prints the cases at the switch's indentation, as gofmt does.
func (p *printer) switchStmt(s *Switch) {
	p.line("switch ", ExprString(s.Tag), " {")
	for _, c := range s.Cases {
		if c.Default {
			p.line("default:")
		} else {
			vals := make([]string, len(c.Values))
			for i, v := range c.Values {
				vals[i] = ExprString(v)
			}
			p.line("case ", strings.Join(vals, ", "), ":")
		}
		if c.Body != nil {
			p.indent++
			p.stmts(c.Body.Stmts)
			p.indent--
		}
	}
	p.line("}")
}

func (p *printer) structLit(e *StructLit) {
	name := "<nil>"
	if e.Struct != nil {
		name = e.Struct.Name
	}
	p.buf.WriteString(name)
	p.buf.WriteByte('{')
	for i, v := range e.Vals {
		if i > 0 {
			p.buf.WriteString(", ")
		}
		if i < len(e.Keys) {
			p.buf.WriteString(e.Keys[i])
			p.buf.WriteString(": ")
		}
		p.expr(v)
	}
	p.buf.WriteByte('}')
}
