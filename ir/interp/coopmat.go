package interp

import (
	"fmt"
	"math"

	"github.com/kcgo/kc/ir"
)

// Cooperative matrices: whole-matrix semantics. A matrix is one value per
// subgroup (per workgroup for workgroup scope: then read "workgroup" for
// "subgroup" below). Every invocation of the subgroup holds the same handle (word 0
// of its value column) to a matrix the machine keeps for the workgroup;
// handle 0 is the zero matrix (a var without an initializer). Each
// cooperative operation must be executed by every invocation of a
// subgroup together (the lockstep machine checks it: an operation that
// sees part of a subgroup is an error), with the same operands in every
// invocation (the same matrices, offsets, strides and scalars: checked
// too); it then happens once per subgroup: a load reads the matrix once,
// a store writes it once, a multiply-add computes it once.
//
// Elements are held as float64 values exactly representable in the
// element type. coopMulAdd computes each element as the float64 sum of C
// and the K products (exact for f16 and bf16 inputs), rounded once to the
// accumulator type; GPUs sum in other orders and precisions, so compare
// with a tolerance proportional to K (docs/semantics.md).

// matrix is the value of a cooperative matrix: row-major elements.
type matrix struct {
	t ir.CoopMat
	v []float64
}

// newMat stores a fresh matrix of type t for this workgroup and returns it
// with its handle.
func (m *machine) newMat(t ir.CoopMat) (*matrix, uint32) {
	mat := &matrix{t: t, v: make([]float64, t.Rows*t.Cols)}
	m.mats = append(m.mats, mat)
	return mat, uint32(len(m.mats))
}

// mat returns the matrix of type t behind handle h.
func (m *machine) mat(h uint32, t ir.CoopMat) *matrix {
	if h == 0 || int(h) > len(m.mats) {
		return &matrix{t: t, v: make([]float64, t.Rows*t.Cols)}
	}
	return m.mats[h-1]
}

// elemF64 reads an element's bits as a float64.
func elemF64(bits uint32, s ir.Scalar) float64 {
	switch s {
	case ir.F16:
		return float64(h16(bits))
	case ir.BF16:
		return float64(bf(bits))
	case ir.I8:
		return float64(int8(bits))
	case ir.U8:
		return float64(uint8(bits))
	case ir.I32:
		return float64(int32(bits))
	case ir.U32:
		return float64(bits)
	}
	return float64(f32(bits))
}

// roundTo rounds v to element type s (bf16: to f32 first, then to nearest
// even bf16).
func roundTo(v float64, s ir.Scalar) float64 {
	switch s {
	case ir.F16:
		return float64(h16(uint32(f64ToF16(v))))
	case ir.BF16:
		return float64(bf(bbf(float32(v))))
	case ir.I8:
		return float64(int8(int64(v))) // integers wrap
	case ir.U8:
		return float64(uint8(int64(v)))
	case ir.I32:
		return float64(int32(int64(v)))
	case ir.U32:
		return float64(uint32(int64(v)))
	}
	return float64(float32(v))
}

// groups calls f once per subgroup in act (scope subgroup) or once for the
// workgroup (scope workgroup), with the group's lanes, after checking that
// the whole group is there.
func (c *compiler) groups(pos ir.Pos, op string, scope ir.MatrixScope, act []int32, f func(lanes []int32)) {
	m := c.m
	m.coopScope = scope
	if scope == ir.ScopeWorkgroup {
		if len(act) != m.n {
			m.fail(pos, act[0], "%s reached by %d of the %d invocations of the workgroup: all invocations of a workgroup must execute a workgroup-scope cooperative operation together", op, len(act), m.n)
		}
		f(act)
		return
	}
	m.eachSubgroup(act, func(lanes []int32) {
		g := int(lanes[0]) / m.sgSize
		want := min(m.sgSize, m.n-g*m.sgSize)
		if len(lanes) != want {
			m.fail(pos, lanes[0], "%s reached by %d of the %d invocations of subgroup %d: all invocations of a subgroup must execute a cooperative operation together", op, len(lanes), want, g)
		}
		f(lanes)
	})
}

