package ir_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestBuilderLang builds a module with a struct, a function and a switch
// from Go and compares it with the same module parsed from text.
func TestBuilderLang(t *testing.T) {
	src := `struct P {
	v f32
	n u32
}

fn scale(p P, s f32) P {
	return P{v: p.v * s, n: p.n}
}

precise kernel k(y read_write []P) workgroup(64) {
	let i = global_id.x
	var p = scale(y[i], 2.0)
	switch p.n {
	case 0, 1:
		p.v = 1.0
	default:
		p.v = [2]f32{1.0, 2.0}[p.n % 2]
	}
	y[i] = p
}
`
	parsed, err := parse.File("b.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := ir.NewStruct("P", "v", ir.Type(ir.F32), "n", ir.Type(ir.U32))
	f := ir.NewFunc("scale", p)
	pp, s := f.Param("p", p), f.Param("s", ir.F32)
	f.ReturnValue(ir.StructOf(p, "v", ir.Mul(ir.Sel(pp, "v"), s), "n", ir.Sel(pp, "n")))
	b := ir.NewKernel("k", 64)
	b.SetPrecise()
	y := b.Buffer("y", p, ir.ReadWrite)
	i := b.Let("i", ir.X(ir.Builtin(ir.GlobalID)))
	v := b.Var("p", nil, ir.CallFn("scale", ir.At(y, i), ir.Float(2)))
	b.Switch(ir.Sel(v, "n"),
		ir.SwitchCase{Values: []ir.Expr{ir.Int(0), ir.Int(1)}, Body: func() { b.Assign(ir.Sel(v, "v"), ir.Float(1)) }},
		ir.SwitchCase{Body: func() {
			b.Assign(ir.Sel(v, "v"), ir.At(ir.ArrayLitOf(ir.F32, ir.Float(1), ir.Float(2)), ir.Rem(ir.Sel(v, "n"), ir.Int(2))))
		}},
	)
	b.Assign(ir.At(y, i), v)
	built := &ir.Module{Structs: []*ir.Struct{p}, Funcs: []*ir.Func{f.Func()}, Kernels: []*ir.Kernel{b.Kernel()}}
	if err := ir.Check(built); err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(parsed); err != nil {
		t.Fatal(err)
	}
	opts := cmp.Options{cmpopts.IgnoreTypes(ir.Pos{}), cmpopts.IgnoreFields(ir.Module{}, "File"), cmpopts.IgnoreFields(ir.Array{}, "LenExpr"), cmpopts.IgnoreFields(ir.Lit{}, "Text")}
	if d := cmp.Diff(ir.Print(parsed), ir.Print(built)); d != "" {
		t.Errorf("printed (-parsed +built):\n%s", d)
	}
	if d := cmp.Diff(parsed, built, opts); d != "" {
		t.Errorf("IR (-parsed +built):\n%s", d)
	}
}
