package ir_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
)

func TestInspect(t *testing.T) {
	b := ir.NewKernel("k", 64)
	n := b.Param("n", ir.U32)
	y := b.Buffer("y", ir.U32, ir.ReadWrite)
	i := b.Let("i", ir.X(ir.Builtin(ir.GlobalID)))
	b.If(ir.Lt(i, n), func() {
		b.For("j", ir.Int(0), func(j *ir.Ident) ir.Expr { return ir.Lt(j, ir.Int(3)) }, ir.Int(1), func(j *ir.Ident) {
			b.AssignOp(ir.At(y, i), ir.OpAdd, ir.CallOf(ir.Max, j, ir.LenOf(y)))
		})
	})
	m := &ir.Module{Kernels: []*ir.Kernel{b.Kernel()}}

	var got []string
	depth := 0
	ir.Inspect(m, func(nd ir.Node) bool {
		if nd == nil {
			depth--
			return false
		}
		got = append(got, fmt.Sprintf("%s%T", strings.Repeat(".", depth), nd))
		depth++
		return true
	})
	want := strings.Join([]string{
		"*ir.Module", ".*ir.Kernel", "..*ir.Param", "..*ir.Param", "..*ir.Lit", "..*ir.Block",
		"...*ir.Decl", "....*ir.Swizzle", ".....*ir.BuiltinValue",
		"...*ir.If", "....*ir.Binary", ".....*ir.Ident", ".....*ir.Ident", "....*ir.Block",
		".....*ir.For", "......*ir.Decl", ".......*ir.Lit", "......*ir.Binary", ".......*ir.Ident", ".......*ir.Lit",
		"......*ir.Assign", ".......*ir.Ident", ".......*ir.Lit", "......*ir.Block",
		".......*ir.Assign", "........*ir.Index", ".........*ir.Ident", ".........*ir.Ident",
		"........*ir.Call", ".........*ir.Ident", ".........*ir.Len", "..........*ir.Ident",
	}, "\n")
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("Inspect order:\n%s\nwant:\n%s", g, want)
	}
	if depth != 0 {
		t.Errorf("f(nil) calls do not balance: depth %d", depth)
	}

	// Returning false prunes: no node below an If is visited.
	count := 0
	ir.Inspect(m, func(nd ir.Node) bool {
		if nd != nil {
			count++
		}
		_, isIf := nd.(*ir.If)
		return !isIf
	})
	if count != 10 {
		t.Errorf("pruned walk visited %d nodes, want 10", count)
	}
	// Nil roots and nil children are fine.
	ir.Inspect(nil, func(ir.Node) bool { t.Fatal("visited a nil root"); return true })
	ir.Inspect(&ir.Kernel{}, func(ir.Node) bool { return true })
	ir.Inspect(&ir.If{}, func(ir.Node) bool { return true })
}
