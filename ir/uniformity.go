package ir

import "fmt"

// Uniformity analysis for barriers, close to WGSL's (and so Tint's) rules:
// workgroupBarrier and storageBarrier must be reached in workgroup-uniform
// control flow.
//
// Non-uniform values: global_id, local_id, local_index,
// subgroup_invocation_id; loads from read_write buffers and from shared
// memory; results of atomics and subgroup operations; anything computed
// from those; and a local that is ever assigned a non-uniform value, or
// assigned (or, for a var, declared) in non-uniform control flow
// (flow-insensitive). Uniform values: literals, constants, scalar
// parameters, workgroup_id, num_workgroups, subgroup_size, len(buf) and
// loads from read buffers at uniform indices.
//
// Control flow becomes non-uniform inside an if or for whose condition is
// non-uniform; for the rest of the kernel after a return in non-uniform
// control flow; and for a whole loop (body, post statement, every
// iteration) containing a break, continue or return in non-uniform control
// flow. After a loop, control flow reconverges unless a return escaped it.
//
// The analysis iterates to a fixed point over the whole kernel (a local
// marked non-uniform can make a condition non-uniform, which marks more
// locals), then reports each barrier found in non-uniform control flow.

type uniformity struct {
	c       *checker
	vars    map[*Decl]string // non-uniform locals: the root cause of each
	loops   map[*For]*cause  // loops containing a non-uniform jump
	loopStk []*For           // enclosing loops; nil for an enclosing switch
	ret     *cause           // a return in non-uniform control flow seen so far (this walk)
	changed bool
	report  bool

	// Calls: a function body is analysed at each call, with the uniformity
	// of its value arguments (params) and the caller's control flow (entry).
	cf      *cause            // control flow of the statement being analysed
	params  map[*Param]string // value parameters: the root of each non-uniform argument
	entry   *cause            // the control flow the function was called in
	blame   *FnCall           // the outermost call whose control flow entry is
	retVal  string            // why the function's result may be non-uniform
	depth   int               // nesting of calls being analysed
	fn      bool              // analysing a function on its own (funcUniformity)
	collect bool              // only collect ownDiverge, report nothing
}

// cause says why control flow is non-uniform: "the condition at 3:5
// depends on global_id".
type cause struct {
	what string // "the condition", "the return", ...
	pos  Pos
	root string // "global_id", "a load from read_write buffer y", ...
}

func (c *cause) String() string {
	at := ""
	if c.pos.IsValid() {
		at = fmt.Sprintf(" at %d:%d", c.pos.Line, c.pos.Col)
	}
	return fmt.Sprintf("%s%s depends on %s", c.what, at, c.root)
}

// uniformity checks the barriers of a well-typed kernel.
func (c *checker) uniformity(k *Kernel) {
	if k.Body == nil {
		return
	}
	u := &uniformity{c: c, vars: map[*Decl]string{}, loops: map[*For]*cause{}}
	u.run(k.Body.Stmts, nil, false)
	u.run(k.Body.Stmts, nil, true)
}

// funcUniformity checks the barriers of a function on its own (uniform
// arguments, called in uniform control flow): a barrier after divergence
// inside the function is reported at the barrier even if no kernel calls it.
func (c *checker) funcUniformity(f *Func, collect bool) {
	if f.Body == nil {
		return
	}
	u := &uniformity{c: c, vars: map[*Decl]string{}, loops: map[*For]*cause{}, fn: true, collect: collect}
	u.run(f.Body.Stmts, nil, false)
	u.run(f.Body.Stmts, nil, true)
}

// run iterates the analysis of body to a fixed point, or (report) makes
// the final pass that reports.
func (u *uniformity) run(body []Stmt, cf *cause, report bool) {
	u.report = report
	if report {
		u.ret, u.retVal = nil, ""
		u.block(body, cf)
		return
	}
	for i := 0; i < 1000; i++ {
		u.changed, u.ret, u.retVal = false, nil, ""
		u.block(body, cf)
		if !u.changed {
			break
		}
	}
}

// block walks a statement list entered with control flow cf (nil: uniform)
// and returns the control flow after it.
func (u *uniformity) block(list []Stmt, cf *cause) *cause {
	for _, s := range list {
		cf = u.stmt(s, cf)
		if cf == nil && u.ret != nil {
			cf = u.ret
		}
	}
	return cf
}

