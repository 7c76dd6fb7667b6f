//go:build linux && cgo

package vulkan

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// The GLSL in these tests uses what naga cannot take: subgroup arithmetic,
// 16-bit storage with f16 arithmetic, and cooperative matrices.

const subgroupGLSL = `#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 1) readonly buffer X { uint x[]; };
layout(set = 0, binding = 2) buffer Y { uint y[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	uint s = subgroupAdd(x[i]);
	y[i] = subgroupElect() ? s : gl_SubgroupSize + 1000000u;
}
`

// TestSubgroups checks subgroupAdd over full subgroups of the device's size.
func TestSubgroups(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	if !info.Subgroups {
		t.Skipf("NOT RUN: %s lacks subgroup arithmetic", info.Name)
	}
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(glsl(t, subgroupGLSL), "sg", 64, nil, "x:ro", "y:rw"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 64 * 16
	x := make([]uint32, n)
	for i := range x {
		x[i] = rand.Uint32()
	}
	bx, err := d.Upload(u32bytes(x))
	if err != nil {
		t.Fatal(err)
	}
	by, err := d.Upload(interp.Poison(4 * n))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, backend.Args{Buffers: []backend.View{bx.View(), by.View()}}, backend.Groups(n/64)); err != nil {
		t.Fatal(err)
	}
	b, err := d.Read(ctx, by.View())
	if err != nil {
		t.Fatal(err)
	}
	got := bytesU32(b)
	sg := info.SubgroupSize
	if 64%info.SubgroupMax == 0 {
		// full subgroups were required: every subgroup has the default size
		// on devices whose size does not vary.
		for start := 0; start < n; start += sg {
			var want uint32
			for _, v := range x[start : start+sg] {
				want += v
			}
			if got[start] != want {
				t.Fatalf("subgroup at %d: sum %#x, want %#x (size %d)", start, got[start], want, sg)
			}
			for i := start + 1; i < start+sg; i++ {
				if got[i] != uint32(sg)+1000000 {
					t.Fatalf("y[%d] = %d, want subgroup size %d + 1e6", i, got[i], sg)
				}
			}
		}
	}
}

const f16GLSL = `#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 1) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 2) buffer B { float16_t b[]; };
void main() {
	uint i = gl_GlobalInvocationID.x;
	b[i] = a[i] * float16_t(0.5) + b[i];
}
`

// TestF16 checks 16-bit storage and f16 arithmetic (one rounding per op).
func TestF16(t *testing.T) {
	d := openTest(t)
	if !d.Info().F16 {
		t.Skipf("NOT RUN: %s lacks f16", d.Info().Name)
	}
	ctx := context.Background()
	a := artifact(glsl(t, f16GLSL), "f16", 64, nil, "a:ro", "b:rw")
	a.Layout.Buffers[0].Stride, a.Layout.Buffers[1].Stride = 2, 2
	a.Features = ir.FeatureF16
	p, err := d.Load(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	const n = 64 * 8
	av, bv := make([]uint16, n), make([]uint16, n)
	ab, bb := make([]byte, 2*n), make([]byte, 2*n)
	for i := range av {
		av[i], bv[i] = interp.F32ToF16Bits(rand.Float32()*8-4), interp.F32ToF16Bits(rand.Float32()*8-4)
		ab[2*i], ab[2*i+1] = byte(av[i]), byte(av[i]>>8)
		bb[2*i], bb[2*i+1] = byte(bv[i]), byte(bv[i]>>8)
	}
	bufA, err := d.Upload(ab)
	if err != nil {
		t.Fatal(err)
	}
	bufB, err := d.Upload(bb)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, backend.Args{Buffers: []backend.View{bufA.View(), bufB.View()}}, backend.Groups(n/64)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, bufB.View())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		g := interp.F16BitsToF32(uint16(got[2*i]) | uint16(got[2*i+1])<<8)
		// a*0.5 is exact in f16 (barring underflow); the add rounds once,
		// or not at all when fused.
		w := interp.F16BitsToF32(interp.F32ToF16Bits(interp.F16BitsToF32(av[i])*0.5 + interp.F16BitsToF32(bv[i])))
		if math.Abs(float64(g-w)) > 1e-3*math.Max(1, math.Abs(float64(w))) {
			t.Fatalf("b[%d] = %g, want %g", i, g, w)
		}
	}
}

