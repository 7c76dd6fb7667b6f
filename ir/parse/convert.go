package parse

import (
	"math"
	"sort"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kcgo/kc/ir"
)

// converter turns the participle tree into ir nodes and reattaches the //
// comments (elided from the grammar) by position.
type converter struct {
	errs     ir.ErrorList
	comments []lexer.Token // every // comment, in source order
	next     int           // first comment not yet placed or dropped
	// lastConst: the declaration converted last is a const (a comment
	// trailing its line is its Comment)
	lastConst bool
	inKernel  *ir.Kernel
	toks      []lexer.Token         // every token of the file, comments included
	structs   map[string]*ir.Struct // made by structNames before parsing
	declared  map[string]bool       // struct names already converted
}

// tokenAt returns the index of the token at offset off, the start of a
// token that no other shares (not a ";" inserted at a line end).
func (c *converter) tokenAt(off int) int {
	return sort.Search(len(c.toks), func(i int) bool { return c.toks[i].Pos.Offset >= off })
}

// nextToken returns the index of the first token after toks[i] that is not
// a comment.
func (c *converter) nextToken(i int) int {
	for i++; i < len(c.toks)-1 && c.toks[i].Type == tokComment; i++ {
	}
	return i
}

// semiBefore reports whether the last token before the one at offset off,
// comments aside, is a ";" (inserted at a line end or written). off is the
// start of a statement, which no other token shares.
func (c *converter) semiBefore(off int) bool {
	for k := c.tokenAt(off) - 1; k >= 0; k-- {
		switch t := c.toks[k]; t.Type {
		case tokComment:
			continue
		case tokNewline, tokPunct:
			return t.Value == ";"
		default:
			return false
		}
	}
	return false
}

func (c *converter) errorf(p lexer.Position, format string, args ...any) {
	c.errs = append(c.errs, ir.Errorf(irPos(p), format, args...))
}

// commentsBefore returns the unplaced comments that start before off.
func (c *converter) commentsBefore(off int) []lexer.Token {
	start := c.next
	for c.next < len(c.comments) && c.comments[c.next].Pos.Offset < off {
		c.next++
	}
	return c.comments[start:c.next]
}

func (c *converter) file(f *fileAST, m *ir.Module) {
	for i, item := range f.Decls {
		d := item.Decl
		// A declaration at the start of a line began a new parse segment
		// (splitTopLevel); the one before it ended there.
		if !item.Semi && i < len(f.Decls)-1 && f.Decls[i+1].Pos.Column != 1 {
			c.errorf(f.Decls[i+1].Pos, "missing newline or \";\" before this declaration")
		}
		if d.Enable != nil {
			// Comments above the first enable are the file's header
			// (Module.Doc); those above later enables stay pending for the
			// next declaration.
			if i == 0 {
				m.Doc, m.DocComments = docOf(c.commentsBefore(d.Pos.Offset))
			}
			c.enable(d.Enable, m)
			continue
		}
		var docToks []lexer.Token
		for _, t := range c.commentsBefore(d.Pos.Offset) {
			if c.trailing(t) && len(m.Consts) > 0 && len(docToks) == 0 && c.lastConst {
				// after the previous const, on its line
				k := m.Consts[len(m.Consts)-1]
				k.Comment = strings.TrimSpace(k.Comment + " " + t.Value)
				continue
			}
			docToks = append(docToks, t)
		}
		doc, raw := docOf(docToks)
		c.lastConst = d.Const != nil
		switch {
		case d.Const != nil:
			k := c.constDecl(d.Const)
			k.Doc, k.DocComments = doc, raw
			m.Consts = append(m.Consts, k)
		case d.Struct != nil:
			if s := c.structDecl(d.Struct); s != nil {
				s.Doc, s.DocComments = doc, raw
				m.Structs = append(m.Structs, s)
			}
		case d.Func != nil:
			f := c.funcDecl(d.Func, d.Precise)
			f.Doc, f.DocComments = doc, raw
			m.Funcs = append(m.Funcs, f)
		case d.Kernel != nil:
			k := c.kernel(d.Kernel)
			k.Doc, k.DocComments = doc, raw
			k.Precise = d.Precise
			m.Kernels = append(m.Kernels, k)
		}
		// Comments inside a declaration but outside kernel bodies are dropped.
		c.commentsBefore(d.EndPos.Offset)
	}
	c.trailer(f, m)
}

