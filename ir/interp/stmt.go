package interp

import (
	"github.com/kcgo/kc/ir"
)

// loopState collects the lanes that leave the body of the innermost for
// through continue and break.
type loopState struct {
	cont, brk []int32
	isSwitch  bool // a switch: only break applies to it
}

// block compiles a statement list; each statement executed charges one
// step per active lane.
func (c *compiler) block(b *ir.Block) stmtFn {
	var stmts []stmtFn
	var pos []ir.Pos
	for _, s := range b.Stmts {
		if _, ok := s.(*ir.Comment); ok {
			continue
		}
		stmts = append(stmts, c.stmt(s))
		pos = append(pos, s.Position())
	}
	m := c.m
	return func(act []int32) []int32 {
		for i, s := range stmts {
			if len(act) == 0 {
				break
			}
			m.steps += int64(len(act))
			if m.steps > m.maxSteps {
				m.step(pos[i], act)
			}
			act = s(act)
		}
		return act
	}
}

func (c *compiler) stmt(s ir.Stmt) stmtFn {
	switch s := s.(type) {
	case *ir.Block:
		return c.block(s)
	case *ir.Decl:
		return c.decl(s)
	case *ir.Assign:
		return c.assign(s)
	case *ir.If:
		return c.ifStmt(s)
	case *ir.For:
		return c.forStmt(s)
	case *ir.Break:
		if len(c.loops) == 0 {
			c.errorf(s.Pos, "break outside a for")
		}
		ls := c.loops[len(c.loops)-1]
		return func(act []int32) []int32 {
			ls.brk = append(ls.brk, act...)
			return nil
		}
	case *ir.Continue:
		ls := c.innermostLoop(s.Pos)
		return func(act []int32) []int32 {
			ls.cont = append(ls.cont, act...)
			return nil
		}
	case *ir.Return:
		if c.frame != nil {
			return c.returnStmt(s)
		}
		m := c.m
		return func(act []int32) []int32 {
			for _, l := range act {
				m.live[l] = false
			}
			m.nlive -= len(act)
			return nil
		}
	case *ir.Barrier:
		return c.barrier(s)
	case *ir.ExprStmt:
		f := c.call(s.Call)
		return func(act []int32) []int32 {
			f(act)
			return act
		}
	case *ir.Comment:
		return func(act []int32) []int32 { return act }
	case *ir.CoopStore:
		return c.coopStore(s)
	case *ir.Switch:
		return c.switchStmt(s)
	case *ir.CallStmt:
		run, _ := c.fnCall(s.Call)
		return func(act []int32) []int32 {
			run(act)
			return act
		}
	}
	c.errorf(s.Position(), "unsupported statement")
	return nil
}

// barrier checks that every invocation that has not returned is here:
// one that is elsewhere (a divergent barrier) would hang or be undefined
// on a GPU, so it is an error.
func (c *compiler) barrier(s *ir.Barrier) stmtFn {
	m := c.m
	shared := s.Kind == ir.WorkgroupBarrier
	return func(act []int32) []int32 {
		if shared {
			m.epoch++
		} else {
			m.storageEpoch++
		}
		if len(act) != m.nlive {
			missing := int32(0)
			for i, l := 0, int32(0); l < int32(m.n); l++ {
				if !m.live[l] {
					continue
				}
				if i < len(act) && act[i] == l {
					i++
					continue
				}
				missing = l
				break
			}
			m.fail(s.Pos, missing, "%s() in divergent control flow: reached by %d of %d invocations still running; this one is elsewhere", s.Kind, len(act), m.nlive)
		}
		return act
	}
}

func (c *compiler) decl(d *ir.Decl) stmtFn {
	l := c.declare(d)
	if l.col == nil {
		if d.Init != nil {
			dst := ref{ty: d.Ty, mem: l.mem, at: func([]int32) []int { return l.base }, name: d.Name}
			return c.copyAggregate(d.Pos, dst, d.Init)
		}
		mem, size := l.mem, l.size
		return func(act []int32) []int32 {
			for _, ln := range act {
				clear(mem[int(ln)*size : int(ln+1)*size])
			}
			return act
		}
	}
	col := l.col
	if d.Init == nil {
		return func(act []int32) []int32 {
			for _, ln := range act {
				o := 4 * int(ln)
				col[o], col[o+1], col[o+2], col[o+3] = 0, 0, 0, 0
			}
			return act
		}
	}
	init := c.expr(d.Init)
	w := width(d.Ty)
	return func(act []int32) []int32 {
		v := init(act)
		for _, ln := range act {
			o := 4 * int(ln)
			copy(col[o:o+w], v[o:o+w])
		}
		return act
	}
}

