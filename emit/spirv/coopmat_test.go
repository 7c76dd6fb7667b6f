package spirv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// usesCoopMat reports whether a kernel of m uses cooperative matrices.
func usesCoopMat(m *ir.Module) bool {
	for _, k := range m.Kernels {
		if k.Features&ir.FeatureCoopMat != 0 {
			return true
		}
	}
	return false
}

// toolFlavor is the cooperative-matrix flavour that SPIRV-Tools 2023.1
// (spirv-val, spirv-as) knows: NV. The KHR flavour of the same modules is
// checked by TestCoopMatRoundTrip and on the H200.
func toolFlavor(m *ir.Module) CoopMatFlavor {
	if usesCoopMat(m) {
		return CoopMatNV
	}
	return CoopMatKHR
}

// coopSrc uses every cooperative-matrix operation and bf16.
const coopSrc = `enable f16
enable bf16
enable cooperative_matrix

kernel mm(a read []f16, b read []f16, c read_write []f32, h read_write []bf16, hb read []bf16, n u32, k u32, at atomic_dummy u32) workgroup(32) {
	shared t [256]f16
	let row = workgroup_id.y * 16
	let col = workgroup_id.x * 16
	var acc coopmat<f32, 16, 16, acc>
	for i := u32(0); i < k; i += 16 {
		for e := local_index; e < 256; e += 32 {
			t[e] = a[(row + e / 16) * k + i + e % 16]
		}
		workgroupBarrier()
		let ta = coopLoad<coopmat<f16, 16, 16, a>>(t, 0, 16, row_major)
		let tb = coopLoad<coopmat<f16, 16, 16, b>>(b, i * n + col, n, col_major)
		acc = coopMulAdd(ta, tb, acc)
		workgroupBarrier()
	}
	acc = acc * 2.0 - acc / 4.0 + -acc
	acc += 0.5 * acc
	coopStore(acc, c, row * n + col, n, row_major)
	let x = coopLoad<coopmat<bf16, 16, 16, a>>(hb, 0, 16, row_major)
	let y = coopLoad<coopmat<bf16, 16, 16, b>>(hb, 256, 16, row_major)
	let z = coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(1.0))
	coopStore(coopmat<bf16, 16, 16, acc>(z), h, 16, 16, col_major)
	h[0] = bf16(f32(coopLength(acc)) + f32(hb[1]))
}
`

