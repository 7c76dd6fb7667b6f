package interp

import (
	"github.com/kcgo/kc/ir"
)

// Helper functions, structs, aggregate values, constant arrays and switch.
//
// A call is compiled at each call site into a fresh copy of the callee
// (there is no recursion, so this terminates): its value parameters and
// locals get storage of their own, its resource parameters are bound to
// the caller's buffers and shared variables. Every lane that enters a
// call leaves it (a return inside a function ends the call, not the
// invocation), so the active set after a call is the one before it.
//
// Aggregates (arrays and structs) live in memory, one region per lane, in
// the layout of ir.SizeOf; an aggregate value that is not a variable (a
// literal, a call result, a constant array) is built in a temporary region
// of its own.

// frame is the function being compiled: where its result goes.
type frame struct {
	result *local
	ty     ir.Type
}

// isAggregate reports whether values of t live in memory rather than in a
// value column.
func isAggregate(t ir.Type) bool {
	switch t.(type) {
	case *ir.Array, *ir.Struct:
		return true
	}
	return false
}

// newLocal allocates the storage of one variable of type t for every lane.
func (c *compiler) newLocal(t ir.Type, pos ir.Pos, name string) *local {
	l := &local{}
	if ir.Width(t) > 0 {
		l.col = c.m.newCol()
		return l
	}
	l.size = memStride(t)
	if l.size <= 0 {
		c.errorf(pos, "%s has type %s without a memory layout", name, t)
	}
	l.mem = make([]byte, l.size*c.m.n)
	l.base = make([]int, c.m.n)
	for i := range l.base {
		l.base[i] = i * l.size
	}
	return l
}

// localRef is a ref to the whole of a local's storage.
func localRef(l *local, t ir.Type, name string) ref {
	if l.col != nil {
		return ref{ty: t, col: l.col, name: name}
	}
	base := l.base
	return ref{ty: t, mem: l.mem, at: func([]int32) []int { return base }, name: name}
}

// resolve maps a function's resource parameter to the kernel's buffer or
// shared variable it is bound to in the call being compiled.
func (c *compiler) resolve(o ir.Object) ir.Object {
	for {
		p, ok := o.(*ir.Param)
		if !ok || !p.IsResource() {
			return o
		}
		b, ok := c.res[p]
		if !ok {
			return o
		}
		o = b
	}
}

// fnCall compiles a call at this call site: it evaluates the arguments
// into the parameters of a fresh copy of the callee and runs its body.
// It returns the call and the local holding the result (nil without one).
func (c *compiler) fnCall(e *ir.FnCall) (func(act []int32), *local) {
	f := e.Fn
	if f == nil || f.Body == nil || len(e.Args) != len(f.Params) {
		c.errorf(e.Pos, "call of %s is not resolved (module not checked?)", e.Name)
	}
	if len(c.calls) > 64 {
		c.errorf(e.Pos, "calls nested too deeply (recursion?)")
	}
	// Arguments, compiled in the caller's scope.
	params := map[*ir.Param]*local{}
	res := map[*ir.Param]ir.Object{}
	var args []func(act []int32)
	for i, a := range e.Args {
		p := f.Params[i]
		if p.IsResource() {
			id, ok := a.(*ir.Ident)
			if !ok {
				c.errorf(a.Position(), "resource argument %s is not a name", ir.ExprString(a))
			}
			res[p] = c.resolve(id.Obj)
			continue
		}
		l := c.newLocal(p.Type, p.Pos, p.Name)
		params[p] = l
		args = append(args, c.storeInto(l, p.Type, a))
	}
	var result *local
	if f.Result != nil {
		result = c.newLocal(f.Result, f.Pos, "result of "+f.Name)
	}
	// The body, in a scope of its own.
	saved := *c
	c.locals = map[*ir.Decl]*local{}
	c.params, c.res = params, res
	c.loops = nil
	c.frame = &frame{result: result, ty: f.Result}
	c.calls = append(c.calls, e)
	body := c.block(f.Body)
	c.locals, c.params, c.res, c.loops, c.frame, c.calls = saved.locals, saved.params, saved.res, saved.loops, saved.frame, saved.calls
	return func(act []int32) {
		for _, a := range args {
			a(act)
		}
		body(act)
	}, result
}