func (u *uniformity) stmt(s Stmt, cf *cause) *cause {
	u.cf = cf
	switch s := s.(type) {
	case *Block:
		return u.block(s.Stmts, cf)
	case *Decl:
		u.decl(s, cf)
	case *Assign:
		u.assign(s, cf)
	case *If:
		u.ifStmt(s, cf)
	case *For:
		u.forStmt(s, cf)
	case *Break:
		u.jump("the break", s.Pos, cf)
	case *Continue:
		u.jump("the continue", s.Pos, cf)
	case *Return:
		u.returnStmt(s, cf)
	case *Barrier:
		u.barrier(s, cf)
	case *Switch:
		u.switchStmt(s, cf)
	case *CallStmt:
		u.expr(s.Call)
	case *CoopStore:
		u.coopOp("coopStore", s.Pos, s)
		u.first(s.M, s.Offset, s.Stride)
	}
	return cf
}

// barrier reports a barrier in non-uniform control flow: at the call when
// the non-uniformity comes from the caller (naming both places), at the
// barrier otherwise.
func (u *uniformity) barrier(s *Barrier, cf *cause) {
	if cf == nil || !u.report || u.collect && u.depth > 0 {
		return
	}
	if u.blame == nil && u.depth == 0 && u.fn {
		// Analysing a function on its own: this barrier diverges whatever
		// the call; report it once here, not again at every call.
		if u.c.ownDiverge == nil {
			u.c.ownDiverge = map[Node]bool{}
		}
		u.c.ownDiverge[s] = true
		if u.collect {
			return
		}
	}
	if u.blame != nil && cf != u.entry && u.c.ownDiverge[s] {
		return
	}
	if cf == u.entry && u.blame != nil {
		u.c.errorf(u.blame.Pos, "call of %s reaches %s%s, which must be called in uniform control flow: %s",
			u.blame.Name, s.Kind, atText(s.Pos), cf)
		return
	}
	in := ""
	if u.blame != nil {
		in = fmt.Sprintf(" (in %s, called%s)", u.blame.Name, atText(u.blame.Pos))
	}
	u.c.errorf(s.Pos, "%s must be called in uniform control flow: %s%s", s.Kind, cf, in)
}

func (u *uniformity) returnStmt(s *Return, cf *cause) {
	if s.Value != nil && u.retVal == "" {
		if r := u.expr(s.Value); r != "" {
			u.retVal = r
		} else if cf != nil && cf != u.entry {
			u.retVal = cf.root
		}
	}
	u.jump("the return", s.Pos, cf)
}

// switchStmt: a non-uniform tag makes every case non-uniform; a break in a
// case leaves only the switch, which reconverges after it.
func (u *uniformity) switchStmt(s *Switch, cf *cause) {
	inner := cf
	if inner == nil {
		if r := u.expr(s.Tag); r != "" {
			inner = &cause{what: "the switch tag", pos: leftmost(s.Tag, s.Pos), root: r}
		}
	} else {
		u.expr(s.Tag)
	}
	u.loopStk = append(u.loopStk, nil)
	for _, k := range s.Cases {
		if k != nil && k.Body != nil {
			u.block(k.Body.Stmts, inner)
		}
	}
	u.loopStk = u.loopStk[:len(u.loopStk)-1]
}

// fnCall analyses the callee's body for this call: its barriers, and
// whether its result is uniform.
func (u *uniformity) fnCall(e *FnCall) string {
	f := e.Fn
	cf := u.cf
	var roots map[*Param]string
	first := ""
	for i, a := range e.Args {
		if f == nil || i >= len(f.Params) || f.Params[i] == nil || f.Params[i].IsResource() {
			continue
		}
		if r := u.expr(a); r != "" {
			if roots == nil {
				roots = map[*Param]string{}
			}
			roots[f.Params[i]] = r
			if first == "" {
				first = r
			}
		}
	}
	u.cf = cf
	if f == nil || f.Body == nil || u.depth > 64 {
		return first
	}
	sub := &uniformity{c: u.c, vars: map[*Decl]string{}, loops: map[*For]*cause{}, params: roots, entry: cf, depth: u.depth + 1}
	sub.blame, sub.collect = e, u.collect
	if cf != nil && cf == u.entry && u.blame != nil {
		sub.blame = u.blame
	}
	sub.run(f.Body.Stmts, cf, false)
	if u.report {
		sub.run(f.Body.Stmts, cf, true)
	}
	u.cf = cf
	return sub.retVal
}

