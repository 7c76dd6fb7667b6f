package interp

import (
	"encoding/binary"

	"github.com/kcgo/kc/ir"
)

// ref is an addressable place: a local scalar or vector variable (col),
// optionally one component of it (at gives the component per lane), or a
// location in memory (mem: a buffer, a shared variable or the lanes'
// local arrays; at gives the byte offset per lane).
type ref struct {
	ty   ir.Type
	col  []uint32
	mem  []byte
	at   func(act []int32) []int // nil: the whole local variable col
	buf  *ir.Param               // set while the ref is a whole buffer
	name string
	race *raceMem // shared memory under the race detector
	pos  ir.Pos   // the expression, for race reports
}

// addressable reports whether e denotes a place (rather than a value).
func (c *compiler) addressable(e ir.Expr) bool {
	switch e := e.(type) {
	case *ir.Ident:
		switch o := c.resolve(e.Obj).(type) {
		case *ir.Decl, *ir.Shared:
			return true
		case *ir.Param:
			return o.Kind == ir.BufferParam || o.Kind == ir.ValueParam
		}
	case *ir.Index:
		return c.addressable(e.X)
	case *ir.Field:
		if _, ok := e.X.Type().(ir.CompareExchangeResult); ok {
			return false // a value, never in memory
		}
		return c.addressable(e.X)
	case *ir.Swizzle:
		return len(e.Comps) == 1 && c.addressable(e.X)
	}
	return false
}

// declare allocates the storage of a local.
func (c *compiler) declare(d *ir.Decl) *local {
	if l := c.locals[d]; l != nil {
		return l
	}
	if d.Ty == nil {
		c.errorf(d.Pos, "local %s has no type (module not checked?)", d.Name)
	}
	l := &local{}
	// a compare-exchange result or a cooperative matrix (its handle) lives in a column
	if _, isResult := d.Ty.(ir.CompareExchangeResult); ir.Width(d.Ty) > 0 || isResult || ir.IsCoopMat(d.Ty) {
		l.col = c.m.newCol()
	} else {
		l.size = memStride(d.Ty)
		if l.size <= 0 {
			c.errorf(d.Pos, "local %s has type %s without a memory layout", d.Name, d.Ty)
		}
		l.mem = make([]byte, l.size*c.m.n)
		l.base = make([]int, c.m.n)
		for i := range l.base {
			l.base[i] = i * l.size
		}
	}
	c.locals[d] = l
	return l
}

// ref compiles an addressable expression.
func (c *compiler) ref(e ir.Expr) ref {
	switch e := e.(type) {
	case *ir.Ident:
		switch o := c.resolve(e.Obj).(type) {
		case *ir.Param:
			if o.Kind == ir.ValueParam {
				l := c.params[o]
				if l == nil {
					c.errorf(e.Pos, "parameter %s outside its function", e.Name)
				}
				return localRef(l, o.Type, e.Name)
			}
		case *ir.Const:
			if isAggregate(e.Ty) {
				return c.tempRef(e)
			}
		}
		switch o := c.resolve(e.Obj).(type) {
		case *ir.Decl:
			l := c.locals[o]
			if l == nil {
				c.errorf(e.Pos, "local %s used before its declaration", e.Name)
			}
			if l.col != nil {
				return ref{ty: o.Ty, col: l.col, name: e.Name}
			}
			base := l.base
			return ref{ty: o.Ty, mem: l.mem, at: func([]int32) []int { return base }, name: e.Name}
		case *ir.Shared:
			zeros := c.zeros
			return ref{ty: o.Type, mem: c.shared[o], at: func([]int32) []int { return zeros }, name: e.Name, race: c.races[o], pos: e.Pos}
		case *ir.Param:
			if o.Kind == ir.BufferParam {
				zeros := c.zeros
				return ref{ty: o.Type, mem: c.m.buffers[o], at: func([]int32) []int { return zeros }, buf: o, name: e.Name, race: c.races[o], pos: e.Pos}
			}
		}
	case *ir.Index:
		return c.indexRef(e)
	case *ir.Field:
		return c.fieldRef(e)
	case *ir.StructLit, *ir.ArrayLit, *ir.FnCall:
		return c.tempRef(e)
	case *ir.Swizzle:
		idx := swizzleIndexes(e.Comps)
		r := c.ref(e.X)
		vt, ok := r.ty.(ir.Vector)
		if len(idx) != 1 || !ok || idx[0] >= vt.N {
			c.errorf(e.Pos, "cannot address .%s of %s", e.Comps, r.ty)
		}
		k := idx[0]
		return c.offsetRef(r, vt.Elem, func(act []int32, out []int, base []int) {
			step := k
			if r.col == nil {
				step = k * compSize(vt.Elem)
			}
			for _, l := range act {
				out[l] = base[l] + step
			}
		})
	}
	c.errorf(e.Position(), "%s is not addressable", ir.ExprString(e))
	return ref{}
}

// offsetRef derives a ref of type t whose offsets fill computes from r's.
func (c *compiler) offsetRef(r ref, t ir.Type, fill func(act []int32, out, base []int)) ref {
	out := make([]int, c.m.n)
	prev := r.at
	zeros := c.zeros
	at := func(act []int32) []int {
		base := zeros
		if prev != nil {
			base = prev(act)
		}
		fill(act, out, base)
		return out
	}
	return ref{ty: t, col: r.col, mem: r.mem, at: at, name: r.name, race: r.race, pos: r.pos}
}

