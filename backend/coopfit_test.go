package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestCoopMatTypes: Load compares each cooperative-matrix type of a kernel
// with the device's reported properties in element type and shape (at the
// matrix's use and scope, for the module's flavour, by granularity where
// the device has flexible dimensions, for the workgroup's invocations at
// workgroup scope), and refuses a mismatch with an *ir.UnsupportedError
// naming the matrix, what the device has, and the device.
func TestCoopMatTypes(t *testing.T) {
	ctx := context.Background()
	f := &fake{}
	shape := func(m, n, k int, in, acc, flavor string) CoopMatShape {
		return CoopMatShape{M: m, N: n, K: k, A: in, B: in, C: acc, Result: acc, Scope: "subgroup", Flavor: flavor}
	}
	mat := func(elem string, rows, cols int, use string) ir.CoopMatReflection {
		return ir.CoopMatReflection{Elem: elem, Rows: rows, Cols: cols, Use: use, Scope: "subgroup"}
	}
	wg := func(elem string, rows, cols int, use string) ir.CoopMatReflection {
		return ir.CoopMatReflection{Elem: elem, Rows: rows, Cols: cols, Use: use, Scope: "workgroup"}
	}
	// an H200-like device: f16 16x16x16 and 16x8x16 (KHR and NV), bf16
	// 16x16x16 with f32 accumulate (KHR only), s8 16x16x32
	h := f.Info()
	h.F16, h.BF16, h.Int8 = true, true, true
	h.CoopMat = []CoopMatShape{shape(16, 16, 16, "f16", "f32", "khr"), shape(16, 8, 16, "f16", "f16", "khr"),
		shape(16, 16, 16, "bf16", "f32", "khr"), shape(16, 16, 32, "s8", "s32", "khr"), shape(16, 16, 16, "f16", "f32", "nv")}
	flex := h
	flex.CoopMat2 = &CoopMat2{WorkgroupScope: true, FlexibleDimensions: true, MaxWorkgroupSize: 256, MaxDimension: 256,
		Flexible: []CoopMatShape{{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "flex"},
			{M: 32, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "workgroup", Flavor: "flex", Invocations: 128}}}
	fixed := flex // the flexible entries, without flexible dimensions
	c2 := *flex.CoopMat2
	c2.FlexibleDimensions = false
	fixed.CoopMat2 = &c2

	const tail = " is not supported by target fake wgsl on fake"
	for _, tc := range []struct {
		name string
		info AdapterInfo
		size int // invocations
		mats []ir.CoopMatReflection
		want string // "" loads
	}{
		{"ok", h, 32, []ir.CoopMatReflection{mat("f16", 16, 16, "a"), mat("f16", 16, 8, "b"), mat("f16", 16, 8, "acc"), mat("f32", 16, 16, "acc")}, ""},
		{"int", h, 32, []ir.CoopMatReflection{mat("i8", 16, 32, "a"), mat("i8", 32, 16, "b"), mat("i32", 16, 16, "acc")}, ""},
		// the output conversion of the accumulator to the input type
		{"bf16out", h, 32, []ir.CoopMatReflection{mat("bf16", 16, 16, "a"), mat("bf16", 16, 16, "acc")}, ""},
		{"shape", h, 32, []ir.CoopMatReflection{mat("f16", 16, 16, "a"), mat("f16", 8, 16, "a")},
			"kernel shape's cooperative matrix coopmat<f16, 8, 16, a> (the device's subgroup-scope A matrices are f16 16x16, bf16 16x16, s8 16x32)"},
		{"f32a", h, 32, []ir.CoopMatReflection{mat("f32", 16, 16, "a")},
			"kernel f32a's cooperative matrix coopmat<f32, 16, 16, a> (the device's subgroup-scope A matrices are f16 16x16, bf16 16x16, s8 16x32)"},
		{"accshape", h, 32, []ir.CoopMatReflection{mat("f32", 8, 16, "acc")},
			"kernel accshape's cooperative matrix coopmat<f32, 8, 16, acc> (the device's subgroup-scope accumulator matrices are f32 16x16, f16 16x8, s32 16x16)"},
		{"u8acc", h, 32, []ir.CoopMatReflection{mat("u8", 16, 16, "acc")},
			"kernel u8acc's cooperative matrix coopmat<u8, 16, 16, acc> (the device's subgroup-scope accumulator matrices are f32 16x16, f16 16x8, s32 16x16)"},
		{"flexsub", flex, 32, []ir.CoopMatReflection{mat("f16", 32, 48, "a")}, ""},
		{"flexsubbf16", flex, 32, []ir.CoopMatReflection{mat("bf16", 32, 48, "a")},
			"kernel flexsubbf16's cooperative matrix coopmat<bf16, 32, 48, a> (the device's subgroup-scope A matrices are f16 16x16, bf16 16x16, s8 16x32, f16 multiples of 16x16)"},
		{"flexwg", flex, 128, []ir.CoopMatReflection{wg("f16", 64, 32, "a"), wg("f16", 32, 64, "b"), wg("f32", 64, 64, "acc"), wg("f16", 64, 64, "acc")}, ""},
		{"flexwgdim", flex, 128, []ir.CoopMatReflection{wg("f16", 512, 32, "a")},
			"kernel flexwgdim's cooperative matrix coopmat<f16, 512, 32, a, workgroup> (the device's workgroup-scope (for 128 invocations) A matrices are f16 multiples of 32x16)"},
		{"flexwggran", flex, 128, []ir.CoopMatReflection{wg("f16", 48, 32, "a")},
			"kernel flexwggran's cooperative matrix coopmat<f16, 48, 32, a, workgroup> (the device's workgroup-scope (for 128 invocations) A matrices are f16 multiples of 32x16)"},
		{"flexwgsize", flex, 64, []ir.CoopMatReflection{wg("f16", 64, 32, "a")},
			"kernel flexwgsize's cooperative matrix coopmat<f16, 64, 32, a, workgroup> (the device reports no workgroup-scope (for 64 invocations) cooperative matrices)"},
		{"flexwgbf16", flex, 128, []ir.CoopMatReflection{wg("bf16", 64, 32, "a")},
			"kernel flexwgbf16's cooperative matrix coopmat<bf16, 64, 32, a, workgroup> (the device's workgroup-scope (for 128 invocations) A matrices are f16 multiples of 32x16)"},
		{"fixedwg", fixed, 128, []ir.CoopMatReflection{wg("f16", 32, 16, "a")}, ""},
		{"fixedwg2", fixed, 128, []ir.CoopMatReflection{wg("f16", 64, 32, "a")},
			"kernel fixedwg2's cooperative matrix coopmat<f16, 64, 32, a, workgroup> (the device's workgroup-scope (for 128 invocations) A matrices are f16 32x16)"},
	} {
		feats := []string{"cooperative_matrix", "f16", "bf16", "int8"}
		if tc.mats[0].Scope == "workgroup" {
			feats = append(feats, "cooperative_matrix2")
		}
		want := tc.want
		if want != "" {
			want += tail
		}
		checkLoad(t, newDevice(f, tc.info), ir.KernelReflection{Name: tc.name, Workgroup: [3]int{tc.size, 1, 1}, Features: feats, CoopMats: tc.mats}, want)
	}

	// A SPIR-V module of the NV flavour matches the device's NV entries
	// only (the H200 lists bf16 through VK_KHR_cooperative_matrix alone).
	nv := h
	nv.Driver, nv.Targets = "vulkan", []Target{SPIRV}
	r := ir.KernelReflection{Name: "nvbf16", Workgroup: [3]int{32, 1, 1}, Features: []string{"cooperative_matrix", "bf16"}, CoopMats: []ir.CoopMatReflection{mat("bf16", 16, 16, "a")}}
	a := fakeArtifact(SPIRV, r)
	a.Entries[0].Kernel = r.Name
	a.Words = append(a.Words, 2<<16|17, capCooperativeMatrixNV) // OpCapability CooperativeMatrixNV
	_, err := newDevice(f, nv).Load(ctx, a)
	if want := "kernel nvbf16's cooperative matrix coopmat<bf16, 16, 16, a> (the device's subgroup-scope A matrices are f16 16x16) is not supported by target vulkan spirv on fake"; err == nil || err.Error() != want {
		t.Errorf("NV module: %v\nwant %s", err, want)
	}
	a.Words[len(a.Words)-1] = capCooperativeMatrixKHR
	if _, err := newDevice(f, nv).Load(ctx, a); err != nil {
		t.Errorf("KHR module: %v", err)
	}
}

