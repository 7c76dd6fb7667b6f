package wgsl

import (
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file writes helper functions (docs/lowering-12.md, "Functions").
//
// Each kernel gets its own copies of the functions it calls, one WGSL fn
// per ir.Instance, written callee-first before the entry point. A copy
// takes only the value parameters: a buffer or shared-variable parameter
// is, inside the copy, the kernel's own module-scope variable, so WGSL
// needs no pointer parameters. Builtin values, which WGSL passes to the
// entry point only, are trailing parameters of the functions that read
// them (or whose callees do): var<private> copies would do as well but
// for WGSL's uniformity analysis, which takes every private variable for
// non-uniform and so rejects a barrier under `if workgroup_id.x > 0`.

// preciseNote marks the body of a precise kernel or function: WGSL has no
// way to forbid contraction (docs/semantics.md §9).
const preciseNote = "// precise: WGSL cannot forbid contraction; a consumer may fuse a*b+c here"

// kernelFuncs is what the emitter knows of one kernel's functions.
type kernelFuncs struct {
	plan  *ir.CallPlan
	names map[*ir.Instance]string
	// needs holds, per instance, the builtin values it reads itself or
	// through its callees: trailing parameters of the WGSL function.
	needs map[*ir.Instance]*builtinSet
	all   builtinSet // every builtin any instance needs
}

type builtinSet = [ir.SubgroupInvocationID + 1]bool

// declareFuncs names every function instance of every kernel (with the
// kernel's name as a prefix when the module emits several kernels) and
// works out the builtin values each needs.
func (e *emitter) declareFuncs() {
	for _, k := range e.kernels {
		kf := &kernelFuncs{plan: ir.Instances(k), names: map[*ir.Instance]string{}, needs: map[*ir.Instance]*builtinSet{}}
		prefix := ""
		if len(e.kernels) > 1 {
			prefix = e.res[k].entry + "_"
		}
		for _, inst := range kf.plan.Instances { // callees first
			kf.names[inst] = e.global.Name(prefix + inst.Name)
			needs := builtinsUsed(inst.Func.Body)
			ir.Inspect(inst.Func.Body, func(n ir.Node) bool {
				if call, ok := n.(*ir.FnCall); ok {
					if callee := kf.plan.Callee(inst, call); callee != nil && kf.needs[callee] != nil {
						for b, used := range kf.needs[callee] {
							needs[b] = needs[b] || used
						}
					}
				}
				return true
			})
			kf.needs[inst] = needs
			for b, used := range needs {
				kf.all[b] = kf.all[b] || used
			}
		}
		e.funcs[k] = kf
	}
}

// functions writes the function instances of kernel k, callees first.
func (e *emitter) functions(k *ir.Kernel) {
	kf := e.funcs[k]
	for _, inst := range kf.plan.Instances {
		e.function(k, inst)
		e.w.blank()
	}
}

// function writes one instance: fn name(value params) -> T { body }.
func (e *emitter) function(k *ir.Kernel, inst *ir.Instance) {
	fd := inst.Func
	f := &fn{e: e, k: k, r: e.res[k], names: e.global.Scope(), locals: map[*ir.Decl]string{},
		builtins: map[ir.BuiltinKind]string{}, inst: inst, params: map[*ir.Param]string{}}
	for _, d := range fd.Doc {
		if !strings.HasPrefix(d, "kc:") {
			e.w.line(fd.Pos, "//", d)
		}
	}
	if fd.Precise {
		e.w.line(fd.Pos, preciseNote)
	}
	if bound := f.boundResources(); bound != "" {
		e.w.line(fd.Pos, "// ", fd.Name, " with ", bound)
	}
	var params []string
	for _, p := range fd.Params {
		if p.IsResource() {
			continue
		}
		name := f.names.Name(p.Name)
		f.params[p] = name
		params = append(params, name+": "+e.typeName(p.Type))
	}
	needs := e.funcs[k].needs[inst]
	for b := ir.GlobalID; b <= ir.SubgroupInvocationID; b++ {
		if needs[b] {
			name := f.names.Name(b.String())
			f.builtins[b] = name
			params = append(params, name+": "+e.typeName(b.Type()))
		}
	}
	result := ""
	if fd.Result != nil {
		result = " -> " + e.typeName(fd.Result)
	}
	e.w.line(fd.Pos, "fn ", e.funcs[k].names[inst], "(", strings.Join(params, ", "), ")", result, " {")
	e.w.indent++
	for _, p := range fd.Params {
		if !p.IsResource() && holdsArray(p.Type) {
			// naga v0.19 rejects a run-time index into an array value:
			// the body reads a var copy of the parameter instead.
			name := f.names.Name(p.Name)
			e.w.line(p.Pos, "var ", name, ": ", e.typeName(p.Type), " = ", f.params[p], ";")
			f.params[p] = name
		}
	}
	e.w.indent--
	f.block(fd.Body)
	e.w.line(ir.Pos{}, "}")
}

// boundResources describes the instance's resource parameters and the
// module-scope variables they are in this copy: "x = img, bins = bins".
func (f *fn) boundResources() string {
	var parts []string
	for _, p := range f.inst.Func.Params {
		if p.IsResource() {
			parts = append(parts, p.Name+" = "+f.fnParam(&ir.Ident{Pos: p.Pos, Name: p.Name, Obj: p}, p).s)
		}
	}
	return strings.Join(parts, ", ")
}

// fnParam spells a parameter of the function being written: a value
// parameter by its name, a resource parameter as the kernel's variable it
// is bound to in this instance.
func (f *fn) fnParam(x *ir.Ident, p *ir.Param) wx {
	if name, ok := f.params[p]; ok {
		return prim(name)
	}
	switch o := f.inst.Res[p].(type) {
	case *ir.Param:
		if name, ok := f.r.buffers[o]; ok {
			return prim(name)
		}
	case *ir.Shared:
		if name, ok := f.r.shared[o]; ok {
			return prim(name)
		}
	}
	f.e.fail(ir.Errorf(x.Pos, "wgsl: unresolved parameter %s of %s", x.Name, f.inst.Func.Name))
	return prim(words.Legal(x.Name))
}

// fnCall spells a call of the instance the plan gives for it, with the
// value arguments only (WGSL evaluates them left to right, as kc does).
func (f *fn) fnCall(x *ir.FnCall) wx {
	kf := f.e.funcs[f.k]
	callee := kf.plan.Callee(f.inst, x)
	if callee == nil || x.Fn == nil {
		f.e.fail(ir.Errorf(x.Pos, "wgsl: call of %s has no instance", x.Name))
		return prim("0")
	}
	var args []wx
	for i, p := range x.Fn.Params {
		if !p.IsResource() && i < len(x.Args) {
			args = append(args, f.expr(x.Args[i]))
		}
	}
	needs := kf.needs[callee]
	for b := ir.GlobalID; b <= ir.SubgroupInvocationID; b++ {
		if needs[b] {
			args = append(args, prim(f.builtins[b]))
		}
	}
	return prim(kf.names[callee] + "(" + joinArgs(args) + ")")
}

func (f *fn) returnStmt(s *ir.Return) {
	if s.Value == nil {
		f.line(s.Pos, "return;")
		return
	}
	f.line(s.Pos, "return ", f.expr(s.Value).s, ";")
}

// effects reports whether x must keep its place in kc's left-to-right
// order against the other operands: it has effects (ir.HasEffects: an
// atomic, or a call of a helper that writes memory, runs an atomic or a
// barrier), or it calls any helper, since a helper that only reads a
// buffer must still read before another operand's call writes it.
func effects(x ir.Expr) bool {
	if ir.HasEffects(x) {
		return true
	}
	found := false
	ir.Inspect(x, func(n ir.Node) bool {
		_, call := n.(*ir.FnCall)
		found = found || call
		return !found
	})
	return found
}

// readsMutable reports whether x reads memory that an operand with effects
// could write: a read_write buffer or a shared variable (a read-only
// buffer and the params uniform hold still).
func readsMutable(x ir.Expr) bool {
	found := false
	ir.Inspect(x, func(n ir.Node) bool {
		if id, ok := n.(*ir.Ident); ok {
			switch o := id.Obj.(type) {
			case *ir.Shared:
				found = true
			case *ir.Param:
				found = o.Kind == ir.SharedParam || o.Kind == ir.BufferParam && o.Access == ir.ReadWrite
			}
		}
		return !found
	})
	return found
}