// trailer keeps the comments after the last declaration (Module.Trailer),
// with a "" for each gap of blank lines, so that kc fmt does not drop the
// run directives written there.
func (c *converter) trailer(f *fileAST, m *ir.Module) {
	last := 0
	if n := len(f.Decls); n > 0 {
		last = f.Decls[n-1].Decl.EndPos.Line
	}
	for _, t := range c.commentsBefore(math.MaxInt) {
		if last > 0 && t.Pos.Line > last+1 {
			m.Trailer = append(m.Trailer, "")
		}
		m.Trailer = append(m.Trailer, t.Value)
		last = t.Pos.Line + strings.Count(t.Value, "\n")
	}
}

func (c *converter) enable(e *enableAST, m *ir.Module) {
	f, ok := ir.FeatureByName(e.Name)
	if !ok {
		c.errorf(e.Pos, "unknown feature %s in enable (want f16, subgroups, cooperative_matrix, cooperative_matrix2, packed_4x8_integer_dot_product, bf16 or int8)", e.Name)
		return
	}
	m.Enables = append(m.Enables, &ir.Enable{Pos: irPos(e.Pos), Feature: f})
}

func (c *converter) constDecl(d *constAST) *ir.Const {
	c.checkName(d.Pos, d.Name)
	k := &ir.Const{Pos: irPos(d.Pos), Name: d.Name, Value: c.needValue(d.Value, d.Eq.Pos, "const "+d.Name+" =")}
	if d.Type != nil {
		k.Type = c.typ(d.Type)
	}
	return k
}

func (c *converter) kernel(d *kernelAST) *ir.Kernel {
	c.checkName(d.Pos, d.Name)
	k := &ir.Kernel{Pos: irPos(d.Pos), Name: d.Name}
	for _, p := range d.Params {
		k.Params = append(k.Params, c.param(p, false))
	}
	c.paramComments(d, k)
	if len(d.Workgroup) > 3 {
		c.errorf(d.Workgroup[3].node().Pos, "workgroup takes one to three sizes, not %d", len(d.Workgroup))
	}
	for _, w := range d.Workgroup {
		k.Workgroup = append(k.Workgroup, c.value(w))
	}
	c.inKernel = k
	k.Body = c.block(d.Body, true)
	c.inKernel = nil
	return k
}

func (c *converter) param(p *paramAST, inFunc bool) *ir.Param {
	c.checkName(p.Pos, p.Name)
	out := &ir.Param{Pos: irPos(p.Pos), Name: p.Name}
	if p.Access == "shared" {
		if !inFunc {
			c.errorf(p.Type.Pos, "kernel parameters cannot be shared: declare shared %s in the kernel body", p.Name)
		}
		out.Kind = ir.SharedParam
		out.Type = c.typ(p.Type)
		return out
	}
	if a := p.Type; a.Array && a.Len == nil {
		out.Kind = ir.BufferParam
		out.Type = c.typ(a.Elem)
		switch p.Access {
		case "read":
			out.Access = ir.Read
		case "read_write":
			out.Access = ir.ReadWrite
		default:
			c.errorf(p.Type.Pos, "buffer %s needs an access mode: %s read []T or %s read_write []T", p.Name, p.Name, p.Name)
			out.Access = ir.Read
		}
		return out
	}
	if p.Access != "" {
		c.errorf(p.Type.Pos, "%s applies to buffers: %s %s []%s", p.Access, p.Name, p.Access, ir.TypeString(c.typ(p.Type)))
	}
	out.Kind = ir.ScalarParam
	if inFunc {
		out.Kind = ir.ValueParam
	}
	out.Type = c.typ(p.Type)
	return out
}

