package spirv

import (
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file lowers one kernel: its resource variables (params uniform block,
// storage buffers, shared memory, builtins), the entry point with its
// execution mode, and the function that holds the body.

// fn is the state of one function under construction: the kernel's entry
// function or one helper-function instance (docs/lowering-12.md).
type fn struct {
	*builder
	*kvars

	id        uint32               // the OpFunction result
	inst      *ir.Instance         // the helper-function instance, nil for the kernel body
	precise   bool                 // decorate float arithmetic NoContraction
	vals      map[*ir.Param]uint32 // value parameters' OpFunctionParameter ids
	constVars map[*ir.Const]uint32 // Function variables holding constant arrays
	locals    map[*ir.Decl]local
	vars      section // OpVariable instructions of the entry block
	body      section // everything after them
	cur       uint32  // the current block's label, 0 when the code is unreachable
	loops     []*loop
	line      ir.Pos    // the last OpLine written in the current block
	pending   []lineRec // positions by offset into body
	lastLine  int       // offset in body of the last OpLine written, -1 for none
}

// kvars is what a kernel's functions share: its resource variables, the
// builtins they use, the entry point's interface and the call plan.
type kvars struct {
	k        *ir.Kernel
	params   uint32 // the params uniform variable, 0 when none
	paramIdx map[*ir.Param]uint32
	buffers  map[*ir.Param]uint32
	shared   map[*ir.Shared]uint32
	builtins map[ir.BuiltinKind]uint32
	iface    []uint32 // entry-point interface variables, in creation order
	plan     *ir.CallPlan
	fnIDs    map[*ir.Instance]uint32 // each instance's OpFunction id
}

// local is a declared local: a value id for let, a Function pointer for var.
type local struct {
	id  uint32
	ptr bool
}

// loop is an enclosing for statement's branch targets, or an enclosing
// switch's merge block (isSwitch; cont unused).
type loop struct {
	merge, cont uint32
	isSwitch    bool
	broken      bool // some break branches to merge
	contReached bool // some block branches to cont
}

func (b *builder) kernel(k *ir.Kernel) {
	kv := &kvars{
		k:        k,
		paramIdx: map[*ir.Param]uint32{},
		buffers:  map[*ir.Param]uint32{},
		shared:   map[*ir.Shared]uint32{},
		builtins: map[ir.BuiltinKind]uint32{},
		plan:     ir.Instances(k),
		fnIDs:    map[*ir.Instance]uint32{},
	}
	f := b.newFn(kv, nil)
	f.id = b.id()
	f.name(f.id, k.Name)
	f.declareParams()
	f.declareBuffers()
	f.declareShared()
	f.instances()
	f.function()
	f.entryPoint()
}

// newFn starts the state of one function of kernel kv: the kernel body
// (inst nil) or a helper-function instance.
func (b *builder) newFn(kv *kvars, inst *ir.Instance) *fn {
	f := &fn{
		builder:   b,
		kvars:     kv,
		inst:      inst,
		precise:   kv.k.Precise,
		vals:      map[*ir.Param]uint32{},
		constVars: map[*ir.Const]uint32{},
		locals:    map[*ir.Decl]local{},
		lastLine:  -1,
	}
	if inst != nil {
		f.precise = inst.Func.Precise
	}
	f.body.w = make([]uint32, 0, 1024)
	return f
}

// declareParams creates the params uniform block: a Block struct of the
// scalar parameters at their std140 offsets, at set 0 binding 0.
func (f *fn) declareParams() {
	fields, _ := ir.ParamsLayout(f.k)
	if len(fields) == 0 {
		return
	}
	st := f.builder.id()
	members := []uint32{st}
	for _, fd := range fields {
		members = append(members, f.typeID(fd.Param.Type, true))
	}
	f.globals.inst(opTypeStruct, members...)
	f.named.add(st)
	f.annots.inst(opDecorate, st, decBlock)
	for i, fd := range fields {
		f.annots.inst(opMemberDecorate, st, uint32(i), decOffset, uint32(fd.Offset))
		f.paramIdx[fd.Param] = uint32(i)
		if !f.opts.NoDebugInfo {
			f.names.instStr(opMemberName, []uint32{st, uint32(i)}, fd.Param.Name)
		}
	}
	f.name(st, f.k.Name+"_params")
	v := f.builder.id()
	f.globals.inst(opVariable, f.tPtr(scUniform, st), v, scUniform)
	f.annots.inst(opDecorate, v, decDescriptorSet, 0)
	f.annots.inst(opDecorate, v, decBinding, ir.ParamsBinding)
	f.name(v, "params")
	f.params = v
	f.global(v)
}

// declareBuffers creates one StorageBuffer variable per buffer parameter.
func (f *fn) declareBuffers() {
	for _, p := range ir.Buffers(f.k) {
		if ir.UsesInt8(p.Type) {
			f.capability(capStorageBuffer8BitAccess)
			f.exts["SPV_KHR_8bit_storage"] = true
		}
		if ir.UsesF16(p.Type) || ir.UsesBF16(p.Type) {
			f.capability(capStorageBuffer16BitAccess)
			f.exts["SPV_KHR_16bit_storage"] = true
		}
		st := f.blockStruct(p.Type)
		v := f.builder.id()
		f.globals.inst(opVariable, f.tPtr(scStorageBuffer, st), v, scStorageBuffer)
		f.annots.inst(opDecorate, v, decDescriptorSet, 0)
		f.annots.inst(opDecorate, v, decBinding, uint32(ir.BufferBinding(f.k, p)))
		if p.Access != ir.ReadWrite {
			f.annots.inst(opDecorate, v, decNonWritable)
		}
		f.name(v, p.Name)
		f.buffers[p] = v
		f.global(v)
	}
}

// declareShared creates one Workgroup variable per shared variable.
func (f *fn) declareShared() {
	for _, s := range f.k.Shared {
		v := f.builder.id()
		f.globals.inst(opVariable, f.tPtr(scWorkgroup, f.typeID(s.Type, false)), v, scWorkgroup)
		f.name(v, s.Name)
		f.shared[s] = v
		f.global(v)
	}
}

// global records a module-scope variable of the kernel for the entry
// point's interface: SPIR-V 1.4 and later list every global the entry point
// uses; 1.3 lists only Input and Output variables.
func (f *fn) global(v uint32) {
	if f.opts.Version >= V1_6 {
		f.iface = append(f.iface, v)
	}
}

var builtinDecor = map[ir.BuiltinKind]uint32{
	ir.GlobalID:             biGlobalInvocationID,
	ir.LocalID:              biLocalInvocationID,
	ir.WorkgroupID:          biWorkgroupID,
	ir.NumWorkgroups:        biNumWorkgroups,
	ir.LocalIndex:           biLocalInvocationIndex,
	ir.SubgroupSize:         biSubgroupSize,
	ir.SubgroupInvocationID: biSubgroupLocalInvocationID,
}

// builtin returns the Input variable of a builtin, creating it on first use.
func (f *fn) builtin(kind ir.BuiltinKind) uint32 {
	if v, ok := f.builtins[kind]; ok {
		return v
	}
	bi, ok := builtinDecor[kind]
	if !ok {
		fail(errorf("spirv: internal error: builtin %d", kind))
	}
	if kind == ir.SubgroupSize || kind == ir.SubgroupInvocationID {
		f.capability(capGroupNonUniform)
	}
	v := f.builder.id()
	f.globals.inst(opVariable, f.tPtr(scInput, f.typeID(kind.Type(), false)), v, scInput)
	f.annots.inst(opDecorate, v, decBuiltIn, bi)
	f.name(v, kind.String())
	f.builtins[kind] = v
	f.iface = append(f.iface, v)
	return v
}

// entryPoint writes OpEntryPoint and OpExecutionMode LocalSize.
func (f *fn) entryPoint() {
	head := []uint32{execModelGLCompute, f.id}
	f.entries.instStr(opEntryPoint, head, f.k.Name, f.iface...)
	size := f.k.Size
	for i := range size {
		if size[i] == 0 {
			size[i] = 1
		}
	}
	f.modes.inst(opExecutionMode, f.id, execModeLocalSize, uint32(size[0]), uint32(size[1]), uint32(size[2]))
	f.entryNames = append(f.entryNames, emit.NewEntry(f.k, f.k.Name))
}

// function writes the kernel's OpFunction: the entry block's variables,
// the shared-memory zeroing, the body and the closing return.
func (f *fn) function() {
	void := f.tVoid()
	fnType := f.tFn(void)
	entry := f.builder.id()
	f.debugLine(f.k.Pos)
	f.cur = entry
	f.zeroShared()
	f.block(f.k.Body)
	if f.cur != 0 {
		f.ret()
	}
	start := len(f.funcs.w)
	f.funcs.inst(opFunction, void, f.id, functionControlNone, fnType)
	f.funcs.inst(opLabel, entry)
	f.finishBody(start, f.k.Pos)
}

// finishBody appends the entry block's variables and the body to the
// module's functions, closes the function, and records the body's source
// positions, the function's own at start.
func (f *fn) finishBody(start int, pos ir.Pos) {
	f.funcs.w = append(f.funcs.w, f.vars.w...)
	base := len(f.funcs.w)
	f.funcs.w = append(f.funcs.w, f.body.w...)
	f.funcs.inst(opFunctionEnd)
	for i := range f.pending {
		f.pending[i].Off += base
	}
	if len(f.pending) > 0 {
		f.lines = append(f.lines, lineRec{Off: start, Pos: pos})
	}
	f.lines = append(f.lines, f.pending...)
}

// zeroShared gives shared variables their zero start value (Workgroup
// variables cannot carry an initializer in Vulkan 1.1), then a workgroup
// barrier publishes the stores. Arrays are zeroed by all invocations
// together, element i by invocation i mod the workgroup size (the first two
// array levels flattened); other variables by invocation 0.
func (f *fn) zeroShared() {
	if len(f.k.Shared) == 0 {
		return
	}
	wg := 1
	for _, n := range f.k.Size {
		wg *= max(n, 1)
	}
	idx := f.loadPtr(f.tU32(), f.builtin(ir.LocalIndex))
	var single []*ir.Shared
	for _, s := range f.k.Shared {
		if a, ok := s.Type.(*ir.Array); ok && a.Len > 1 && wg > 1 {
			f.zeroStrided(s, a, idx, uint32(wg))
		} else {
			single = append(single, s)
		}
	}
	if len(single) > 0 {
		cond := f.op2(opIEqual, f.tBool(), idx, f.constU32(0))
		then, merge := f.builder.id(), f.builder.id()
		f.selectionMerge(merge)
		f.branchCond(cond, then, merge)
		f.label(then, false)
		for _, s := range single {
			f.storePtr(f.shared[s], f.constNull(f.typeID(s.Type, false)))
		}
		f.branch(merge)
		f.label(merge, false)
	}
	f.barrier(ir.WorkgroupBarrier)
}

// zeroStrided writes
//
//	for i := local_index; i < n; i += wg { s[i] = 0 }   // or s[i / B][i % B]
//
// where n counts the elements of the first one or two array levels.
func (f *fn) zeroStrided(s *ir.Shared, a *ir.Array, idx, wg uint32) {
	n := uint32(a.Len)
	elem := a.Elem
	inner, two := a.Elem.(*ir.Array)
	if two {
		n *= uint32(inner.Len)
		elem = inner.Elem
	}
	u32 := f.tU32()
	iv := f.builder.id()
	f.vars.inst(opVariable, f.tPtr(scFunction, u32), iv, scFunction)
	f.name(iv, "zero_"+s.Name)
	f.storePtr(iv, idx)
	header, cond, body, cont, merge := f.builder.id(), f.builder.id(), f.builder.id(), f.builder.id(), f.builder.id()
	f.branch(header)
	f.label(header, false)
	f.loopMerge(merge, cont)
	f.branch(cond)
	f.label(cond, false)
	f.branchCond(f.op2(opULessThan, f.tBool(), f.loadPtr(u32, iv), f.constU32(n)), body, merge)
	f.label(body, false)
	i := f.loadPtr(u32, iv)
	indices := []uint32{i}
	if two {
		b := f.constU32(uint32(inner.Len))
		indices = []uint32{f.op2(opUDiv, u32, i, b), f.op2(opUMod, u32, i, b)}
	}
	et := f.typeID(elem, false)
	f.storePtr(f.accessChain(f.tPtr(scWorkgroup, et), f.shared[s], indices...), f.constNull(et))
	f.branch(cont)
	f.label(cont, false)
	f.storePtr(iv, f.op2(opIAdd, u32, f.loadPtr(u32, iv), f.constU32(wg)))
	f.branch(header)
	f.label(merge, false)
}
