package ir

import "fmt"

// Intrinsic calls, typed by the signature class of the op table (ops.go).
// Arity is exact. Arguments that must share a type T take it from the
// typed ones; when all are untyped they default (f32 for the float
// classes). Atomics take an atomic location as their first argument;
// subgroup operations need `enable subgroups`.

func (c *checker) call(e *Call) Type {
	e.Ty = nil
	if e.Func < Exp || e.Func >= numIntrinsics {
		c.errorf(c.at, "invalid intrinsic (%d)", e.Func)
		c.checkArgs(e.Args)
		return Invalid
	}
	info := e.Func.Info()
	if info.Feature != 0 {
		c.useFeature(info.Feature, c.at, info.Name)
	}
	if len(e.Args) != info.Arity {
		c.checkArgs(e.Args)
		c.errorf(c.at, "%s arguments in call to %s (have %d, want %d)", arityWord(len(e.Args), info.Arity), info.Name, len(e.Args), info.Arity)
		return Invalid
	}
	t := c.callSig(e, info)
	if bad(t) {
		return Invalid
	}
	if t == noValue {
		return noValue
	}
	e.Ty = t
	return t
}

func arityWord(have, want int) string {
	if have < want {
		return "not enough"
	}
	return "too many"
}

// checkArgs checks arguments of a call that is wrong anyway, to report
// the errors inside them.
func (c *checker) checkArgs(args []Expr) {
	for _, a := range args {
		if t := c.expr(a); isUntyped(t) {
			c.toDefault(a, t)
		}
	}
}

func (c *checker) callSig(e *Call, info IntrinsicInfo) Type {
	switch info.Sig {
	case SigFloat1, SigFloat2, SigFloat3:
		return c.sameArgs(e, info, isFloatType, "a float scalar or vector")
	case SigNumeric1, SigNumeric2, SigNumeric3, SigSubgroupArith:
		return c.sameArgs(e, info, isNumericType, "a numeric scalar or vector")
	case SigSigned1:
		return c.sameArgs(e, info, isSignedType, "a float or i32 scalar or vector")
	case SigInt1, SigSubgroupBits:
		return c.sameArgs(e, info, isIntType, "an i32 or u32 scalar or vector")
	case SigSubgroupFirst:
		return c.sameArgs(e, info, isNumericType, "a numeric scalar or vector")
	case SigFloatMix:
		return c.mix(e, info)
	case SigDot:
		return c.dot(e, info)
	case SigSelect:
		return c.selectCall(e, info)
	case SigAtomicLoad, SigAtomicStore, SigAtomicRMW, SigAtomicCAS:
		return c.atomicCall(e, info)
	case SigSubgroupLane:
		return c.subgroupLane(e, info)
	case SigSubgroupBallot, SigSubgroupVote:
		return c.subgroupBool(e, info)
	case SigSubgroupElect:
		return Bool
	case SigFloatScalarOut, SigFloatVec, SigCross:
		return c.geometry(e, info)
	case SigPack, SigUnpack:
		return c.packCall(e, info)
	case SigExtractBits, SigInsertBits:
		return c.bitField(e, info)
	case SigDot4Packed:
		ts, ok := c.argTypes(e.Args)
		if !ok {
			return Invalid
		}
		for i, a := range e.Args {
			if !c.assignTo(a, ts[i], U32, "argument to "+info.Name) {
				return Invalid
			}
		}
		if e.Func == Dot4I8Packed {
			return I32
		}
		return U32
	case SigBoolReduce:
		t := c.value(e.Args[0])
		if bad(t) {
			return Invalid
		}
		if ElemScalar(t) != Bool || Width(t) == 0 {
			c.errorf(posOf(e.Args[0], c.at), "invalid argument: %s requires a bool vector or bool, not %s", info.Name, c.describe(e.Args[0], t))
			return Invalid
		}
		return Bool
	}
	c.errorf(c.at, "intrinsic %s has an unknown signature class", info.Name)
	return Invalid
}

