package spirv

import (
	"github.com/kcgo/kc/ir"
)

// This file lowers statements and structured control flow. Every if is a
// selection construct (OpSelectionMerge before its OpBranchConditional);
// every for is a loop construct:
//
//	      OpBranch %header
//	%header: OpLoopMerge %merge %continue None ; OpBranch %cond
//	%cond:   (condition) OpBranchConditional %c %body %merge
//	%body:   (body) OpBranch %continue
//	%continue: (post) OpBranch %header
//	%merge:
//
// break branches to the innermost loop's merge block, continue to its
// continue target, return is OpReturn. After a jump the current block is
// closed (f.cur == 0) and the statements that follow it in the same block,
// which cannot run, are not emitted. A merge block or continue target that
// no branch reaches holds only OpUnreachable or a branch to the header, as
// the rules for unreachable constructs ask.

func (f *fn) block(b *ir.Block) {
	for _, s := range b.Stmts {
		if f.cur == 0 {
			return
		}
		f.stmt(s)
	}
}

func (f *fn) stmt(s ir.Stmt) {
	if _, ok := s.(*ir.Comment); ok {
		return
	}
	if _, ok := s.(*ir.Block); !ok {
		f.debugLine(s.Position())
	}
	switch s := s.(type) {
	case *ir.Block:
		f.block(s)
	case *ir.Decl:
		f.decl(s)
	case *ir.Assign:
		f.assign(s)
	case *ir.If:
		f.ifStmt(s)
	case *ir.For:
		f.forStmt(s)
	case *ir.Break:
		l := f.innermost(s.Pos, "break")
		l.broken = true
		f.jump(l.merge)
	case *ir.Continue:
		l := f.innermostLoop(s.Pos)
		l.contReached = true
		f.jump(l.cont)
	case *ir.Return:
		f.returnStmt(s)
	case *ir.Switch:
		f.switchStmt(s)
	case *ir.CallStmt:
		f.fnCall(s.Call)
	case *ir.Barrier:
		f.barrier(s.Kind)
	case *ir.ExprStmt:
		f.call(s.Call)
	case *ir.CoopStore:
		f.coopStore(s)
	default:
		fail(ir.Errorf(s.Position(), "spirv: unexpected statement %T", s))
	}
}

// innermost is what a break leaves: the innermost for or switch.
func (f *fn) innermost(pos ir.Pos, what string) *loop {
	if len(f.loops) == 0 {
		fail(ir.Errorf(pos, "spirv: %s outside a for", what))
	}
	return f.loops[len(f.loops)-1]
}

// innermostLoop is what a continue continues: the innermost for.
func (f *fn) innermostLoop(pos ir.Pos) *loop {
	for i := len(f.loops) - 1; i >= 0; i-- {
		if !f.loops[i].isSwitch {
			return f.loops[i]
		}
	}
	fail(ir.Errorf(pos, "spirv: continue outside a for"))
	return nil
}

// jump ends the current block with an unconditional branch to target.
func (f *fn) jump(target uint32) { f.branch(target) }

func (f *fn) ifStmt(s *ir.If) {
	cond := f.expr(s.Cond)
	then, merge := f.builder.id(), f.builder.id()
	els := merge
	if s.Else != nil {
		els = f.builder.id()
	}
	f.selectionMerge(merge)
	f.branchCond(cond, then, els)
	reached := s.Else == nil
	f.label(then, false)
	f.block(s.Then)
	if f.cur != 0 {
		f.jump(merge)
		reached = true
	}
	if s.Else != nil {
		f.label(els, false)
		f.stmt(s.Else)
		if f.cur != 0 {
			f.jump(merge)
			reached = true
		}
	}
	f.label(merge, false)
	if !reached {
		f.unreachable()
	}
}

func (f *fn) forStmt(s *ir.For) {
	if s.Init != nil {
		f.decl(s.Init)
	}
	header, body := f.builder.id(), f.builder.id()
	l := &loop{merge: f.builder.id(), cont: f.builder.id()}
	f.jump(header)
	f.label(header, false)
	f.loopMerge(l.merge, l.cont)
	if s.Cond != nil {
		condBlock := f.builder.id()
		f.jump(condBlock)
		f.label(condBlock, false)
		f.debugLine(s.Cond.Position())
		c := f.expr(s.Cond)
		f.branchCond(c, body, l.merge)
		l.broken = true
	} else {
		f.jump(body)
	}
	f.label(body, false)
	f.loops = append(f.loops, l)
	f.block(s.Body)
	f.loops = f.loops[:len(f.loops)-1]
	if f.cur != 0 {
		f.jump(l.cont)
		l.contReached = true
	}
	f.label(l.cont, false)
	if l.contReached && s.Post != nil {
		f.debugLine(s.Post.Pos)
		f.assign(s.Post)
	}
	f.jump(header)
	f.label(l.merge, false)
	if !l.broken {
		f.unreachable()
	}
}

// barrier writes OpControlBarrier with Workgroup execution scope.
// workgroupBarrier orders workgroup memory at Workgroup scope;
// storageBarrier orders storage-buffer (Uniform class) memory, also at
// Workgroup scope, as WGSL's storageBarrier does.
func (f *fn) barrier(kind ir.BarrierKind) {
	sem := uint32(semAcquireRelease | semWorkgroupMemory)
	if kind == ir.StorageBarrier {
		sem = semAcquireRelease | semUniformMemory
	}
	wg := f.constU32(scopeWorkgroup)
	f.body.inst(opControlBarrier, wg, wg, f.constU32(sem))
}
