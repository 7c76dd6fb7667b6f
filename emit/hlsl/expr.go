package hlsl

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file emits the expression core: literals, names, builtins, indexing,
// swizzles and len. Operators are in arith.go, conversions in convert.go,
// intrinsic calls in math.go, atomic.go and subgroup.go.

// C precedence levels of the HLSL operators kc uses (higher binds tighter).
const (
	precTernary = 3
	precLOr     = 4
	precLAnd    = 5
	precBOr     = 6
	precBXor    = 7
	precBAnd    = 8
	precEq      = 9
	precRel     = 10
	precShift   = 11
	precAdd     = 12
	precMul     = 13
	precUnary   = 15
	precPrimary = 16
)

// hx is an HLSL expression text and the precedence of its outermost operator.
type hx struct {
	s string
	p int
}

func primary(s string) hx { return hx{s, precPrimary} }

// at returns h's text parenthesised if it binds looser than min.
func (h hx) at(min int) string {
	if h.p < min {
		return "(" + h.s + ")"
	}
	return h.s
}

// expr returns the text of x as a complete expression.
func (f *fn) expr(x ir.Expr) string { return f.ex(x).s }

// ex emits x.
func (f *fn) ex(x ir.Expr) hx {
	switch x := x.(type) {
	case *ir.Lit:
		return litHX(literal(x.Val, x.Ty))
	case *ir.Ident:
		return f.ident(x)
	case *ir.BuiltinValue:
		return f.builtinValue(x)
	case *ir.CoopMake, *ir.CoopLoad, *ir.CoopMulAdd, *ir.CoopLength:
		h, _ := f.coopExpr(x)
		return h
	case *ir.Unary:
		if h, ok := f.coopExpr(x); ok {
			return h
		}
		return f.unary(x)
	case *ir.Binary:
		if h, ok := f.coopExpr(x); ok {
			return h
		}
		if x.Op.IsLogical() {
			return f.logical(x)
		}
		hs := f.seq([]ir.Expr{x.X, x.Y}, x.Op.IsComparison())
		return f.binop(x.Op, hs[0], x.X.Type(), hs[1], x.Y, x.Ty)
	case *ir.Call:
		return f.call(x)
	case *ir.Convert:
		return f.convert(f.sink(x.X, f.ex(x.X)), x.X.Type(), x.To)
	case *ir.Construct:
		return f.construct(x)
	case *ir.Bitcast:
		return f.bitcast(f.ex(x.X), x.X.Type(), x.To)
	case *ir.Index:
		if ir.IsCoopMat(x.X.Type()) {
			hs := f.seq([]ir.Expr{x.X, x.Index}, false)
			return primary(hs[0].at(precPrimary) + ".Get(" + hs[1].s + ")")
		}
		return f.index(x)
	case *ir.Swizzle:
		// precise does not reach through a swizzle of a computed
		// vector in glslang: such a vector is a sink (precise.go).
		return primary(f.sink(x.X, f.ex(x.X)).at(precPrimary) + "." + x.Comps)
	case *ir.Len:
		return f.length(x)
	case *ir.Field:
		return f.field(x)
	case *ir.StructLit:
		return f.structLit(x)
	case *ir.ArrayLit:
		return f.arrayLit(x)
	case *ir.FnCall:
		return f.fnCall(x)
	case nil:
		f.fail(fmt.Errorf("%s: hlsl: missing expression", f.pos))
		return primary("0")
	}
	f.fail(fmt.Errorf("%s: hlsl: unknown expression %T", x.Position(), x))
	return primary("0")
}

// litHX gives a literal text its precedence: a sign or a cast is unary.
func litHX(s string) hx {
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "(") {
		return hx{s, precUnary}
	}
	return primary(s)
}

func (f *fn) ident(x *ir.Ident) hx {
	switch o := x.Obj.(type) {
	case *ir.Const:
		if o.Elems != nil {
			return primary(f.constArray(o))
		}
		return litHX(literal(o.Val, x.Ty))
	case nil:
		f.fail(fmt.Errorf("%s: hlsl: identifier %s was not resolved by the checker", x.Pos, x.Name))
		return primary(words.Legal(x.Name))
	}
	name, ok := f.names[x.Obj]
	if !ok {
		f.fail(fmt.Errorf("%s: hlsl: %s is used before its declaration", x.Pos, x.Name))
		return primary(words.Legal(x.Name))
	}
	return primary(name)
}