func isFloatType(t Type) bool   { return Width(t) > 0 && ElemScalar(t).IsFloat() }
func isNumericType(t Type) bool { return Width(t) > 0 && ElemScalar(t).IsNumeric() }
func isIntType(t Type) bool     { return Width(t) > 0 && ElemScalar(t).IsInt() }
func isSignedType(t Type) bool {
	return Width(t) > 0 && (ElemScalar(t).IsFloat() || ElemScalar(t) == I32)
}

// argTypes checks every argument as a value.
func (c *checker) argTypes(args []Expr) ([]Type, bool) {
	ts := make([]Type, len(args))
	ok := true
	for i, a := range args {
		ts[i] = c.value(a)
		ok = ok && !bad(ts[i])
	}
	return ts, ok
}

// unify gives every argument of args one type T: the first typed
// argument's type, or when all are untyped the default of their kind
// (float when floatDefault). It returns T or Invalid.
func (c *checker) unify(name string, args []Expr, ts []Type, floatDefault bool) Type {
	var t Type
	kind := Type(untypedInt)
	for _, at := range ts {
		if !isUntyped(at) {
			t = at
			break
		}
		kind = maxKind(kind, at)
	}
	if t == nil {
		t = defaultType(kind)
		if floatDefault {
			t = F32
		}
	}
	for i, a := range args {
		if !c.assignTo(a, ts[i], t, "argument to "+name) {
			return Invalid
		}
	}
	return t
}

// sameArgs types the (T, T, ...) T classes whose T satisfies class.
func (c *checker) sameArgs(e *Call, info IntrinsicInfo, class func(Type) bool, want string) Type {
	_, t := c.unifyArgs(e, info, len(e.Args), info.Sig <= SigFloatMix)
	if bad(t) || !c.requires(info, t, class, want) {
		return Invalid
	}
	return t
}

// unifyArgs types every argument of e and unifies the first n (unify's
// rules, floatDefault as there): the argument types and their common type,
// Invalid after an error.
func (c *checker) unifyArgs(e *Call, info IntrinsicInfo, n int, floatDefault bool) ([]Type, Type) {
	ts, ok := c.argTypes(e.Args)
	if !ok {
		return ts, Invalid
	}
	return ts, c.unify(info.Name, e.Args[:n], ts[:n], floatDefault)
}

// requires reports whether t is in class; when not, it reports that the
// intrinsic requires want instead.
func (c *checker) requires(info IntrinsicInfo, t Type, class func(Type) bool, want string) bool {
	if class(t) {
		return true
	}
	c.errorf(c.at, "invalid argument: %s requires %s, not %s", info.Name, want, typeText(t))
	return false
}

// mix(a T, b T, t T or scalar) T, T float.
func (c *checker) mix(e *Call, info IntrinsicInfo) Type {
	ts, t := c.unifyArgs(e, info, 2, true)
	if bad(t) || !c.requires(info, t, isFloatType, "a float scalar or vector") {
		return Invalid
	}
	third := t
	if _, isVec := t.(Vector); isVec && (isUntyped(ts[2]) || Width(ts[2]) == 1) {
		third = ElemScalar(t)
	}
	if !c.assignTo(e.Args[2], ts[2], third, "argument to "+info.Name) {
		return Invalid
	}
	return t
}

// dot(vecN<T>, vecN<T>) T.
func (c *checker) dot(e *Call, info IntrinsicInfo) Type {
	_, t := c.unifyArgs(e, info, len(e.Args), false)
	if bad(t) {
		return Invalid
	}
	v, isVec := t.(Vector)
	if !isVec || !v.Elem.IsNumeric() {
		c.errorf(c.at, "invalid argument: dot requires numeric vectors, not %s", typeText(t))
		return Invalid
	}
	return v.Elem
}

