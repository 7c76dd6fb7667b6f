package interp

import (
	"fmt"

	"github.com/kcgo/kc/ir"
)

// exprFn evaluates an expression for the active lanes and returns its
// value column (four words per lane; only active lanes are meaningful).
// The column belongs to the expression: callers read it and must not
// write it.
type exprFn func(act []int32) []uint32

// stmtFn executes a statement for the active lanes (sorted) and returns
// the lanes that continue with the next statement, in order.
type stmtFn func(act []int32) []int32

// compiler turns a checked kernel into closures, once per Run.
type compiler struct {
	m      *machine
	locals map[*ir.Decl]*local
	shared map[*ir.Shared][]byte
	races  map[ir.Object]*raceMem // shared variables and buffers, with Options.Races
	loops  []*loopState
	zeros  []int // a zero offset per lane

	// The function being compiled (see lang.go); all nil in the kernel body.
	params map[*ir.Param]*local    // value parameters
	res    map[*ir.Param]ir.Object // resource parameters -> the kernel's buffer or *Shared
	frame  *frame                  // where a return stores the result
	calls  []*ir.FnCall            // calls being compiled, outermost first
}

// local is the storage of a local variable: a value column for scalars and
// vectors, or memory with one region of size bytes per lane for arrays.
type local struct {
	col  []uint32
	mem  []byte
	size int
	base []int // lane * size
}

// compileError aborts compilation; compileKernel recovers it.
type compileError struct{ err *Error }