func coopModule(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, err := parse.File("coop.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCoopMatRoundTrip: the KHR (and NV) modules of the corpus's
// cooperative-matrix kernels and of coopSrc disassemble and assemble back
// to the same words with kc's assembler (spirv-as 2023.1 rejects the KHR
// capability); the assembler itself is checked on every corpus module.
func TestCoopMatRoundTrip(t *testing.T) {
	mods := map[string]*ir.Module{"coopSrc": coopModule(t, strings.Replace(coopSrc, ", at atomic_dummy u32", "", 1)), "int8Src": coopModule(t, int8Src)}
	for _, c := range corpus(t) {
		mods[c.Name] = c.Module(t)
	}
	for name, m := range mods {
		for _, v := range []Version{V1_3, V1_6} {
			for _, fl := range []CoopMatFlavor{CoopMatKHR, CoopMatNV} {
				if fl == CoopMatNV && name == "coopSrc" {
					continue // bf16 matrices: KHR only (TestCoopMatNVRefusesBF16)
				}
				mod, err := Emit(m, Options{Version: v, CoopMat: fl})
				if err != nil {
					t.Fatalf("%s %v %v: %v", name, v, fl, err)
				}
				text, err := Disassemble(mod.Words)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, err := assemble(text)
				if err != nil {
					t.Fatalf("%s %v %v: assemble: %v", name, v, fl, err)
				}
				want := mod.Words
				if len(got) != len(want) {
					t.Fatalf("%s %v %v: assembled %d words, want %d", name, v, fl, len(got), len(want))
				}
				for i := range want {
					if i != 2 && got[i] != want[i] {
						t.Fatalf("%s %v %v: word %d: assembled %#x, emitted %#x\n%s", name, v, fl, i, got[i], want[i], contextAt(want, i))
					}
				}
			}
		}
	}
}

// TestCoopMatKHRText checks the KHR lowering of coopSrc instruction by
// instruction where it differs from NV: capabilities, the memory model,
// matrix types with their use, layout operands, bf16.
func TestCoopMatKHRText(t *testing.T) {
	m := coopModule(t, strings.Replace(coopSrc, ", at atomic_dummy u32", "", 1))
	for _, tc := range []struct {
		v    Version
		want []string
		not  []string
	}{
		{V1_3, []string{
			"OpCapability CooperativeMatrixKHR", "OpCapability VulkanMemoryModel", "OpCapability BFloat16TypeKHR",
			"OpCapability BFloat16CooperativeMatrixKHR", `OpExtension "SPV_KHR_vulkan_memory_model"`,
			`OpExtension "SPV_KHR_cooperative_matrix"`, `OpExtension "SPV_KHR_bfloat16"`, "OpMemoryModel Logical Vulkan",
			"%bfloat16 = OpTypeFloat 16 BFloat16KHR",
			"OpTypeCooperativeMatrixKHR %float %uint_3 %uint_16 %uint_16 %uint_2",
			"OpTypeCooperativeMatrixKHR %half %uint_3 %uint_16 %uint_16 %uint_0",
			"OpTypeCooperativeMatrixKHR %half %uint_3 %uint_16 %uint_16 %uint_1",
			"OpTypeCooperativeMatrixKHR %bfloat16 %uint_3 %uint_16 %uint_16 %uint_0",
			"OpCooperativeMatrixMulAddKHR", "OpCooperativeMatrixLengthKHR %uint", "OpMatrixTimesScalar",
		}, []string{"GLSL450", "VulkanMemoryModelDeviceScope", "CooperativeMatrixNV"}},
		{V1_6, []string{"OpMemoryModel Logical Vulkan"}, []string{"SPV_KHR_vulkan_memory_model"}},
	} {
		mod, err := Emit(m, Options{Version: tc.v})
		if err != nil {
			t.Fatal(err)
		}
		text, err := Disassemble(mod.Words)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: no %q in\n%s", tc.v, w, text)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(text, w) {
				t.Errorf("%v: unexpected %q", tc.v, w)
			}
		}
		// layouts: the A tile row-major from shared memory (layout 0), the
		// B tile column-major (1), both before the stride.
		if !strings.Contains(text, "OpCooperativeMatrixLoadKHR") || strings.Count(text, "OpCooperativeMatrixStoreKHR") != 2 {
			t.Errorf("%v: want loads and two stores", tc.v)
		}
	}
}

// TestCoopMatNVValidates: the NV flavour of coopSrc without bf16 passes
// spirv-val for Vulkan 1.1 and 1.3, and an atomic on a buffer adds
// VulkanMemoryModelDeviceScope, which spirv-val requires.
func TestCoopMatNVValidates(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	src := coopSrc
	for _, r := range [][2]string{
		{"enable bf16\n", ""}, {", h read_write []bf16, hb read []bf16", ""},
		{", at atomic_dummy u32", ", cnt read_write []atomic<u32>"},
		{"\tlet x = coopLoad<coopmat<bf16, 16, 16, a>>(hb, 0, 16, row_major)\n", ""},
		{"\tlet y = coopLoad<coopmat<bf16, 16, 16, b>>(hb, 256, 16, row_major)\n", ""},
		{"\tlet z = coopMulAdd(x, y, coopmat<f32, 16, 16, acc>(1.0))\n", ""},
		{"\tcoopStore(coopmat<bf16, 16, 16, acc>(z), h, 16, 16, col_major)\n", ""},
		{"\th[0] = bf16(f32(coopLength(acc)) + f32(hb[1]))\n", "\tatomicAdd(cnt[0], coopLength(acc))\n"},
	} {
		if !strings.Contains(src, r[0]) {
			t.Fatalf("coopSrc lacks %q", r[0])
		}
		src = strings.Replace(src, r[0], r[1], 1)
	}
	m := coopModule(t, src)
	for _, opts := range allOptions(m) {
		opts.CoopMat = CoopMatNV
		mod, err := Emit(m, opts)
		if err != nil {
			t.Fatalf("%+v: %v", opts, err)
		}
		if err := ValidateArtifact(context.Background(), mod); err != nil {
			t.Errorf("%+v: %v", opts, err)
		}
		text, _ := Disassemble(mod.Words)
		for _, w := range []string{"OpCapability CooperativeMatrixNV", "OpCapability VulkanMemoryModelDeviceScope", "OpCooperativeMatrixLoadNV", "OpCooperativeMatrixStoreNV", "OpCooperativeMatrixMulAddNV"} {
			if !strings.Contains(text, w) {
				t.Errorf("%+v: no %q", opts, w)
			}
		}
	}
}