func (f *fn) builtinValue(x *ir.BuiltinValue) hx {
	switch x.Kind {
	case ir.SubgroupSize:
		return primary("WaveGetLaneCount()")
	case ir.SubgroupInvocationID:
		return primary("WaveGetLaneIndex()")
	case ir.NumWorkgroups:
		return primary(f.numWG) // the hidden params field (kernel.go)
	}
	for _, b := range builtinParams {
		if b.kind == x.Kind {
			if f.inst != nil {
				return primary(staticBuiltin(b.name))
			}
			return primary(b.name)
		}
	}
	f.fail(fmt.Errorf("%s: hlsl: unknown builtin %d", x.Pos, x.Kind))
	return primary("0u")
}

// bufferParam returns the buffer a buffer identifier names, or nil.
func bufferParam(x ir.Expr) *ir.Param {
	id, ok := x.(*ir.Ident)
	if !ok {
		return nil
	}
	p, ok := id.Obj.(*ir.Param)
	if !ok || p.Kind != ir.BufferParam {
		return nil
	}
	return p
}

func (f *fn) index(x *ir.Index) hx {
	if p := bufferParam(x.X); p != nil {
		s := f.names[p] + "[" + f.expr(x.Index) + "]"
		if wrapped(p.Type) {
			s += ".v"
		}
		return primary(s)
	}
	base := f.ex(x.X).at(precPrimary)
	return primary(base + "[" + f.expr(x.Index) + "]")
}

func (f *fn) length(x *ir.Len) hx {
	if x.Buf != nil {
		if p, ok := x.Buf.Obj.(*ir.Param); ok {
			if n := f.lens[p]; n != "" {
				return primary(n)
			}
		}
	}
	f.fail(fmt.Errorf("%s: hlsl: len of something that is not a buffer", x.Pos))
	return primary("0u")
}

func (f *fn) unary(x *ir.Unary) hx {
	v := f.ex(x.X).at(precUnary)
	switch x.Op {
	case ir.OpNeg:
		if strings.HasPrefix(v, "-") {
			v = "(" + v + ")"
		}
		return hx{"-" + v, precUnary}
	case ir.OpNot:
		return hx{"!" + v, precUnary}
	case ir.OpBitNot:
		return hx{"~" + v, precUnary}
	}
	f.fail(fmt.Errorf("%s: hlsl: unknown unary operator %d", x.Pos, x.Op))
	return primary("0")
}

// logical emits && and || with ir's short circuit. HLSL's operators are
// not reliably short-circuiting (glslang evaluates both sides, as HLSL
// before 2021 specifies), which matters when the right operand reads memory
// (`i < len(x) && x[i] > 0` must not read x out of bounds) or performs an
// atomic operation: such a right operand is evaluated under an if.
func (f *fn) logical(x *ir.Binary) hx {
	l := f.ex(x.X)
	saved := f.pre
	f.pre = nil
	r := f.ex(x.Y)
	rpre := f.pre
	f.pre = saved
	if len(rpre) == 0 && !touchesMemory(x.Y) {
		return infix(x.Op, l, r)
	}
	t := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
	f.tmp++
	cond := t
	if x.Op == ir.OpLogOr {
		cond = "!" + t
	}
	f.pre = append(f.pre, "bool "+t+" = "+l.s+";", "if ("+cond+") {")
	for _, p := range rpre {
		f.pre = append(f.pre, "\t"+p)
	}
	f.pre = append(f.pre, "\t"+t+" = "+r.s+";", "}")
	return primary(t)
}

// touchesMemory reports whether evaluating e indexes anything, performs an
// atomic operation or calls a helper function.
func touchesMemory(e ir.Expr) bool {
	found := false
	walkExprs(&ir.ExprStmt{Call: &ir.Call{Args: []ir.Expr{e}}}, func(x ir.Expr) {
		switch x := x.(type) {
		case *ir.Index:
			found = true
		case *ir.Call:
			if x.Func.IsAtomic() {
				found = true
			}
		case *ir.FnCall:
			found = true // it may read memory, or loop
		}
	})
	return found
}

// temp declares a fresh temporary of type t among the hoisted statements.
func (f *fn) temp(t ir.Type) string {
	name := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
	f.tmp++
	f.pre = append(f.pre, decl(t, name)+";")
	return name
}

// splat returns h as a value of type to (a vector) when h is a scalar.
func splat(h hx, from, to ir.Type) hx {
	if _, ok := to.(ir.Vector); ok {
		if _, ok := from.(ir.Scalar); ok {
			return hx{"(" + typeName(to) + ")" + h.at(precUnary), precUnary}
		}
	}
	return h
}
