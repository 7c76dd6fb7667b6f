package ir

import (
	"fmt"
	"strconv"
)

// Helper functions: `fn name(params) T { ... }` at module level, called from
// kernels and from other functions.
//
// A function has value parameters (Kind ValueParam: scalars, vectors,
// arrays, structs; immutable inside the body, as in WGSL) and resource
// parameters: storage buffers (Kind BufferParam, `x read_write []f32`) and
// workgroup variables (Kind SharedParam, `tile shared [64]f32`). A call
// passes a resource by naming one of the caller's buffers or shared
// variables (a kernel's, or a resource parameter of the calling function);
// the callee reads and writes it in place. No target needs pointers for
// this: emitters specialise each function per kernel and per tuple of
// resources it is called with (see Instances), so that inside the copy a
// resource parameter is the kernel's own global variable.

// Func is a module-level helper function.
type Func struct {
	Doc []string // comment lines above the function, without //
	// DocComments is set only when a /* */ comment is among those above:
	// every one of them as written (with its // or /* */), which kc fmt
	// prints in place of Doc. Doc keeps their text lines, for emitters.
	DocComments []string
	Pos         Pos
	Name        string
	Precise     bool     // `precise fn`: no contraction or reassociation of float operations in the body
	Params      []*Param // Kind ValueParam, BufferParam or SharedParam
	Result      Type     // nil for a function without a result
	Body        *Block

	// Set by Check.
	Features Features        // optional capabilities the body uses (not its callees')
	FeatPos  map[Feature]Pos // where each of Features is first used
	Coops    []CoopMat       // cooperative-matrix types the body uses (not its callees')
}

// FnCall calls a helper function: `f(a, b)`. As a statement it is a
// CallStmt. Args are evaluated left to right; a resource argument is a bare
// identifier naming a buffer or shared variable.
type FnCall struct {
	Pos  Pos
	Name string
	Args []Expr
	Fn   *Func // set by Check
	Ty   Type  // set by Check: Fn.Result (nil: no value)
	Parens
}

// CallStmt is a call of a helper function evaluated for its effect; a
// result, if any, is discarded.
type CallStmt struct {
	Pos  Pos
	Call *FnCall
}

func (e *FnCall) Type() Type      { return e.Ty }
func (*FnCall) isExpr()           {}
func (e *FnCall) Position() Pos   { return e.Pos }
func (*CallStmt) isStmt()         {}
func (s *CallStmt) Position() Pos { return s.Pos }
func (f *Func) Position() Pos     { return f.Pos }
func (f *Func) ObjName() string   { return f.Name }

// Func returns the function called name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f != nil && f.Name == name {
			return f
		}
	}
	return nil
}

// IsResource reports whether p is a buffer or shared-variable parameter of a
// function (or a kernel's buffer), which a call binds to the caller's
// resource rather than to a value.
func (p *Param) IsResource() bool { return p.Kind == BufferParam || p.Kind == SharedParam }

// Instance is one specialisation of a function for one kernel: the
// function, and what each of its resource parameters is bound to in that
// kernel (a kernel *Param buffer or a *Shared). Emitters write one target
// function per Instance, naming the bound globals where the body names a
// resource parameter, and passing only the value parameters.
type Instance struct {
	Func *Func
	Res  map[*Param]Object // resource parameter -> the kernel's *Param or *Shared
	Name string            // unique within the kernel's instances: f, f_1, f_2, ...
}

// CallPlan is the result of Instances: every instance a kernel needs, in
// callee-first order (an instance comes after every instance it calls),
// and, for every FnCall reachable from the kernel, the instance it calls.
// A call written in a function's body may call different instances from
// different instances of that function (their resources differ), so
// Callee takes the calling instance as well as the call.
type CallPlan struct {
	Instances []*Instance
	calls     map[callSite]*Instance
}

type callSite struct {
	from *Instance
	call *FnCall
}

// Callee returns the instance that call, written in the body of from (nil:
// the kernel body), calls.
func (p *CallPlan) Callee(from *Instance, call *FnCall) *Instance {
	return p.calls[callSite{from, call}]
}

// Instances computes the function instances kernel k of a checked module
// needs (see Instance). Functions that take no resources have one
// instance per kernel.
func Instances(k *Kernel) *CallPlan {
	p := &CallPlan{calls: map[callSite]*Instance{}}
	memo := map[string]*Instance{}
	names := map[string]int{}
	var visit func(from *Instance, n Node)
	visit = func(from *Instance, n Node) {
		Inspect(n, func(n Node) bool {
			call, ok := n.(*FnCall)
			if !ok || call.Fn == nil {
				return true
			}
			res := map[*Param]Object{}
			key := call.Fn.Name
			for i, prm := range call.Fn.Params {
				if !prm.IsResource() || i >= len(call.Args) {
					continue
				}
				obj := resourceArg(from, call.Args[i])
				res[prm] = obj
				key += "\x00" + objKey(obj)
			}
			inst := memo[key]
			if inst == nil {
				name := call.Fn.Name
				if c := names[name]; c > 0 {
					name += "_" + strconv.Itoa(c)
				}
				names[call.Fn.Name]++
				inst = &Instance{Func: call.Fn, Res: res, Name: name}
				memo[key] = inst
				visit(inst, call.Fn.Body)
				p.Instances = append(p.Instances, inst)
			}
			p.calls[callSite{from, call}] = inst
			return true
		})
	}
	visit(nil, k.Body)
	return p
}

// resourceArg resolves a resource argument (an identifier) to the kernel's
// object, through the resource bindings of the calling instance.
func resourceArg(from *Instance, e Expr) Object {
	id, ok := e.(*Ident)
	if !ok {
		return nil
	}
	if p, ok := id.Obj.(*Param); ok && from != nil {
		if o, ok := from.Res[p]; ok {
			return o
		}
	}
	return id.Obj
}

// objKey identifies a resource for memoisation within one Instances call.
func objKey(o Object) string { return fmt.Sprintf("%p", o) }