// fnCallValue is a call of a function with a scalar or vector result.
func (c *compiler) fnCallValue(e *ir.FnCall) exprFn {
	run, result := c.fnCall(e)
	if result == nil || result.col == nil {
		c.errorf(e.Pos, "call of %s used as a value", e.Name)
	}
	col := result.col
	return func(act []int32) []uint32 {
		run(act)
		return col
	}
}

// storeInto compiles storing the value of e (of type t) into local l.
func (c *compiler) storeInto(l *local, t ir.Type, e ir.Expr) func(act []int32) {
	if l.col != nil {
		ex, col, w := c.expr(e), l.col, width(t)
		return func(act []int32) {
			v := ex(act)
			for _, ln := range act {
				o := 4 * int(ln)
				copy(col[o:o+w], v[o:o+w])
			}
		}
	}
	fill := c.aggInto(e)
	mem, base := l.mem, l.base
	return func(act []int32) { fill(act, mem, base) }
}

// returnStmt ends the function call for the active lanes, storing the
// result first.
func (c *compiler) returnStmt(s *ir.Return) stmtFn {
	fr := c.frame
	if s.Value == nil {
		return func([]int32) []int32 { return nil }
	}
	if fr == nil || fr.result == nil {
		c.errorf(s.Pos, "return with a value outside a function with a result")
	}
	store := c.storeInto(fr.result, fr.ty, s.Value)
	return func(act []int32) []int32 {
		store(act)
		return nil
	}
}

// aggInto compiles an aggregate-valued expression into a function that
// writes its value, for the active lanes, into dst at offs[lane]. dst is
// never memory the expression reads (callers pass a temporary).
func (c *compiler) aggInto(e ir.Expr) func(act []int32, dst []byte, offs []int) {
	t := e.Type()
	size := memStride(t)
	switch e := e.(type) {
	case *ir.StructLit:
		return c.structLitInto(e, size)
	case *ir.ArrayLit:
		return c.arrayLitInto(e, size)
	case *ir.FnCall:
		run, result := c.fnCall(e)
		if result == nil || result.mem == nil {
			c.errorf(e.Pos, "call of %s has no aggregate result", e.Name)
		}
		src := result.mem
		return func(act []int32, dst []byte, offs []int) {
			run(act)
			for _, l := range act {
				copy(dst[offs[l]:offs[l]+size], src[int(l)*size:int(l+1)*size])
			}
		}
	case *ir.Ident:
		if k, ok := e.Obj.(*ir.Const); ok {
			b := constArrayBytes(k, size)
			return func(act []int32, dst []byte, offs []int) {
				for _, l := range act {
					copy(dst[offs[l]:offs[l]+size], b)
				}
			}
		}
	}
	r := c.ref(e)
	if r.mem == nil || memStride(r.ty) != size {
		c.errorf(e.Position(), "cannot copy %s", ir.ExprString(e))
	}
	m, pos := c.m, e.Position()
	return func(act []int32, dst []byte, offs []int) {
		so := r.at(act)
		for _, l := range act {
			if r.race != nil {
				r.race.read(m, pos, l, so[l], size)
			}
			copy(dst[offs[l]:offs[l]+size], r.mem[so[l]:so[l]+size])
		}
	}
}

// fieldInto compiles writing value e into dst at offs[lane]+off.
func (c *compiler) fieldInto(e ir.Expr, off int) func(act []int32, dst []byte, offs []int) {
	t := e.Type()
	if isAggregate(t) {
		inner := c.aggInto(e)
		shifted := make([]int, c.m.n)
		return func(act []int32, dst []byte, offs []int) {
			for _, l := range act {
				shifted[l] = offs[l] + off
			}
			inner(act, dst, shifted)
		}
	}
	ex := c.expr(e)
	s, w := ir.ElemScalar(t), width(t)
	cs := compSize(s)
	return func(act []int32, dst []byte, offs []int) {
		v := ex(act)
		for _, l := range act {
			for i := 0; i < w; i++ {
				storeComp(dst, offs[l]+off+i*cs, s, v[4*int(l)+i])
			}
		}
	}
}