// TestCoopMatNVRefusesBF16: SPV_NV_cooperative_matrix has no bf16 matrices.
func TestCoopMatNVRefusesBF16(t *testing.T) {
	m := coopModule(t, strings.Replace(coopSrc, ", at atomic_dummy u32", "", 1))
	_, err := Emit(m, Options{CoopMat: CoopMatNV})
	var u *ir.UnsupportedError
	if !errors.As(err, &u) {
		t.Fatalf("error %v, want an *ir.UnsupportedError", err)
	}
	want := "coop.kc:23:10: bf16 cooperative matrix (SPV_NV_cooperative_matrix has none; use the KHR flavour) is not supported by target spirv (-coopmat nv)"
	if err.Error() != want {
		t.Errorf("error\n%v\nwant\n%s", err, want)
	}
}

var _ = fmt.Sprint
var _ = os.Getenv

// int8Src: i8/u8 matrices into i32/u32 accumulators.
const int8Src = `enable int8
enable cooperative_matrix

kernel mm(a read []i8, b read []u8, c read_write []i32, d read_write []u32, q read_write []i8, k u32) workgroup(32) {
	var acc coopmat<i32, 16, 16, acc>
	var accu = coopmat<u32, 16, 16, acc>(7)
	for i := u32(0); i < k; i += 32 {
		let ta = coopLoad<coopmat<i8, 16, 32, a>>(a, i, k, row_major)
		let tb = coopLoad<coopmat<i8, 32, 16, b>>(a, i * 16, 16, col_major)
		let ua = coopLoad<coopmat<u8, 16, 32, a>>(b, i, k, row_major)
		let ub = coopLoad<coopmat<u8, 32, 16, b>>(b, i * 16, 16, row_major)
		acc = coopMulAdd(ta, tb, acc)
		accu = coopMulAdd(ua, ub, accu)
	}
	acc = acc + acc - acc + -acc
	coopStore(acc, c, 0, 16, row_major)
	coopStore(accu, d, 0, 16, col_major)
	q[0] = i8(c[0] + i32(q[1]))
}
`

// TestCoopMatInt8: the NV flavour of int8Src passes spirv-val; the KHR
// one marks signed operands in OpCooperativeMatrixMulAddKHR (A, B, C and
// the result of the i8 product: 15; none for u8), and integer scaling is
// OpIMul by a filled matrix (NV refuses it).
func TestCoopMatInt8(t *testing.T) {
	m := coopModule(t, int8Src)
	if _, err := exec.LookPath("spirv-val"); err == nil || os.Getenv("CI") == "true" {
		kctest.Tool(t, "spirv-val")
		for _, opts := range allOptions(m) {
			opts.CoopMat = CoopMatNV
			mod, err := Emit(m, opts)
			if err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
			if err := ValidateArtifact(context.Background(), mod); err != nil {
				t.Errorf("%+v: %v", opts, err)
			}
		}
	}
	mod, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Disassemble(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"OpCapability Int8", "OpCapability StorageBuffer8BitAccess", `OpExtension "SPV_KHR_8bit_storage"`,
		"%int8 = OpTypeInt 8 1", "%uint8 = OpTypeInt 8 0", "OpTypeCooperativeMatrixKHR %int8 %uint_3 %uint_16 %uint_32 %uint_0",
		"%ta %tb %", " 15\n", "OpSNegate", "OpSConvert %int8"} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in\n%s", w, text)
		}
	}
	if !regexp.MustCompile(`OpCooperativeMatrixMulAddKHR %\w+ %ua %ub %\w+\n`).MatchString(text) {
		t.Errorf("the u8 product has operands:\n%s", text)
	}
	scaled := coopModule(t, strings.Replace(int8Src, "acc + acc - acc", "acc * 3 - acc", 1))
	_, err = Emit(scaled, Options{CoopMat: CoopMatNV})
	if want := "coop.kc:15:12: scaling an integer cooperative matrix (SPV_NV_cooperative_matrix has none; use the KHR flavour) is not supported by target spirv (-coopmat nv)"; err == nil || err.Error() != want {
		t.Errorf("NV integer scaling: %v, want %s", err, want)
	}
	if mod, err := Emit(scaled, Options{}); err != nil {
		t.Error(err)
	} else if text, _ := Disassemble(mod.Words); !strings.Contains(text, "OpIMul %") {
		t.Errorf("KHR integer scaling: no OpIMul")
	}
}