func (u *uniformity) decl(d *Decl, cf *cause) {
	if d.Init != nil {
		if r := u.expr(d.Init); r != "" {
			u.mark(d, r)
			return
		}
	}
	if _, done := u.vars[d]; d.Mut && cf != nil && !done {
		u.mark(d, fmt.Sprintf("%s (declared in non-uniform control flow%s)", d.Name, atText(d.Pos)))
	}
}

func atText(p Pos) string {
	if !p.IsValid() {
		return ""
	}
	return fmt.Sprintf(" at %d:%d", p.Line, p.Col)
}

// mark records that local d is non-uniform because of root.
func (u *uniformity) mark(d *Decl, root string) {
	if _, ok := u.vars[d]; !ok {
		u.vars[d] = root
		u.changed = true
	}
}

func (u *uniformity) assign(a *Assign, cf *cause) {
	if x, ok := a.LHS.(*Index); ok && IsCoopMat(x.X.Type()) {
		// every invocation writes an element of its own, together
		u.coopOp("an assignment to a cooperative-matrix element", a.Pos, a)
	}
	d := rootLocal(a.LHS)
	if d == nil {
		u.expr(a.LHS)
		u.expr(a.RHS)
		return
	}
	if r := u.lhsIndices(a.LHS); r != "" {
		u.mark(d, r)
	}
	if r := u.expr(a.RHS); r != "" {
		u.mark(d, r)
	}
	if _, done := u.vars[d]; cf != nil && !done {
		u.mark(d, fmt.Sprintf("%s (assigned in non-uniform control flow%s)", d.Name, atText(a.Pos)))
	}
}

// rootLocal returns the local variable at the root of an assignment target.
func rootLocal(e Expr) *Decl {
	for {
		switch x := e.(type) {
		case *Index:
			e = x.X
		case *Swizzle:
			e = x.X
		case *Field:
			e = x.X
		case *Ident:
			d, _ := x.Obj.(*Decl)
			return d
		default:
			return nil
		}
	}
}

// lhsIndices is the first non-uniform index along an assignment target.
func (u *uniformity) lhsIndices(e Expr) string {
	for {
		switch x := e.(type) {
		case *Index:
			if r := u.expr(x.Index); r != "" {
				return r
			}
			e = x.X
		case *Swizzle:
			e = x.X
		case *Field:
			e = x.X
		default:
			return ""
		}
	}
}

func (u *uniformity) ifStmt(s *If, cf *cause) {
	inner := cf
	if inner == nil {
		if r := u.expr(s.Cond); r != "" {
			inner = &cause{what: "the condition", pos: leftmost(s.Cond, s.Pos), root: r}
		}
	}
	if s.Then != nil {
		u.block(s.Then.Stmts, inner)
	}
	if s.Else != nil {
		u.stmt(s.Else, inner)
	}
}

func (u *uniformity) forStmt(s *For, cf *cause) {
	if s.Init != nil {
		u.decl(s.Init, cf)
	}
	inner := cf
	if inner == nil {
		inner = u.loops[s]
	}
	if inner == nil && s.Cond != nil {
		if r := u.expr(s.Cond); r != "" {
			inner = &cause{what: "the loop condition", pos: leftmost(s.Cond, s.Pos), root: r}
		}
	}
	u.loopStk = append(u.loopStk, s)
	u.cf = inner
	if s.Body != nil {
		inner = orCause(u.block(s.Body.Stmts, inner), inner)
	}
	u.loopStk = u.loopStk[:len(u.loopStk)-1]
	if s.Post != nil {
		u.cf = inner
		u.assign(s.Post, inner)
	}
}

// innermost is the loop a break or continue affects: a break in a switch
// (a nil entry) affects only the switch, which reconverges after it.
func innermost(stk []*For, isBreak bool) []*For {
	for i := len(stk) - 1; i >= 0; i-- {
		if stk[i] != nil || isBreak {
			return stk[i : i+1]
		}
	}
	return nil
}

func orCause(a, b *cause) *cause {
	if a != nil {
		return a
	}
	return b
}

// jump handles break, continue and return in control flow cf.
func (u *uniformity) jump(what string, pos Pos, cf *cause) {
	if cf == nil {
		return
	}
	isReturn := what == "the return"
	c := &cause{what: what, pos: pos, root: cf.root}
	loops := u.loopStk
	if !isReturn {
		loops = innermost(loops, what == "the break")
	}
	for _, l := range loops {
		if l != nil && u.loops[l] == nil {
			u.loops[l] = c
			u.changed = true
		}
	}
	if isReturn && u.ret == nil {
		u.ret = c
	}
}

