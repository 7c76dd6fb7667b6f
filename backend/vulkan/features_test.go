//go:build linux && cgo

package vulkan

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
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
	r := &a.Entries[0].Reflection
	r.Buffers[0].Stride, r.Buffers[1].Stride = 2, 2
	r.Features = []string{ir.FeatureF16.Name()}
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

// coopGLSL is one MxNxK f16 multiply-add with f32 accumulation per
// subgroup (C = A*B + C, all row-major), through GL_NV_cooperative_matrix:
// glslang here has no KHR flavour, so the KHR module is this one rewritten
// by nvToKHR.
func coopGLSL(m, n, k int) string {
	return fmt.Sprintf(`#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 1) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 2) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 3) buffer C { float c[]; };
void main() {
	fcoopmatNV<16, gl_ScopeSubgroup, %[1]d, %[3]d> ma;
	fcoopmatNV<16, gl_ScopeSubgroup, %[3]d, %[2]d> mb;
	fcoopmatNV<32, gl_ScopeSubgroup, %[1]d, %[2]d> mc;
	coopMatLoadNV(ma, a, 0, %[3]d, false);
	coopMatLoadNV(mb, b, 0, %[2]d, false);
	coopMatLoadNV(mc, c, 0, %[2]d, false);
	mc = coopMatMulAddNV(ma, mb, mc);
	coopMatStoreNV(mc, c, 0, %[2]d, false);
}
`, m, n, k)
}

// TestCoopMat runs one cooperative multiply-add per offered flavour and
// shape kc's matmuls use. lavapipe has none: each case says so and skips,
// unless KC_REQUIRE_COOPMAT=1 (set by scripts/h200.sh) makes that a failure.
func TestCoopMat(t *testing.T) {
	d := openTest(t)
	info := d.Info()
	for _, c := range []struct {
		flavor  string
		m, n, k int
	}{{"nv", 16, 16, 16}, {"nv", 16, 8, 16}, {"khr", 16, 8, 16}} {
		t.Run(fmt.Sprintf("%s-%dx%dx%d", c.flavor, c.m, c.n, c.k), func(t *testing.T) {
			has := false
			for _, s := range info.CoopMat {
				if s.Flavor == c.flavor && s.M == c.m && s.N == c.n && s.K == c.k && s.A == "f16" && s.B == "f16" && s.C == "f32" && s.Result == "f32" && s.Scope == "subgroup" {
					has = true
				}
			}
			if !has {
				if os.Getenv("KC_REQUIRE_COOPMAT") == "1" {
					t.Fatalf("%s offers no %s %dx%dx%d f16->f32 cooperative matrix (shapes %v)", info.Name, c.flavor, c.m, c.n, c.k, info.CoopMat)
				}
				t.Skipf("NOT RUN: %s has no %s %dx%dx%d f16->f32 cooperative matrix", info.Name, c.flavor, c.m, c.n, c.k)
			}
			words := glslEnv(t, coopGLSL(c.m, c.n, c.k), "vulkan1.3")
			if c.flavor == "khr" {
				var err error
				if words, err = nvToKHR(words); err != nil {
					t.Fatal(err)
				}
			}
			runCoop(t, d, words, c.m, c.n, c.k)
		})
	}
}

// runCoop loads and checks one C = A*B + C module.
func runCoop(t *testing.T, d *backend.Device, words []uint32, m, n, k int) {
	ctx := context.Background()
	a := artifact(words, "coop", 32, nil, "a:ro", "b:ro", "c:rw")
	r := &a.Entries[0].Reflection
	r.Buffers[0].Stride, r.Buffers[1].Stride = 2, 2
	r.Features = []string{ir.FeatureF16.Name()}
	p, err := d.Load(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	am, bm, cm := make([]float32, m*k), make([]float32, k*n), make([]float32, m*n)
	h16 := func(v []float32) []byte {
		b := make([]byte, (2*len(v)+15)&^15)
		for i := range v {
			h := interp.F32ToF16Bits(rand.Float32()*2 - 1)
			v[i] = interp.F16BitsToF32(h)
			b[2*i], b[2*i+1] = byte(h), byte(h>>8)
		}
		return b
	}
	ab, bb := h16(am), h16(bm)
	for i := range cm {
		cm[i] = rand.Float32()*2 - 1
	}
	bufA, err := d.Upload(ab)
	if err != nil {
		t.Fatal(err)
	}
	bufB, err := d.Upload(bb)
	if err != nil {
		t.Fatal(err)
	}
	bufC, err := d.Upload(f32bytes(cm))
	if err != nil {
		t.Fatal(err)
	}
	views := []backend.View{bufA.Slice(0, int64(2*m*k)), bufB.Slice(0, int64(2*k*n)), bufC.View()}
	if err := d.Dispatch(p, backend.Args{Buffers: views}, backend.Groups(1)); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, bufC.View())
	if err != nil {
		t.Fatal(err)
	}
	g := bytesF32(got)
	for r := 0; r < m; r++ {
		for c := 0; c < n; c++ {
			w := float64(cm[r*n+c])
			for i := 0; i < k; i++ {
				w += float64(am[r*k+i]) * float64(bm[i*n+c])
			}
			// f16 products are exact in f32; k of them summed in f32.
			if math.Abs(float64(g[r*n+c])-w) > 1e-4*math.Max(1, math.Abs(w)) {
				t.Fatalf("C[%d][%d] = %g, want %g", r, c, g[r*n+c], w)
			}
		}
	}
}

