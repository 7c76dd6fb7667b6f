package ir

import "fmt"

// Checking of cooperative-matrix types and operations (coopmat.go). The
// shape/use rules: A is M x K (use a), B is K x N (use b, A's element
// type), the accumulator C is M x N (use acc); element types are f16, bf16
// or f32; f16 and bf16 inputs accumulate in f32 (f16 inputs also in f16),
// f32 inputs in f32. Uniform control flow around each operation is checked
// by the uniformity analysis (uniformity.go).

// maxCoopDim bounds the rows and columns of a cooperative matrix (devices
// offer 8 to 32; the bound keeps the interpreter's matrices small).
const maxCoopDim = 256

// coopType checks a cooperative-matrix type as written.
func (c *checker) coopType(t CoopMat, pos Pos) bool {
	switch {
	case t.Elem.Is8Bit() && t.Use == UseAccumulator:
		c.errorf(pos, "invalid type %s: %s matrices are inputs (a or b); they accumulate in i32 or u32", t, t.Elem)
		return false
	case t.Elem.IsInt() && t.Use != UseAccumulator:
		c.errorf(pos, "invalid type %s: %s matrices are accumulators (acc); integer inputs are i8 or u8", t, t.Elem)
		return false
	case t.Elem != F16 && t.Elem != BF16 && t.Elem != F32 && !t.Elem.Is8Bit() && !t.Elem.IsInt():
		c.errorf(pos, "invalid type %s: the element type of a cooperative matrix must be f16, bf16, f32, i8, u8, i32 or u32", t)
		return false
	case t.Rows < 1 || t.Rows > maxCoopDim || t.Cols < 1 || t.Cols > maxCoopDim:
		c.errorf(pos, "invalid type %s: rows and columns must be 1 to %d", t, maxCoopDim)
		return false
	case t.Use > UseAccumulator:
		c.errorf(pos, "invalid type %s: the use must be a, b or acc", t)
		return false
	case t.Scope > ScopeWorkgroup:
		c.errorf(pos, "invalid type %s: the scope must be subgroup or workgroup", t)
		return false
	}
	c.useFeature(FeatureCoopMat, pos, "cooperative matrix type "+t.String())
	if c.fn != nil {
		c.fn.Coops = addCoop(c.fn.Coops, t)
	}
	if c.k != nil {
		c.k.Coops = addCoop(c.k.Coops, t)
	}
	if t.Scope == ScopeWorkgroup {
		// Workgroup scope is NV cooperative_matrix2's alone: a second,
		// explicit enable, so that a kernel meant for every
		// cooperative-matrix device cannot pick it up by accident.
		c.useFeature(FeatureCoopMat2, pos, "workgroup-scope cooperative matrix type "+t.String())
	}
	return true
}

// coopExpr checks the cooperative-matrix expressions.
func (c *checker) coopExpr(e Expr) Type {
	switch e := e.(type) {
	case *CoopMake:
		return c.coopMake(e)
	case *CoopLoad:
		return c.coopLoad(e)
	case *CoopMulAdd:
		return c.coopMulAdd(e)
	case *CoopLength:
		t := c.value(e.M)
		if bad(t) {
			return Invalid
		}
		if !IsCoopMat(t) {
			c.errorf(posOf(e.M, c.at), "invalid argument: coopLength requires a cooperative matrix, not %s", c.describe(e.M, t))
			return Invalid
		}
		return U32
	}
	return Invalid
}

// coopMake checks a fill from a scalar or a conversion between element types.
func (c *checker) coopMake(e *CoopMake) Type {
	if !c.validType(e.To, c.at) {
		c.checkArgs([]Expr{e.X})
		return Invalid
	}
	to := e.To
	t := c.value(e.X)
	if bad(t) {
		return Invalid
	}
	if from, ok := t.(CoopMat); ok {
		if from.Rows != to.Rows || from.Cols != to.Cols || from.Use != to.Use || from.Scope != to.Scope {
			c.errorf(c.at, "cannot convert %s to %s: a conversion keeps the shape and the use, and changes only the element type", c.describe(e.X, t), to)
			return Invalid
		}
		if !isFloatElem(from.Elem) || !isFloatElem(to.Elem) {
			c.errorf(c.at, "cannot convert %s to %s: conversions of integer cooperative matrices are not supported yet", c.describe(e.X, t), to)
			return Invalid
		}
		return to
	}
	if isUntyped(t) {
		want := to.Elem
		switch want {
		case BF16:
			want = F32 // bf16 has no literals: the constant is an f32, rounded
		case I8:
			want = I32 // nor i8 and u8: an i32 or u32, truncated
		case U8:
			want = U32
		}
		if bad(c.convertUntyped(e.X, t, want)) {
			return Invalid
		}
		return to
	}
	if t != Type(to.Elem) {
		c.errorf(posOf(e.X, c.at), "cannot use %s to fill %s: want a %s value or a cooperative matrix to convert", c.describe(e.X, t), to, to.Elem)
		return Invalid
	}
	return to
}

