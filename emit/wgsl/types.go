package wgsl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file spells types and writes the module-scope declarations and the
// entry point of each kernel.

// typeName spells t in WGSL; a type WGSL cannot express records an error.
func (e *emitter) typeName(t ir.Type) string {
	switch t := t.(type) {
	case ir.Scalar:
		switch t {
		case ir.Bool, ir.I32, ir.U32, ir.F32, ir.F16:
			return t.String()
		}
	case ir.Vector:
		return "vec" + strconv.Itoa(t.N) + "<" + e.typeName(t.Elem) + ">"
	case *ir.Array:
		return "array<" + e.typeName(t.Elem) + ", " + strconv.Itoa(t.Len) + ">"
	case ir.Atomic:
		return "atomic<" + e.typeName(t.Elem) + ">"
	case *ir.Struct:
		if name, ok := e.structNames[t]; ok {
			return name
		}
	case ir.CoopMat:
		return e.coopTypeName(t, ir.Pos{})
	}
	e.fail(fmt.Errorf("wgsl: invalid type %s", ir.TypeString(t)))
	return "invalid"
}

// tag is a short identifier-safe spelling of a scalar or vector type for
// helper names: i32, vec3_f32.
func tag(t ir.Type) string {
	if v, ok := t.(ir.Vector); ok {
		return "vec" + strconv.Itoa(v.N) + "_" + v.Elem.String()
	}
	return ir.TypeString(t)
}

// builtinAttr is the WGSL builtin value of each kc builtin.
var builtinAttr = map[ir.BuiltinKind]string{
	ir.GlobalID:             "global_invocation_id",
	ir.LocalID:              "local_invocation_id",
	ir.WorkgroupID:          "workgroup_id",
	ir.NumWorkgroups:        "num_workgroups",
	ir.LocalIndex:           "local_invocation_index",
	ir.SubgroupSize:         "subgroup_size",
	ir.SubgroupInvocationID: "subgroup_invocation_id",
}

// declareNames gives every kernel's module-scope objects their names:
// entry points first, so they keep their .kc names when they can, then
// each kernel's params block, buffers and shared variables. With several
// kernels the resources are prefixed with the kernel name.
func (e *emitter) declareNames() {
	for _, k := range e.kernels {
		r := &resources{
			fields:  map[*ir.Param]string{},
			buffers: map[*ir.Param]string{},
			shared:  map[*ir.Shared]string{},
		}
		r.entry = e.global.Name(k.Name)
		e.res[k] = r
		e.entries = append(e.entries, emit.NewEntry(k, r.entry))
	}
	e.declareTypes()
	for _, k := range e.kernels {
		r := e.res[k]
		prefix := ""
		if len(e.kernels) > 1 {
			prefix = r.entry + "_"
		}
		if ir.HasParamsBlock(k) {
			r.paramsType = e.global.Name(prefix + "Params")
			r.paramsVar = e.global.Name(prefix + "params")
			fields := emit.NewNamer(words)
			for _, p := range k.Params {
				if p.Kind == ir.ScalarParam {
					r.fields[p] = fields.Name(p.Name)
				}
			}
		}
		for _, p := range ir.Buffers(k) {
			r.buffers[p] = e.global.Name(prefix + p.Name)
		}
		for _, s := range k.Shared {
			r.shared[s] = e.global.Name(prefix + s.Name)
		}
	}
}

// kernelDecls writes the params struct, the bindings and the workgroup
// variables of k.
func (e *emitter) kernelDecls(k *ir.Kernel) {
	r := e.res[k]
	fields, size := ir.ParamsLayout(k)
	if len(fields) > 0 {
		e.w.blank()
		e.w.line(k.Pos, "// params of ", k.Name, ": ", strconv.Itoa(size), " bytes")
		e.w.line(k.Pos, "struct ", r.paramsType, " {")
		e.w.indent++
		for _, f := range fields {
			e.w.line(f.Param.Pos, r.fields[f.Param], ": ", e.typeName(f.Param.Type), ",")
		}
		e.w.indent--
		e.w.line(ir.Pos{}, "}")
		e.w.blank()
		e.w.line(k.Pos, fmt.Sprintf("@group(0) @binding(%d) var<uniform> %s: %s;", ir.ParamsBinding, r.paramsVar, r.paramsType))
	}
	bufs := ir.Buffers(k)
	if len(bufs) > 0 && len(fields) == 0 {
		e.w.blank()
	}
	for _, p := range bufs {
		e.w.line(p.Pos, fmt.Sprintf("@group(0) @binding(%d) var<storage, %s> %s: array<%s>;",
			ir.BufferBinding(k, p), p.Access, r.buffers[p], e.typeName(p.Type)))
	}
	if len(k.Shared) > 0 {
		e.w.blank()
	}
	for _, s := range k.Shared {
		// the comments written with the declaration go with it (kc fmt
		// keeps them there too), out of the body
		for _, d := range s.Doc {
			for _, l := range ir.CommentLines(d) {
				e.w.line(s.Pos, "//", l)
			}
		}
		e.w.line(s.Pos, "var<workgroup> ", r.shared[s], ": ", e.typeName(s.Type), ";", trailComment(s.Comment))
	}
}

// kernel writes the entry point of k.
func (e *emitter) kernel(k *ir.Kernel) {
	r := e.res[k]
	e.functions(k)
	f := &fn{e: e, k: k, r: r, names: e.global.Scope(), locals: map[*ir.Decl]string{}, builtins: map[ir.BuiltinKind]string{}}
	for _, d := range k.Doc {
		if !strings.HasPrefix(d, "kc:") { // test-corpus directives stay in the .kc
			e.w.line(k.Pos, "//", d)
		}
	}
	if k.Precise {
		e.w.line(k.Pos, preciseNote)
	}
	size := k.Size
	for i := range size {
		if size[i] < 1 {
			size[i] = 1
		}
	}
	e.w.line(k.Pos, fmt.Sprintf("@compute @workgroup_size(%d, %d, %d)", size[0], size[1], size[2]))
	used := builtinsUsed(k.Body)
	inFuncs := &e.funcs[k].all
	var params []string
	for b := ir.GlobalID; b <= ir.SubgroupInvocationID; b++ {
		if !used[b] && !inFuncs[b] {
			continue
		}
		name := f.names.Name(b.String())
		f.builtins[b] = name
		params = append(params, fmt.Sprintf("@builtin(%s) %s: %s", builtinAttr[b], name, e.typeName(b.Type())))
	}
	e.w.line(k.Pos, "fn ", r.entry, "(", strings.Join(params, ", "), ") {")
	e.w.indent++
	if k.Body != nil {
		f.stmts(k.Body.Stmts)
	}
	e.w.indent--
	e.w.line(ir.Pos{}, "}")
}

// builtinsUsed lists the builtin values a statement tree reads.
func builtinsUsed(b *ir.Block) *[ir.SubgroupInvocationID + 1]bool {
	var used [ir.SubgroupInvocationID + 1]bool
	ir.Inspect(b, func(n ir.Node) bool {
		if x, ok := n.(*ir.BuiltinValue); ok && x.Kind <= ir.SubgroupInvocationID {
			used[x.Kind] = true
		}
		return true
	})
	return &used
}

// trailComment spells a comment written after a declaration on its line
// as a // comment to end the declaration's line ("" for none); a /* */
// comment over several lines becomes one line.
func trailComment(c string) string {
	if c == "" {
		return ""
	}
	return " //" + strings.Join(ir.CommentLines(c), " ")
}