// geometry types length and distance (T float) scalar, normalize and
// reflect (T float vector) T, and cross (vec3, vec3) vec3.
func (c *checker) geometry(e *Call, info IntrinsicInfo) Type {
	_, t := c.unifyArgs(e, info, len(e.Args), true)
	if bad(t) {
		return Invalid
	}
	v, isVec := t.(Vector)
	switch {
	case !isFloatType(t):
		c.errorf(c.at, "invalid argument: %s requires a float %s, not %s", info.Name, map[bool]string{true: "vector", false: "scalar or vector"}[info.Sig != SigFloatScalarOut], typeText(t))
		return Invalid
	case info.Sig == SigFloatVec && !isVec:
		c.errorf(c.at, "invalid argument: %s requires a float vector, not %s", info.Name, typeText(t))
		return Invalid
	case info.Sig == SigCross && (!isVec || v.N != 3):
		c.errorf(c.at, "invalid argument: cross requires vec3 of a float type, not %s", typeText(t))
		return Invalid
	case info.Sig == SigFloatScalarOut:
		return ElemScalar(t)
	}
	return t
}

// packCall types the packing intrinsics: (vecN<f32>) u32 and (u32) vecN<f32>.
func (c *checker) packCall(e *Call, info IntrinsicInfo) Type {
	n := e.Func.PackWidth()
	from, to := Type(Vec(F32, n)), Type(U32)
	if info.Sig == SigUnpack {
		from, to = to, from
	}
	t := c.value(e.Args[0])
	if bad(t) || !c.assignTo(e.Args[0], t, from, "argument to "+info.Name) {
		return Invalid
	}
	return to
}

// bitField types extractBits(e T, offset u32, count u32) T and
// insertBits(e T, newbits T, offset u32, count u32) T, T i32/u32.
func (c *checker) bitField(e *Call, info IntrinsicInfo) Type {
	nv := 1
	if info.Sig == SigInsertBits {
		nv = 2
	}
	ts, t := c.unifyArgs(e, info, nv, false)
	if bad(t) || !c.requires(info, t, isIntType, "an i32 or u32 scalar or vector") {
		return Invalid
	}
	for i := nv; i < len(e.Args); i++ {
		if !c.assignTo(e.Args[i], ts[i], U32, "argument to "+info.Name) {
			return Invalid
		}
	}
	return t
}

// select(cond bool, a T, b T) T: a where cond is true; a vecN<bool> cond
// selects componentwise.
func (c *checker) selectCall(e *Call, info IntrinsicInfo) Type {
	ts, ok := c.argTypes(e.Args)
	if !ok {
		return Invalid
	}
	if ElemScalar(ts[0]) != Bool || Width(ts[0]) == 0 {
		c.errorf(posOf(e.Args[0], c.at), "invalid argument: select condition %s must be bool or a bool vector", c.describe(e.Args[0], ts[0]))
		return Invalid
	}
	t := c.unify(info.Name, e.Args[1:], ts[1:], false)
	if bad(t) {
		return Invalid
	}
	if Width(t) == 0 {
		c.errorf(c.at, "invalid argument: select requires scalar or vector values, not %s", typeText(t))
		return Invalid
	}
	// A bool vector selects componentwise between vectors of its width.
	if _, vecCond := ts[0].(Vector); vecCond && Width(ts[0]) != Width(t) {
		c.errorf(posOf(e.Args[0], c.at), "invalid argument: select condition %s has %d components, the values %s %d", c.describe(e.Args[0], ts[0]), Width(ts[0]), typeText(t), Width(t))
		return Invalid
	}
	return t
}