// coopNVGLSL is one 16x16x16 f16 multiply-add with f32 accumulation per
// subgroup, through GL_NV_cooperative_matrix (glslang here has no KHR
// flavour; emit/spirv will carry the KHR one).
const coopNVGLSL = `#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 1) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 2) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 3) buffer C { float c[]; };
void main() {
	fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> ma;
	fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> mb;
	fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> mc;
	coopMatLoadNV(ma, a, 0, 16, false);
	coopMatLoadNV(mb, b, 0, 16, false);
	coopMatLoadNV(mc, c, 0, 16, false);
	mc = coopMatMulAddNV(ma, mb, mc);
	coopMatStoreNV(mc, c, 0, 16, false);
}
`

// TestCoopMatNV runs a 16x16x16 cooperative multiply-add where the device
// offers that NV shape. lavapipe has none: the test says so and skips,
// unless KC_REQUIRE_COOPMAT=1 (set by scripts/h200.sh) makes that a failure.
func TestCoopMatNV(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	has := false
	for _, s := range info.CoopMat {
		if s.Flavor == "nv" && s.M == 16 && s.N == 16 && s.K == 16 && s.A == "f16" && s.B == "f16" && s.C == "f32" && s.Result == "f32" {
			has = true
		}
	}
	if !has {
		if os.Getenv("KC_REQUIRE_COOPMAT") == "1" {
			t.Fatalf("%s offers no NV 16x16x16 f16->f32 cooperative matrix (shapes %v)", info.Name, info.CoopMat)
		}
		t.Skipf("NOT RUN: %s has no NV 16x16x16 f16->f32 cooperative matrix", info.Name)
	}
	ctx := context.Background()
	a := artifact(glsl(t, coopNVGLSL), "coopnv", 32, nil, "a:ro", "b:ro", "c:rw")
	a.Layout.Buffers[0].Stride, a.Layout.Buffers[1].Stride = 2, 2
	a.Features = ir.FeatureF16
	p, err := d.Load(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	am, bm, cm := make([]float32, 256), make([]float32, 256), make([]float32, 256)
	ab, bb := make([]byte, 512), make([]byte, 512)
	for i := range am {
		ha, hb := interp.F32ToF16Bits(rand.Float32()*2-1), interp.F32ToF16Bits(rand.Float32()*2-1)
		am[i], bm[i] = interp.F16BitsToF32(ha), interp.F16BitsToF32(hb)
		ab[2*i], ab[2*i+1] = byte(ha), byte(ha>>8)
		bb[2*i], bb[2*i+1] = byte(hb), byte(hb>>8)
		cm[i] = rand.Float32()*2 - 1
	}
	bufA, _ := d.Upload(ab)
	bufB, _ := d.Upload(bb)
	bufC, err := d.Upload(f32bytes(cm))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, backend.Args{Buffers: []backend.View{bufA.View(), bufB.View(), bufC.View()}}, backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, bufC.View())
	if err != nil {
		t.Fatal(err)
	}
	g := bytesF32(got)
	for r := 0; r < 16; r++ {
		for c := 0; c < 16; c++ {
			w := float64(cm[r*16+c])
			for k := 0; k < 16; k++ {
				w += float64(am[r*16+k]) * float64(bm[k*16+c])
			}
			if math.Abs(float64(g[r*16+c])-w) > 1e-4*math.Max(1, math.Abs(w)) {
				t.Fatalf("C[%d][%d] = %g, want %g", r, c, g[r*16+c], w)
			}
		}
	}
}