// leftmost is the position where expression e starts (a binary
// expression's own position is its operator's).
func leftmost(e Expr, fallback Pos) Pos {
	for {
		switch x := e.(type) {
		case *Binary:
			e = x.X
		case *Index:
			e = x.X
		case *Swizzle:
			e = x.X
		default:
			return posOf(e, fallback)
		}
	}
}

// expr returns why e's value may differ between the invocations of a
// workgroup ("" when it is uniform).
func (u *uniformity) expr(e Expr) string {
	switch e := e.(type) {
	case *Ident:
		return u.ident(e)
	case *BuiltinValue:
		switch e.Kind {
		case WorkgroupID, NumWorkgroups, SubgroupSize:
			return ""
		}
		return e.Kind.String()
	case *Unary:
		return u.expr(e.X)
	case *Binary:
		return u.first(e.X, e.Y)
	case *Call:
		return u.call(e)
	case *FnCall:
		return u.fnCall(e)
	case *Field:
		return u.expr(e.X)
	case *StructLit:
		return u.first(e.Vals...)
	case *ArrayLit:
		return u.first(e.Elems...)
	case *Convert:
		return u.expr(e.X)
	case *Construct:
		return u.first(e.Args...)
	case *Bitcast:
		return u.expr(e.X)
	case *Index:
		return u.index(e)
	case *Swizzle:
		return u.expr(e.X)
	case *CoopMake:
		u.coopOp(e.To.String()+"(...)", e.Pos, e)
		return u.expr(e.X)
	case *CoopLoad:
		u.coopOp("coopLoad", e.Pos, e)
		u.first(e.Offset, e.Stride)
		return "the result of coopLoad"
	case *CoopMulAdd:
		u.coopOp("coopMulAdd", e.Pos, e)
		return u.first(e.A, e.B, e.C)
	case *CoopLength:
		return ""
	}
	return "" // literals, len
}

// first is the first non-uniform root among es.
func (u *uniformity) first(es ...Expr) string {
	for _, e := range es {
		if r := u.expr(e); r != "" {
			return r
		}
	}
	return ""
}

func (u *uniformity) ident(e *Ident) string {
	switch o := e.Obj.(type) {
	case *Decl:
		return u.vars[o]
	case *Shared:
		return "a load from shared variable " + o.Name
	case *Param:
		switch {
		case o.Kind == BufferParam && o.Access == ReadWrite:
			return "a load from read_write buffer " + o.Name
		case o.Kind == SharedParam:
			return "a load from shared variable " + o.Name
		case o.Kind == ValueParam:
			return u.params[o]
		}
	}
	return ""
}

func (u *uniformity) index(e *Index) string {
	r := u.expr(e.X)
	if r2 := u.expr(e.Index); r == "" {
		r = r2
	}
	if IsCoopMat(e.X.Type()) && r == "" {
		// each invocation reads an element of its own
		return "an element of a cooperative matrix"
	}
	return r
}

func (u *uniformity) call(e *Call) string {
	r := u.first(e.Args...)
	if e.Func.IsAtomic() || e.Func.IsSubgroup() {
		return "the result of " + e.Func.String()
	}
	return r
}

// coopOp reports a cooperative-matrix operation n (op, at pos) in
// non-uniform control flow, as barrier does for barriers: all invocations
// of a subgroup must execute it together. The analysis is workgroup-wide,
// which is stricter than the subgroup uniformity the extensions require
// but is what kc can prove.
func (u *uniformity) coopOp(op string, pos Pos, n Node) {
	cf := u.cf
	if cf == nil || !u.report || u.collect && u.depth > 0 {
		return
	}
	if u.blame == nil && u.depth == 0 && u.fn {
		// A function on its own: report this divergence once, here.
		if u.c.ownDiverge == nil {
			u.c.ownDiverge = map[Node]bool{}
		}
		u.c.ownDiverge[n] = true
		if u.collect {
			return
		}
	}
	if u.blame != nil && cf != u.entry && u.c.ownDiverge[n] {
		return
	}
	if cf == u.entry && u.blame != nil {
		u.c.errorf(u.blame.Pos, "call of %s reaches %s%s, which must be called in uniform control flow: %s",
			u.blame.Name, op, atText(pos), cf)
		return
	}
	in := ""
	if u.blame != nil {
		in = fmt.Sprintf(" (in %s, called%s)", u.blame.Name, atText(u.blame.Pos))
	}
	u.c.errorf(pos, "%s must be called in uniform control flow: %s%s", op, cf, in)
}