func (c *compiler) structLitInto(e *ir.StructLit, size int) func(act []int32, dst []byte, offs []int) {
	offsets := ir.FieldOffsets(e.Struct)
	var parts []func(act []int32, dst []byte, offs []int)
	for i, k := range e.Keys {
		j := e.Struct.FieldIndex(k)
		if j < 0 {
			c.errorf(e.Pos, "unknown field %s", k)
		}
		parts = append(parts, c.fieldInto(e.Vals[i], offsets[j]))
	}
	return func(act []int32, dst []byte, offs []int) {
		for _, l := range act {
			clear(dst[offs[l] : offs[l]+size])
		}
		for _, p := range parts {
			p(act, dst, offs)
		}
	}
}

func (c *compiler) arrayLitInto(e *ir.ArrayLit, size int) func(act []int32, dst []byte, offs []int) {
	stride := memStride(e.Array.Elem)
	var parts []func(act []int32, dst []byte, offs []int)
	for i, el := range e.Elems {
		parts = append(parts, c.fieldInto(el, i*stride))
	}
	return func(act []int32, dst []byte, offs []int) {
		for _, l := range act {
			clear(dst[offs[l] : offs[l]+size])
		}
		for _, p := range parts {
			p(act, dst, offs)
		}
	}
}

// constArrayBytes lays out a constant array's flattened elements.
func constArrayBytes(k *ir.Const, size int) []byte {
	b := make([]byte, size)
	s := ir.ElemScalar(innermost(k.Ty))
	cs := compSize(s)
	for i, v := range k.Elems {
		if (i+1)*cs <= size {
			storeComp(b, i*cs, s, constBits(v, s))
		}
	}
	return b
}

// innermost is the scalar element type at the bottom of nested arrays.
func innermost(t ir.Type) ir.Type {
	for {
		a, ok := t.(*ir.Array)
		if !ok {
			return t
		}
		t = a.Elem
	}
}

// tempRef materialises an aggregate value that is not a variable (a
// literal, a call, a constant array, a part of one) into a temporary, so
// that it can be indexed or its fields read.
func (c *compiler) tempRef(e ir.Expr) ref {
	t := e.Type()
	l := c.newLocal(t, e.Position(), "temporary")
	fill := c.aggInto(e)
	mem, base := l.mem, l.base
	return ref{ty: t, mem: mem, name: ir.ExprString(e), at: func(act []int32) []int {
		fill(act, mem, base)
		return base
	}}
}

// fieldRef is x.name on a struct in memory.
func (c *compiler) fieldRef(e *ir.Field) ref {
	r := c.ref(e.X)
	s, ok := r.ty.(*ir.Struct)
	if !ok || e.Index < 0 || e.Index >= len(s.Fields) {
		c.errorf(e.Pos, "cannot select .%s of %s", e.Name, r.ty)
	}
	off := ir.FieldOffsets(s)[e.Index]
	r.pos = e.Pos
	return c.offsetRef(r, s.Fields[e.Index].Type, func(act []int32, out, base []int) {
		for _, l := range act {
			out[l] = base[l] + off
		}
	})
}

// copyAggregate stores the aggregate value of src into dst: every active
// invocation builds its whole value before any writes.
func (c *compiler) copyAggregate(pos ir.Pos, dst ref, src ir.Expr) stmtFn {
	size := memStride(dst.ty)
	if memStride(src.Type()) != size || dst.mem == nil {
		c.errorf(pos, "cannot copy %s to %s", src.Type(), dst.ty)
	}
	fill := c.aggInto(src)
	spans := dataSpans(dst.ty, 0, nil)
	m := c.m
	tmp := make([]byte, size*m.n)
	base := make([]int, m.n)
	for i := range base {
		base[i] = i * size
	}
	return func(act []int32) []int32 {
		fill(act, tmp, base)
		d := dst.at(act)
		for _, l := range act {
			if dst.race != nil {
				dst.race.write(m, pos, l, d[l], size)
			}
			copySpans(dst.mem[d[l]:d[l]+size], tmp[int(l)*size:int(l+1)*size], spans)
		}
		return act
	}
}