// SPIR-V opcodes and enumerants nvToKHR rewrites.
const (
	opExtension          = 10
	opCapability         = 17
	opTypeInt            = 21
	opTypeFloat          = 22
	opConstantTrue       = 41
	opConstantFalse      = 42
	opConstant           = 43
	opTypeCoopMatKHR     = 4456
	opCoopMatLoadKHR     = 4457
	opCoopMatStoreKHR    = 4458
	opCoopMatMulAddKHR   = 4459
	opCoopMatLengthKHR   = 4460
	opTypeCoopMatNV      = 5358
	opCoopMatLoadNV      = 5359
	opCoopMatStoreNV     = 5360
	opCoopMatMulAddNV    = 5361
	opCoopMatLengthNV    = 5362
	capCoopMatNV         = 5357
	capCoopMatKHR        = 6022
	useA, useB, useAccum = 0, 1, 2
)

// spirvString encodes a literal string operand.
func spirvString(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return words(b)
}

// nvToKHR rewrites a module using SPV_NV_cooperative_matrix, as glslang
// writes coopGLSL, into SPV_KHR_cooperative_matrix: capability and
// extension, matrix types with their use (f32 matrices are accumulators,
// the first f16 matrix type A, the second B: coopGLSL's shapes make A and B
// distinct types), loads and stores with a row/column-major layout operand
// before the stride, and the multiply-add. It is a test helper for one
// known module shape, not a general translator.
func nvToKHR(in []uint32) ([]uint32, error) {
	if len(in) < 5 || in[0] != spirvMagic {
		return nil, errors.New("nvToKHR: not SPIR-V")
	}
	bound := in[3]
	var uintType uint32
	floatWidth := map[uint32]uint32{}
	boolVal := map[uint32]uint32{} // constant id -> 0/1
	var consts [3]uint32           // ids of u32 constants 0, 1, 2
	halfTypes := 0
	out := append([]uint32(nil), in[:5]...)
	for i := 5; i < len(in); {
		n := int(in[i] >> 16)
		op := in[i] & 0xffff
		if n == 0 || i+n > len(in) {
			return nil, fmt.Errorf("nvToKHR: bad instruction at word %d", i)
		}
		ins := in[i : i+n]
		i += n
		emit := func(op uint32, operands ...uint32) {
			out = append(out, uint32(len(operands)+1)<<16|op)
			out = append(out, operands...)
		}
		switch op {
		case opCapability:
			if ins[1] == capCoopMatNV {
				emit(opCapability, capCoopMatKHR)
				continue
			}
		case opExtension:
			if cString(u32bytes(ins[1:])) == "SPV_NV_cooperative_matrix" {
				emit(opExtension, spirvString("SPV_KHR_cooperative_matrix")...)
				continue
			}
		case opTypeInt:
			if ins[2] == 32 && ins[3] == 0 {
				uintType = ins[1]
			}
		case opTypeFloat:
			floatWidth[ins[1]] = ins[2]
		case opConstantTrue, opConstantFalse:
			boolVal[ins[2]] = map[uint32]uint32{opConstantTrue: 1, opConstantFalse: 0}[op]
		case opTypeCoopMatNV:
			if consts[0] == 0 {
				if uintType == 0 {
					return nil, errors.New("nvToKHR: no 32-bit uint type before the matrix types")
				}
				for v := range consts {
					consts[v] = bound
					bound++
					out = append(out, uint32(4)<<16|opConstant, uintType, consts[v], uint32(v))
				}
			}
			use := uint32(useAccum)
			if floatWidth[ins[2]] == 16 {
				use = useA
				if halfTypes > 0 {
					use = useB
				}
				halfTypes++
			}
			emit(opTypeCoopMatKHR, ins[1], ins[2], ins[3], ins[4], ins[5], consts[use])
			continue
		case opCoopMatLoadNV: // rt r ptr stride colMajor [mem...]
			emit(opCoopMatLoadKHR, append([]uint32{ins[1], ins[2], ins[3], consts[boolVal[ins[5]]], ins[4]}, ins[6:]...)...)
			continue
		case opCoopMatStoreNV: // ptr obj stride colMajor [mem...]
			emit(opCoopMatStoreKHR, append([]uint32{ins[1], ins[2], consts[boolVal[ins[4]]], ins[3]}, ins[5:]...)...)
			continue
		case opCoopMatMulAddNV:
			emit(opCoopMatMulAddKHR, ins[1:]...)
			continue
		case opCoopMatLengthNV:
			emit(opCoopMatLengthKHR, ins[1:]...)
			continue
		}
		out = append(out, ins...)
	}
	out[3] = bound
	return out, nil
}

