package ir_test

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
)

// annotationProblems walks a checked module and lists every annotation that
// Check promises but did not fill: a non-concrete expression type, an
// unresolved identifier, a local without a type, an unevaluated array length.
func annotationProblems(m *ir.Module) []string {
	var w walker
	for _, k := range m.Kernels {
		if k.Size[0] == 0 {
			w.add("kernel %s: Size not set", k.Name)
		}
		for _, e := range k.Workgroup {
			w.expr(e)
		}
		for _, s := range k.Shared {
			w.typ(s.Type)
		}
		for _, p := range k.Params {
			w.typ(p.Type)
		}
		w.block(k.Body)
	}
	for _, c := range m.Consts {
		if a, ok := c.Ty.(*ir.Array); ok {
			if len(c.Elems) == 0 || a.Len <= 0 {
				w.add("const %s: Elems not set", c.Name)
			}
		} else if c.Val.Kind == 0 {
			w.add("const %s: Val not set", c.Name)
		}
		w.expr(c.Value)
	}
	for _, f := range m.Funcs {
		for _, p := range f.Params {
			w.typ(p.Type)
		}
		w.typ(f.Result)
		w.block(f.Body)
	}
	return w.probs
}

type walker struct{ probs []string }

func (w *walker) add(format string, args ...any) {
	w.probs = append(w.probs, fmt.Sprintf(format, args...))
}

func concrete(t ir.Type) bool {
	if t == nil {
		return false
	}
	s := t.String()
	return !strings.Contains(s, "untyped") && !strings.Contains(s, "invalid") && s != "no value"
}

func (w *walker) typ(t ir.Type) {
	if a, ok := t.(*ir.Array); ok {
		if a.Len <= 0 {
			w.add("array %s: Len not set", ir.TypeString(a))
		}
		if a.LenExpr != nil {
			w.expr(a.LenExpr)
		}
		w.typ(a.Elem)
	}
}

func (w *walker) block(b *ir.Block) {
	for _, s := range b.Stmts {
		w.stmt(s)
	}
}

func (w *walker) stmt(s ir.Stmt) {
	switch s := s.(type) {
	case *ir.Block:
		w.block(s)
	case *ir.Decl:
		if !concrete(s.Ty) {
			w.add("decl %s: Ty %v", s.Name, s.Ty)
		}
		w.typ(s.Type)
		if s.Init != nil {
			w.expr(s.Init)
		}
	case *ir.Assign:
		w.expr(s.LHS)
		w.expr(s.RHS)
	case *ir.If:
		w.expr(s.Cond)
		w.block(s.Then)
		if s.Else != nil {
			w.stmt(s.Else)
		}
	case *ir.For:
		if s.Init != nil {
			w.stmt(s.Init)
		}
		if s.Cond != nil {
			w.expr(s.Cond)
		}
		if s.Post != nil {
			w.stmt(s.Post)
		}
		w.block(s.Body)
	case *ir.ExprStmt:
		for _, a := range s.Call.Args {
			w.expr(a)
		}
	case *ir.CallStmt:
		if s.Call.Fn == nil {
			w.add("call of %s: Fn not set", s.Call.Name)
		}
		for _, a := range s.Call.Args {
			w.expr(a)
		}
	case *ir.Return:
		if s.Value != nil {
			w.expr(s.Value)
		}
	case *ir.Switch:
		w.expr(s.Tag)
		for _, c := range s.Cases {
			if len(c.Vals) != len(c.Values) {
				w.add("case at %s: Vals not set", c.Pos)
			}
			for _, v := range c.Values {
				w.expr(v)
			}
			w.block(c.Body)
		}
	}
}

func (w *walker) expr(e ir.Expr) {
	ok := concrete(e.Type())
	if c, isCall := e.(*ir.Call); isCall && c.Func == ir.AtomicStore {
		ok = e.Type() == nil
	}
	if !ok {
		w.add("%s: type %v", ir.ExprString(e), e.Type())
	}
	switch e := e.(type) {
	case *ir.Ident:
		if e.Obj == nil {
			w.add("%s: Obj not set", e.Name)
		}
	case *ir.Unary:
		w.expr(e.X)
	case *ir.Binary:
		w.expr(e.X)
		w.expr(e.Y)
	case *ir.Call:
		for _, a := range e.Args {
			w.expr(a)
		}
	case *ir.Convert:
		w.expr(e.X)
	case *ir.Construct:
		for _, a := range e.Args {
			w.expr(a)
		}
	case *ir.Bitcast:
		w.expr(e.X)
	case *ir.Index:
		w.expr(e.X)
		w.expr(e.Index)
	case *ir.Swizzle:
		if _, ok := e.X.Type().(ir.Vector); !ok {
			w.add("%s: swizzle of %v", ir.ExprString(e), e.X.Type())
		}
		w.expr(e.X)
	case *ir.Len:
		w.expr(e.Buf)
	case *ir.FnCall:
		if e.Fn == nil {
			w.add("call of %s: Fn not set", e.Name)
		}
		for _, a := range e.Args {
			w.expr(a)
		}
	case *ir.Field:
		if r, ok := e.X.Type().(ir.CompareExchangeResult); ok {
			if e.Index != 0 && e.Index != 1 || e.Name != []string{ir.FieldOldValue, ir.FieldExchanged}[e.Index] || (e.Index == 0) != (e.Ty == r.Elem) {
				w.add("%s: Index or Ty not set", ir.ExprString(e))
			}
		} else if s, ok := e.X.Type().(*ir.Struct); !ok || s.Fields[e.Index].Name != e.Name {
			w.add("%s: Index not set", ir.ExprString(e))
		}
		w.expr(e.X)
	case *ir.StructLit:
		for _, v := range e.Vals {
			w.expr(v)
		}
	case *ir.ArrayLit:
		w.typ(e.Array)
		for _, v := range e.Elems {
			w.expr(v)
		}
	}
}
