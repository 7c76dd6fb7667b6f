package spirv

// This file holds the constructors of the instructions that shape a
// function body: block labels, merges and terminators, memory access and
// composites. A block is opened only by label and closed only by one of
// its terminators (branch, branchCond, ret, unreachable), which leave
// f.cur at 0; emitting into a closed block is an internal error.

// live fails unless a block is open.
func (f *fn) live(what string) {
	if f.cur == 0 {
		fail(errorf("spirv: internal error: %s outside a block", what))
	}
}

// branch closes the block with OpBranch target.
func (f *fn) branch(target uint32) {
	f.live("OpBranch")
	f.body.inst(opBranch, target)
	f.cur = 0
}

// branchCond closes the block with OpBranchConditional.
func (f *fn) branchCond(cond, then, els uint32) {
	f.live("OpBranchConditional")
	f.body.inst(opBranchConditional, cond, then, els)
	f.cur = 0
}

// ret closes the block with OpReturn.
func (f *fn) ret() {
	f.live("OpReturn")
	f.body.inst(opReturn)
	f.cur = 0
}

// unreachable closes the block with OpUnreachable.
func (f *fn) unreachable() {
	f.live("OpUnreachable")
	f.body.inst(opUnreachable)
	f.cur = 0
}

// selectionMerge declares the merge block of the selection whose header
// the current block is; the header's OpBranchConditional must follow.
func (f *fn) selectionMerge(merge uint32) {
	f.live("OpSelectionMerge")
	f.body.inst(opSelectionMerge, merge, selectionControlNone)
}

// loopMerge declares the current block a loop header.
func (f *fn) loopMerge(merge, cont uint32) {
	f.live("OpLoopMerge")
	f.body.inst(opLoopMerge, merge, cont, loopControlNone)
}

// phi joins two values arriving from blocks from1 and from2.
func (f *fn) phi(typ, v1, from1, v2, from2 uint32) uint32 {
	f.live("OpPhi")
	r := f.builder.id()
	f.body.inst(opPhi, typ, r, v1, from1, v2, from2)
	return r
}

// loadPtr is OpLoad.
func (f *fn) loadPtr(typ, ptr uint32) uint32 {
	f.live("OpLoad")
	r := f.builder.id()
	f.body.inst(opLoad, typ, r, ptr)
	return r
}

// storePtr is OpStore.
func (f *fn) storePtr(ptr, v uint32) {
	f.live("OpStore")
	f.body.inst(opStore, ptr, v)
}

// accessChain is OpAccessChain.
func (f *fn) accessChain(ptrType, base uint32, indices ...uint32) uint32 {
	f.live("OpAccessChain")
	r := f.builder.id()
	f.body.inst(opAccessChain, append([]uint32{ptrType, r, base}, indices...)...)
	return r
}

// extract is OpCompositeExtract.
func (f *fn) extract(typ, v uint32, indices ...uint32) uint32 {
	f.live("OpCompositeExtract")
	r := f.builder.id()
	f.body.inst(opCompositeExtract, append([]uint32{typ, r, v}, indices...)...)
	return r
}

// compose is OpCompositeConstruct.
func (f *fn) compose(typ uint32, parts ...uint32) uint32 {
	f.live("OpCompositeConstruct")
	r := f.builder.id()
	f.body.inst(opCompositeConstruct, append([]uint32{typ, r}, parts...)...)
	return r
}

// shuffle is OpVectorShuffle.
func (f *fn) shuffle(typ, a, b uint32, comps ...uint32) uint32 {
	f.live("OpVectorShuffle")
	r := f.builder.id()
	f.body.inst(opVectorShuffle, append([]uint32{typ, r, a, b}, comps...)...)
	return r
}
