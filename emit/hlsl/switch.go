package hlsl

import (
	"math"
	"strconv"

	"github.com/kcgo/kc/ir"
)

// This file lowers switch and return.

// switchStmt emits an HLSL switch. kc has no fallthrough, so every case
// body that can finish ends in break; a case with several values is a run
// of labels. A switch with no case gets an empty default (HLSL needs a
// label).
func (f *fn) switchStmt(s *ir.Switch) {
	tag := f.expr(s.Tag)
	f.flush()
	tt := s.Tag.Type()
	f.out(s.Pos, "switch ("+tag+") {")
	if len(s.Cases) == 0 {
		f.out(s.Pos, "default:")
		f.out(s.Pos, "\tbreak;")
	}
	for _, c := range s.Cases {
		if c.Default {
			f.out(c.Pos, "default: {")
		}
		for i, v := range c.Vals {
			open := ":"
			if i == len(c.Vals)-1 {
				open = ": {"
			}
			f.out(c.Pos, "case "+caseLit(v, tt)+open)
		}
		f.block(c.Body)
		if !terminates(c.Body) {
			f.out(ir.Pos{}, "\tbreak;")
		}
		f.out(ir.Pos{}, "}")
	}
	f.out(ir.Pos{}, "}")
}

// caseLit spells a case label: a constant expression of the tag's type.
func caseLit(v ir.Value, t ir.Type) string {
	if ir.ElemScalar(t) == ir.I32 && int32(intOf(v)) == math.MinInt32 {
		return "(-2147483647 - 1)"
	}
	if ir.ElemScalar(t) == ir.I32 {
		return strconv.FormatInt(int64(int32(intOf(v))), 10)
	}
	return scalarLit(v, ir.ElemScalar(t))
}

// terminates reports whether a block ends in a jump.
func terminates(b *ir.Block) bool {
	if b == nil || len(b.Stmts) == 0 {
		return false
	}
	switch b.Stmts[len(b.Stmts)-1].(type) {
	case *ir.Return, *ir.Break, *ir.Continue:
		return true
	}
	return false
}

// returnStmt emits return, with the function's result when it has one. In
// precise code the value goes through a precise temporary; an array result
// is wrapped (func.go).
func (f *fn) returnStmt(s *ir.Return) {
	if s.Value == nil {
		f.flush()
		f.out(s.Pos, "return;")
		return
	}
	v := f.sink(s.Value, f.ex(s.Value))
	if _, ok := s.Value.Type().(*ir.Array); ok {
		w := f.e.resultType(s.Value.Type())
		t := f.local.Fresh("kc_r")
		f.pre = append(f.pre, w+" "+t+";", t+".v = "+v.s+";")
		v = primary(t)
	}
	f.flush()
	f.out(s.Pos, "return "+v.s+";")
}
