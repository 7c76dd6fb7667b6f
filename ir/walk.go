package ir

// Inspect traverses the tree rooted at n in depth-first order, as go/ast's
// Inspect does: it calls f(n); if f returns true, Inspect visits each child
// of n in source order, then calls f(nil). Nil children are skipped. Types
// are not traversed (an unresolved array length is not visited). Emitters
// and analyses use it instead of writing their own tree walks.
func Inspect(n Node, f func(Node) bool) {
	if isNil(n) || !f(n) {
		return
	}
	// Most nodes have at most four children: list them in an array on the
	// stack rather than a fresh slice (an emitter walks every node).
	var buf [4]Node
	for _, c := range children(n, buf[:0]) {
		Inspect(c, f)
	}
	f(nil)
}

// children appends the direct children of n that are nodes, nils
// included, to out.
func children(n Node, out []Node) []Node {
	switch n := n.(type) {
	case *Module:
		for _, c := range n.Consts {
			out = append(out, c)
		}
		for _, f := range n.Funcs {
			out = append(out, f)
		}
		for _, k := range n.Kernels {
			out = append(out, k)
		}
		return out
	case *Const:
		return append(out, n.Value)
	case *Kernel:
		return kernelChildren(n, out)
	case *Func:
		for _, p := range n.Params {
			out = append(out, p)
		}
		return append(out, n.Body)
	case *Case:
		return append(exprList(n.Values, out), n.Body)
	default:
		if s, ok := n.(Stmt); ok {
			return stmtChildren(s, out)
		}
		if e, ok := n.(Expr); ok {
			return exprChildren(e, out)
		}
	}
	return out
}

func kernelChildren(k *Kernel, out []Node) []Node {
	for _, p := range k.Params {
		out = append(out, p)
	}
	for _, e := range k.Workgroup {
		out = append(out, e)
	}
	for _, s := range k.Shared {
		out = append(out, s)
	}
	return append(out, k.Body)
}

func stmtChildren(s Stmt, out []Node) []Node {
	switch s := s.(type) {
	case *Block:
		for _, t := range s.Stmts {
			out = append(out, t)
		}
		return out
	case *Decl:
		return append(out, s.Init)
	case *Assign:
		return append(out, s.LHS, s.RHS)
	case *If:
		return append(out, s.Cond, s.Then, s.Else)
	case *For:
		return append(out, s.Init, s.Cond, s.Post, s.Body)
	case *ExprStmt:
		return append(out, s.Call)
	case *CallStmt:
		return append(out, s.Call)
	case *Return:
		return append(out, s.Value)
	case *Switch:
		out = append(out, s.Tag)
		for _, c := range s.Cases {
			out = append(out, c)
		}
		return out
	case *CoopStore:
		return append(out, s.M, s.Dst, s.Offset, s.Stride)
	}
	return out
}

func exprChildren(e Expr, out []Node) []Node {
	switch e := e.(type) {
	case *Unary:
		return append(out, e.X)
	case *Binary:
		return append(out, e.X, e.Y)
	case *Call:
		return exprList(e.Args, out)
	case *Convert:
		return append(out, e.X)
	case *Construct:
		return exprList(e.Args, out)
	case *Bitcast:
		return append(out, e.X)
	case *Index:
		return append(out, e.X, e.Index)
	case *Swizzle:
		return append(out, e.X)
	case *Len:
		return append(out, e.Buf)
	case *FnCall:
		return exprList(e.Args, out)
	case *Field:
		return append(out, e.X)
	case *StructLit:
		return exprList(e.Vals, out)
	case *ArrayLit:
		return exprList(e.Elems, out)
	case *CoopMake:
		return append(out, e.X)
	case *CoopLoad:
		return append(out, e.Src, e.Offset, e.Stride)
	case *CoopMulAdd:
		return append(out, e.A, e.B, e.C)
	case *CoopLength:
		return append(out, e.M)
	}
	return out
}

func exprList(list []Expr, out []Node) []Node {
	for _, a := range list {
		out = append(out, a)
	}
	return out
}

// replaceExprs replaces every expression e under n (statements, operands,
// arguments; not types) with f(e), children first. f returns e to keep it.
func replaceExprs(n Node, f func(Expr) Expr) {
	var ex func(e Expr) Expr
	list := func(es []Expr) {
		for i, e := range es {
			es[i] = ex(e)
		}
	}
	ex = func(e Expr) Expr {
		if isNil(e) {
			return e
		}
		switch e := e.(type) {
		case *Unary:
			e.X = ex(e.X)
		case *Binary:
			e.X, e.Y = ex(e.X), ex(e.Y)
		case *Call:
			list(e.Args)
		case *FnCall:
			list(e.Args)
		case *Convert:
			e.X = ex(e.X)
		case *Construct:
			list(e.Args)
		case *Bitcast:
			e.X = ex(e.X)
		case *Index:
			e.X, e.Index = ex(e.X), ex(e.Index)
		case *Swizzle:
			e.X = ex(e.X)
		case *Field:
			e.X = ex(e.X)
		case *StructLit:
			list(e.Vals)
		case *ArrayLit:
			list(e.Elems)
		case *CoopMake:
			e.X = ex(e.X)
		case *CoopLoad:
			e.Src = exIdent(ex, e.Src)
			e.Offset, e.Stride = ex(e.Offset), ex(e.Stride)
		case *CoopMulAdd:
			e.A, e.B, e.C = ex(e.A), ex(e.B), ex(e.C)
		case *CoopLength:
			e.M = ex(e.M)
		}
		return f(e)
	}
	var st func(s Stmt)
	st = func(s Stmt) {
		if isNil(s) {
			return
		}
		switch s := s.(type) {
		case *Block:
			for _, t := range s.Stmts {
				st(t)
			}
		case *Decl:
			s.Init = ex(s.Init)
		case *Assign:
			s.LHS, s.RHS = ex(s.LHS), ex(s.RHS)
		case *If:
			s.Cond = ex(s.Cond)
			st(s.Then)
			st(s.Else)
		case *For:
			if s.Init != nil {
				st(s.Init)
			}
			s.Cond = ex(s.Cond)
			if s.Post != nil {
				st(s.Post)
			}
			st(s.Body)
		case *Return:
			s.Value = ex(s.Value)
		case *Switch:
			s.Tag = ex(s.Tag)
			for _, k := range s.Cases {
				if k != nil {
					list(k.Values)
					st(k.Body)
				}
			}
		case *ExprStmt:
			if c, ok := ex(s.Call).(*Call); ok {
				s.Call = c
			}
		case *CallStmt:
			if c, ok := ex(s.Call).(*FnCall); ok {
				s.Call = c
			}
		case *CoopStore:
			s.M = ex(s.M)
			s.Dst = exIdent(ex, s.Dst)
			s.Offset, s.Stride = ex(s.Offset), ex(s.Stride)
		}
	}
	switch n := n.(type) {
	case Stmt:
		st(n)
	case Expr:
		ex(n)
	}
}

// exIdent applies ex to a buffer or shared-array name, keeping the name
// when ex replaces it by something that is not one.
func exIdent(ex func(Expr) Expr, id *Ident) *Ident {
	if id == nil {
		return nil
	}
	if r, ok := ex(id).(*Ident); ok {
		return r
	}
	return id
}