// span is a run of bytes [off, off+n) of a value in memory.
type span struct{ off, n int }

// dataSpans appends the bytes of a value of type t at offset off that hold
// data, merging adjacent runs: a struct's padding (between fields, after
// the last, and after a vec3 in an array) is left out, so that a store of
// a whole struct leaves padding as it was, as a GPU does (docs/semantics.md
// §4).
func dataSpans(t ir.Type, off int, out []span) []span {
	add := func(o, n int) {
		if k := len(out) - 1; k >= 0 && out[k].off+out[k].n == o {
			out[k].n += n
			return
		}
		out = append(out, span{o, n})
	}
	switch t := t.(type) {
	case ir.Vector:
		add(off, t.N*compSize(t.Elem))
	case *ir.Array:
		st := memStride(t.Elem)
		for i := 0; i < t.Len; i++ {
			for _, s := range dataSpans(t.Elem, off+i*st, nil) {
				add(s.off, s.n)
			}
		}
	case *ir.Struct:
		for i, o := range ir.FieldOffsets(t) {
			for _, s := range dataSpans(t.Fields[i].Type, off+o, nil) {
				add(s.off, s.n)
			}
		}
	default:
		add(off, memStride(t))
	}
	return out
}

// copySpans copies the given runs of src into dst.
func copySpans(dst, src []byte, spans []span) {
	for _, s := range spans {
		copy(dst[s.off:s.off+s.n], src[s.off:s.off+s.n])
	}
}

// switchStmt runs each case for the lanes whose tag matches one of its
// values (the default for the others), in the order of the cases; a break
// leaves the switch. The lanes continue after it in lane order.
func (c *compiler) switchStmt(s *ir.Switch) stmtFn {
	m := c.m
	tag := c.expr(s.Tag)
	ls := &loopState{brk: m.newLanes(), isSwitch: true}
	c.loops = append(c.loops, ls)
	bodies := make([]stmtFn, len(s.Cases))
	def := -1
	vals := map[uint32]int{}
	s32 := ir.ElemScalar(s.Tag.Type())
	for i, k := range s.Cases {
		bodies[i] = c.block(k.Body)
		if k.Default {
			def = i
		}
		for _, v := range k.Vals {
			vals[constBits(v, s32)] = i
		}
	}
	c.loops = c.loops[:len(c.loops)-1]
	lanes := make([][]int32, len(s.Cases))
	for i := range lanes {
		lanes[i] = m.newLanes()
	}
	mark := make([]uint32, m.n)
	var gen uint32
	outBuf := m.newLanes()
	return func(act []int32) []int32 {
		tv := tag(act)
		for i := range lanes {
			lanes[i] = lanes[i][:0]
		}
		gen++
		for _, l := range act {
			i, ok := vals[tv[4*l]]
			if !ok {
				i = def
			}
			if i < 0 {
				mark[l] = gen // no case: straight through
				continue
			}
			lanes[i] = append(lanes[i], l)
		}
		ls.brk = ls.brk[:0]
		for i, b := range bodies {
			if len(lanes[i]) == 0 {
				continue
			}
			for _, l := range b(lanes[i]) {
				mark[l] = gen
			}
		}
		for _, l := range ls.brk {
			mark[l] = gen
		}
		out := outBuf[:0]
		for _, l := range act {
			if mark[l] == gen {
				out = append(out, l)
			}
		}
		return out
	}
}

// innermostLoop is the loop state a continue applies to (not a switch's).
func (c *compiler) innermostLoop(pos ir.Pos) *loopState {
	for i := len(c.loops) - 1; i >= 0; i-- {
		if !c.loops[i].isSwitch {
			return c.loops[i]
		}
	}
	c.errorf(pos, "continue outside a for")
	return nil
}