// indexRef is x[i] on a buffer, an array or a vector in a variable, with
// the bounds check that reports an out-of-bounds index.
func (c *compiler) indexRef(e *ir.Index) ref {
	r := c.ref(e.X)
	ix := c.expr(e.Index)
	signed := ir.ElemScalar(e.Index.Type()) == ir.I32
	var bound int64
	var stride int
	var elem ir.Type
	var what string
	if r.buf != nil {
		st := ir.ElemStride(r.buf.Type)
		bound, stride, elem = int64(len(r.mem)/st), st, r.buf.Type
		what = "buffer " + r.name + " (" + itoa(bound) + " elements)"
	} else {
		switch t := r.ty.(type) {
		case *ir.Array:
			bound, stride, elem = int64(t.Len), memStride(t.Elem), t.Elem
			what = "array " + r.name + " (" + t.String() + ")"
		case ir.Vector:
			bound, elem = int64(t.N), t.Elem
			stride = compSize(t.Elem)
			if r.col != nil {
				stride = 1
			}
			what = r.name + " (" + t.String() + ")"
		}
	}
	if elem == nil {
		c.errorf(e.Pos, "cannot index %s", r.ty)
	}
	m := c.m
	pos := e.Pos
	r.pos = pos
	return c.offsetRef(r, elem, func(act []int32, out, base []int) {
		iv := ix(act)
		for _, l := range act {
			i := indexInt(iv[4*l], signed)
			if i < 0 || i >= bound {
				m.fail(pos, l, "index %d out of bounds for %s", i, what)
			}
			out[l] = base[l] + int(i)*stride
		}
	})
}

func itoa(i int64) string {
	var b [24]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			break
		}
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// load reads the value at r for the active lanes.
func (c *compiler) load(r ref) exprFn {
	if r.col != nil && r.at == nil {
		col := r.col
		return func([]int32) []uint32 { return col }
	}
	out := c.m.newCol()
	ld := c.raceLoad(r, c.loader(r))
	at := r.at
	return func(act []int32) []uint32 {
		ld(act, at(act), out)
		return out
	}
}

// loader returns a function that reads r's value at given offsets.
func (c *compiler) loader(r ref) func(act []int32, offs []int, out []uint32) {
	if r.col != nil {
		col := r.col
		if r.at == nil {
			w := width(r.ty)
			return func(act []int32, _ []int, out []uint32) {
				for _, l := range act {
					o := 4 * int(l)
					copy(out[o:o+w], col[o:o+w])
				}
			}
		}
		return func(act []int32, offs []int, out []uint32) {
			for _, l := range act {
				out[4*l] = col[4*int(l)+offs[l]]
			}
		}
	}
	mem := r.mem
	s := ir.ElemScalar(r.ty)
	w := width(r.ty)
	if w == 1 && compSize(s) == 4 {
		return func(act []int32, offs []int, out []uint32) {
			for _, l := range act {
				out[4*l] = binary.LittleEndian.Uint32(mem[offs[l]:])
			}
		}
	}
	cs := compSize(s)
	return func(act []int32, offs []int, out []uint32) {
		for _, l := range act {
			o, p := 4*int(l), offs[l]
			for i := 0; i < w; i++ {
				out[o+i] = loadComp(mem, p+i*cs, s)
			}
		}
	}
}

// storer returns a function that writes a value column to r's offsets.
func (c *compiler) storer(r ref) func(act []int32, offs []int, v []uint32) {
	if r.col != nil {
		col := r.col
		if r.at == nil {
			w := width(r.ty)
			return func(act []int32, _ []int, v []uint32) {
				for _, l := range act {
					o := 4 * int(l)
					copy(col[o:o+w], v[o:o+w])
				}
			}
		}
		return func(act []int32, offs []int, v []uint32) {
			for _, l := range act {
				col[4*int(l)+offs[l]] = v[4*l]
			}
		}
	}
	mem := r.mem
	s := ir.ElemScalar(r.ty)
	w := width(r.ty)
	cs := compSize(s)
	if ir.Width(r.ty) == 0 && s == ir.Invalid {
		return nil // arrays are not stored as values
	}
	return func(act []int32, offs []int, v []uint32) {
		for _, l := range act {
			o, p := 4*int(l), offs[l]
			for i := 0; i < w; i++ {
				storeComp(mem, p+i*cs, s, v[o+i])
			}
		}
	}
}

func loadComp(mem []byte, off int, s ir.Scalar) uint32 {
	if s.Is8Bit() {
		return uint32(mem[off])
	}
	if s == ir.F16 || s == ir.BF16 {
		return uint32(binary.LittleEndian.Uint16(mem[off:]))
	}
	return binary.LittleEndian.Uint32(mem[off:])
}

func storeComp(mem []byte, off int, s ir.Scalar, v uint32) {
	if s.Is8Bit() {
		mem[off] = byte(v)
		return
	}
	if s == ir.F16 || s == ir.BF16 {
		binary.LittleEndian.PutUint16(mem[off:], uint16(v))
		return
	}
	binary.LittleEndian.PutUint32(mem[off:], v)
}