// coopGroup names the group of lanes the current cooperative operation
// acts for (groups sets its scope).
func (m *machine) coopGroup(lanes []int32) string {
	if m.coopScope == ir.ScopeWorkgroup {
		return "the workgroup"
	}
	return fmt.Sprintf("subgroup %d", int(lanes[0])/m.sgSize)
}

// same checks that word 0 of col is the same in every lane and returns it.
func (c *compiler) same(pos ir.Pos, op, what string, col []uint32, lanes []int32) uint32 {
	v := col[4*lanes[0]]
	for _, l := range lanes[1:] {
		if col[4*l] != v {
			c.m.fail(pos, l, "%s: the %s differs between invocations of %s (%d in invocation %d, %d in invocation %d); it must be the same", op, what, c.m.coopGroup(lanes), v, lanes[0], col[4*l], l)
		}
	}
	return v
}

// setAll stores handle h in word 0 of out for every lane.
func setAll(out []uint32, lanes []int32, h uint32) {
	for _, l := range lanes {
		out[4*l] = h
	}
}

func (c *compiler) coopExpr(e ir.Expr) exprFn {
	switch e := e.(type) {
	case *ir.CoopMake:
		return c.coopMake(e)
	case *ir.CoopLoad:
		return c.coopLoad(e)
	case *ir.CoopMulAdd:
		return c.coopMulAdd(e)
	case *ir.CoopLength:
		t := e.M.Type().(ir.CoopMat)
		per := c.m.sgSize
		if t.Scope == ir.ScopeWorkgroup {
			per = c.m.n
		}
		n := (t.Rows*t.Cols + per - 1) / per
		return c.constant(1, uint32(n))
	}
	c.errorf(e.Position(), "unsupported cooperative operation %s", ir.ExprString(e))
	return nil
}

func (c *compiler) coopMake(e *ir.CoopMake) exprFn {
	x := c.expr(e.X)
	to, m := e.To, c.m
	out := m.newCol()
	if from, ok := e.X.Type().(ir.CoopMat); ok {
		return func(act []int32) []uint32 {
			xs := x(act)
			c.groups(e.Pos, "coopmat conversion", to.Scope, act, func(lanes []int32) {
				src := m.mat(c.same(e.Pos, "coopmat conversion", "matrix", xs, lanes), from)
				dst, h := m.newMat(to)
				for i, v := range src.v {
					dst.v[i] = roundTo(v, to.Elem)
				}
				setAll(out, lanes, h)
			})
			return out
		}
	}
	xs := ir.ElemScalar(e.X.Type())
	return func(act []int32) []uint32 {
		vals := x(act)
		c.groups(e.Pos, "coopmat fill", to.Scope, act, func(lanes []int32) {
			v := roundTo(elemF64(c.same(e.Pos, "coopmat fill", "value", vals, lanes), xs), to.Elem)
			dst, h := m.newMat(to)
			for i := range dst.v {
				dst.v[i] = v
			}
			setAll(out, lanes, h)
		})
		return out
	}
}

// coopMem is the memory of a load's source or a store's destination and
// the byte size of its elements: the matrix's element size, or that of
// the packed words (ir.CoopPacks), in which offsets and strides count.
func (c *compiler) coopMem(id *ir.Ident) ([]byte, int) {
	r := c.ref(id)
	t := r.ty
	if a, ok := t.(*ir.Array); ok {
		t = a.Elem
	}
	unit := 0
	switch t := t.(type) {
	case ir.Scalar:
		unit = compSize(t)
	case ir.Vector:
		unit = memStride(t)
	}
	if unit == 0 || r.mem == nil {
		c.errorf(id.Pos, "%s is not a buffer or shared array of scalars or vectors", id.Name)
	}
	return r.mem, unit
}

