package hlsl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// fn is the state of one kernel's emission.
type fn struct {
	e      *emitter
	k      *ir.Kernel
	names  map[ir.Object]string // params, shared variables, locals
	lens   map[*ir.Param]string // buffers whose len() is read, by variable name
	local  *emit.Namer          // names inside the entry function
	indent int
	pos    ir.Pos   // position of the statement being emitted
	pre    []string // statements hoisted in front of the current one
	tmp    int      // counter for kc_tN temporaries
	err    error    // first error met

	builtins map[ir.BuiltinKind]bool
	numWG    string // the hidden params field holding num_workgroups
	sm64     string // the first shader-model-6.4 intrinsic called
	pos64    ir.Pos

	// Helper functions (func.go): the kernel's call plan, the instance
	// being emitted (nil: the entry point) and the instances' HLSL names.
	plan       *ir.CallPlan
	inst       *ir.Instance
	instNames  map[*ir.Instance]string
	fnBuiltins map[ir.BuiltinKind]bool // builtins the functions read
	precise    bool                    // the body is precise (precise.go)

	// posts holds, per enclosing for statement, the post statement's
	// lines that each continue runs first; nil where the for header
	// holds the post (stmt.go).
	posts [][]string
}

// builtin semantics and parameter names of the entry function.
var builtinParams = []struct {
	kind     ir.BuiltinKind
	name     string
	typ      string
	semantic string
}{
	{ir.GlobalID, "kc_global_id", "uint3", "SV_DispatchThreadID"},
	{ir.LocalID, "kc_local_id", "uint3", "SV_GroupThreadID"},
	{ir.WorkgroupID, "kc_workgroup_id", "uint3", "SV_GroupID"},
	{ir.LocalIndex, "kc_local_index", "uint", "SV_GroupIndex"},
}

// kernel emits k's resources and entry point.
func (e *emitter) kernel(k *ir.Kernel, prefix string) (emit.Entry, error) {
	f := &fn{e: e, k: k, names: map[ir.Object]string{}, lens: map[*ir.Param]string{}, builtins: map[ir.BuiltinKind]bool{},
		plan: ir.Instances(k), instNames: map[*ir.Instance]string{}, fnBuiltins: map[ir.BuiltinKind]bool{}, precise: k.Precise}
	e.feats |= k.Features
	f.scan(k)
	// The entry keeps the kernel's name unless HLSL reserves it.
	ent := emit.NewEntry(k, e.global.Name(k.Name))
	f.resources(prefix)
	f.functions(prefix)
	f.local = e.global.Scope()
	f.entry(ent.Name)
	// dot4add_* needs shader model 6.4: dxc has it, glslang does not;
	// nor can glslang write cooperative matrices.
	ent.Restricted, ent.RestrictedPos = f.sm64, f.pos64
	if k.Features&ir.FeatureCoopMat != 0 {
		ent.Restricted, ent.RestrictedPos = "cooperative matrices", k.FeatPos[ir.FeatureCoopMat]
	}
	return ent, f.err
}

// scan records the builtins the kernel and its functions read, and the
// structs they use.
func (f *fn) scan(k *ir.Kernel) {
	for _, p := range k.Params {
		f.e.useType(p.Type)
	}
	for _, s := range k.Shared {
		f.e.useType(s.Type)
	}
	f.scanBody(k, k.Body, false)
	for _, inst := range f.plan.Instances {
		for _, p := range inst.Func.Params {
			f.e.useType(p.Type)
		}
		f.e.useType(inst.Func.Result)
		f.scanBody(k, inst.Func.Body, true)
	}
	if len(k.Shared) > 0 {
		f.builtins[ir.LocalIndex] = true // shared memory is zeroed by local_index
	}
}

// scanBody records what one body (the kernel's or a function's) uses.
func (f *fn) scanBody(k *ir.Kernel, body *ir.Block, inFunc bool) {
	ir.Inspect(body, func(n ir.Node) bool {
		if d, ok := n.(*ir.Decl); ok {
			f.e.useType(d.Ty)
		}
		return true
	})
	walkExprs(body, func(x ir.Expr) {
		f.e.useType(x.Type())
		if b, ok := x.(*ir.BuiltinValue); ok {
			f.builtins[b.Kind] = true
			if inFunc {
				f.fnBuiltins[b.Kind] = true
			}
		}
		if l, ok := x.(*ir.Len); ok && l.Buf != nil && !inFunc {
			if p, ok := l.Buf.Obj.(*ir.Param); ok {
				f.lens[p] = ""
			}
		}
	})
}

// out appends a line of the entry body at the current indentation.
func (f *fn) out(pos ir.Pos, text string) {
	f.e.body = append(f.e.body, line{text: strings.Repeat("\t", f.indent) + text, pos: pos})
}

