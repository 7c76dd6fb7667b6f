package spirv

import "github.com/kcgo/kc/ir"

// switchStmt lowers a switch to a selection construct:
//
//	OpSelectionMerge %merge None
//	OpSwitch %tag %default 1 %case1 2 %case1 3 %case2 ...
//	%case1: (body) OpBranch %merge
//	...
//	%merge:
//
// The default target is %merge when the switch has no default case. A
// break in a case branches to %merge (kc has no fallthrough); continue
// goes to the enclosing loop's continue target.
func (f *fn) switchStmt(s *ir.Switch) {
	tag := f.expr(s.Tag)
	merge := f.builder.id()
	labels := make([]uint32, len(s.Cases))
	def := merge
	var pairs []uint32
	for i, c := range s.Cases {
		labels[i] = f.builder.id()
		if c.Default {
			def = labels[i]
		}
		for _, v := range c.Vals {
			pairs = append(pairs, uint32(v.Int), labels[i])
		}
	}
	f.selectionMerge(merge)
	f.live("OpSwitch")
	f.body.inst(opSwitch, append([]uint32{tag, def}, pairs...)...)
	f.cur = 0
	sw := &loop{merge: merge, isSwitch: true}
	reached := def == merge
	f.loops = append(f.loops, sw)
	for i, c := range s.Cases {
		f.label(labels[i], false)
		f.block(c.Body)
		if f.cur != 0 {
			f.jump(merge)
			reached = true
		}
	}
	f.loops = f.loops[:len(f.loops)-1]
	f.label(merge, false)
	if !reached && !sw.broken {
		f.unreachable()
	}
}