func (c *compiler) errorf(pos ir.Pos, format string, args ...any) {
	panic(compileError{&Error{Kernel: c.m.k.Name, Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

// compileKernel compiles the kernel's body for machine m.
func compileKernel(m *machine) (body stmtFn, err error) {
	m.initBuiltins()
	c := &compiler{m: m, locals: map[*ir.Decl]*local{}, shared: map[*ir.Shared][]byte{}, zeros: make([]int, m.n)}
	defer func() {
		if r := recover(); r != nil {
			ce, ok := r.(compileError)
			if !ok {
				panic(r)
			}
			body, err = nil, ce.err
		}
	}()
	if m.races {
		c.races = map[ir.Object]*raceMem{}
		for p, b := range m.buffers {
			c.races[p] = newRaceMem("buffer "+p.Name, len(b), true)
		}
	}
	for _, s := range m.k.Shared {
		size := memStride(s.Type)
		if size <= 0 {
			c.errorf(s.Pos, "shared %s has type %s without a memory layout", s.Name, s.Type)
		}
		b := make([]byte, size)
		c.shared[s] = b
		m.shared = append(m.shared, b)
		if m.races {
			c.races[s] = newRaceMem("shared "+s.Name, size, false)
		}
	}
	if m.k.Body == nil {
		return func(act []int32) []int32 { return act }, nil
	}
	return c.block(m.k.Body), nil
}

// memStride is the byte size of t in memory: ir.ElemStride, with bool
// (only in shared and local memory) stored as a 4-byte word.
func memStride(t ir.Type) int {
	switch t := t.(type) {
	case ir.Scalar:
		if t == ir.Bool {
			return 4
		}
	case ir.Vector:
		if t.Elem == ir.Bool {
			return memStride(ir.Vector{Elem: ir.U32, N: t.N})
		}
	case *ir.Array:
		return t.Len * memStride(t.Elem)
	case *ir.Struct:
		return ir.SizeOf(t)
	case ir.CoopMat:
		return 0
	}
	return ir.ElemStride(t)
}

// compSize is the byte size of one component of scalar type s in memory.
func compSize(s ir.Scalar) int {
	if s.Is8Bit() {
		return 1
	}
	if s == ir.F16 || s == ir.BF16 {
		return 2
	}
	return 4
}

// width is the number of components of a value type (1 for scalars).
func width(t ir.Type) int {
	if n := ir.Width(t); n > 0 {
		return n
	}
	if _, ok := t.(ir.CompareExchangeResult); ok {
		return 2 // old_value, exchanged
	}
	return 1
}

// stride1 is 1 for a vector operand and 0 for a scalar broadcast to one.
func stride1(t ir.Type) int {
	if _, ok := t.(ir.Vector); ok {
		return 1
	}
	return 0
}

// constant returns an expression whose value is comps (splat over width w).
func (c *compiler) constant(w int, comps ...uint32) exprFn {
	col := c.m.newCol()
	for l := 0; l < c.m.n; l++ {
		for i := 0; i < w; i++ {
			col[4*l+i] = comps[i%len(comps)]
		}
	}
	return func([]int32) []uint32 { return col }
}

// column returns an expression that reads a column the machine keeps.
func column(col *[]uint32) exprFn {
	return func([]int32) []uint32 { return *col }
}

func (c *compiler) expr(e ir.Expr) exprFn {
	if e.Type() == nil {
		c.errorf(e.Position(), "expression %s has no type (module not checked?)", ir.ExprString(e))
	}
	switch e := e.(type) {
	case *ir.Lit:
		return c.constant(width(e.Ty), constBits(e.Val, ir.ElemScalar(e.Ty)))
	case *ir.Ident:
		return c.ident(e)
	case *ir.BuiltinValue:
		return c.builtin(e)
	case *ir.CoopMake, *ir.CoopLoad, *ir.CoopMulAdd, *ir.CoopLength:
		return c.coopExpr(e)
	case *ir.Unary:
		if ir.IsCoopMat(e.Ty) {
			return c.coopNeg(e)
		}
		f := unaryFn(e.Op, ir.ElemScalar(e.Ty))
		if f == nil {
			c.errorf(e.Pos, "operator %s is not defined on %s", e.Op, e.Ty)
		}
		return c.map1(c.expr(e.X), width(e.Ty), f)
	case *ir.Binary:
		if ir.IsCoopMat(e.Ty) {
			return c.coopBinary(e)
		}
		return c.binary(e)
	case *ir.Call:
		return c.call(e)
	case *ir.Convert:
		f := convertFn(ir.ElemScalar(e.X.Type()), e.To)
		if f == nil || width(e.X.Type()) != 1 {
			c.errorf(e.Pos, "cannot convert %s to %s", e.X.Type(), e.To)
		}
		return c.map1(c.expr(e.X), 1, f)
	case *ir.Construct:
		return c.construct(e)
	case *ir.Bitcast:
		return c.bitcast(e)
	case *ir.Index:
		if ir.IsCoopMat(e.X.Type()) {
			return c.coopElem(e)
		}
		if c.addressable(e.X) || isAggregate(e.X.Type()) {
			return c.load(c.ref(e))
		}
		return c.indexValue(e)
	case *ir.Field:
		if _, ok := e.X.Type().(ir.CompareExchangeResult); ok {
			// old_value and exchanged: components 0 and 1 of the value
			return c.swizzle(&ir.Swizzle{Pos: e.Pos, X: e.X, Comps: e.Name, Ty: e.Ty})
		}
		return c.load(c.ref(e))
	case *ir.FnCall:
		return c.fnCallValue(e)
	case *ir.Swizzle:
		if len(e.Comps) == 1 && c.addressable(e.X) {
			return c.load(c.ref(e))
		}
		return c.swizzle(e)
	case *ir.Len:
		p, ok := c.resolve(e.Buf.Obj).(*ir.Param)
		if !ok || p.Kind != ir.BufferParam {
			c.errorf(e.Pos, "len of %s, which is not a buffer", e.Buf.Name)
		}
		return c.constant(1, uint32(len(c.m.buffers[p])/ir.ElemStride(p.Type)))
	}
	c.errorf(e.Position(), "unsupported expression %s", ir.ExprString(e))
	return nil
}

func (c *compiler) ident(e *ir.Ident) exprFn {
	switch o := c.resolve(e.Obj).(type) {
	case *ir.Param:
		if o.Kind == ir.ScalarParam {
			return c.constant(1, c.m.params[o])
		}
		if o.Kind == ir.ValueParam {
			return c.load(c.ref(e))
		}
		c.errorf(e.Pos, "buffer %s used as a value", e.Name)
	case *ir.Const:
		s := ir.ElemScalar(e.Ty)
		return c.constant(width(e.Ty), constBits(o.Val, s))
	case *ir.Decl, *ir.Shared:
		if _, isResult := e.Ty.(ir.CompareExchangeResult); ir.Width(e.Ty) == 0 && !isResult && !ir.IsCoopMat(e.Ty) {
			c.errorf(e.Pos, "%s of type %s used as a value (only scalars, vectors and cooperative matrices are values)", e.Name, e.Ty)
		}
		return c.load(c.ref(e))
	}
	c.errorf(e.Pos, "unresolved identifier %s (module not checked?)", e.Name)
	return nil
}

func (c *compiler) builtin(e *ir.BuiltinValue) exprFn {
	m := c.m
	switch e.Kind {
	case ir.GlobalID:
		return column(&m.globalID)
	case ir.LocalID:
		return column(&m.localID)
	case ir.WorkgroupID:
		return column(&m.workgroupID)
	case ir.NumWorkgroups:
		return column(&m.numWorkgroups)
	case ir.LocalIndex:
		return column(&m.localIndex)
	case ir.SubgroupSize:
		return column(&m.sgSizeCol)
	case ir.SubgroupInvocationID:
		return column(&m.sgInvocation)
	}
	c.errorf(e.Pos, "unknown builtin %v", e.Kind)
	return nil
}
