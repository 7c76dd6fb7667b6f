package ir

// Conversions, vector construction and bitcasts.
//
// Conversion T(x) follows WGSL: any scalar (bool, i32, u32, f32, f16) to
// any scalar. Numeric to bool is x != 0; bool to numeric is 0 or 1; float
// to integer truncates and saturates; i32 and u32 reinterpret each other's
// bits. An untyped constant argument takes the type T (so it must be
// representable in it: u32(-1) and i32(2.5) are errors), except for bool(1),
// where it takes its default type first.

func (c *checker) convert(e *Convert) Type {
	to := e.To
	if !validScalar(to) {
		c.errorf(c.at, "invalid conversion target type %s", to)
		c.checkArgs([]Expr{e.X})
		return Invalid
	}
	c.useType(to, c.at)
	t := c.value(e.X)
	if bad(t) {
		return Invalid
	}
	if isUntyped(t) {
		switch to {
		case Bool:
			t = c.toDefault(e.X, t)
		case BF16:
			t = c.convertUntyped(e.X, t, F32) // bf16 has no constants: round an f32
		case I8:
			t = c.convertUntyped(e.X, t, I32) // nor do i8 and u8: truncate an i32 or u32
		case U8:
			t = c.convertUntyped(e.X, t, U32)
		default:
			t = c.convertUntyped(e.X, t, to)
		}
		if bad(t) {
			return Invalid
		}
	}
	s, ok := t.(Scalar)
	if !ok {
		c.errorf(c.at, "cannot convert %s to type %s (convert vectors with vecN<%s>(v))", c.describe(e.X, t), to, to)
		return Invalid
	}
	if (to == BF16 || s == BF16) && to != s && to != F32 && s != F32 {
		c.errorf(c.at, "cannot convert %s to type %s: bf16 converts only to and from f32", c.describe(e.X, t), to)
		return Invalid
	}
	if (to.Is8Bit() || s.Is8Bit()) && to != s && !to.IsInt() && !s.IsInt() {
		c.errorf(c.at, "cannot convert %s to type %s: i8 and u8 convert only to and from i32 and u32", c.describe(e.X, t), to)
		return Invalid
	}
	if to == BF16 || s == BF16 || to.Is8Bit() || s.Is8Bit() {
		return to // not folded: constants have no bf16, i8 or u8 representation
	}
	if v, ok := c.vals[e.X]; ok && c.konst[e.X] {
		c.konst[e] = true
		c.vals[e] = ConvertValue(convertSource(v, s), to)
	}
	return to
}

// convertSource gives a constant of type s its canonical representation.
func convertSource(v Value, s Scalar) Value {
	if s.IsFloat() && v.Kind == IntValue {
		return FloatVal(float64(v.Int))
	}
	return v
}

func validScalar(s Scalar) bool { return s >= Bool && s <= U8 }

// construct checks vecN<T>(...): components (scalars or vectors of T)
// totalling N, a single scalar of T (splat), or a single vector of width N
// (componentwise conversion from any scalar type).
func (c *checker) construct(e *Construct) Type {
	to := e.To
	if !validScalar(to.Elem) || to.N < 2 || to.N > 4 {
		c.errorf(c.at, "invalid vector type %s", to)
		c.checkArgs(e.Args)
		return Invalid
	}
	c.useType(to, c.at)
	if len(e.Args) == 0 {
		c.errorf(c.at, "%s() needs arguments: components, a scalar to splat or a vector to convert", to)
		return Invalid
	}
	ts, ok := c.argTypes(e.Args)
	if !ok {
		return Invalid
	}
	if len(e.Args) == 1 {
		if v, isVec := ts[0].(Vector); isVec {
			if v.N != to.N {
				c.errorf(c.at, "cannot convert %s to %s (width %d, want %d)", c.describe(e.Args[0], ts[0]), to, v.N, to.N)
				return Invalid
			}
			return to
		}
	}
	return c.components(e, ts)
}

// components checks the component list of a vector constructor.
func (c *checker) components(e *Construct, ts []Type) Type {
	to := e.To
	n := 0
	for i, a := range e.Args {
		t := ts[i]
		if isUntyped(t) {
			t = c.convertUntyped(a, t, to.Elem)
			if bad(t) {
				return Invalid
			}
		}
		if Width(t) == 0 || ElemScalar(t) != to.Elem {
			c.errorf(posOf(a, c.at), "cannot use %s as a component of %s", c.describe(a, t), to)
			return Invalid
		}
		n += Width(t)
	}
	if len(e.Args) == 1 && n == 1 {
		return to // splat
	}
	if n != to.N {
		c.errorf(c.at, "%s has %d components, want %d", c.text(e), n, to.N)
		return Invalid
	}
	return to
}

// bitcast checks bitcast<T>(x): numeric scalars and vectors of the same
// total size, either the same width with 32-bit components, or f16 pairs
// against 32-bit values (vec2<f16> <-> 32-bit scalar, vec4<f16> <-> vec2 of
// 32-bit), or T identical to x's type.
func (c *checker) bitcast(e *Bitcast) Type {
	to := e.To
	if !c.validType(to, c.at) {
		c.checkArgs([]Expr{e.X})
		return Invalid
	}
	t := c.value(e.X)
	t = c.toDefault(e.X, t)
	if bad(t) {
		return Invalid
	}
	if !bitcastOK(t, to) {
		c.errorf(c.at, "cannot bitcast %s to %s", c.describe(e.X, t), typeText(to))
		return Invalid
	}
	return to
}

func bitcastOK(from, to Type) bool {
	if Width(from) == 0 || Width(to) == 0 || !ElemScalar(from).IsNumeric() || !ElemScalar(to).IsNumeric() {
		return false
	}
	if from == to {
		return true
	}
	fs, ts := ElemScalar(from), ElemScalar(to)
	fw, tw := Width(from), Width(to)
	switch {
	case fs.Size() == 4 && ts.Size() == 4:
		return fw == tw
	case fs == F16 && ts.Size() == 4:
		return (fw == 2 && tw == 1) || (fw == 4 && tw == 2)
	case ts == F16 && fs.Size() == 4:
		return (tw == 2 && fw == 1) || (tw == 4 && fw == 2)
	}
	return false
}
