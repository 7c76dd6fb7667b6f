package backend

import (
	"testing"

	"github.com/kcgo/kc/ir"
)

// TestBF16Int8Load: a kernel that enables bf16 or int8 loads only on a
// device that reports them, and a kernel with bf16, i8 or u8 cooperative
// matrices only on one offering a shape of that element type; each refusal
// is an *ir.UnsupportedError naming the feature and the device.
func TestBF16Int8Load(t *testing.T) {
	f := &fake{}
	art := func(name string, feats []string, coops ...ir.CoopMatReflection) *ir.KernelReflection {
		return &ir.KernelReflection{Name: name, Workgroup: [3]int{32, 1, 1}, Features: feats, CoopMats: coops}
	}
	bf16A := ir.CoopMatReflection{Elem: "bf16", Rows: 16, Cols: 16, Use: "a", Scope: "subgroup"}
	i8B := ir.CoopMatReflection{Elem: "i8", Rows: 32, Cols: 16, Use: "b", Scope: "subgroup"}
	u8A := ir.CoopMatReflection{Elem: "u8", Rows: 16, Cols: 32, Use: "a", Scope: "subgroup"}
	f16A := ir.CoopMatReflection{Elem: "f16", Rows: 16, Cols: 16, Use: "a", Scope: "subgroup"}
	wgBF16 := ir.CoopMatReflection{Elem: "bf16", Rows: 64, Cols: 32, Use: "a", Scope: "workgroup"}
	coop := []string{"cooperative_matrix"}
	f16Shape := CoopMatShape{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}
	bf16Shape := CoopMatShape{M: 16, N: 16, K: 16, A: "bf16", B: "bf16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}
	s8Shape := CoopMatShape{M: 16, N: 16, K: 32, A: "s8", B: "s8", C: "s32", Result: "s32", Scope: "subgroup", Flavor: "khr"}

	bare := f.Info()
	bare.CoopMat = []CoopMatShape{f16Shape}
	full := bare
	full.BF16, full.Int8 = true, true
	full.CoopMat = []CoopMatShape{f16Shape, bf16Shape, s8Shape}
	full.CoopMat2 = &CoopMat2{WorkgroupScope: true, Flexible: []CoopMatShape{{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "workgroup", Flavor: "flex", Invocations: 32}}}
	onlyTypes := bare // the types, but no bf16 or 8-bit matrices
	onlyTypes.BF16, onlyTypes.Int8 = true, true

	for _, tc := range []struct {
		info AdapterInfo
		r    *ir.KernelReflection
		want string
	}{
		{bare, art("b", []string{"bf16"}), "bf16 is not supported by target fake wgsl on fake"},
		{bare, art("i", []string{"int8"}), "int8 is not supported by target fake wgsl on fake"},
		{bare, art("f", []string{"cooperative_matrix"}, f16A), ""},
		{onlyTypes, art("b", []string{"bf16"}), ""},
		{onlyTypes, art("i", []string{"int8"}), ""},
		{onlyTypes, art("bm", append(coop, "bf16"), f16A, bf16A),
			"kernel bm's cooperative matrix coopmat<bf16, 16, 16, a> (the device's subgroup-scope A matrices are f16 16x16) is not supported by target fake wgsl on fake"},
		{onlyTypes, art("im", append(coop, "int8"), i8B),
			"kernel im's cooperative matrix coopmat<i8, 32, 16, b> (the device's subgroup-scope B matrices are f16 16x16) is not supported by target fake wgsl on fake"},
		{full, art("bm", append(coop, "bf16"), f16A, bf16A), ""},
		{full, art("im", append(coop, "int8"), i8B), ""},
		{full, art("um", append(coop, "int8"), i8B, u8A),
			"kernel um's cooperative matrix coopmat<u8, 16, 32, a> (the device's subgroup-scope A matrices are f16 16x16, bf16 16x16, s8 16x32) is not supported by target fake wgsl on fake"},
		{full, art("wm", append(coop, "cooperative_matrix2", "bf16"), wgBF16),
			"kernel wm's cooperative matrix coopmat<bf16, 64, 32, a, workgroup> (the device's workgroup-scope (for 32 invocations) A matrices are f16 16x16) is not supported by target fake wgsl on fake"},
	} {
		checkLoad(t, newDevice(f, tc.info), *tc.r, tc.want)
	}
	for _, tc := range []struct {
		info AdapterInfo
		need ir.Features
		want bool
	}{
		{bare, ir.FeatureBF16, false}, {bare, ir.FeatureInt8, false},
		{onlyTypes, ir.FeatureBF16, true}, {onlyTypes, ir.FeatureInt8 | ir.FeatureBF16, true},
		{onlyTypes, ir.FeatureInt8 | ir.FeatureF16, false},
	} {
		if got := Supports(tc.info, tc.need); got != tc.want {
			t.Errorf("Supports(bf16 %v int8 %v, %s) = %v", tc.info.BF16, tc.info.Int8, featureNames(tc.need), got)
		}
	}
	if got, want := featureNames(ir.FeatureBF16|ir.FeatureInt8|ir.FeatureCoopMat2), "bf16 and int8 and cooperative_matrix2"; got != want {
		t.Errorf("featureNames = %q, want %q", got, want)
	}
}