// TestSupportsKernel: an adapter supports a kernel when it has its
// features and each of its cooperative-matrix types; the refusal names
// the feature or matrix, and the device.
func TestSupportsKernel(t *testing.T) {
	src := `enable f16
enable bf16
enable cooperative_matrix

kernel half(a read []f16, c read_write []f32) workgroup(32) {
	let x = coopLoad<coopmat<f16, 16, 16, a>>(a, 0, 16, row_major)
	let y = coopLoad<coopmat<f16, 16, 16, b>>(a, 0, 16, row_major)
	coopStore(coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(0)), c, 0, 16, row_major)
}

kernel brain(a read []bf16, c read_write []f32) workgroup(32) {
	let x = coopLoad<coopmat<bf16, 16, 16, a>>(a, 0, 16, row_major)
	let y = coopLoad<coopmat<bf16, 16, 16, b>>(a, 0, 16, row_major)
	coopStore(coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(0)), c, 0, 16, row_major)
}
`
	m, err := parse.Load("sk.kc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	half, brain := m.Kernels[0], m.Kernels[1]
	a := (&fake{}).Info()
	a.Name, a.F16 = "dev", true
	if err := SupportsKernel(a, half); err == nil || err.Error() != "sk.kc:6:10: cooperative_matrix is not supported by target fake on dev" {
		t.Errorf("no coopmat: %v", err)
	}
	a.CoopMat = []CoopMatShape{{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}}
	if err := SupportsKernel(a, half); err != nil {
		t.Errorf("f16: %v", err)
	}
	if err := SupportsKernel(a, brain); err == nil || !strings.HasSuffix(err.Error(), "bf16 is not supported by target fake on dev") {
		t.Errorf("bf16 without the type: %v", err)
	}
	a.BF16 = true
	want := "kernel brain's cooperative matrix coopmat<bf16, 16, 16, a> (the device's subgroup-scope A matrices are f16 16x16) is not supported by target fake on dev"
	if err := SupportsKernel(a, brain); err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("bf16 without the matrices: %v\nwant %s", err, want)
	}
	a.CoopMat = append(a.CoopMat, CoopMatShape{M: 16, N: 16, K: 16, A: "bf16", B: "bf16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"})
	if err := SupportsKernel(a, brain); err != nil {
		t.Errorf("bf16: %v", err)
	}
}

