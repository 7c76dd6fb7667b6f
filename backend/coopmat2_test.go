package backend

import (
	"context"
	"errors"
	"testing"

	"github.com/kcgo/kc/ir"
)

// TestCoopMat2Load: a kernel with workgroup-scope matrices loads only on a
// device with VK_NV_cooperative_matrix2's workgroup scope, within its
// workgroup-size limit and with the driver's shared-memory reserve left
// free.
func TestCoopMat2Load(t *testing.T) {
	ctx := context.Background()
	f := &fake{}
	info := f.Info()
	info.CoopMat = []CoopMatShape{{M: 16, N: 16, K: 16}}
	feats := []string{"cooperative_matrix", "cooperative_matrix2"}
	art := func(name string, size int, shared int) *ir.KernelReflection {
		r := &ir.KernelReflection{Name: name, Workgroup: [3]int{size, 1, 1}, Features: feats}
		if shared > 0 {
			r.Shared = []ir.SharedReflection{{Name: "s", Size: shared}}
		}
		return r
	}
	d := newDevice(f, info)
	_, err := d.Load(ctx, fakeArtifact(WGSL, *art("k", 64, 0)))
	var unsup *ir.UnsupportedError
	if want := "cooperative_matrix2 is not supported by target fake wgsl on fake"; !errors.As(err, &unsup) || err.Error() != want {
		t.Errorf("no coopmat2: %v, want %s", err, want)
	}
	info.CoopMat2 = &CoopMat2{WorkgroupScope: true, FlexibleDimensions: true, MaxWorkgroupSize: 128, ReservedShared: 4096}
	d = newDevice(f, info)
	for _, tc := range []struct {
		r    *ir.KernelReflection
		want string
	}{
		{art("k", 128, 12288), ""},
		{art("big", 256, 0), "kernel big's workgroup of 256 invocations with workgroup-scope cooperative matrices (cooperativeMatrixWorkgroupScopeMaxWorkgroupSize is 128) is not supported by target fake wgsl on fake"},
		{art("wide", 64, 12289), "kernel wide's 12304 bytes of shared memory with workgroup-scope cooperative matrices (the device's maxComputeSharedMemorySize 16384 less the 4096 reserved for them) is not supported by target fake wgsl on fake"},
	} {
		checkLoad(t, d, *tc.r, tc.want)
	}
	if !Supports(info, ir.FeatureCoopMat2) || Supports(f.Info(), ir.FeatureCoopMat2) {
		t.Error("Supports(cooperative_matrix2)")
	}
}

// TestWorkgroupShapes: the flexible workgroup-scope entries of one type
// pair, most invocations first, none over the limit, none without the
// features.
func TestWorkgroupShapes(t *testing.T) {
	flex := []CoopMatShape{
		{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup"},
		{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "workgroup", Invocations: 32},
		{M: 32, N: 32, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "workgroup", Invocations: 256},
		{M: 32, N: 32, K: 16, A: "f16", B: "f16", C: "f16", Result: "f16", Scope: "workgroup", Invocations: 256},
		{M: 32, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "workgroup", Invocations: 128},
		{M: 32, N: 32, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "workgroup", Invocations: 512},
	}
	c := &CoopMat2{WorkgroupScope: true, FlexibleDimensions: true, MaxWorkgroupSize: 256, Flexible: flex}
	got := c.WorkgroupShapes("f16", "f32")
	if len(got) != 3 || got[0] != flex[2] || got[1] != flex[4] || got[2] != flex[1] {
		t.Errorf("WorkgroupShapes = %v, want entries 2, 4 and 1", got)
	}
	if got := c.WorkgroupShapes("bf16", "f32"); len(got) != 0 {
		t.Errorf("bf16: %v, want none", got)
	}
	c.FlexibleDimensions = false
	if got := c.WorkgroupShapes("f16", "f32"); len(got) != 0 {
		t.Errorf("without flexible dimensions: %v, want none", got)
	}
	if got := (*CoopMat2)(nil).WorkgroupShapes("f16", "f32"); got != nil {
		t.Errorf("nil: %v", got)
	}
}
