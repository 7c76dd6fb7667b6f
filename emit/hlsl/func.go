package hlsl

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file lowers helper functions. Each kernel gets its own copies of
// the functions it calls, one per ir.Instance (per tuple of resources the
// function is called with), emitted callee first before the entry point:
// a resource parameter is the kernel's global buffer or groupshared
// variable inside the copy, so an HLSL function takes the value parameters
// only. Builtin values the functions read are copied at entry into static
// globals (kc_fn_global_id, ...): HLSL system values are entry-point
// parameters. HLSL cannot return an array, so an array result travels in a
// wrapper struct (kc_ret_...) unwrapped at the call.
//
// HLSL does not fix the order in which operands and arguments are
// evaluated. kc evaluates left to right; the order can only be observed
// through memory, so seq hoists into temporaries, in order, every operand
// that reads memory or has an effect when an operand after it has an effect
// (writes memory, runs an atomic operation or a barrier), and a call with
// an effect is always evaluated into a temporary of its own.

// builtin statics: the global copies of entry-point system values that
// helper functions read.
func staticBuiltin(name string) string { return "kc_fn_" + strings.TrimPrefix(name, "kc_") }

// functions names and emits the instances the kernel calls.
func (f *fn) functions(prefix string) {
	for _, inst := range f.plan.Instances {
		f.instNames[inst] = f.e.global.Name(prefix + inst.Name)
	}
	for _, inst := range f.plan.Instances {
		f.function(inst)
	}
}

// function emits one instance.
func (f *fn) function(inst *ir.Instance) {
	fu := inst.Func
	g := &fn{e: f.e, k: f.k, names: map[ir.Object]string{}, lens: map[*ir.Param]string{},
		builtins: f.builtins, plan: f.plan, inst: inst, instNames: f.instNames, precise: fu.Precise, numWG: f.numWG,
		local: f.e.global.Scope()}
	var params []string
	for _, p := range fu.Params {
		if p.IsResource() {
			obj := inst.Res[p]
			name, ok := f.names[obj]
			if !ok {
				f.fail(fmt.Errorf("%s: hlsl: resource parameter %s of %s is not bound", p.Pos, p.Name, fu.Name))
				continue
			}
			g.names[p] = name
			continue
		}
		name := g.local.Name(p.Name)
		g.names[p] = name
		params = append(params, decl(p.Type, name))
	}
	result := "void"
	if fu.Result != nil {
		result = f.e.resultType(fu.Result)
	}
	f.out(ir.Pos{}, "")
	for _, d := range fu.Doc {
		f.out(ir.Pos{}, comment(d))
	}
	if len(inst.Res) > 0 {
		f.out(ir.Pos{}, "// resources: "+f.bindings(inst))
	}
	if fu.Precise {
		f.out(ir.Pos{}, preciseNote)
	}
	f.out(fu.Pos, fmt.Sprintf("%s %s(%s) {", result, f.instNames[inst], strings.Join(params, ", ")))
	g.indent = f.indent + 1
	g.funcLens(inst)
	if fu.Body != nil {
		g.stmts(fu.Body.Stmts)
	}
	f.out(ir.Pos{}, "}")
	if g.err != nil {
		f.fail(g.err)
	}
}

// bindings describes the resources of an instance: "bins = bins".
func (f *fn) bindings(inst *ir.Instance) string {
	var parts []string
	for _, p := range inst.Func.Params {
		if p.IsResource() {
			parts = append(parts, p.Name+" = "+f.names[inst.Res[p]])
		}
	}
	return strings.Join(parts, ", ")
}

// funcLens reads the lengths of the buffers whose len() the function body
// takes.
func (f *fn) funcLens(inst *ir.Instance) {
	walkExprs(inst.Func.Body, func(x ir.Expr) {
		l, ok := x.(*ir.Len)
		if !ok || l.Buf == nil {
			return
		}
		p, ok := l.Buf.Obj.(*ir.Param)
		if !ok || f.lens[p] != "" {
			return
		}
		n := f.local.Fresh("kc_len_" + f.names[p])
		f.lens[p] = n
		stride := f.local.Fresh("kc_stride")
		f.out(ir.Pos{}, fmt.Sprintf("uint %s, %s;", n, stride))
		f.out(ir.Pos{}, fmt.Sprintf("%s.GetDimensions(%s, %s);", f.names[p], n, stride))
	})
}

