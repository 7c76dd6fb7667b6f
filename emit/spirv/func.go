package spirv

import (
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file lowers helper functions (docs/lowering-12.md). Each kernel
// gets one OpFunction per instance of its call plan (ir.Instances): the
// instance's parameters are the function's value parameters only, and a
// resource parameter in its body names the kernel's own StorageBuffer or
// Workgroup variable, which module scope makes visible in every function.
// So no pointer parameter is ever passed (SPIR-V 1.3 with Vulkan's logical
// addressing would restrict them to memory object declarations anyway).

// instances allocates an id for every instance of the kernel's call plan,
// then writes each instance's OpFunction.
func (f *fn) instances() {
	for _, inst := range f.plan.Instances {
		id := f.builder.id()
		f.fnIDs[inst] = id
		name := inst.Name
		if len(f.m.Kernels) > 1 {
			name = f.k.Name + "_" + name
		}
		f.name(id, name)
	}
	for _, inst := range f.plan.Instances {
		g := f.newFn(f.kvars, inst)
		g.id = f.fnIDs[inst]
		g.helper()
	}
}

// helper writes the OpFunction of instance f.inst.
func (f *fn) helper() {
	fd := f.inst.Func
	ret := f.tVoid()
	if fd.Result != nil {
		ret = f.tid(fd.Result)
	}
	var ptypes, pids []uint32
	for _, p := range fd.Params {
		if p.Kind != ir.ValueParam {
			continue
		}
		id := f.builder.id()
		f.vals[p] = id
		f.name(id, p.Name)
		ptypes = append(ptypes, f.tid(p.Type))
		pids = append(pids, id)
	}
	fnType := f.tSig(ret, ptypes)
	entry := f.builder.id()
	f.debugLine(fd.Pos)
	f.cur = entry
	f.block(fd.Body)
	if f.cur != 0 {
		if fd.Result == nil {
			f.ret()
		} else {
			// Check proved that every path returns a value.
			f.unreachable()
		}
	}
	start := len(f.funcs.w)
	f.funcs.inst(opFunction, ret, f.id, functionControlNone, fnType)
	for i, id := range pids {
		f.funcs.inst(opFunctionParameter, ptypes[i], id)
	}
	f.funcs.inst(opLabel, entry)
	f.finishBody(start, fd.Pos)
}

// tSig returns the function type ret(params...).
func (b *builder) tSig(ret uint32, params []uint32) uint32 {
	if len(params) == 0 {
		return b.tFn(ret)
	}
	var key strings.Builder
	for _, p := range append([]uint32{ret}, params...) {
		key.WriteString(itoa(int(p)))
		key.WriteByte(',')
	}
	if id, ok := b.sigs[key.String()]; ok {
		return id
	}
	id := b.id()
	b.globals.inst(opTypeFunction, append([]uint32{id, ret}, params...)...)
	b.named.add(id)
	b.sigs[key.String()] = id
	return id
}

// fnCall writes OpFunctionCall of the instance a call reaches, with the
// value arguments evaluated left to right; it returns the result id (of
// type void when the function has no result).
func (f *fn) fnCall(e *ir.FnCall) uint32 {
	callee := f.plan.Callee(f.inst, e)
	if callee == nil || e.Fn == nil {
		fail(ir.Errorf(e.Pos, "spirv: internal error: no function instance for the call of %s", e.Name))
	}
	var args []uint32
	for i, p := range e.Fn.Params {
		if p.Kind == ir.ValueParam && i < len(e.Args) {
			args = append(args, f.expr(e.Args[i]))
		}
	}
	ret := f.tVoid()
	if e.Ty != nil {
		ret = f.tid(e.Ty)
	}
	f.live("OpFunctionCall")
	r := f.builder.id()
	f.body.inst(opFunctionCall, append([]uint32{ret, r, f.fnIDs[callee]}, args...)...)
	return r
}

// returnStmt is OpReturn, or OpReturnValue in a function with a result.
func (f *fn) returnStmt(s *ir.Return) {
	if s.Value == nil {
		f.ret()
		return
	}
	v := f.expr(s.Value)
	f.live("OpReturnValue")
	f.body.inst(opReturnValue, v)
	f.cur = 0
}

// resource maps an object named in a body to the kernel's: inside a
// helper instance, a resource parameter is the kernel buffer or shared
// variable the instance binds it to.
func (f *fn) resource(o ir.Object) ir.Object {
	if p, ok := o.(*ir.Param); ok && f.inst != nil {
		if r, ok := f.inst.Res[p]; ok {
			return r
		}
	}
	return o
}

// contractible lists the float arithmetic that NoContraction must mark in
// precise code (docs/lowering-12.md).
var contractible = map[op]bool{
	opFAdd: true, opFSub: true, opFMul: true, opFDiv: true, opFRem: true,
	opFNegate: true, opDot: true,
}

// markPrecise decorates result r of instruction o NoContraction when the
// function is precise and o is float arithmetic.
func (f *fn) markPrecise(o op, r uint32) {
	if f.precise && contractible[o] {
		f.annots.inst(opDecorate, r, decNoContraction)
	}
}