// fail records the first error.
func (f *fn) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// resources declares the params cbuffer, the storage buffers and the
// shared variables of the kernel as globals.
func (f *fn) resources(prefix string) {
	k, e := f.k, f.e
	e.body = append(e.body, line{})
	doc := "// kernel " + k.Name
	e.body = append(e.body, line{text: doc, pos: k.Pos})
	for _, d := range k.Doc {
		if strings.HasPrefix(d, "kc:") {
			continue // a test directive, not documentation
		}
		e.body = append(e.body, line{text: comment(d)})
	}
	fields, _ := ir.ParamsLayout(k)
	nwg := ir.NumWorkgroupsOffset(k)
	if len(fields) > 0 || nwg >= 0 {
		cb := e.global.Name(prefix + "params")
		if prefix == "" {
			cb = "kc_params"
		}
		e.body = append(e.body, line{text: fmt.Sprintf("[[vk::binding(%d, 0)]] cbuffer %s : register(b%d) {", ir.ParamsBinding, cb, ir.ParamsBinding)})
		off := 0
		for _, fl := range fields {
			name := e.global.Name(prefix + fl.Param.Name)
			f.names[fl.Param] = name
			e.body = append(e.body, line{text: fmt.Sprintf("\t%s; // offset %d", decl(fl.Param.Type, name), fl.Offset)})
			off = fl.Offset + fl.Size
		}
		if nwg >= 0 {
			f.numWG = f.hiddenNumWorkgroups(prefix, off, nwg)
		}
		e.body = append(e.body, line{text: "};"})
	}
	for _, p := range ir.Buffers(k) {
		b := ir.BufferBinding(k, p)
		name := e.global.Name(prefix + p.Name)
		f.names[p] = name
		kind, reg := "StructuredBuffer", "t"
		if p.Access == ir.ReadWrite {
			kind, reg = "RWStructuredBuffer", "u"
		}
		e.body = append(e.body, line{text: fmt.Sprintf("[[vk::binding(%d, 0)]] %s<%s> %s : register(%s%d);", b, kind, f.bufferElem(p.Type), name, reg, b)})
	}
	for _, s := range k.Shared {
		name := e.global.Name(prefix + s.Name)
		f.names[s] = name
		// the comments written with the declaration go with it (kc fmt
		// keeps them there too), out of the body
		for _, d := range s.Doc {
			for _, l := range ir.CommentLines(d) {
				e.body = append(e.body, line{text: comment(l)})
			}
		}
		text := "groupshared " + decl(s.Type, name) + ";"
		if s.Comment != "" {
			text += " " + comment(strings.Join(ir.CommentLines(s.Comment), " "))
		}
		e.body = append(e.body, line{text: text})
	}
}

// hiddenNumWorkgroups declares the hidden num_workgroups field of the
// params block at byte offset at (ir.NumWorkgroupsOffset), padding from
// offset off: HLSL has no system value for it, so the host fills it at
// every dispatch, as DXC and Tint do. (A uint3 after a scalar would pack
// into the same 16-byte register; the padding keeps the offset the one
// every target's layout agrees on.) It returns the field's name.
func (f *fn) hiddenNumWorkgroups(prefix string, off, at int) string {
	e := f.e
	for i := 0; off < at; i, off = i+1, off+4 {
		pad := e.global.Name(fmt.Sprintf("%skc_pad%d", prefix, i))
		e.body = append(e.body, line{text: fmt.Sprintf("\tuint %s; // offset %d", pad, off)})
	}
	name := "kc_num_workgroups"
	if prefix != "" {
		name = e.global.Name(prefix + "num_workgroups")
	}
	e.body = append(e.body, line{text: fmt.Sprintf("\tuint3 %s; // offset %d: num_workgroups, written by the host at each dispatch", name, at)})
	return name
}

// bufferElem spells the element type of a structured buffer, defining a
// padded wrapper struct for vec3 and array elements so that the stride is
// kc's std430 stride under every compiler.
func (f *fn) bufferElem(t ir.Type) string {
	switch t := t.(type) {
	case ir.Vector:
		if t.N != 3 {
			return typeName(t)
		}
		name := "kc_" + typeName(t)
		f.e.structs[name] = fmt.Sprintf("// %s padded to its std430 stride of %d bytes.\nstruct %s {\n\t%s v;\n\t%s kc_pad;\n};",
			t, ir.ElemStride(t), name, typeName(t), scalarName(t.Elem))
		return name
	case *ir.Array:
		dims, elem := arrayShape(t)
		var b strings.Builder
		b.WriteString("kc_array")
		for _, d := range dims {
			b.WriteString("_" + strconv.Itoa(d))
		}
		b.WriteString("_" + typeName(elem))
		name := b.String()
		f.e.structs[name] = fmt.Sprintf("// %s as a structured-buffer element.\nstruct %s {\n\t%s;\n};", t, name, decl(t, "v"))
		return name
	}
	return typeName(t)
}

