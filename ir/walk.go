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
	for _, c := range children(n) {
		Inspect(c, f)
	}
	f(nil)
}

// children lists the direct children of n that are nodes, nils included.
func children(n Node) []Node {
	switch n := n.(type) {
	case *Module:
		var out []Node
		for _, c := range n.Consts {
			out = append(out, c)
		}
		for _, k := range n.Kernels {
			out = append(out, k)
		}
		return out
	case *Const:
		return []Node{n.Value}
	case *Kernel:
		return kernelChildren(n)
	default:
		if s, ok := n.(Stmt); ok {
			return stmtChildren(s)
		}
		if e, ok := n.(Expr); ok {
			return exprChildren(e)
		}
	}
	return nil
}

func kernelChildren(k *Kernel) []Node {
	var out []Node
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

func stmtChildren(s Stmt) []Node {
	switch s := s.(type) {
	case *Block:
		out := make([]Node, len(s.Stmts))
		for i, t := range s.Stmts {
			out[i] = t
		}
		return out
	case *Decl:
		return []Node{s.Init}
	case *Assign:
		return []Node{s.LHS, s.RHS}
	case *If:
		return []Node{s.Cond, s.Then, s.Else}
	case *For:
		return []Node{s.Init, s.Cond, s.Post, s.Body}
	case *ExprStmt:
		return []Node{s.Call}
	}
	return nil
}

func exprChildren(e Expr) []Node {
	switch e := e.(type) {
	case *Unary:
		return []Node{e.X}
	case *Binary:
		return []Node{e.X, e.Y}
	case *Call:
		return exprList(e.Args)
	case *Convert:
		return []Node{e.X}
	case *Construct:
		return exprList(e.Args)
	case *Bitcast:
		return []Node{e.X}
	case *Index:
		return []Node{e.X, e.Index}
	case *Swizzle:
		return []Node{e.X}
	case *Len:
		return []Node{e.Buf}
	}
	return nil
}

func exprList(list []Expr) []Node {
	out := make([]Node, len(list))
	for i, a := range list {
		out[i] = a
	}
	return out
}
