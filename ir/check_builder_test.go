package ir_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// errorStrings returns Check's errors as strings ("" list when none).
func errorStrings(t *testing.T, m *ir.Module) []string {
	t.Helper()
	err := ir.Check(m)
	if err == nil {
		return nil
	}
	var list ir.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Check returned %T: %v", err, err)
	}
	var out []string
	for _, e := range list {
		if strings.Contains(e.Msg, "internal error") {
			t.Fatalf("checker panicked: %v", e)
		}
		out = append(out, e.Error())
	}
	return out
}

func TestCheckAnnotationsFromBuilder(t *testing.T) {
	b := ir.NewKernel("k")
	b.WorkgroupExprs(ir.Ref("TILE"), ir.Int(2))
	n, a := b.Param("n", ir.U32), b.Param("a", ir.F32)
	x, y := b.Buffer("x", ir.F32, ir.Read), b.Buffer("y", ir.F32, ir.ReadWrite)
	arr := &ir.Array{Elem: ir.F32, LenExpr: ir.Add(ir.Ref("TILE"), ir.Int(1))}
	tile := b.Shared("tile", arr)
	i := b.Let("i", ir.X(ir.Builtin(ir.GlobalID)))
	one := ir.Int(1)
	b.If(ir.Ge(i, n), func() { b.Return() })
	three := ir.Int(3)
	shifted := b.Let("s", ir.Bin(ir.OpShl, n, three))
	zero := ir.Int(0)
	b.Assign(ir.At(tile, zero), ir.At(x, i))
	half := ir.Float(0.5)
	sum := ir.Add(ir.Mul(a, ir.At(x, i)), one)
	b.Assign(ir.At(y, i), ir.Add(sum, half))
	tileUse := ir.Ref("TILE")
	b.Assign(ir.At(y, shifted), ir.Conv(ir.F32, tileUse))
	c := b.Let("c", ir.Int(5))
	d := b.Let("d", ir.Float(2.5))
	_, _ = c, d
	k := b.Kernel()
	tileConst := &ir.Const{Name: "TILE", Value: ir.Int(16)}
	m := &ir.Module{File: "b.kc", Consts: []*ir.Const{tileConst}, Kernels: []*ir.Kernel{k}}
	if errs := errorStrings(t, m); errs != nil {
		t.Fatalf("Check: %v", errs)
	}
	for _, tc := range []struct {
		what string
		got  ir.Type
		want ir.Type
	}{
		{"1 in a*x[i] + 1", one.Ty, ir.F32},
		{"0.5", half.Ty, ir.F32},
		{"index 0", zero.Ty, ir.I32},
		{"shift amount 3", three.Ty, ir.U32},
		{"TILE in u32 context... f32(TILE)", tileUse.Ty, ir.F32},
		{"let c = 5", k.Body.Stmts[len(k.Body.Stmts)-2].(*ir.Decl).Ty, ir.I32},
		{"let d = 2.5", k.Body.Stmts[len(k.Body.Stmts)-1].(*ir.Decl).Ty, ir.F32},
		{"i", i.Ty, ir.U32},
		{"buffer ident x", x.Ty, ir.F32},
		{"tile[0]", ir.Type(ir.F32), ir.F32},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: type %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	if k.Size != [3]int{16, 2, 1} {
		t.Errorf("Size = %v, want [16 2 1]", k.Size)
	}
	if arr.Len != 17 {
		t.Errorf("array Len = %d, want 17", arr.Len)
	}
	if tileConst.Val != ir.IntVal(16) || tileConst.Ty != nil {
		t.Errorf("TILE: Val %v Ty %v, want 16 and untyped", tileConst.Val, tileConst.Ty)
	}
	if n.Obj != k.Params[0] || x.Obj != k.Params[2] || tile.Obj != k.Shared[0] || tileUse.Obj != tileConst {
		t.Errorf("identifiers resolved wrongly: n %v, x %v, tile %v, TILE %v", n.Obj, x.Obj, tile.Obj, tileUse.Obj)
	}
	if d, ok := i.Obj.(*ir.Decl); !ok || d.Name != "i" {
		t.Errorf("i.Obj = %v, want the let", i.Obj)
	}
	if k.Features != 0 {
		t.Errorf("Features = %v, want none", k.Features)
	}
	if !m.Checked {
		t.Error("Checked not set")
	}
}

func TestCheckModuleLevelErrors(t *testing.T) {
	got := errorStrings(t, &ir.Module{File: "a.kc"})
	if diff := cmp.Diff([]string{"a.kc:1:1: no kernel in file"}, got); diff != "" {
		t.Error(diff)
	}
	if err := ir.Check(nil); err == nil || err.Error() != "nil module" {
		t.Errorf("Check(nil) = %v", err)
	}
}

// TestCheckBuilderErrors covers trees that the parser cannot produce.
func TestCheckBuilderErrors(t *testing.T) {
	kernel := func(body ...ir.Stmt) *ir.Module {
		k := &ir.Kernel{Name: "k", Workgroup: []ir.Expr{ir.Int(1)}, Body: &ir.Block{Stmts: body},
			Params: []*ir.Param{{Name: "n", Kind: ir.ScalarParam, Type: ir.U32}}}
		return &ir.Module{Kernels: []*ir.Kernel{k}}
	}
	forLoop := func(init *ir.Decl, post *ir.Assign) *ir.Module {
		return kernel(&ir.For{Init: init, Cond: ir.BoolLit(false), Post: post, Body: &ir.Block{}})
	}
	for _, tc := range []struct {
		name string
		m    *ir.Module
		want []string
	}{
		{"let without value", kernel(&ir.Decl{Name: "a"}), []string{"let a has no value"}},
		{"var without type or value", kernel(&ir.Decl{Name: "a", Mut: true}), []string{"var a has no type and no value"}},
		{"for init is a let", forLoop(&ir.Decl{Name: "i", Init: ir.Int(0)}, nil),
			[]string{"for loop variable i must be declared as i := value"}},
		{"for init has a type", forLoop(&ir.Decl{Name: "i", Mut: true, Type: ir.I32, Init: ir.Int(0)}, nil),
			[]string{"for loop variable i must be declared as i := value"}},
		{"for post assigns another variable", forLoop(&ir.Decl{Name: "i", Mut: true, Init: ir.Int(0)},
			&ir.Assign{LHS: ir.Ref("n"), Op: ir.OpAdd, RHS: ir.Int(1)}),
			[]string{"for post statement must assign the loop variable i", "cannot assign to n: n is a parameter"}},
		{"for post without variable", forLoop(nil, &ir.Assign{LHS: ir.Ref("n"), Op: ir.OpAdd, RHS: ir.Int(1)}),
			[]string{"cannot assign to n: n is a parameter"}},
		{"nil body", &ir.Module{Kernels: []*ir.Kernel{{Name: "k", Workgroup: []ir.Expr{ir.Int(1)}}}},
			[]string{"kernel k has no body"}},
		{"no workgroup size", &ir.Module{Kernels: []*ir.Kernel{{Name: "k", Body: &ir.Block{}}}},
			[]string{"kernel k: workgroup size needs 1 to 3 dimensions, not 0"}},
		{"nil expressions", kernel(&ir.Decl{Name: "a", Init: ir.Add(nil, ir.Int(1))}, &ir.If{Cond: nil, Then: &ir.Block{}}),
			[]string{"missing expression", "missing expression"}},
		{"nil blocks", kernel(&ir.If{Cond: ir.BoolLit(true)}, &ir.For{}), []string{"if has no body", "for has no body"}},
		{"bad else", kernel(&ir.If{Cond: ir.BoolLit(true), Then: &ir.Block{}, Else: &ir.Break{}}),
			[]string{"else must be followed by a block or an if"}},
		{"bad enums", kernel(
			&ir.Decl{Name: "a", Init: &ir.Call{Func: 200}},
			&ir.Decl{Name: "b", Init: &ir.BuiltinValue{Kind: 99}},
			&ir.Decl{Name: "c", Init: &ir.Unary{Op: 9, X: ir.Int(1)}},
			&ir.Decl{Name: "d", Init: &ir.Binary{Op: 99, X: ir.Int(1), Y: ir.Int(1)}},
			&ir.Barrier{Kind: 7},
			&ir.Decl{Name: "e", Init: &ir.Convert{To: 42, X: ir.Int(1)}},
			&ir.Decl{Name: "f", Init: &ir.Construct{To: ir.Vec(ir.F32, 7), Args: []ir.Expr{ir.Float(1)}}},
			&ir.Decl{Name: "g", Mut: true, Type: ir.Atomic{Elem: ir.F32}},
			&ir.Decl{Name: "h", Mut: true, Type: ir.CoopMat{Elem: ir.F16, Rows: 16, Cols: 16}},
			&ir.Decl{Name: "i", Init: &ir.Len{}},
			&ir.Decl{Name: "j", Mut: true, Type: (*ir.Array)(nil)},
			&ir.Decl{Name: "", Init: ir.Int(1)},
		), []string{
			"invalid intrinsic (200)", "invalid builtin value (kind 99)", "invalid unary operator (9)",
			"invalid binary operator (99)", "invalid barrier kind 7", "invalid conversion target type Scalar(42)",
			"invalid vector type vec7<f32>", "invalid type atomic<f32>: atomics hold i32 or u32",
			"cooperative matrix type coopmat<f16, 16, 16, a> used without `enable cooperative_matrix`", "f16 used without `enable f16`",
			"len needs a buffer argument", "missing type",
			"variable has no name",
		}},
		{"bad params", &ir.Module{Kernels: []*ir.Kernel{{Name: "k", Workgroup: []ir.Expr{ir.Int(1)}, Body: &ir.Block{},
			Params: []*ir.Param{
				{Name: "a", Kind: 9, Type: ir.U32},
				{Name: "b", Kind: ir.BufferParam, Type: ir.U32, Access: 5},
				{Name: "c", Kind: ir.BufferParam, Type: nil, Access: ir.Read},
				nil,
			}}}},
			[]string{"parameter a: invalid kind 9", "buffer b: invalid access mode 5 (want read or read_write)",
				"missing type", "kernel k: nil parameter"}},
		{"unknown feature", &ir.Module{Enables: []*ir.Enable{{Feature: 128}},
			Kernels: []*ir.Kernel{{Name: "k", Workgroup: []ir.Expr{ir.Int(1)}, Body: &ir.Block{}}}},
			[]string{"unknown feature in enable directive (Feature(128))"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, errorStrings(t, tc.m)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckIdempotent(t *testing.T) {
	for _, tc := range checkCases {
		m, err := parse.File("t.kc", []byte(moduleSrc(tc.src)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		first, second := errText(ir.Check(m)), errText(ir.Check(m))
		if first != second {
			t.Errorf("%s: second Check differs:\n%s\n---\n%s", tc.name, first, second)
		}
	}
}

func TestSpecialize(t *testing.T) {
	src := "const A = 1\nconst B u32 = 2\nconst F = 0.5\nconst D = false\n" +
		"kernel k(y read_write []f32) workgroup(A) {\n\tif D {\n\t\ty[0] = F * f32(B)\n\t}\n}\n"
	parseMod := func() *ir.Module {
		m, err := parse.File("s.kc", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m := parseMod()
	defs := map[string]string{"A": "0x40", "B": "7", "F": "-1.5e-3", "D": "true"}
	if err := ir.Specialize(m, defs); err != nil {
		t.Fatal(err)
	}
	want := map[string]ir.Value{"A": ir.IntVal(64), "B": ir.IntVal(7), "F": ir.FloatVal(-1.5e-3), "D": ir.BoolVal(true)}
	for _, k := range m.Consts {
		lit, ok := k.Value.(*ir.Lit)
		if !ok || lit.Val != want[k.Name] || lit.Pos != (ir.Pos{File: "-D"}) {
			t.Errorf("%s = %#v, want a literal %v at -D", k.Name, k.Value, want[k.Name])
		}
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	if m.Kernels[0].Size != [3]int{64, 1, 1} || m.Consts[1].Ty != ir.U32 {
		t.Errorf("after -D: Size %v, B type %v", m.Kernels[0].Size, m.Consts[1].Ty)
	}

	m = parseMod()
	err := ir.Specialize(m, map[string]string{"Z": "1", "A": "abc", "B": "1.5.2", "F": "0x"})
	wantErr := "-D A=abc: invalid value \"abc\" (want an integer, a float, true or false)\n" +
		"-D B=1.5.2: invalid value \"1.5.2\" (want an integer, a float, true or false)\n" +
		"-D F=0x: invalid value \"0x\" (want an integer, a float, true or false)\n" +
		"no constant Z to define (-D Z=1)"
	if errText(err) != wantErr {
		t.Errorf("Specialize errors:\n%v\nwant:\n%s", err, wantErr)
	}

	m = parseMod()
	if err := ir.Specialize(m, map[string]string{"B": "-1", "A": "2000"}); err != nil {
		t.Fatal(err)
	}
	wantCheck := "-D: constant -1 overflows u32\n" +
		"s.kc:5:40: workgroup size x = 2000 exceeds 1024 (the language's limit)"
	if got := errText(ir.Check(m)); got != wantCheck {
		t.Errorf("Check after bad -D:\n%s\nwant:\n%s", got, wantCheck)
	}
	if err := ir.Specialize(nil, nil); err == nil {
		t.Error("Specialize(nil) succeeded")
	}
}

func TestFeaturesAndRequire(t *testing.T) {
	src := `enable f16
enable subgroups

kernel plain(x read_write []f32) workgroup(64) {
	x[0] = 1.0
}

kernel both(x read_write []f32, h read []f16) workgroup(64) {
	let s = subgroupAdd(x[0])
	x[1] = s + f32(h[0])
}
`
	m, err := parse.File("f.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	plain, both := m.Kernel("plain"), m.Kernel("both")
	if plain.Features != 0 || ir.RequireFeatures(plain, "wgsl", 0) != nil {
		t.Errorf("plain: Features %v", plain.Features)
	}
	if both.Features != ir.FeatureF16|ir.FeatureSubgroups {
		t.Errorf("both: Features %v", both.Features)
	}
	wantPos := map[ir.Feature]ir.Pos{
		ir.FeatureF16:       {File: "f.kc", Line: 8, Col: 33},
		ir.FeatureSubgroups: {File: "f.kc", Line: 9, Col: 10},
	}
	if diff := cmp.Diff(wantPos, both.FeatPos); diff != "" {
		t.Errorf("FeatPos (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		have ir.Features
		want string
	}{
		{0, "f.kc:8:33: f16 is not supported by target wgsl (naga)"},
		{ir.FeatureF16, "f.kc:9:10: subgroups is not supported by target wgsl (naga)"},
		{ir.FeatureSubgroups, "f.kc:8:33: f16 is not supported by target wgsl (naga)"},
		{ir.FeatureF16 | ir.FeatureSubgroups, ""},
	} {
		err := ir.RequireFeatures(both, "wgsl (naga)", tc.have)
		if errText(err) != tc.want {
			t.Errorf("have %v: %v, want %q", tc.have, err, tc.want)
		}
		var ue *ir.UnsupportedError
		if err != nil && (!errors.As(err, &ue) || ue.Target != "wgsl (naga)") {
			t.Errorf("have %v: %T %v, want *ir.UnsupportedError", tc.have, err, err)
		}
	}
}

// TestCheckSharedUntypedNode: a literal shared by an f32 and a u32 context
// cannot carry both types in Lit.Ty, so Check rejects it.
func TestCheckSharedUntypedNode(t *testing.T) {
	b := ir.NewKernel("k", 64)
	n, f := b.Param("n", ir.U32), b.Param("f", ir.F32)
	one := ir.Int(1)
	b.Let("a", ir.Add(n, one))
	b.Let("b", ir.Add(f, one))
	b.Let("c", ir.Add(n, one)) // the same type again is fine
	m := &ir.Module{Kernels: []*ir.Kernel{b.Kernel()}}
	want := []string{"1 is used as both u32 and f32: a node built through the Go API may not be shared by contexts that need different types"}
	if diff := cmp.Diff(want, errorStrings(t, m)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
