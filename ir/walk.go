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
		for _, k := range n.Kernels {
			out = append(out, k)
		}
		return out
	case *Const:
		return append(out, n.Value)
	case *Kernel:
		return kernelChildren(n, out)
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
	}
	return out
}

func exprList(list []Expr, out []Node) []Node {
	for _, a := range list {
		out = append(out, a)
	}
	return out
}