// subgroupLane types (x T, lane u32) T; subgroupBroadcast's lane must be a
// constant below 128.
func (c *checker) subgroupLane(e *Call, info IntrinsicInfo) Type {
	ts, ok := c.argTypes(e.Args)
	if !ok {
		return Invalid
	}
	t := c.toDefault(e.Args[0], ts[0])
	lane := e.Args[1]
	if !c.assignTo(lane, ts[1], U32, "argument to "+info.Name) || bad(t) {
		return Invalid
	}
	if !isNumericType(t) {
		c.errorf(c.at, "invalid argument: %s requires a numeric scalar or vector, not %s", info.Name, typeText(t))
		return Invalid
	}
	if e.Func == SubgroupBroadcast {
		v, isConst := c.vals[lane]
		if !isConst || !c.konst[lane] {
			c.errorf(posOf(lane, c.at), "subgroupBroadcast lane %s must be a constant", c.text(lane))
			return Invalid
		}
		if v.Int >= 128 {
			c.errorf(posOf(lane, c.at), "subgroupBroadcast lane %d must be below 128", v.Int)
			return Invalid
		}
	}
	return t
}

// subgroupBool types subgroupBallot (bool) vec4<u32> and the votes (bool) bool.
func (c *checker) subgroupBool(e *Call, info IntrinsicInfo) Type {
	t := c.value(e.Args[0])
	if bad(t) {
		return Invalid
	}
	if t != Type(Bool) {
		c.errorf(posOf(e.Args[0], c.at), "invalid argument: %s requires a bool, not %s", info.Name, c.describe(e.Args[0], t))
		return Invalid
	}
	if info.Sig == SigSubgroupBallot {
		return Vec(U32, 4)
	}
	return Bool
}

// atomicCall types atomicLoad(a), atomicStore(a, v), the
// read-modify-write atomics (a, v) T and atomicCompareExchangeWeak(a, cmp,
// v) CompareExchangeResult{T}, a an atomic<T> location.
func (c *checker) atomicCall(e *Call, info IntrinsicInfo) Type {
	at := c.expr(e.Args[0])
	elem, ok := c.atomicLocation(e.Args[0], at, info.Name)
	for _, a := range e.Args[1:] {
		vt := c.value(a)
		if !ok || bad(vt) || !c.assignTo(a, vt, elem, "argument to "+info.Name) {
			return Invalid
		}
	}
	if !ok {
		return Invalid
	}
	switch info.Sig {
	case SigAtomicStore:
		return noValue
	case SigAtomicCAS:
		return CompareExchangeResult{Elem: elem}
	}
	return elem
}

// atomicLocation checks that e (of type t) denotes an atomic<T> in a
// read_write buffer or in shared memory, and returns T.
func (c *checker) atomicLocation(e Expr, t Type, name string) (Scalar, bool) {
	if bad(t) {
		return Invalid, false
	}
	a, ok := t.(Atomic)
	if !ok || c.bufferParam(e) != nil {
		c.errorf(posOf(e, c.at), "invalid argument: %s requires an atomic location, not %s", name, c.describeLoc(e, t))
		return Invalid, false
	}
	if p := rootBuffer(e); p != nil && p.Access != ReadWrite {
		c.errorf(posOf(e, c.at), "invalid argument: %s on buffer %s, which is read-only (declared read)", name, p.Name)
		return Invalid, false
	}
	return a.Elem, true
}

func (c *checker) describeLoc(e Expr, t Type) string {
	if p := c.bufferParam(e); p != nil {
		return fmt.Sprintf("buffer %s (index it: %s[i])", p.Name, p.Name)
	}
	if t == noValue || isUntyped(t) {
		return c.text(e)
	}
	return c.describe(e, t)
}

// rootBuffer returns the buffer parameter at the root of an index chain.
func rootBuffer(e Expr) *Param {
	for {
		switch x := e.(type) {
		case *Index:
			if x == nil {
				return nil
			}
			e = x.X
		case *Ident:
			if x == nil {
				return nil
			}
			p, _ := x.Obj.(*Param)
			if p != nil && p.Kind == BufferParam {
				return p
			}
			return nil
		default:
			return nil
		}
	}
}
