package ir_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// coop2Header opens a module that enables workgroup-scope cooperative
// matrices; the kernel's body starts on line 5.
const coop2Header = "enable f16\nenable cooperative_matrix\nenable cooperative_matrix2\n" +
	"kernel k(a read []f16, b read []f16, c read_write []f32, n u32) workgroup(256) {\n"

// coop2Cases: workgroup-scope programs and every error Check must report.
var coop2Cases = []struct {
	name string
	body string // statements of k, from line 5
	want []string
}{
	{"tile matmul checks", `shared t [2048]f16
let ta = coopLoad<coopmat<f16, 64, 32, a, workgroup>>(a, workgroup_id.x * 2048, 32, row_major)
let tb = coopLoad<coopmat<f16, 32, 64, b, workgroup>>(t, 0, 64, col_major)
var acc coopmat<f32, 64, 64, acc, workgroup>
acc = coopMulAdd(ta, tb, acc) * 0.5 + acc / 2.0
let h = coopmat<f16, 64, 64, acc, workgroup>(-acc)
coopStore(coopmat<f32, 64, 64, acc, workgroup>(h), c, 0, n, row_major)
c[0] = f32(coopLength(acc))`, nil},
	{"no element access", `var acc coopmat<f32, 64, 64, acc, workgroup>
c[0] = acc[0]
acc[1] = 2.0`, []string{
		"6:9: invalid operation: cannot index acc (variable of type coopmat<f32, 64, 64, acc, workgroup>): element access is for subgroup-scope matrices only",
		"7:2: invalid operation: cannot index acc (variable of type coopmat<f32, 64, 64, acc, workgroup>): element access is for subgroup-scope matrices only",
	}},
	{"scopes do not mix", `let ta = coopLoad<coopmat<f16, 16, 16, a, workgroup>>(a, 0, 16, row_major)
let tb = coopLoad<coopmat<f16, 16, 16, b>>(b, 0, 16, row_major)
let x = coopMulAdd(ta, tb, coopmat<f32, 16, 16, acc, workgroup>(0.0))
let y = coopmat<f32, 16, 16, acc>(1.0) + coopmat<f32, 16, 16, acc, workgroup>(1.0)
let z = coopmat<f32, 16, 16, acc>(coopmat<f16, 16, 16, acc, workgroup>(1.0))`, []string{
		"7:10: coopMulAdd: A, B and C must have one scope: A is workgroup, B is subgroup, C is workgroup",
		"8:41: invalid operation: coopmat<f32, 16, 16, acc>(1.0) + coopmat<f32, 16, 16, acc, workgroup>(1.0) (mismatched types coopmat<f32, 16, 16, acc> and coopmat<f32, 16, 16, acc, workgroup>)",
		"9:10: cannot convert coopmat<f16, 16, 16, acc, workgroup>(1.0) (value of type coopmat<f16, 16, 16, acc, workgroup>) to coopmat<f32, 16, 16, acc>: a conversion keeps the shape and the use, and changes only the element type",
	}},
	{"uniform control flow", `if local_index < 128 {
	coopStore(coopmat<f32, 32, 32, acc, workgroup>(1.0), c, 0, 32, row_major)
}`, []string{
		"6:3: coopStore must be called in uniform control flow: the condition at 5:5 depends on local_index",
		"6:13: coopmat<f32, 32, 32, acc, workgroup>(...) must be called in uniform control flow: the condition at 5:5 depends on local_index",
	}},
}

func TestCheckCoopMat2(t *testing.T) {
	for _, tc := range coop2Cases {
		t.Run(tc.name, func(t *testing.T) {
			src := coop2Header
			for _, l := range splitLines(tc.body) {
				src += "\t" + l + "\n"
			}
			src += "}\n"
			got := checkErrors(t, src)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s\nsource:\n%s", diff, src)
			}
		})
	}
}

// TestCoopMat2NeedsEnable: workgroup scope needs `enable
// cooperative_matrix2` beside `enable cooperative_matrix`, each reported
// once at the first use; the scope is subgroup or workgroup.
func TestCoopMat2NeedsEnable(t *testing.T) {
	src := "enable f16\nkernel k(c read_write []f32) workgroup(64) {\n\tlet m = coopmat<f32, 16, 16, acc, workgroup>(1.0)\n\tcoopStore(m, c, 0, 16, row_major)\n}\n"
	want := []string{
		"3:10: cooperative matrix type coopmat<f32, 16, 16, acc, workgroup> used without `enable cooperative_matrix`",
		"3:10: workgroup-scope cooperative matrix type coopmat<f32, 16, 16, acc, workgroup> used without `enable cooperative_matrix2`",
	}
	if diff := cmp.Diff(want, checkErrors(t, src)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	_, err := parse.File("t.kc", []byte("enable cooperative_matrix\nkernel k() workgroup(64) {\n\tvar m coopmat<f32, 16, 16, acc, device>\n}\n"))
	if err == nil || err.Error() != "t.kc:3:34: device is not a matrix scope: want subgroup or workgroup" {
		t.Errorf("scope device: got %v", err)
	}
}

// TestCoopMat2Features: a kernel with a workgroup-scope matrix uses both
// features, and its reflection says so; kc fmt prints the scope back.
func TestCoopMat2Features(t *testing.T) {
	src := coop2Header + "\tvar acc coopmat<f32, 32, 32, acc, workgroup>\n\tcoopStore(acc, c, 0, 32, row_major)\n}\n"
	m, err := parse.File("t.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	k := m.Kernels[0]
	if want := ir.FeatureCoopMat | ir.FeatureCoopMat2; k.Features&want != want {
		t.Errorf("features %v, want cooperative_matrix and cooperative_matrix2", k.Features)
	}
	r := ir.ReflectKernel(k)
	if !slices.Contains(r.Features, "cooperative_matrix2") || r.FeatureSet()&ir.FeatureCoopMat2 == 0 {
		t.Errorf("reflection features %v, want cooperative_matrix2", r.Features)
	}
	out := string(ir.Print(m))
	m2, err := parse.File("t.kc", []byte(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := string(ir.Print(m2)); got != out {
		t.Errorf("kc fmt not idempotent:\n%s\n%s", out, got)
	}
	if f, ok := ir.FeatureByName("cooperative_matrix2"); !ok || f != ir.FeatureCoopMat2 {
		t.Errorf("FeatureByName(cooperative_matrix2) = %v, %v", f, ok)
	}
}