// wrapped reports whether buffer elements of type t are wrapped in a struct
// (accessed through .v).
func wrapped(t ir.Type) bool {
	switch t := t.(type) {
	case ir.Vector:
		return t.N == 3
	case *ir.Array:
		return true
	}
	return false
}

// entry emits the entry function.
func (f *fn) entry(name string) {
	k := f.k
	var params []string
	for _, b := range builtinParams {
		if f.builtins[b.kind] {
			f.local.Reserve(b.name)
			params = append(params, b.typ+" "+b.name+" : "+b.semantic)
		}
	}
	f.out(ir.Pos{}, "")
	if k.Precise {
		f.out(ir.Pos{}, preciseNote)
	}
	f.out(ir.Pos{}, fmt.Sprintf("[numthreads(%d, %d, %d)]", k.Size[0], k.Size[1], k.Size[2]))
	f.out(k.Pos, fmt.Sprintf("void %s(%s) {", name, strings.Join(params, ", ")))
	f.indent++
	f.prologue()
	if k.Body != nil {
		f.stmts(k.Body.Stmts)
	}
	f.indent--
	f.out(ir.Pos{}, "}")
}

// prologue copies the builtins helper functions read, reads buffer
// lengths and zeroes shared memory.
func (f *fn) prologue() {
	k := f.k
	for _, b := range builtinParams {
		if f.fnBuiltins[b.kind] {
			s := staticBuiltin(b.name)
			f.e.statics["1 builtin "+s] = "// " + b.name[3:] + " for helper functions\nstatic " + b.typ + " " + s + ";"
			f.out(ir.Pos{}, s+" = "+b.name+";")
		}
	}
	for _, p := range ir.Buffers(k) {
		if _, ok := f.lens[p]; !ok {
			continue
		}
		n := f.local.Fresh("kc_len_" + f.names[p])
		f.lens[p] = n
		stride := f.local.Fresh("kc_stride")
		f.out(ir.Pos{}, fmt.Sprintf("uint %s, %s;", n, stride))
		f.out(ir.Pos{}, fmt.Sprintf("%s.GetDimensions(%s, %s);", f.names[p], n, stride))
	}
	if len(k.Shared) == 0 {
		return
	}
	threads := k.Size[0] * k.Size[1] * k.Size[2]
	if threads <= 0 {
		threads = 1
	}
	f.out(ir.Pos{}, "// workgroup memory starts zeroed")
	for _, s := range k.Shared {
		f.zero(ir.Pos{}, f.names[s], s.Type, "kc_local_index", threads)
	}
	f.out(ir.Pos{}, "GroupMemoryBarrierWithGroupSync();")
}

// zero emits code that stores zero into every element of variable name of
// type t, element i handled by invocations start, start+step, ...
// (start "" and step 1: the invocation does all of it).
func (f *fn) zero(pos ir.Pos, name string, t ir.Type, start string, step int) {
	dims, elem := arrayShape(t)
	if len(dims) == 0 {
		if start != "" {
			f.out(pos, fmt.Sprintf("if (%s == 0u) {", start))
			f.out(pos, fmt.Sprintf("\t%s = %s;", name, zeroValue(elem)))
			f.out(pos, "}")
			return
		}
		f.out(pos, fmt.Sprintf("%s = %s;", name, zeroValue(elem)))
		return
	}
	total := 1
	for _, d := range dims {
		total *= d
	}
	iv := f.local.Fresh("kc_z")
	if start == "" {
		start = "0u"
	}
	f.out(pos, fmt.Sprintf("for (uint %s = %s; %s < %du; %s += %du) {", iv, start, iv, total, iv, step))
	idx := ""
	inner := total
	for i, d := range dims {
		inner /= d
		switch {
		case len(dims) == 1:
			idx += "[" + iv + "]"
		case i == 0:
			idx += fmt.Sprintf("[%s / %du]", iv, inner)
		case inner == 1:
			idx += fmt.Sprintf("[%s %% %du]", iv, d)
		default:
			idx += fmt.Sprintf("[(%s / %du) %% %du]", iv, inner, d)
		}
	}
	f.out(pos, fmt.Sprintf("\t%s%s = %s;", name, idx, zeroValue(elem)))
	f.out(pos, "}")
}

// walkExprs calls visit for every expression under the statement s.
func walkExprs(s ir.Stmt, visit func(ir.Expr)) {
	ir.Inspect(s, func(n ir.Node) bool {
		if e, ok := n.(ir.Expr); ok {
			visit(e)
		}
		return true
	})
}
