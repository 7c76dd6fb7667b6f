package backend

import (
	"context"
	"errors"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// spvFake is the fake driver taking SPIR-V and keeping the last artifact
// it was asked to build.
type spvFake struct {
	*fake
	got *emit.Artifact
}

func (f *spvFake) NewPipeline(ctx context.Context, a *emit.Artifact) (PipelineImpl, error) {
	f.got = a
	return fakePipe{}, nil
}

const flavorSrc = `enable f16
enable cooperative_matrix

kernel mm(a read []f16, c read_write []f32) workgroup(32) {
	let x = coopLoad<coopmat<f16, 16, 16, a>>(a, 0, 16, row_major)
	let y = coopLoad<coopmat<f16, 16, 16, b>>(a, 0, 16, row_major)
	coopStore(coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(0)), c, 0, 16, row_major)
}

kernel plain(c read_write []f32) workgroup(32) {
	c[global_id.x] = 1.0
}
`

// TestCoopFlavor: LoadIR (EmitFor) gives a device with
// VK_KHR_cooperative_matrix the KHR flavour, one with only
// VK_NV_cooperative_matrix the NV flavour, and one with neither a
// positioned *ir.UnsupportedError; Load refuses a module of a flavour the
// device lacks.
func TestCoopFlavor(t *testing.T) {
	ctx := context.Background()
	m, err := parse.Load("flavor.kc", []byte(flavorSrc), nil)
	if err != nil {
		t.Fatal(err)
	}
	shape := func(fl string) CoopMatShape {
		return CoopMatShape{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: fl}
	}
	info := func(flavors ...string) AdapterInfo {
		a := (&fake{}).Info()
		a.Driver, a.Targets, a.F16 = "vulkan", []Target{SPIRV}, true
		for _, fl := range flavors {
			a.CoopMat = append(a.CoopMat, shape(fl))
		}
		return a
	}
	for _, tc := range []struct {
		flavors []string
		want    uint32 // the capability the loaded module declares
	}{
		{[]string{"khr", "nv"}, capCooperativeMatrixKHR},
		{[]string{"nv", "khr"}, capCooperativeMatrixKHR},
		{[]string{"khr"}, capCooperativeMatrixKHR},
		{[]string{"nv"}, capCooperativeMatrixNV},
	} {
		f := &spvFake{fake: &fake{}}
		d := newDevice(f, info(tc.flavors...))
		if _, err := d.LoadIR(ctx, m, "mm"); err != nil {
			t.Errorf("%v: %v", tc.flavors, err)
			continue
		}
		caps := spirvCaps(f.got.Words)
		if !caps[tc.want] || len(caps) == 0 || caps[capCooperativeMatrixKHR] == caps[capCooperativeMatrixNV] {
			t.Errorf("%v: module capabilities %v, want %d and not the other flavour", tc.flavors, caps, tc.want)
		}
	}

	none := info()
	_, err = EmitFor(m, "mm", SPIRV, none)
	var unsup *ir.UnsupportedError
	want := "flavor.kc:5:10: cooperative_matrix (the device has neither VK_KHR_cooperative_matrix nor VK_NV_cooperative_matrix) is not supported by target vulkan spirv on fake"
	if !errors.As(err, &unsup) || err.Error() != want {
		t.Errorf("no cooperative matrix: %v\nwant %s", err, want)
	}
	if _, err := EmitFor(m, "plain", SPIRV, none); err != nil {
		t.Errorf("a kernel without matrices on a device without them: %v", err)
	}

	// Load checks a module's flavour against the device's.
	khrArt, err := Emit(m, "mm", SPIRV)
	if err != nil {
		t.Fatal(err)
	}
	nvArt, err := EmitFor(m, "mm", SPIRV, info("nv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a       *emit.Artifact
		flavors []string
		want    string
	}{
		{khrArt, []string{"nv"}, "kernel mm's SPV_KHR_cooperative_matrix (the device has only VK_NV_cooperative_matrix: emit with -coopmat nv, or load through LoadIR) is not supported by target vulkan spirv on fake"},
		{nvArt, []string{"khr"}, "kernel mm's SPV_NV_cooperative_matrix (the device has only VK_KHR_cooperative_matrix: emit with -coopmat khr, or load through LoadIR) is not supported by target vulkan spirv on fake"},
		{khrArt, []string{"khr"}, ""},
		{nvArt, []string{"nv", "khr"}, ""},
	} {
		d := newDevice(&spvFake{fake: &fake{}}, info(tc.flavors...))
		_, err := d.Load(ctx, tc.a)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.flavors, err)
		case tc.want != "" && (!errors.As(err, &unsup) || err.Error() != tc.want):
			t.Errorf("%v: %v\nwant %s", tc.flavors, err, tc.want)
		}
	}
}