// coopAddrs returns the byte offset of each element (i, j) of a matrix
// (row-major order), checking bounds: off and stride count units of unit
// bytes, and a row (col_major: a column) runs on in elements of the
// matrix's size (ir.Layout).
func (c *compiler) coopAddrs(pos ir.Pos, op string, lane int32, t ir.CoopMat, layout ir.Layout, off, stride int64, unit, memLen int) []int {
	addrs := make([]int, t.Rows*t.Cols)
	es := int64(compSize(t.Elem))
	for i := 0; i < t.Rows; i++ {
		for j := 0; j < t.Cols; j++ {
			line, at := int64(i), int64(j)
			if layout == ir.ColMajor {
				line, at = at, line
			}
			b := (off+line*stride)*int64(unit) + at*es
			if off+line*stride < 0 || b+es > int64(memLen) {
				if int64(unit) == es {
					c.m.fail(pos, lane, "%s out of bounds: element (%d, %d) is at index %d, outside the %d elements", op, i, j, off+line*stride+at, memLen/unit)
				} else {
					c.m.fail(pos, lane, "%s out of bounds: element (%d, %d) is at byte %d, outside the %d bytes", op, i, j, b, memLen)
				}
			}
			addrs[i*t.Cols+j] = int(b)
		}
	}
	return addrs
}

// coopAligned stops the run when the byte offset or stride of a
// cooperative load or store breaks Vulkan's alignment rule (ir.CoopAlign):
// undefined on every device, so an error here rather than a result.
func (c *compiler) coopAligned(pos ir.Pos, op string, lane int32, t ir.CoopMat, layout ir.Layout, off, stride int64, unit int) {
	a := int64(ir.CoopAlign(t, layout))
	for _, x := range [2]struct {
		what string
		v    int64
	}{{"offset", off}, {"stride", stride}} {
		if b := x.v * int64(unit); b%a != 0 {
			c.m.fail(pos, lane, "%s misaligned: %s %d is byte %s %d, not a multiple of %d (%s %s needs the lesser of 16 and a %s's bytes: %s)",
				op, x.what, x.v, x.what, b, a, t, layout, lineName(layout), ir.CoopAlignRule)
			return
		}
	}
}

// lineName is what a layout keeps in consecutive memory.
func lineName(l ir.Layout) string {
	if l == ir.ColMajor {
		return "column"
	}
	return "row"
}

// index reads an i32 or u32 word as a signed offset.
func index(v uint32, s ir.Scalar) int64 {
	if s == ir.I32 {
		return int64(int32(v))
	}
	return int64(v)
}

func (c *compiler) coopLoad(e *ir.CoopLoad) exprFn {
	mem, unit := c.coopMem(e.Src)
	offE, strE := c.expr(e.Offset), c.expr(e.Stride)
	os, ss := ir.ElemScalar(e.Offset.Type()), ir.ElemScalar(e.Stride.Type())
	m, t := c.m, e.To
	s := t.Elem
	out := m.newCol()
	return func(act []int32) []uint32 {
		offs, strs := offE(act), strE(act)
		c.groups(e.Pos, "coopLoad", t.Scope, act, func(lanes []int32) {
			off := index(c.same(e.Pos, "coopLoad", "offset", offs, lanes), os)
			str := index(c.same(e.Pos, "coopLoad", "stride", strs, lanes), ss)
			c.coopAligned(e.Pos, "coopLoad", lanes[0], t, e.Layout, off, str, unit)
			addrs := c.coopAddrs(e.Pos, "coopLoad", lanes[0], t, e.Layout, off, str, unit, len(mem))
			dst, h := m.newMat(t)
			for i, a := range addrs {
				dst.v[i] = elemF64(loadComp(mem, a, s), s)
			}
			setAll(out, lanes, h)
		})
		return out
	}
}

func (c *compiler) coopStore(st *ir.CoopStore) stmtFn {
	mem, unit := c.coopMem(st.Dst)
	mE, offE, strE := c.expr(st.M), c.expr(st.Offset), c.expr(st.Stride)
	os, ss := ir.ElemScalar(st.Offset.Type()), ir.ElemScalar(st.Stride.Type())
	m, t := c.m, st.M.Type().(ir.CoopMat)
	s := t.Elem
	return func(act []int32) []int32 {
		ms, offs, strs := mE(act), offE(act), strE(act)
		c.groups(st.Pos, "coopStore", t.Scope, act, func(lanes []int32) {
			src := m.mat(c.same(st.Pos, "coopStore", "matrix", ms, lanes), t)
			off := index(c.same(st.Pos, "coopStore", "offset", offs, lanes), os)
			str := index(c.same(st.Pos, "coopStore", "stride", strs, lanes), ss)
			c.coopAligned(st.Pos, "coopStore", lanes[0], t, st.Layout, off, str, unit)
			addrs := c.coopAddrs(st.Pos, "coopStore", lanes[0], t, st.Layout, off, str, unit, len(mem))
			for i, a := range addrs {
				storeComp(mem, a, s, fromElem(src.v[i], s))
			}
		})
		return act
	}
}