// TestNVToKHR checks the rewrite's shape without a device: no NV opcode
// left, the KHR capability and extension, three matrix types with uses A,
// B and accumulator, and loads/stores with a layout operand.
func TestNVToKHR(t *testing.T) {
	k, err := nvToKHR(glslEnv(t, coopGLSL(16, 8, 16), "vulkan1.3"))
	if err != nil {
		t.Fatal(err)
	}
	constVal := map[uint32]uint32{}
	var uses []uint32
	count := map[uint32]int{}
	for i := 5; i < len(k); i += int(k[i] >> 16) {
		op, ins := k[i]&0xffff, k[i:i+int(k[i]>>16)]
		count[op]++
		switch op {
		case opConstant:
			constVal[ins[2]] = ins[3]
		case opTypeCoopMatKHR:
			uses = append(uses, constVal[ins[6]])
		case opCapability:
			if ins[1] == capCoopMatNV {
				t.Error("NV capability left")
			}
		case opTypeCoopMatNV, opCoopMatLoadNV, opCoopMatStoreNV, opCoopMatMulAddNV, opCoopMatLengthNV:
			t.Errorf("NV opcode %d left", op)
		}
	}
	if len(uses) != 3 || uses[0] != useA || uses[1] != useB || uses[2] != useAccum {
		t.Errorf("matrix uses %v, want [0 1 2]", uses)
	}
	if count[opCoopMatLoadKHR] != 3 || count[opCoopMatStoreKHR] != 1 || count[opCoopMatMulAddKHR] != 1 {
		t.Errorf("KHR loads/stores/muladds %d/%d/%d, want 3/1/1", count[opCoopMatLoadKHR], count[opCoopMatStoreKHR], count[opCoopMatMulAddKHR])
	}
	if !strings.Contains(string(u32bytes(k)), "SPV_KHR_cooperative_matrix") {
		t.Error("no SPV_KHR_cooperative_matrix extension")
	}
}

const memoryModelGLSL = `#version 450
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 1) buffer Counter { uint count; uint maxv; };
layout(set = 0, binding = 2) readonly buffer X { uint x[]; };
void main() {
	uint v = x[gl_GlobalInvocationID.x];
	// MakeAvailable/MakeVisible semantics make glslang declare the Vulkan
	// memory model (OpMemoryModel Logical Vulkan).
	atomicAdd(count, 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);
	atomicMax(maxv, v, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
`

// TestVulkanMemoryModel runs a module declared with the Vulkan memory model
// (OpMemoryModel Logical Vulkan, scoped atomics): the device must have the
// vulkanMemoryModel feature enabled to take it.
func TestVulkanMemoryModel(t *testing.T) {
	d := openTest(t)
	words := glslEnv(t, memoryModelGLSL, "vulkan1.3")
	if !hasCapability(words, 5345) {
		t.Fatal("glslang did not declare the VulkanMemoryModel capability")
	}
	ctx := context.Background()
	p, err := d.Load(ctx, artifact(words, "mm", 64, nil, "counter:rw", "x:ro"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 64 * 16
	x := make([]uint32, n)
	var want uint32
	for i := range x {
		x[i] = rand.Uint32()
		want = max(want, x[i])
	}
	c, err := d.AllocZeroed(16)
	if err != nil {
		t.Fatal(err)
	}
	bx, err := d.Upload(u32bytes(x))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Dispatch(p, backend.Args{Buffers: []backend.View{c.Slice(0, 8), bx.View()}}, backend.Groups(n/64)); err != nil {
		t.Fatal(err)
	}
	b, err := d.Read(ctx, c.Slice(0, 8))
	if err != nil {
		t.Fatal(err)
	}
	if got := bytesU32(b); got[0] != n || got[1] != want {
		t.Errorf("count, max = %d, %#x; want %d, %#x", got[0], got[1], n, want)
	}
}

// hasCapability reports whether a module declares capability c.
func hasCapability(w []uint32, c uint32) bool {
	for i := 5; i < len(w) && w[i]>>16 > 0; i += int(w[i] >> 16) {
		if w[i]&0xffff == opCapability && w[i+1] == c {
			return true
		}
	}
	return false
}