// resultType spells a function result type, wrapping an array in a struct.
func (e *emitter) resultType(t ir.Type) string {
	if _, ok := t.(*ir.Array); !ok {
		return typeName(t)
	}
	dims, elem := arrayShape(t)
	name := "kc_ret"
	for _, d := range dims {
		name += fmt.Sprintf("_%d", d)
	}
	name += "_" + typeName(elem)
	e.structs[name] = fmt.Sprintf("// %s as a function result (HLSL cannot return an array).\nstruct %s {\n\t%s;\n};", t, name, decl(t, "v"))
	return name
}

// fnCall emits a call of a helper function used for its value.
func (f *fn) fnCall(c *ir.FnCall) hx {
	call := f.callText(c)
	if c.Ty == nil {
		f.fail(fmt.Errorf("%s: hlsl: the result of %s, which has none, is used", c.Pos, c.Name))
		return primary("0")
	}
	if _, ok := c.Ty.(*ir.Array); ok {
		call += ".v"
	}
	if !f.e.effects(c.Fn) {
		return primary(call)
	}
	// An effect is ordered with the other effects of the statement:
	// evaluate it before the statement, after what precedes it.
	t := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
	f.tmp++
	f.pre = append(f.pre, f.declPrefix(c.Ty)+decl(c.Ty, t)+" = "+call+";")
	return primary(t)
}

// callStmt emits a call made for its effect.
func (f *fn) callStmt(s *ir.CallStmt) {
	if s.Call == nil {
		return
	}
	call := f.callText(s.Call)
	f.flush()
	f.out(s.Pos, call+";")
}

// callText spells name(args) for the instance the call reaches.
func (f *fn) callText(c *ir.FnCall) string {
	inst := f.plan.Callee(f.inst, c)
	if inst == nil || c.Fn == nil {
		f.fail(fmt.Errorf("%s: hlsl: call of %s has no instance", c.Pos, c.Name))
		return "0"
	}
	var vals []ir.Expr
	for i, p := range c.Fn.Params {
		if !p.IsResource() && i < len(c.Args) {
			vals = append(vals, c.Args[i])
		}
	}
	hs := f.seq(vals, true)
	args := make([]string, len(hs))
	for i, h := range hs {
		args[i] = h.s
	}
	return f.instNames[inst] + "(" + strings.Join(args, ", ") + ")"
}

// effects reports whether calling fu writes memory, runs an atomic
// operation (other than a load) or a barrier, itself or in a callee.
func (e *emitter) effects(fu *ir.Func) bool {
	if fu == nil {
		return false
	}
	if v, ok := e.effectMemo[fu]; ok {
		return v
	}
	e.effectMemo[fu] = false // no recursion: the checker forbids it
	found := false
	ir.Inspect(fu.Body, func(n ir.Node) bool {
		switch n := n.(type) {
		case *ir.Barrier:
			found = true
		case *ir.Assign:
			if isResourceRoot(n.LHS) {
				found = true
			}
		case *ir.Call:
			if n.Func.IsAtomic() && n.Func != ir.AtomicLoad {
				found = true
			}
		case *ir.FnCall:
			if e.effects(n.Fn) {
				found = true
			}
		}
		return !found
	})
	e.effectMemo[fu] = found
	return found
}

// isResourceRoot reports whether an assignment target lies in a buffer or
// shared variable.
func isResourceRoot(x ir.Expr) bool {
	for {
		switch v := x.(type) {
		case *ir.Index:
			x = v.X
		case *ir.Field:
			x = v.X
		case *ir.Swizzle:
			x = v.X
		case *ir.Ident:
			switch o := v.Obj.(type) {
			case *ir.Param:
				return o.Kind != ir.ValueParam && o.Kind != ir.ScalarParam
			case *ir.Shared:
				return true
			}
			return false
		default:
			return false
		}
	}
}

