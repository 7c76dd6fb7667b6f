//go:build linux && cgo

package vulkan

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// int8Kernel widens i8 and u8 and narrows an i32 back to i8 (wrapping).
const int8Kernel = `enable int8
kernel widen(a read []i8, b read []u8, c read_write []i32, q read_write []i8) workgroup(32) {
	let i = global_id.x
	c[i] = i32(a[i]) * 3 + i32(b[i]) - i32(q[i])
	q[i] = i8(c[i] + 77)
}
`

// bf16Kernel rounds f32 to bf16 and back.
const bf16Kernel = `enable bf16
kernel tobf16(x read []f32, y read_write []bf16) workgroup(32) {
	let i = global_id.x
	y[i] = bf16(x[i] * 3.0)
}
`

// TestElemTypesDevice: a kernel enabling int8 (bf16) runs on a device that
// reports AdapterInfo.Int8 (BF16) and matches the interpreter; on one that
// does not, Load refuses it with an *ir.UnsupportedError naming the feature
// and the device. lavapipe 22.3 reports int8 (shaderInt8,
// storageBuffer8BitAccess) and no bf16 (no VK_KHR_shader_bfloat16).
func TestElemTypesDevice(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	const n = 256
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	randBytes := func(k int) []byte {
		b := make([]byte, k)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = r.Float32()*200 - 100
	}
	for _, tc := range []struct {
		src, kernel, feature string
		has                  bool
		bufs                 map[string][]byte
		order                []string
	}{
		{int8Kernel, "widen", "int8", info.Int8,
			map[string][]byte{"a": randBytes(n), "b": randBytes(n), "c": interp.Poison(4 * n), "q": randBytes(n)}, []string{"a", "b", "c", "q"}},
		{bf16Kernel, "tobf16", "bf16", info.BF16,
			map[string][]byte{"x": interp.Encode(xs), "y": interp.Poison(2 * n)}, []string{"x", "y"}},
	} {
		m, err := parse.File(tc.kernel+".kc", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := ir.Check(m); err != nil {
			t.Fatal(err)
		}
		p, err := d.LoadIR(context.Background(), m, tc.kernel)
		if !tc.has {
			var unsup *ir.UnsupportedError
			want := tc.feature + " is not supported by target vulkan spirv on " + info.Name
			if !errors.As(err, &unsup) || err.Error() != want {
				t.Errorf("%s on a device without %s: %v, want %s", tc.kernel, tc.feature, err, want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.kernel, err)
		}
		want := map[string][]byte{}
		var views []backend.View
		for _, name := range tc.order {
			want[name] = bytes.Clone(tc.bufs[name])
			buf, err := d.Upload(tc.bufs[name])
			if err != nil {
				t.Fatal(err)
			}
			defer buf.Release()
			views = append(views, buf.View())
		}
		if err := interp.Run(m, tc.kernel, [3]int{n / 32, 1, 1}, &interp.Args{Buffers: want}, interp.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := d.Dispatch(p, backend.Args{Buffers: views}, backend.Groups(n/32)); err != nil {
			t.Fatal(err)
		}
		for i, name := range tc.order {
			got, err := d.Read(context.Background(), views[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want[name]) {
				t.Errorf("%s: buffer %s differs from the interpreter:\n got %x\nwant %x", tc.kernel, name, got[:32], want[name][:32])
			}
		}
	}
}

// coopElemKernels multiply 8-bit and bf16 cooperative matrices.
const coopElemKernels = `enable int8
enable bf16
enable cooperative_matrix

kernel mm8(a read []i8, c read_write []i32) workgroup(32) {
	let x = coopLoad<coopmat<i8, 16, 32, a>>(a, 0, 32, row_major)
	let y = coopLoad<coopmat<i8, 32, 16, b>>(a, 0, 16, row_major)
	coopStore(coopMulAdd(x, y, coopmat<i32, 16, 16, acc>(0)), c, 0, 16, row_major)
}

kernel mmbf16(a read []bf16, c read_write []f32) workgroup(32) {
	let x = coopLoad<coopmat<bf16, 16, 16, a>>(a, 0, 16, row_major)
	let y = coopLoad<coopmat<bf16, 16, 16, b>>(a, 0, 16, row_major)
	coopStore(coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(0)), c, 0, 16, row_major)
}
`

// TestCoopElemTypesDevice: cooperative-matrix kernels of i8 and bf16 on
// the test device. On one without cooperative matrices (lavapipe) LoadIR
// refuses both with an *ir.UnsupportedError naming the feature and the
// device, and backend.SupportsKernel agrees. Given (as a device would
// report them) the test device's element types plus an s8 matrix shape
// and no bf16 one, SupportsKernel accepts the i8 kernel and refuses the
// bf16 one, naming its bf16 matrix: lavapipe 22.3 reports int8 but not
// bf16, so with bf16 claimed too the refusal is the matrix's, not the
// element type's.
func TestCoopElemTypesDevice(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	m, err := parse.Load("coopelem.kc", []byte(coopElemKernels), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.CoopMat) == 0 {
		for _, k := range m.Kernels {
			_, err := d.LoadIR(context.Background(), m, k.Name)
			var unsup *ir.UnsupportedError
			if !errors.As(err, &unsup) || !strings.Contains(err.Error(), "cooperative_matrix") || !strings.HasSuffix(err.Error(), " on "+info.Name) {
				t.Errorf("%s on %s: %v, want an *ir.UnsupportedError naming cooperative_matrix and the device", k.Name, info.Name, err)
			}
			if err := backend.SupportsKernel(info, k); err == nil {
				t.Errorf("SupportsKernel(%s, %s) = nil", info.Name, k.Name)
			}
		}
	}
	claimed := info
	claimed.Int8, claimed.BF16 = true, true
	claimed.CoopMat = []backend.CoopMatShape{{M: 16, N: 16, K: 32, A: "s8", B: "s8", C: "s32", Result: "s32", Scope: "subgroup", Flavor: "khr"}}
	if err := backend.SupportsKernel(claimed, m.Kernel("mm8")); err != nil {
		t.Errorf("mm8 with an s8 shape: %v", err)
	}
	want := "kernel mmbf16's cooperative matrix coopmat<bf16, 16, 16, a> (the device's subgroup-scope A matrices are s8 16x32) is not supported by target vulkan on " + info.Name
	if err := backend.SupportsKernel(claimed, m.Kernel("mmbf16")); err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("mmbf16 without a bf16 shape: %v\nwant %s", err, want)
	}
}