// packedSrc loads and stores matrices through packed memory (ir.CoopPacks):
// a shared array of vec4<u32> and buffers of u32 and vec2<u32> words, at
// 16-byte aligned offsets and strides (ir.CoopAlign).
const packedSrc = `enable f16
enable cooperative_matrix

kernel k(A read []vec4<u32>, B read []u32, C read_write []vec2<u32>) workgroup(32) {
	shared as [48]vec4<u32>
	for e := local_index; e < 48; e += 32 {
		as[e] = A[e]
	}
	workgroupBarrier()
	let a = coopLoad<coopmat<f16, 16, 16, a>>(as, 1, 3, row_major)
	let b = coopLoad<coopmat<f16, 16, 16, b>>(B, 4, 12, col_major)
	let c = coopMulAdd(a, b, coopmat<f32, 16, 16, acc>(0.0))
	coopStore(c, C, 2, 10, row_major)
}
`

// TestCoopMatPacked: packed loads and stores take a pointer to the
// memory's own element type (SPV_KHR_cooperative_matrix lets it differ
// from the matrix's component type; the stride counts that type): the NV
// flavour passes spirv-val, both flavours round-trip through the
// assembler, and the pointers are to vec4<u32>, u32 and vec2<u32>.
func TestCoopMatPacked(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	m := coopModule(t, packedSrc)
	for _, fl := range []CoopMatFlavor{CoopMatKHR, CoopMatNV} {
		mod, err := Emit(m, Options{Version: V1_3, CoopMat: fl})
		if err != nil {
			t.Fatal(err)
		}
		if fl == CoopMatNV {
			if err := ValidateArtifact(context.Background(), mod); err != nil {
				t.Errorf("NV: %v", err)
			}
		}
		text, err := Disassemble(mod.Words)
		if err != nil {
			t.Fatal(err)
		}
		got, err := assemble(text)
		if err != nil || len(got) != len(mod.Words) {
			t.Fatalf("%v: assembled %d words (%v), want %d", fl, len(got), err, len(mod.Words))
		}
		for _, pc := range [][2]string{
			{"%_ptr_Workgroup_v4uint %as %uint_1", "OpCooperativeMatrixLoad"},
			{"%_ptr_StorageBuffer_uint %B %uint_0 %uint_4", "OpCooperativeMatrixLoad"},
			{"%_ptr_StorageBuffer_v2uint %C %uint_0 %uint_2", "OpCooperativeMatrixStore"},
		} {
			ptr := regexp.MustCompile(`(%\w+) = OpAccessChain ` + pc[0] + "\n").FindStringSubmatch(text)
			if ptr == nil {
				t.Errorf("%v: no access chain %s in\n%s", fl, pc[0], text)
				continue
			}
			use := regexp.MustCompile(pc[1] + `(KHR|NV) (%\w+ )?` + ptr[1] + " ")
			if !use.MatchString(text) {
				t.Errorf("%v: %s does not use %s (%s) in\n%s", fl, pc[1], ptr[1], pc[0], text)
			}
		}
	}
}