// hasEffects reports whether evaluating x writes memory or runs an atomic
// operation.
func (f *fn) hasEffects(x ir.Expr) bool {
	found := false
	walkExprs(&ir.ExprStmt{Call: &ir.Call{Args: []ir.Expr{x}}}, func(n ir.Expr) {
		switch n := n.(type) {
		case *ir.Call:
			if n.Func.IsAtomic() && n.Func != ir.AtomicLoad {
				found = true
			}
		case *ir.FnCall:
			if f.e.effects(n.Fn) {
				found = true
			}
		}
	})
	return found
}

// readsInline reports whether the text of x, once emitted, still reads
// memory: an index, a shared variable (a scalar or struct one is read by
// its bare name) or a call without effects (atomic operations, atomicLoad
// included, and calls with effects are evaluated into temporaries in order
// already).
func (f *fn) readsInline(x ir.Expr) bool {
	found := false
	ir.Inspect(x, func(n ir.Node) bool {
		switch n := n.(type) {
		case *ir.Index:
			found = true
		case *ir.Ident:
			found = isShared(n)
		case *ir.Call:
			return !n.Func.IsAtomic()
		case *ir.FnCall:
			if f.e.effects(n.Fn) {
				return false
			}
			found = true
		}
		return !found
	})
	return found
}

// seq evaluates xs left to right as kc does (see the file comment); sinks
// says whether the values leave the expression (arguments), which matters
// in precise code.
func (f *fn) seq(xs []ir.Expr, sinks bool) []hx {
	out := make([]hx, len(xs))
	later := make([]bool, len(xs)) // an operand after i has an effect
	for i := len(xs) - 2; i >= 0; i-- {
		later[i] = later[i+1] || f.hasEffects(xs[i+1])
	}
	for i, x := range xs {
		h := f.ex(x)
		if sinks {
			h = f.sink(x, h)
		}
		if later[i] && f.readsInline(x) && (!isName(h.s) || isShared(x)) {
			t := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
			f.tmp++
			f.pre = append(f.pre, f.declPrefix(x.Type())+decl(x.Type(), t)+" = "+h.s+";")
			h = primary(t)
		}
		out[i] = h
	}
	return out
}

// isShared reports whether x names a shared variable (in a function, a
// shared parameter, which is the kernel's variable): its name reads memory
// that an effect can write.
func isShared(x ir.Expr) bool {
	id, ok := x.(*ir.Ident)
	if !ok {
		return false
	}
	switch o := id.Obj.(type) {
	case *ir.Shared:
		return true
	case *ir.Param:
		return o.Kind == ir.SharedParam
	}
	return false
}

// isName reports whether s is a plain identifier.
func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// lvalue emits an assignment target whose value has effects: indexes that
// read memory are evaluated into temporaries first, as kc evaluates the
// target before the value.
func (f *fn) lvalue(x ir.Expr) hx {
	switch v := x.(type) {
	case *ir.Index:
		idx := f.ex(v.Index)
		if f.readsInline(v.Index) && (!isName(idx.s) || isShared(v.Index)) {
			t := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
			f.tmp++
			f.pre = append(f.pre, decl(v.Index.Type(), t)+" = "+idx.s+";")
			idx = primary(t)
		}
		if p := bufferParam(v.X); p != nil {
			s := f.names[p] + "[" + idx.s + "]"
			if wrapped(p.Type) {
				s += ".v"
			}
			return primary(s)
		}
		return primary(f.lvalue(v.X).at(precPrimary) + "[" + idx.s + "]")
	case *ir.Field:
		st, ok := v.X.Type().(*ir.Struct)
		if !ok || v.Index < 0 || v.Index >= len(st.Fields) {
			return f.field(v)
		}
		return primary(f.lvalue(v.X).at(precPrimary) + "." + fieldNames(st)[v.Index])
	case *ir.Swizzle:
		return primary(f.lvalue(v.X).at(precPrimary) + "." + v.Comps)
	}
	return f.ex(x)
}