// fromElem converts an element value (exact in s) to s's bits.
func fromElem(v float64, s ir.Scalar) uint32 {
	switch {
	case s == ir.BF16:
		return bbf(float32(v))
	case s.IsInt() || s.Is8Bit():
		return uint32(int64(v))
	}
	return fromF64(v, s)
}

func (c *compiler) coopMulAdd(e *ir.CoopMulAdd) exprFn {
	aE, bE, cE := c.expr(e.A), c.expr(e.B), c.expr(e.C)
	at, bt, ct := e.A.Type().(ir.CoopMat), e.B.Type().(ir.CoopMat), e.C.Type().(ir.CoopMat)
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		as, bs, cs := aE(act), bE(act), cE(act)
		c.groups(e.Pos, "coopMulAdd", ct.Scope, act, func(lanes []int32) {
			a := m.mat(c.same(e.Pos, "coopMulAdd", "A matrix", as, lanes), at)
			b := m.mat(c.same(e.Pos, "coopMulAdd", "B matrix", bs, lanes), bt)
			cm := m.mat(c.same(e.Pos, "coopMulAdd", "C matrix", cs, lanes), ct)
			dst, h := m.newMat(ct)
			K, N := at.Cols, ct.Cols
			for i := 0; i < ct.Rows; i++ {
				for j := 0; j < N; j++ {
					sum := cm.v[i*N+j]
					for k := 0; k < K; k++ {
						sum += a.v[i*K+k] * b.v[k*N+j]
					}
					dst.v[i*N+j] = roundTo(sum, ct.Elem)
				}
			}
			setAll(out, lanes, h)
		})
		return out
	}
}

// coopBinary: element-wise + - * / of two matrices, or scaling by a scalar.
func (c *compiler) coopBinary(e *ir.Binary) exprFn {
	xE, yE := c.expr(e.X), c.expr(e.Y)
	t := e.Ty.(ir.CoopMat)
	xMat, yMat := ir.IsCoopMat(e.X.Type()), ir.IsCoopMat(e.Y.Type())
	m, op := c.m, e.Op
	out := m.newCol()
	return func(act []int32) []uint32 {
		xs, ys := xE(act), yE(act)
		c.groups(e.Pos, "cooperative "+op.String(), t.Scope, act, func(lanes []int32) {
			what := "cooperative " + op.String()
			operand := func(col []uint32, isMat bool) func(i int) float64 {
				v := c.same(e.Pos, what, "operand", col, lanes)
				if isMat {
					mat := m.mat(v, t)
					return func(i int) float64 { return mat.v[i] }
				}
				s := elemF64(v, t.Elem)
				return func(int) float64 { return s }
			}
			x, y := operand(xs, xMat), operand(ys, yMat)
			dst, h := m.newMat(t)
			for i := range dst.v {
				dst.v[i] = roundTo(arith(op, x(i), y(i), t.Elem.IsInt()), t.Elem)
			}
			setAll(out, lanes, h)
		})
		return out
	}
}

// arith applies + - * / to exact element values (float32 or float16
// operands: the float64 result rounded once equals the rounded operation;
// integers in int64, wrapped by roundTo).
func arith(op ir.BinaryOp, x, y float64, isInt bool) float64 {
	if isInt {
		a, b := int64(x), int64(y)
		switch op {
		case ir.OpAdd:
			return float64(int64(int32(a + b)))
		case ir.OpSub:
			return float64(int64(int32(a - b)))
		case ir.OpMul:
			return float64(int64(int32(a * b)))
		}
	}
	switch op {
	case ir.OpAdd:
		return x + y
	case ir.OpSub:
		return x - y
	case ir.OpMul:
		return x * y
	case ir.OpDiv:
		return x / y
	}
	return math.NaN()
}

