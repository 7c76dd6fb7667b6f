package kctest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// OpCase is one row of ir's op tables (ir/ops.go: binary and unary
// operators, builtins, intrinsics, and the scalar conversions) at one
// operand type, as a checked module with a single kernel k.
type OpCase struct {
	Row    string // "binary +", "intrinsic fma", ...
	Type   string // the operand type it is exercised at
	Src    string
	Module *ir.Module
}

func (c OpCase) String() string { return c.Row + " " + c.Type }

// OpTable returns one case per row of the op tables and per operand type
// the row applies to (among bool, i32, u32, f32, f16 and a vector of each),
// so that an emitter's test that walks it fails on a row the emitter does
// not handle, instead of a user's kernel failing. It fails t when a row
// has no case at all (a new row the generator does not know how to call).
func OpTable(t testing.TB) []OpCase {
	t.Helper()
	g := &opGen{t: t, rows: map[string]int{}}
	for op := ir.OpAdd; ; op++ {
		if op.String() == "" {
			break
		}
		for _, ty := range allTypes {
			g.try("binary "+op.String(), ty, "out[0] = "+val(ty, 0)+" "+op.String()+" "+val(ty, 1), resultOf(op, ty))
		}
		if op == ir.OpGe {
			break
		}
	}
	for _, op := range []ir.UnaryOp{ir.OpNeg, ir.OpNot, ir.OpBitNot} {
		for _, ty := range allTypes {
			g.try("unary "+op.String(), ty, "out[0] = "+op.String()+val(ty, 0), ty)
		}
	}
	for _, b := range []ir.BuiltinKind{ir.GlobalID, ir.LocalID, ir.WorkgroupID, ir.NumWorkgroups, ir.LocalIndex, ir.SubgroupSize, ir.SubgroupInvocationID} {
		ty := "u32"
		expr := b.String()
		if _, ok := b.Type().(ir.Vector); ok {
			ty = "vec3<u32>"
		}
		g.try("builtin "+b.String(), ty, "out[0] = "+expr, ty)
	}
	for _, from := range scalarTypes {
		for _, to := range scalarTypes {
			if from != to {
				g.try("convert "+to, from, "out[0] = "+to+"("+val(from, 0)+")", to)
			}
		}
	}
	for _, f := range ir.Intrinsics() {
		g.intrinsic(f)
	}
	for _, f := range ir.Intrinsics() {
		if g.rows["intrinsic "+f.String()] == 0 {
			t.Errorf("kctest.OpTable: no case for intrinsic %s (teach internal/kctest/optable.go to call it)", f)
		}
	}
	for row, n := range g.rows {
		if n == 0 {
			t.Errorf("kctest.OpTable: no case for %s", row)
		}
	}
	return g.cases
}

var (
	scalarTypes = []string{"bool", "i32", "u32", "f32", "f16"}
	allTypes    = []string{"bool", "i32", "u32", "f32", "f16", "vec2<bool>", "vec2<i32>", "vec3<u32>", "vec4<f32>", "vec2<f16>"}
)

// val spells an operand of type ty that no target can fold: read from the
// buffers (a is u32, b is f32) at runtime, so that i-th operands differ.
func val(ty string, i int) string {
	scalar := ty
	n := 0
	if strings.HasPrefix(ty, "vec") {
		n = int(ty[3] - '0')
		scalar = ty[5 : len(ty)-1]
	}
	var s string
	switch scalar {
	case "bool":
		s = fmt.Sprintf("(a[%d] > %d)", i, i+1)
	case "u32":
		s = fmt.Sprintf("a[%d]", i)
	case "i32":
		s = fmt.Sprintf("i32(a[%d])", i)
	case "f32":
		s = fmt.Sprintf("b[%d]", i)
	case "f16":
		s = fmt.Sprintf("f16(b[%d])", i)
	}
	if n > 0 {
		return ty + "(" + s + ")"
	}
	return s
}

// resultOf is the result type of a binary operator at operand type ty.
func resultOf(op ir.BinaryOp, ty string) string {
	if !op.IsComparison() {
		return ty
	}
	if strings.HasPrefix(ty, "vec") {
		return ty[:5] + "bool>"
	}
	return "bool"
}

type opGen struct {
	t     testing.TB
	rows  map[string]int // row -> cases that checked
	cases []OpCase
}

// try adds a case when the statement checks: out is a buffer of the
// result type (bool results are stored through select, as buffers cannot
// hold bool).
func (g *opGen) try(row, ty, stmt, result string) {
	if _, ok := g.rows[row]; !ok {
		g.rows[row] = 0
	}
	elem := result
	if strings.Contains(result, "bool") {
		n := "1"
		if strings.HasPrefix(result, "vec") {
			n = result[3:4]
			elem = "vec" + n + "<u32>"
		} else {
			elem = "u32"
		}
		rhs, _ := strings.CutPrefix(stmt, "out[0] = ")
		stmt = "out[0] = select(" + rhs + ", " + elem + "(1), " + elem + "(0))"
		if n == "1" {
			stmt = "out[0] = select(" + rhs + ", u32(1), u32(0))"
		}
	}
	src := g.source(ty+" "+result, elem, stmt)
	m, err := parse.Load(strings.ReplaceAll(row, " ", "_")+".kc", []byte(src), nil)
	if err != nil {
		return // the row does not apply at this type
	}
	g.rows[row]++
	g.cases = append(g.cases, OpCase{Row: row, Type: ty, Src: src, Module: m})
}