// coopLoad checks coopLoad<T>(src, offset, stride, layout).
func (c *checker) coopLoad(e *CoopLoad) Type {
	ok := c.validType(e.To, c.at)
	mem, memOK := c.coopMemory("coopLoad", e.Src, e.To.Elem, false)
	ok = memOK && ok
	ok = c.coopIndex("coopLoad", "offset", e.Offset) && ok
	ok = c.coopIndex("coopLoad", "stride", e.Stride) && ok
	if e.Layout != RowMajor && e.Layout != ColMajor {
		c.errorf(c.at, "coopLoad: invalid layout (want row_major or col_major)")
		ok = false
	}
	if !ok {
		return Invalid
	}
	c.coopAligned("coopLoad", e.To, e.Layout, mem, e.Offset, e.Stride)
	return e.To
}

// coopStore checks the statement coopStore(m, dst, offset, stride, layout).
func (c *checker) coopStore(s *CoopStore) {
	t := c.value(s.M)
	m, isMat := t.(CoopMat)
	if !bad(t) && !isMat {
		c.errorf(posOf(s.M, c.at), "invalid argument: coopStore requires a cooperative matrix, not %s", c.describe(s.M, t))
	}
	elem := Invalid
	if isMat {
		elem = m.Elem
	}
	mem, ok := c.coopMemory("coopStore", s.Dst, elem, true)
	ok = c.coopIndex("coopStore", "offset", s.Offset) && ok
	ok = c.coopIndex("coopStore", "stride", s.Stride) && ok
	if s.Layout != RowMajor && s.Layout != ColMajor {
		c.errorf(c.at, "coopStore: invalid layout (want row_major or col_major)")
		ok = false
	}
	if ok && isMat {
		c.coopAligned("coopStore", m, s.Layout, mem, s.Offset, s.Stride)
	}
}

// coopMemory checks the buffer or shared array of a cooperative load or
// store: its elements must be of type elem or pack it (CoopPacks; elem
// Invalid: not known). It returns the memory's element type.
func (c *checker) coopMemory(op string, id *Ident, elem Scalar, write bool) (Type, bool) {
	if id == nil {
		c.errorf(c.at, "%s: missing buffer or shared array", op)
		return nil, false
	}
	t := c.expr(id)
	if bad(t) {
		return nil, false
	}
	var have Type
	switch o := id.Obj.(type) {
	case *Param:
		switch o.Kind {
		case BufferParam:
			have = o.Type
			if write && o.Access != ReadWrite {
				c.errorf(id.Pos, "%s to buffer %s, which is read-only (declared read)", op, id.Name)
				return nil, false
			}
		case SharedParam:
			if a, ok := o.Type.(*Array); ok {
				have = a.Elem
			}
		}
	case *Shared:
		if a, ok := o.Type.(*Array); ok {
			have = a.Elem
		}
	}
	if have == nil {
		c.errorf(posOf(id, c.at), "%s needs a storage buffer or a shared array, not %s", op, c.describe(id, t))
		return nil, false
	}
	if elem != Invalid && !CoopPacks(have, elem) {
		c.errorf(posOf(id, c.at), "%s: %s holds %s, but the matrix elements are %s (want %s, or packed u32 or i32 words: a scalar, vec2 or vec4 of them)", op, id.Name, typeText(have), elem, elem)
		return nil, false
	}
	return have, true
}

// coopIndex checks an offset or stride: an i32 or u32 (untyped: u32).
func (c *checker) coopIndex(op, what string, e Expr) bool {
	t := c.value(e)
	if bad(t) {
		return false
	}
	if isUntyped(t) {
		return !bad(c.convertUntyped(e, t, U32))
	}
	if t != Type(I32) && t != Type(U32) {
		c.errorf(posOf(e, c.at), "%s %s %s must be i32 or u32", op, what, c.describe(e, t))
		return false
	}
	return true
}