// assign evaluates the place, then the right-hand side, then stores;
// a compound assignment loads the place once.
func (c *compiler) assign(a *ir.Assign) stmtFn {
	if x, ok := a.LHS.(*ir.Index); ok && ir.IsCoopMat(x.X.Type()) {
		return c.coopElemAssign(a, x)
	}
	r := c.ref(a.LHS)
	if ir.IsCoopMat(r.ty) && a.Op != ir.OpNone {
		// m op= x is m = m op x: the place is a local, reading it is pure.
		rhs := &ir.Binary{Pos: a.Pos, Op: a.Op, X: a.LHS, Y: a.RHS, Ty: r.ty}
		return c.assign(&ir.Assign{Pos: a.Pos, LHS: a.LHS, RHS: rhs})
	}
	if isAggregate(r.ty) && a.Op == ir.OpNone && r.mem != nil {
		return c.copyAggregate(a.Pos, r, a.RHS)
	}
	if ir.Width(r.ty) == 0 && ir.ElemScalar(r.ty) == ir.Invalid && !ir.IsCoopMat(r.ty) {
		c.errorf(a.Pos, "assignment of a whole %s is not supported", r.ty)
	}
	rhs := c.expr(a.RHS)
	st := c.raceStore(r, c.storer(r))
	at := r.at
	if at == nil {
		at = func([]int32) []int { return nil }
	}
	if a.Op == ir.OpNone {
		return func(act []int32) []int32 {
			offs := at(act)
			st(act, offs, rhs(act))
			return act
		}
	}
	s := ir.ElemScalar(r.ty)
	f := binaryFn(a.Op, s)
	if f == nil {
		c.errorf(a.Pos, "operator %s= is not defined on %s", a.Op, r.ty)
	}
	ld := c.raceLoad(r, c.loader(r))
	w, sy := width(r.ty), stride1(a.RHS.Type())
	cur := c.m.newCol()
	return func(act []int32) []int32 {
		offs := at(act)
		v := rhs(act)
		ld(act, offs, cur)
		for _, l := range act {
			o := 4 * int(l)
			for i := 0; i < w; i++ {
				cur[o+i] = f(cur[o+i], v[o+i*sy])
			}
		}
		st(act, offs, cur)
		return act
	}
}

// ifStmt runs the then branch for the lanes whose condition holds, then
// the else branch for the others; both sets continue after the if.
func (c *compiler) ifStmt(s *ir.If) stmtFn {
	cond := c.expr(s.Cond)
	then := c.block(s.Then)
	var els stmtFn
	if s.Else != nil {
		els = c.stmt(s.Else)
	}
	tBuf, fBuf, outBuf := c.m.newLanes(), c.m.newLanes(), c.m.newLanes()
	return func(act []int32) []int32 {
		cv := cond(act)
		t, f := tBuf[:0], fBuf[:0]
		for _, l := range act {
			if cv[4*l] != 0 {
				t = append(t, l)
			} else {
				f = append(f, l)
			}
		}
		if len(f) == 0 {
			return then(t)
		}
		if len(t) == 0 {
			if els == nil {
				return act
			}
			return els(f)
		}
		ft := then(t)
		ff := f
		if els != nil {
			ff = els(f)
		}
		return mergeLanes(outBuf[:0], ft, ff)
	}
}

// mergeLanes merges two sorted, disjoint lane lists into out.
func mergeLanes(out, a, b []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// Loop passes are counted per lane (machine.loops): each pass of a loop
// counts for every lane that starts it, the one whose condition fails and
// the one that breaks included, as llvmpipe counts (docs/lavapipe.md).
// The count is one increment a lane a pass, made in the loop that already
// tests the condition lane by lane; the largest count is taken once per
// workgroup (machine.foldLoops), not at every increment.

// countLoop counts one pass for each lane of cur (loops without a
// condition; forStmt counts the others as it tests the condition).
func (m *machine) countLoop(cur []int32) {
	loops := m.loops
	for _, l := range cur {
		loops[l]++
	}
}

// forStmt runs the loop in lockstep: each iteration the lanes still in
// the loop test the condition, run the body, and those that fall through
// or continue run the post statement. Lanes leave through a false
// condition, break or return; the ones that did not return continue after
// the loop, in lane order.
func (c *compiler) forStmt(s *ir.For) stmtFn {
	m := c.m
	var init, post stmtFn
	var cond exprFn
	if s.Init != nil {
		init = c.decl(s.Init)
	}
	if s.Cond != nil {
		cond = c.expr(s.Cond)
	}
	ls := &loopState{cont: m.newLanes(), brk: m.newLanes()}
	c.loops = append(c.loops, ls)
	body := c.block(s.Body)
	c.loops = c.loops[:len(c.loops)-1]
	if s.Post != nil {
		post = c.assign(s.Post)
	}
	curBuf, bodyBuf, outBuf := m.newLanes(), m.newLanes(), m.newLanes()
	exitMark, nextMark := make([]uint32, m.n), make([]uint32, m.n)
	var exitGen, nextGen uint32
	pos := s.Pos
	return func(act []int32) []int32 {
		if init != nil {
			init(act)
		}
		exitGen++
		ls.brk = ls.brk[:0]
		cur := append(curBuf[:0], act...)
		for len(cur) > 0 {
			m.step(pos, cur)
			run := cur
			if cond == nil {
				m.countLoop(cur)
			} else {
				cv := cond(cur)
				b := bodyBuf[:0]
				loops := m.loops
				for _, l := range cur {
					loops[l]++ // the pass counts whether the condition holds or not
					if cv[4*l] != 0 {
						b = append(b, l)
					} else {
						exitMark[l] = exitGen
					}
				}
				run = b
				if len(run) == 0 {
					break
				}
			}
			ls.cont = ls.cont[:0]
			next := body(run)
			if len(ls.cont) > 0 {
				nextGen++
				for _, l := range next {
					nextMark[l] = nextGen
				}
				for _, l := range ls.cont {
					nextMark[l] = nextGen
				}
				n := curBuf[:0]
				for _, l := range run { // run is cur or bodyBuf: filtering in place is safe
					if nextMark[l] == nextGen {
						n = append(n, l)
					}
				}
				cur = n
			} else {
				cur = append(curBuf[:0], next...)
			}
			if post != nil && len(cur) > 0 {
				post(cur)
			}
		}
		for _, l := range ls.brk {
			exitMark[l] = exitGen
		}
		out := outBuf[:0]
		for _, l := range act {
			if exitMark[l] == exitGen {
				out = append(out, l)
			}
		}
		return out
	}
}