// checkName rejects declaring a name that the parser resolves by itself
// (types, builtins, intrinsics), which could never be referred to.
func (c *converter) checkName(p lexer.Position, name string) {
	_, isScalar := ir.ScalarByName(name)
	_, isBuiltin := ir.BuiltinByName(name)
	_, isIntrinsic := ir.IntrinsicByName(name)
	switch {
	case isScalar || vecWidth(name) > 0 || name == "atomic" || isCoopName(name) || name == "bitcast" || name == "len":
		c.errorf(p, "cannot use the predeclared name %s as a name", name)
	case isBuiltin:
		c.errorf(p, "cannot use the builtin value %s as a name", name)
	case isIntrinsic || name == "workgroupBarrier" || name == "storageBarrier":
		c.errorf(p, "cannot use the function name %s as a name", name)
	}
}

// value unwraps an expression that must have a value.
func (c *converter) value(n exprNode) ir.Expr {
	if n == nil {
		return nil
	}
	b := n.node()
	if b.Barrier != 0 {
		c.errorf(b.Pos, "%s() is a statement and has no value", b.Barrier)
		return &ir.Lit{Pos: irPos(b.Pos), Val: ir.IntVal(0)}
	}
	if b.Store != nil {
		c.errorf(b.Pos, "coopStore(...) is a statement and has no value")
		return &ir.Lit{Pos: irPos(b.Pos), Val: ir.IntVal(0)}
	}
	return b.E
}

// needValue unwraps a required expression the grammar left optional,
// reporting its absence after what (at pos, the token before it).
func (c *converter) needValue(n exprNode, pos lexer.Position, what string) ir.Expr {
	if n == nil {
		c.errorf(pos, "missing expression after %s", what)
		return &ir.Lit{Pos: irPos(pos), Val: ir.IntVal(0)}
	}
	return c.value(n)
}

func (c *converter) typ(t *typeAST) ir.Type {
	switch {
	case t == nil:
		return ir.Invalid
	case t.Array && t.Len == nil:
		c.errorf(t.Pos, "[]%s: only buffer parameters have a slice type; arrays need a length, as in [4]%s", ir.TypeString(c.typ(t.Elem)), ir.TypeString(c.typ(t.Elem)))
		return ir.Invalid
	case t.Array:
		return &ir.Array{Elem: c.typ(t.Elem), LenExpr: c.value(t.Len)}
	}
	n := t
	if n.Num != "" {
		c.errorf(n.Pos, "unexpected number %s, want a type", n.Num)
		return ir.Invalid
	}
	if n.Name == "coopmat" {
		return c.coopType(n)
	}
	if len(n.More) > 0 {
		c.errorf(n.More[0].Pos, "%s takes one type argument", n.Name)
		return ir.Invalid
	}
	if s, ok := ir.ScalarByName(n.Name); ok {
		if n.Arg != nil {
			c.errorf(n.Arg.Pos, "%s takes no type argument", n.Name)
		}
		return s
	}
	switch n.Name {
	case "vec2", "vec3", "vec4", "atomic":
		if n.Arg == nil {
			c.errorf(n.Pos, "%s needs an element type, as in %s<%s>", n.Name, n.Name, map[bool]string{true: "u32", false: "f32"}[n.Name == "atomic"])
			return ir.Invalid
		}
		elem, ok := c.typ(n.Arg).(ir.Scalar)
		if !ok {
			c.errorf(n.Arg.Pos, "the element type of %s must be a scalar type", n.Name)
			return ir.Invalid
		}
		if n.Name == "atomic" {
			return ir.Atomic{Elem: elem}
		}
		return ir.Vec(elem, vecWidth(n.Name))
	}
	if s := c.structs[n.Name]; s != nil {
		if n.Arg != nil {
			c.errorf(n.Arg.Pos, "%s takes no type argument", n.Name)
		}
		return s
	}
	c.errorf(n.Pos, "unknown type %s", n.Name)
	return ir.Invalid
}

