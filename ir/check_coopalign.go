package ir

import "fmt"

// The alignment rule of cooperative loads and stores (CoopAlign): the
// checker reports an offset or stride whose byte value is misaligned for
// every run, which it knows when the expression is a constant, or when it
// is a sum of terms whose remainder modulo the alignment is known
// (`sg * 16 + 215`: multiples of a constant, constants, and lets bound to
// such expressions). Wrapping 32-bit arithmetic keeps remainders modulo a
// power of two, so the analysis is exact for those; other offsets are left
// to the interpreter, which checks every access when it runs.

// coopAligned checks the offset and stride of a load or store of matrix t
// in memory whose elements are mem.
func (c *checker) coopAligned(op string, t CoopMat, layout Layout, mem Type, off, stride Expr) {
	p := coopMemSize(mem)
	if p == 0 || (layout != RowMajor && layout != ColMajor) {
		return
	}
	a := int64(CoopAlign(t, layout))
	for _, x := range [2]struct {
		what string
		e    Expr
	}{{"offset", off}, {"stride", stride}} {
		r, m, ok := byteResidue(x.e, p, a)
		if !ok || r == 0 {
			continue
		}
		line := "row"
		if layout == ColMajor {
			line = "column"
		}
		got := fmt.Sprintf("%d bytes", r)
		if m != 0 {
			got = fmt.Sprintf("%d bytes modulo %d at any run-time value", r, m)
		}
		c.errorf(posOf(x.e, c.at), "%s: misaligned %s %s (in %s elements): %s, not a multiple of %d (%s %s needs the lesser of 16 and a %s's bytes: %s)",
			op, x.what, c.text(x.e), typeText(mem), got, a, t, layout, line, CoopAlignRule)
	}
}

// coopMemSize is the byte size of an element of memory of type mem (a
// scalar or a vector of two or four, CoopPacks), 0 if unknown.
func coopMemSize(mem Type) int64 {
	switch m := mem.(type) {
	case Scalar:
		return int64(m.Size())
	case Vector:
		return int64(m.N * m.Elem.Size())
	}
	return 0
}

// byteResidue returns e*p modulo a when it is the same for every run: for
// a constant e, r = (e*p) mod a and m = 0 (exact); otherwise, when a is a
// power of two, r = (e*p) mod a from the remainders of e's terms, and m = a.
func byteResidue(e Expr, p, a int64) (r, m int64, ok bool) {
	if v, ok := ConstValue(e); ok && v.Kind == IntValue {
		b := v.Int * p
		if s, _ := e.Type().(Scalar); s == I32 {
			b = int64(int32(v.Int)) * p
		}
		return ((b % a) + a) % a, 0, true
	}
	if a&(a-1) != 0 || p >= a || a%p != 0 {
		return 0, 0, false // a not a power of two, or every element offset is aligned
	}
	// byte alignment a of e*p is alignment a/p of e
	r, ok = residue(e, a/p, 8)
	if !ok {
		return 0, 0, false
	}
	return r * p, a, true
}

// residue returns e modulo m (a power of two) when it is the same for
// every run, looking through at most depth lets.
func residue(e Expr, m int64, depth int) (int64, bool) {
	if v, ok := ConstValue(e); ok && v.Kind == IntValue {
		return v.Int & (m - 1), true
	}
	switch e := e.(type) {
	case *Ident:
		if d, ok := e.Obj.(*Decl); ok && !d.Mut && d.Init != nil && depth > 0 {
			return residue(d.Init, m, depth-1)
		}
	case *Convert:
		if s, ok := e.X.Type().(Scalar); ok && (s == I32 || s == U32) && (e.To == I32 || e.To == U32) {
			return residue(e.X, m, depth)
		}
	case *Binary:
		return residueBinary(e, m, depth)
	}
	return 0, false
}

func residueBinary(e *Binary, m int64, depth int) (int64, bool) {
	if s, ok := e.Type().(Scalar); !ok || (s != I32 && s != U32) {
		return 0, false
	}
	x, okx := residue(e.X, m, depth)
	y, oky := residue(e.Y, m, depth)
	switch e.Op {
	case OpAdd, OpSub:
		if okx && oky {
			if e.Op == OpSub {
				y = -y
			}
			return (x + y) & (m - 1), true
		}
	case OpMul:
		switch {
		case okx && oky:
			return (x * y) & (m - 1), true
		case okx && x == 0, oky && y == 0:
			return 0, true // a multiple of m times anything
		}
	case OpShl:
		if v, ok := ConstValue(e.Y); ok && v.Kind == IntValue {
			k := v.Int & 31
			if okx {
				return (x << k) & (m - 1), true
			}
			if int64(1)<<k%m == 0 {
				return 0, true
			}
		}
	}
	return 0, false
}