// TestCoopViewAlignment: a kernel with cooperative matrices needs every
// buffer view at a 16-byte offset (its loads and stores count alignment
// from the binding's start, ir.CoopAlign), even on a device whose
// minStorageBufferOffsetAlignment is smaller; other kernels keep the
// device's alignment.
func TestCoopViewAlignment(t *testing.T) {
	ctx := context.Background()
	f := &fake{}
	info := f.Info()
	info.F16 = true
	info.Limits.MinStorageBufferOffsetAlignment = 4
	info.CoopMat = []CoopMatShape{{M: 16, N: 16, K: 16, A: "f16", B: "f16", C: "f32", Result: "f32", Scope: "subgroup", Flavor: "khr"}}
	d := newDevice(f, info)
	bufs := []ir.BufferReflection{{Name: "x", Binding: 1, Access: "read", Stride: 4}, {Name: "y", Binding: 2, Access: "read_write", Stride: 4}}
	load := func(name string, mats []ir.CoopMatReflection, feats []string) *Pipeline {
		a := fakeArtifact(WGSL, ir.KernelReflection{Name: name, Workgroup: [3]int{32, 1, 1}, Features: feats, Buffers: bufs, CoopMats: mats})
		a.Code, a.Entries[0].Kernel = []byte(name), name
		p, err := d.Load(ctx, a)
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		return p
	}
	coop := load("coop", []ir.CoopMatReflection{{Elem: "f32", Rows: 16, Cols: 16, Use: "acc", Scope: "subgroup"}}, []string{"cooperative_matrix"})
	plain := load("plain", nil, nil)
	x, _ := d.Alloc(256)
	y, _ := d.Alloc(256)
	for _, tc := range []struct {
		p    *Pipeline
		off  int64
		want string
	}{
		{coop, 16, ""},
		{coop, 4, "offset 4 is not a multiple of 16"},
		{coop, 8, "offset 8 is not a multiple of 16"},
		{plain, 4, ""},
		{plain, 2, "offset 2 is not a multiple of 4"},
	} {
		err := d.Dispatch(tc.p, Args{Buffers: []View{x.Slice(tc.off, 64), y.View()}}, Groups(1))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s at %d: %v", tc.p.Name(), tc.off, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s at %d: %v, want an error containing %q", tc.p.Name(), tc.off, err, tc.want)
		}
	}
}