// block converts a braced block; top says it is a kernel body, where shared
// declarations are allowed.
func (c *converter) block(b *blockAST, top bool) *ir.Block {
	out := &ir.Block{Pos: irPos(b.Pos)}
	// Comments before the "{" (in a parameter list, a condition) are dropped.
	c.commentsBefore(b.Pos.Offset)
	var prevShared *ir.Shared // the declaration of the previous item
	for i, it := range b.Items {
		// A shared declaration moves to the top of the body (kc fmt): the
		// comments on the lines above it and the one after it on its line
		// move with it; the others stay put.
		var doc []string
		for _, t := range c.commentsBefore(it.Pos.Offset) {
			switch {
			case prevShared != nil && c.trailing(t):
				prevShared.Comment = strings.TrimSpace(prevShared.Comment + " " + t.Value)
			case it.Shared != nil && top && c.inKernel != nil && !c.trailing(t):
				doc = append(doc, t.Value)
			default:
				out.Stmts = append(out.Stmts, c.commentStmt(t))
			}
		}
		prevShared = nil
		nShared := 0
		if c.inKernel != nil {
			nShared = len(c.inKernel.Shared)
		}
		// A statement takes the ";" after it, if any (see itemAST).
		if i < len(b.Items)-1 && !c.semiBefore(b.Items[i+1].Pos.Offset) {
			c.errorf(b.Items[i+1].Pos, "missing newline or \";\" before this statement")
		}
		if s := c.stmt(it, top); s != nil {
			out.Stmts = append(out.Stmts, s)
		}
		if c.inKernel != nil && len(c.inKernel.Shared) > nShared {
			prevShared = c.inKernel.Shared[nShared]
			prevShared.Doc = doc
		}
		// Comments inside the statement, outside its blocks, are dropped
		// (those after its last token are the next statement's).
		c.commentsBefore(c.codeEnd(it.EndPos.Offset))
	}
	// Comments before the closing brace.
	for _, t := range c.commentsBefore(b.EndPos.Offset) {
		if prevShared != nil && c.trailing(t) {
			prevShared.Comment = strings.TrimSpace(prevShared.Comment + " " + t.Value)
			continue
		}
		out.Stmts = append(out.Stmts, c.commentStmt(t))
	}
	return out
}

func (c *converter) stmt(s *itemAST, top bool) ir.Stmt {
	pos := irPos(s.Pos)
	switch {
	case s.Shared != nil:
		if !top || c.inKernel == nil {
			c.errorf(s.Pos, "shared %s must be declared at the top level of the kernel body", s.Shared.Name)
			return nil
		}
		c.checkName(s.Pos, s.Shared.Name)
		c.inKernel.Shared = append(c.inKernel.Shared, &ir.Shared{Pos: pos, Name: s.Shared.Name, Type: c.typ(s.Shared.Type)})
		return nil
	case s.Decl != nil:
		return c.decl(s.Decl, s.Pos)
	case s.If != nil:
		return c.ifStmt(s.If, s.Pos)
	case s.For != nil:
		return c.forStmt(s.For, s.Pos)
	case s.Break:
		return &ir.Break{Pos: pos}
	case s.Continue:
		return &ir.Continue{Pos: pos}
	case s.Return:
		return &ir.Return{Pos: pos, Value: c.value(s.RetVal)}
	case s.Switch != nil:
		return c.switchStmt(s.Switch, s.Pos)
	case s.Block != nil:
		return c.block(s.Block, false)
	case s.Simple != nil:
		return c.simple(s.Simple)
	}
	return nil
}

// decl converts a declaration that starts at pos: let or var, then its
// name, then "=" when it has no type (see declAST).
func (c *converter) decl(d *declAST, pos lexer.Position) ir.Stmt {
	kw := c.tokenAt(pos.Offset)
	nameTok := c.nextToken(kw)
	kind, name := c.toks[kw].Value, c.toks[nameTok].Value
	c.checkName(pos, name)
	out := &ir.Decl{Pos: irPos(pos), Name: name, Mut: kind == "var"}
	var eq *lexer.Token
	switch {
	case d.TEq != nil:
		eq, d.Init = d.TEq, d.TInit
	case d.Type == nil:
		if t := &c.toks[c.nextToken(nameTok)]; t.Type == tokAssign && t.Value == "=" {
			eq = t
		}
	}
	if eq != nil {
		out.Init = c.needValue(d.Init, eq.Pos, kind+" "+name+" =")
	}
	if d.Type != nil {
		out.Type = c.typ(d.Type)
	}
	switch {
	case !out.Mut && out.Init == nil:
		c.errorf(pos, "let %s needs a value: let %s = ...", name, name)
	case out.Init == nil && out.Type == nil:
		c.errorf(pos, "var %s needs a type or a value", name)
	}
	return out
}

