package hlsl_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

func checked(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, err := parse.File("k.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestOtherFeaturesRefused: bf16 and 8-bit integers have no HLSL form; a
// kernel using them is a positioned *ir.UnsupportedError naming the
// feature and the target, never broken text.
func TestOtherFeaturesRefused(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"enable bf16\nkernel k(h read_write []bf16) workgroup(32) {\n\th[0] = bf16(2.0)\n}\n",
			"k.kc:2:10: bf16 is not supported by target hlsl"},
		{"enable int8\nkernel k(h read_write []u8) workgroup(32) {\n\th[0] = h[1]\n}\n",
			"k.kc:2:10: int8 is not supported by target hlsl"},
		{"enable cooperative_matrix\nenable cooperative_matrix2\nkernel k(c read_write []f32) workgroup(64) {\n\tcoopStore(coopmat<f32, 16, 16, acc, workgroup>(0.0), c, 0, 16, row_major)\n}\n",
			"k.kc:4:12: cooperative_matrix2 is not supported by target hlsl"},
		{"enable cooperative_matrix\nenable int8\nkernel k(h read_write []i8, c read_write []i32) workgroup(32) {\n\tlet a = coopLoad<coopmat<i8, 16, 16, a>>(h, 0, 16, row_major)\n\tlet b = coopLoad<coopmat<i8, 16, 16, b>>(h, 0, 16, row_major)\n\tcoopStore(coopMulAdd(a, b, coopmat<i32, 16, 16, acc>(0)), c, 0, 16, row_major)\n}\n",
			"k.kc:3:10: int8 is not supported by target hlsl"},
	} {
		a, err := hlsl.Emit(checked(t, tc.src), hlsl.Options{})
		var u *ir.UnsupportedError
		if !errors.As(err, &u) || a != nil {
			t.Fatalf("got %v, %v; want an *ir.UnsupportedError and no artifact", a, err)
		}
		if err.Error() != tc.want {
			t.Errorf("error %q, want %q", err, tc.want)
		}
	}
}

const coopSrc = "enable f16\nenable cooperative_matrix\n" +
	"kernel k(h read []f16, c read_write []f32, u read_write []u32, s f32, n i32) workgroup(32) {\n" +
	"\tshared t [256]f32\n" +
	"\tlet a = coopLoad<coopmat<f16, 16, 8, a>>(h, 0, 8, col_major)\n" +
	"\tlet b = coopLoad<coopmat<f16, 8, 16, b>>(h, 128, 16, row_major)\n" +
	"\tvar acc coopmat<f32, 16, 16, acc>\n" +
	"\tacc = coopMulAdd(a, b, acc)\n" +
	"\tvar h16 = coopMulAdd(a, b, coopmat<f16, 16, 16, acc>(0.5))\n" +
	"\tacc += coopmat<f32, 16, 16, acc>(h16) * s\n" +
	"\tacc = -(acc / s) - 2.0 * acc\n" +
	"\tacc *= acc\n" +
	"\tcoopStore(acc, t, n, 16, col_major)\n" +
	"\tworkgroupBarrier()\n" +
	"\tlet back = coopLoad<coopmat<f32, 16, 16, acc>>(t, 0, 16, row_major)\n" +
	"\tcoopStore(back / acc, c, 0, 16, row_major)\n" +
	"\tu[0] = coopLength(back)\n" +
	"}\n"