// source is a kernel k storing stmt's value of element type elem.
func (g *opGen) source(types, elem, stmt string) string {
	var b strings.Builder
	if strings.Contains(types, "f16") || strings.Contains(elem, "f16") {
		b.WriteString("enable f16\n")
	}
	if strings.Contains(stmt, "subgroup") {
		b.WriteString("enable subgroups\n")
	}
	if strings.Contains(stmt, "dot4") {
		b.WriteString("enable packed_4x8_integer_dot_product\n")
	}
	fmt.Fprintf(&b, "kernel k(a read []u32, b read []f32, h read_write []atomic<u32>, hi read_write []atomic<i32>, out read_write []%s) workgroup(64) {\n\t%s\n}\n", elem, stmt)
	return b.String()
}

// intrinsic adds the cases of f at every type its signature class admits.
func (g *opGen) intrinsic(f ir.Intrinsic) {
	row := "intrinsic " + f.String()
	info := f.Info()
	call := func(args ...string) string { return f.String() + "(" + strings.Join(args, ", ") + ")" }
	switch {
	case info.Sig == ir.SigAtomicCAS:
		// the result is a pair read through its fields, bound by a let
		for _, buf := range []string{"h", "hi"} {
			ty := "u32"
			if buf == "hi" {
				ty = "i32"
			}
			g.try(row, ty, "let r = "+call(buf+"[0]", val(ty, 0), val(ty, 1))+"\n\tout[0] = r.old_value + "+ty+"(r.exchanged)", ty)
		}
		return
	case info.Sig == ir.SigCross:
		for _, ty := range []string{"vec3<f32>", "vec3<f16>"} {
			g.try(row, ty, "out[0] = "+call(val(ty, 0), val(ty, 1)), ty)
		}
		return
	case info.Sig == ir.SigPack:
		ty := fmt.Sprintf("vec%d<f32>", f.PackWidth())
		g.try(row, ty, "out[0] = "+call(val(ty, 0)), "u32")
		return
	case info.Sig == ir.SigUnpack:
		g.try(row, "u32", "out[0] = "+call(val("u32", 0)), fmt.Sprintf("vec%d<f32>", f.PackWidth()))
		return
	case info.Sig == ir.SigDot4Packed:
		res := "u32"
		if f == ir.Dot4I8Packed {
			res = "i32"
		}
		g.try(row, "u32", "out[0] = "+call(val("u32", 0), val("u32", 1)), res)
		return
	case f.IsAtomic():
		for _, buf := range []string{"h", "hi"} {
			ty := "u32"
			if buf == "hi" {
				ty = "i32"
			}
			switch info.Arity {
			case 1:
				g.try(row, ty, "out[0] = "+call(buf+"[0]"), ty)
			case 2:
				if f == ir.AtomicStore {
					g.try(row, ty, call(buf+"[0]", val(ty, 0)), ty)
					continue
				}
				g.try(row, ty, "out[0] = "+call(buf+"[0]", val(ty, 0)), ty)
			}
		}
		return
	case f == ir.Select:
		for _, ty := range allTypes {
			g.try(row, ty, "out[0] = "+call(val("bool", 2), val(ty, 0), val(ty, 1)), ty)
		}
		return
	case f == ir.SubgroupElect:
		g.try(row, "bool", "out[0] = "+call(), "bool")
		return
	case f == ir.SubgroupBroadcast:
		for _, ty := range allTypes {
			g.try(row, ty, "out[0] = "+call(val(ty, 0), "3"), ty)
		}
		return
	case info.Sig == ir.SigSubgroupLane:
		for _, ty := range allTypes {
			g.try(row, ty, "out[0] = "+call(val(ty, 0), "a[1] % 8"), ty)
		}
		return
	case f == ir.SubgroupBallot:
		g.try(row, "bool", "out[0] = "+call(val("bool", 0)), "vec4<u32>")
		return
	case f == ir.Dot:
		for _, ty := range allTypes {
			if strings.HasPrefix(ty, "vec") {
				g.try(row, ty, "out[0] = "+call(val(ty, 0), val(ty, 1)), ty[5:len(ty)-1])
			}
		}
		return
	case f == ir.Mix:
		for _, ty := range allTypes {
			g.try(row, ty, "out[0] = "+call(val(ty, 0), val(ty, 1), val(ty, 0)), ty)
		}
		return
	}
	for _, ty := range allTypes {
		args := make([]string, info.Arity)
		for i := range args {
			args[i] = val(ty, i%2)
		}
		g.try(row, ty, "out[0] = "+call(args...), ty)
	}
}