// ifStmt converts an if statement whose "if" is at pos.
func (c *converter) ifStmt(s *ifAST, pos lexer.Position) *ir.If {
	out := &ir.If{Pos: irPos(pos), Cond: c.needValue(s.Cond, s.Then.Pos, "if"), Then: c.block(s.Then, false)}
	switch {
	case s.ElseIf != nil:
		out.Else = c.ifStmt(s.ElseIfSt, s.ElseIf.Pos)
	case s.Else != nil:
		out.Else = c.block(s.Else, false)
	}
	return out
}

// forStmt converts a for statement that starts at pos.
func (c *converter) forStmt(s *forAST, pos lexer.Position) *ir.For {
	out := &ir.For{Pos: irPos(pos)}
	if s.Clause == nil {
		// for { } or for cond { }
		if s.First != nil {
			if s.First.Op != nil || s.First.Inc != nil {
				c.errorf(s.First.pos(), "expected a condition after for; a loop with a statement is written for init; cond; post {")
			} else {
				out.Cond = c.value(s.First.LHS)
			}
		}
	} else {
		if s.First != nil {
			out.Init = c.forInit(s.First)
		}
		out.Cond = c.value(s.Clause.Cond)
		if s.Clause.Post != nil {
			out.Post = c.forPost(s.Clause.Post)
		}
	}
	out.Body = c.block(s.Body, false)
	return out
}

func (c *converter) forInit(s *simpleAST) *ir.Decl {
	if s.Op == nil || s.Op.Value != ":=" {
		c.errorf(s.pos(), "the init statement of a for loop must declare its variable: for i := 0; ...")
		return nil
	}
	st := c.simple(s)
	d, _ := st.(*ir.Decl)
	return d
}

func (c *converter) forPost(s *simpleAST) *ir.Assign {
	if (s.Op == nil || s.Op.Value == ":=") && s.Inc == nil {
		c.errorf(s.pos(), "the post statement of a for loop must be an assignment, ++ or --")
		return nil
	}
	st := c.simple(s)
	a, _ := st.(*ir.Assign)
	return a
}

var assignOps = map[string]ir.BinaryOp{
	"=": ir.OpNone, "+=": ir.OpAdd, "-=": ir.OpSub, "*=": ir.OpMul, "/=": ir.OpDiv,
	"%=": ir.OpRem, "&=": ir.OpAnd, "|=": ir.OpOr, "^=": ir.OpXor, "<<=": ir.OpShl, ">>=": ir.OpShr,
}

func (c *converter) simple(s *simpleAST) ir.Stmt {
	pos := irPos(s.pos())
	lhs := s.LHS.node()
	switch {
	case s.Inc != nil:
		op := ir.OpAdd
		if s.Inc.Value == "--" {
			op = ir.OpSub
		}
		return &ir.Assign{Pos: pos, LHS: c.value(s.LHS), Op: op, RHS: &ir.Lit{Pos: irPos(s.Inc.Pos), Val: ir.IntVal(1)}}
	case s.Op != nil && s.Op.Value == ":=":
		id, ok := lhs.E.(*ir.Ident)
		if !ok {
			c.errorf(s.Op.Pos, "non-name on the left side of :=")
			return nil
		}
		c.checkName(s.pos(), id.Name)
		return &ir.Decl{Pos: pos, Name: id.Name, Mut: true, Init: c.needValue(s.RHS, s.Op.Pos, s.Op.Value)}
	case s.Op != nil:
		return &ir.Assign{Pos: pos, LHS: c.value(s.LHS), Op: assignOps[s.Op.Value], RHS: c.needValue(s.RHS, s.Op.Pos, s.Op.Value)}
	case lhs.Barrier != 0:
		return &ir.Barrier{Pos: pos, Kind: lhs.Barrier}
	case lhs.Store != nil:
		return lhs.Store
	}
	if call, ok := lhs.E.(*ir.Call); ok {
		return &ir.ExprStmt{Pos: pos, Call: call}
	}
	if call, ok := lhs.E.(*ir.FnCall); ok {
		return &ir.CallStmt{Pos: pos, Call: call}
	}
	c.errorf(s.pos(), "%s is evaluated but not used", ir.ExprString(lhs.E))
	return nil
}