// TestCoopMatLowering: each operation comes out as DXC's vk::khr API
// spells it (the header's declarations, DXC's tests in
// tools/clang/test/CodeGenSPIRV/coopmatrix.*.hlsl).
func TestCoopMatLowering(t *testing.T) {
	a, err := hlsl.Emit(checked(t, coopSrc), hlsl.Options{NoLineDirectives: true})
	if err != nil {
		t.Fatal(err)
	}
	const (
		matA = "vk::khr::CooperativeMatrixA<half, vk::ScopeSubgroup, 16, 8>"
		matB = "vk::khr::CooperativeMatrixB<half, vk::ScopeSubgroup, 8, 16>"
		acc  = "vk::khr::CooperativeMatrixAccumulator<float, vk::ScopeSubgroup, 16, 16>"
		acch = "vk::khr::CooperativeMatrixAccumulator<half, vk::ScopeSubgroup, 16, 16>"
	)
	for _, w := range []string{
		`#include "vk/khr/cooperative_matrix.h"`,
		matA + " a = " + matA + "::Load<vk::CooperativeMatrixLayoutColumnMajorKHR>(h, 0u, 8u);",
		matB + " b = " + matB + "::Load<vk::CooperativeMatrixLayoutRowMajorKHR>(h, 128u, 16u);",
		acc + " acc = " + acc + "::Splat(0.0f);",
		"acc = kc_coopMulAdd(a, b, acc);",
		acch + " h16 = vk::khr::cooperativeMatrixMultiplyAdd(a, b, " + acch + "::Splat(half(0.5f)));",
		"acc = acc + h16.cast<float>() * s;",
		"acc = (acc / " + acc + "::Splat(s)).negate() - acc * 2.0f;",
		"acc = acc * acc;",
		"acc.Store<vk::CooperativeMatrixLayoutColumnMajorKHR>(vk::GetGroupSharedAddress(t[n]), 16u);",
		acc + " back = " + acc + "::Load<vk::CooperativeMatrixLayoutRowMajorKHR>(vk::GetGroupSharedAddress(t[0u]), 16u);",
		"Store<vk::CooperativeMatrixLayoutRowMajorKHR>(c, 0u, 16u);",
		"u[0] = " + acc + "::GetLength();",
	} {
		if !strings.Contains(string(a.Code), w) {
			t.Errorf("no %q in\n%s", w, a.Code)
		}
	}
}

// TestCoopMatGlslangRefused: glslang cannot write cooperative matrices;
// compiling such an entry with it is an *ir.UnsupportedError naming the
// feature, the compiler, what can (dxc and its flags) and where the
// kernel first uses a matrix, and nothing is run.
func TestCoopMatGlslangRefused(t *testing.T) {
	a, err := hlsl.Emit(checked(t, coopSrc), hlsl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = hlsl.CompileSPIRV(context.Background(), a, "k", hlsl.CompileOptions{Compiler: hlsl.Glslang, Glslang: "/nonexistent/glslangValidator"})
	var u *ir.UnsupportedError
	if !errors.As(err, &u) {
		t.Fatalf("got %v, want an *ir.UnsupportedError", err)
	}
	want := "k.kc:5:10: cooperative matrices (glslang cannot write SPV_KHR_cooperative_matrix from HLSL; dxc can: -spirv -fspv-target-env=vulkan1.3 -enable-16bit-types -HV 2021) is not supported by target hlsl via glslang"
	if err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	if _, err := hlsl.CompileDXIL(context.Background(), a, "k", hlsl.CompileOptions{DXC: "/nonexistent/dxc"}); !errors.As(err, &u) || u.Target != "dxil" {
		t.Errorf("dxil: got %v, want an *ir.UnsupportedError for target dxil", err)
	}
}

// TestCoopMatElements: m[i] is m.Get(i), m[i] = x is m.Set(x, i), and a
// compound assignment reads the element once through an index evaluated
// once.
func TestCoopMatElements(t *testing.T) {
	src := "enable cooperative_matrix\nkernel k(c read_write []f32, u read_write []atomic<u32>) workgroup(32) {\n" +
		"\tvar m = coopLoad<coopmat<f32, 16, 16, acc>>(c, 0, 16, row_major)\n" +
		"\tc[0] = m[1] + m[coopLength(m) - 1]\n" +
		"\tm[2] = 3.0\n" +
		"\tm[atomicAdd(u[0], 1) % 8] *= 2.0\n" +
		"\tcoopStore(m, c, 0, 16, row_major)\n}\n"
	a, err := hlsl.Emit(checked(t, src), hlsl.Options{NoLineDirectives: true})
	if err != nil {
		t.Fatal(err)
	}
	const mat = "vk::khr::CooperativeMatrixAccumulator<float, vk::ScopeSubgroup, 16, 16>"
	for _, w := range []string{
		"c[0] = m.Get(1) + m.Get(" + mat + "::GetLength() - 1u);",
		"m.Set(3.0f, 2);",
		"m.Set(m.Get(kc_t1) * 2.0f, kc_t1);",
	} {
		if !strings.Contains(string(a.Code), w) {
			t.Errorf("no %q in\n%s", w, a.Code)
		}
	}
}