// coopMulAdd checks coopMulAdd(a, b, c) against the shape and use rules.
func (c *checker) coopMulAdd(e *CoopMulAdd) Type {
	e.Ty = nil
	var ms [3]CoopMat
	ok := true
	for i, x := range [3]Expr{e.A, e.B, e.C} {
		want := MatrixUse(i)
		t := c.value(x)
		if bad(t) {
			ok = false
			continue
		}
		m, isMat := t.(CoopMat)
		if !isMat || m.Use != want {
			c.errorf(posOf(x, c.at), "invalid argument: coopMulAdd's %s operand must be a cooperative matrix of use %s, not %s", "abc"[i:i+1], want, c.describe(x, t))
			ok = false
			continue
		}
		ms[i] = m
	}
	if !ok {
		return Invalid
	}
	a, b, acc := ms[0], ms[1], ms[2]
	switch {
	case a.Cols != b.Rows || a.Rows != acc.Rows || b.Cols != acc.Cols:
		c.errorf(c.at, "coopMulAdd: shapes do not match: A is %dx%d, B is %dx%d, C is %dx%d (want A MxK, B KxN, C MxN)", a.Rows, a.Cols, b.Rows, b.Cols, acc.Rows, acc.Cols)
		return Invalid
	case a.Scope != b.Scope || a.Scope != acc.Scope:
		c.errorf(c.at, "coopMulAdd: A, B and C must have one scope: A is %s, B is %s, C is %s", a.Scope, b.Scope, acc.Scope)
		return Invalid
	case a.Elem != b.Elem:
		c.errorf(c.at, "coopMulAdd: A holds %s and B holds %s (want one element type)", a.Elem, b.Elem)
		return Invalid
	case !accumulates(a.Elem, acc.Elem):
		c.errorf(c.at, "coopMulAdd: %s inputs cannot accumulate in %s (%s)", a.Elem, acc.Elem, accumulatorsOf(a.Elem))
		return Invalid
	}
	e.Ty = acc
	return acc
}

// accumulates reports whether products of in elements may be summed in acc.
func accumulates(in, acc Scalar) bool {
	switch in {
	case F16:
		return acc == F16 || acc == F32
	case BF16, F32:
		return acc == F32
	case I8, U8:
		return acc == I32 || acc == U32
	}
	return false
}

func accumulatorsOf(in Scalar) string {
	switch in {
	case F16:
		return "want f16 or f32"
	case I8, U8:
		return "want i32 or u32"
	}
	return "want f32"
}

// isFloatElem reports whether s is a float element type of matrices.
func isFloatElem(s Scalar) bool { return s == F16 || s == BF16 || s == F32 }

// coopArith types element-wise arithmetic with a cooperative matrix
// operand: + - * / between two matrices of one type, or * and / with a
// scalar of the element type (matrix * s, s * matrix, matrix / s).
func (c *checker) coopArith(op BinaryOp, x Expr, xt Type, y Expr, yt Type) Type {
	mx, xMat := xt.(CoopMat)
	my, yMat := yt.(CoopMat)
	m := mx
	if !xMat {
		m = my
	}
	switch op {
	case OpAdd, OpSub, OpMul, OpDiv:
	default:
		c.errorf(c.at, "invalid operation: operator %s not defined on cooperative matrices (want + - * /)", op)
		return Invalid
	}
	if xMat && yMat {
		if mx != my {
			c.errorf(c.at, "invalid operation: %s %s %s (mismatched types %s and %s)", c.text(x), op, c.text(y), xt, yt)
			return Invalid
		}
		if !c.coopElementwiseOK(op, m) {
			return Invalid
		}
		return m
	}
	// One matrix and one scalar: scaling.
	s, st := y, yt
	if !xMat {
		s, st = x, xt
	}
	if op != OpMul && !(op == OpDiv && xMat) {
		c.errorf(c.at, "invalid operation: %s %s %s (a cooperative matrix is scaled by * or divided by /, not %s)", c.text(x), op, c.text(y), op)
		return Invalid
	}
	if !c.coopElementwiseOK(op, m) {
		return Invalid
	}
	if isUntyped(st) {
		if bad(c.convertUntyped(s, st, m.Elem)) {
			return Invalid
		}
		return m
	}
	if st != Type(m.Elem) {
		c.errorf(c.at, "invalid operation: %s %s %s (mismatched types %s and %s)", c.text(x), op, c.text(y), xt, yt)
		return Invalid
	}
	return m
}

// coopElementwiseOK reports whether matrix m supports element-wise
// arithmetic, reporting why not.
func (c *checker) coopElementwiseOK(op fmt.Stringer, m CoopMat) bool {
	switch {
	case m.Elem == BF16:
		c.errorf(c.at, "invalid operation: operator %s not defined on %s (bf16 has no arithmetic: convert to f32 with coopmat<f32, ...>(m))", op, m)
		return false
	case m.Elem.Is8Bit():
		c.errorf(c.at, "invalid operation: operator %s not defined on %s (%s matrices are multiply-add inputs only)", op, m, m.Elem)
		return false
	case m.Elem.IsInt() && op.String() == "/":
		c.errorf(c.at, "invalid operation: operator / not defined on %s (integer matrices have + - * only)", m)
		return false
	}
	return true
}

// addCoop adds t to the set ts (kept in order of first use).
func addCoop(ts []CoopMat, t CoopMat) []CoopMat {
	for _, u := range ts {
		if u == t {
			return ts
		}
	}
	return append(ts, t)
}