// pos is where a simple statement starts: at its first expression.
func (s *simpleAST) pos() lexer.Position { return s.LHS.node().Pos }

// commentText is a // comment's text without the //. A /* */ comment
// (which here can only be a declaration's documentation) gives its text
// without the delimiters, each of its lines a doc line.
func commentText(t lexer.Token) string { return strings.TrimPrefix(t.Value, "//") }

// docLines are the documentation lines a comment token gives.
func docLines(t lexer.Token) []string {
	if !isBlock(t) {
		return []string{commentText(t)}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(t.Value, "/*"), "*/"), "\n") {
		out = append(out, " "+strings.TrimSpace(l))
	}
	return out
}

// docOf gives the documentation of the comments above a declaration: its
// lines, and the comments as written when one of them is a /* */ comment
// (so that kc fmt keeps it one; nil otherwise).
func docOf(toks []lexer.Token) (lines, comments []string) {
	block := false
	for _, t := range toks {
		lines = append(lines, docLines(t)...)
		block = block || isBlock(t)
	}
	if block {
		for _, t := range toks {
			comments = append(comments, t.Value)
		}
	}
	return lines, comments
}

func isBlock(t lexer.Token) bool { return strings.HasPrefix(t.Value, "/*") }

// commentStmt makes the comment statement of token t.
func (c *converter) commentStmt(t lexer.Token) *ir.Comment {
	s := &ir.Comment{Pos: irPos(t.Pos), Text: commentText(t), Trailing: c.trailing(t)}
	if isBlock(t) {
		s.Block = true
		s.Text = strings.TrimSuffix(strings.TrimPrefix(t.Value, "/*"), "*/")
	}
	return s
}

// trailing reports whether comment t follows code on its line.
func (c *converter) trailing(t lexer.Token) bool {
	for k := c.tokenAt(t.Pos.Offset) - 1; k >= 0; k-- {
		switch p := c.toks[k]; p.Type {
		case tokComment, tokNewline:
			if p.Type == tokNewline && p.Value == ";" && p.Pos.Line != t.Pos.Line {
				return false
			}
			continue
		default:
			return p.Pos.Line == t.Pos.Line
		}
	}
	return false
}

// paramComments gives the comments of a parameter list to its parameters:
// one that follows a parameter on its line is that parameter's Comment, one
// on a line of its own is Doc of the parameter after it (or, after the
// last, the last one's Comment). Comments in the workgroup list are
// dropped with the others inside the declaration.
func (c *converter) paramComments(d *kernelAST, k *ir.Kernel) {
	end := d.Body.Pos.Offset
	if len(d.Workgroup) > 0 {
		end = d.Workgroup[0].node().Pos.Offset
	}
	if len(k.Params) == 0 {
		return
	}
	for _, t := range c.commentsBefore(end) {
		if t.Pos.Offset < d.Params[0].Pos.Offset {
			k.Params[0].Doc = append(k.Params[0].Doc, t.Value)
			continue
		}
		j := 0 // the last parameter before the comment
		for j+1 < len(d.Params) && d.Params[j+1].Pos.Offset < t.Pos.Offset {
			j++
		}
		switch {
		case c.trailing(t) || j+1 == len(k.Params):
			k.Params[j].Comment = strings.TrimSpace(k.Params[j].Comment + " " + t.Value)
		default:
			k.Params[j+1].Doc = append(k.Params[j+1].Doc, t.Value)
		}
	}
}

// codeEnd is the offset just past the last token before off that is
// neither a comment nor a ";": where a statement ending at off really ends.
func (c *converter) codeEnd(off int) int {
	for k := c.tokenAt(off) - 1; k >= 0; k-- {
		t := c.toks[k]
		if t.Type == tokComment || t.Value == ";" && (t.Type == tokNewline || t.Type == tokPunct) {
			continue
		}
		return t.Pos.Offset + len(t.Value)
	}
	return off
}