// coopNeg is -m.
func (c *compiler) coopNeg(e *ir.Unary) exprFn {
	xE := c.expr(e.X)
	t := e.Ty.(ir.CoopMat)
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		xs := xE(act)
		c.groups(e.Pos, "cooperative -", t.Scope, act, func(lanes []int32) {
			src := m.mat(c.same(e.Pos, "cooperative -", "operand", xs, lanes), t)
			dst, h := m.newMat(t)
			for i, v := range src.v {
				dst.v[i] = roundTo(-v, t.Elem) // -MIN wraps to MIN
			}
			setAll(out, lanes, h)
		})
		return out
	}
}

// Element access (ir/coopmat.go): element i of an invocation is element
// i*S + lane of the matrix in row-major order, S the subgroup size and
// lane the invocation's index in its subgroup; i must be below
// coopLength(m) = ceil(rows*cols / S), and an element past the end of the
// matrix reads as 0 and takes no write.

// ownElem returns the row-major index of element i of invocation l of a
// matrix of type t, -1 past the end of the matrix; an i outside
// [0, coopLength) stops the run.
func (c *compiler) ownElem(pos ir.Pos, l int32, t ir.CoopMat, i int64) int {
	s := c.m.sgSize
	n := (t.Rows*t.Cols + s - 1) / s
	if i < 0 || i >= int64(n) {
		c.m.fail(pos, l, "element %d of %s out of bounds: an invocation holds coopLength = %d elements (subgroup size %d)", i, t, n, s)
		return -1
	}
	f := int(i)*s + int(l)%s
	if f >= t.Rows*t.Cols {
		return -1
	}
	return f
}

// coopElem reads m[i]: every invocation its own element.
func (c *compiler) coopElem(e *ir.Index) exprFn {
	t := e.X.Type().(ir.CoopMat)
	xE, iE := c.expr(e.X), c.expr(e.Index)
	is := ir.ElemScalar(e.Index.Type())
	m := c.m
	out := m.newCol()
	return func(act []int32) []uint32 {
		hs, idx := xE(act), iE(act)
		for _, l := range act {
			out[4*l] = 0
			if f := c.ownElem(e.Pos, l, t, index(idx[4*l], is)); f >= 0 {
				out[4*l] = fromElem(m.mat(hs[4*l], t).v[f], t.Elem)
			}
		}
		return out
	}
}

// coopElemAssign runs m[i] = x (or m[i] op= x): the subgroup together, each
// invocation writing its own element of a copy of m (matrices are values:
// another variable holding m keeps it), which then becomes m.
func (c *compiler) coopElemAssign(a *ir.Assign, x *ir.Index) stmtFn {
	t := x.X.Type().(ir.CoopMat)
	r := c.ref(x.X)
	if r.col == nil {
		c.errorf(a.Pos, "cannot assign to an element of %s", ir.ExprString(x.X))
		return nil
	}
	rhs := a.RHS
	if a.Op != ir.OpNone { // m[i] op= y is m[i] = m[i] op y: reading m[i] is pure
		rhs = &ir.Binary{Pos: a.Pos, Op: a.Op, X: x, Y: a.RHS, Ty: t.Elem}
	}
	iE, vE := c.expr(x.Index), c.expr(rhs)
	is := ir.ElemScalar(x.Index.Type())
	m, col := c.m, r.col
	return func(act []int32) []int32 {
		idx, vals := iE(act), vE(act)
		c.groups(a.Pos, "an assignment to a cooperative-matrix element", t.Scope, act, func(lanes []int32) {
			old := m.mat(c.same(a.Pos, "an assignment to a cooperative-matrix element", "matrix", col, lanes), t)
			dst, h := m.newMat(t)
			copy(dst.v, old.v)
			for _, l := range lanes {
				if f := c.ownElem(a.Pos, l, t, index(idx[4*l], is)); f >= 0 {
					dst.v[f] = elemF64(vals[4*l], t.Elem)
				}
			}
			setAll(col, lanes, h)
		})
		return act
	}
}
