package spirv

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/ir"
)

// coop2Module is testdata/coopmat2.kc: a workgroup-scope matmul.
func coop2Module(t *testing.T) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "coopmat2.kc"))
	if err != nil {
		t.Fatal(err)
	}
	return coopModule(t, string(src))
}

// TestCoopMat2Golden: the workgroup-scope kernel's module, as disassembled
// text, matches testdata/coopmat2.spvasm (go test -update rewrites it), and
// kc's assembler turns the text back into the same words. spirv-val and
// spirv-as 2023.1 know neither OpTypeCooperativeMatrixKHR nor
// SPV_NV_cooperative_matrix2, so that round trip (TestCoopMatRoundTrip's)
// and the H200 (coopmat's TestCoop2Device) are the checks.
func TestCoopMat2Golden(t *testing.T) {
	mod, err := Emit(coop2Module(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Disassemble(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "coopmat2.spvasm"), []byte(text))
	got, err := assemble(text)
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	if len(got) != len(mod.Words) {
		t.Fatalf("assembled %d words, want %d", len(got), len(mod.Words))
	}
	for i := range got {
		if i != 2 && got[i] != mod.Words[i] {
			t.Fatalf("word %d: assembled %#x, emitted %#x\n%s", i, got[i], mod.Words[i], contextAt(mod.Words, i))
		}
	}
	for _, w := range []string{
		"; Version: 1.6", `OpExtension "SPV_NV_cooperative_matrix2"`, `OpExtension "SPV_KHR_cooperative_matrix"`,
		"OpCapability CooperativeMatrixKHR", "OpMemoryModel Logical Vulkan", "LocalSize 256 1 1",
		"OpTypeCooperativeMatrixKHR %float %uint_2 %uint_64 %uint_64 %uint_2",
		"OpTypeCooperativeMatrixKHR %half %uint_2 %uint_64 %uint_16 %uint_0",
		"OpTypeCooperativeMatrixKHR %half %uint_2 %uint_16 %uint_64 %uint_1",
		"OpTypeCooperativeMatrixKHR %half %uint_2 %uint_64 %uint_64 %uint_2",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("no %q in\n%s", w, text)
		}
	}
	if strings.Contains(text, "%uint_3 %uint_64") || strings.Contains(text, "SPV_KHR_vulkan_memory_model") {
		t.Errorf("a subgroup-scope matrix type or the 1.3 memory-model extension in\n%s", text)
	}
}

// TestCoopMat2Refusals: workgroup scope needs the KHR flavour and SPIR-V
// 1.6 (the default becomes 1.6; an explicit 1.3 is refused), and a module
// whose selected kernel has none stays 1.3.
func TestCoopMat2Refusals(t *testing.T) {
	m := coop2Module(t)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{CoopMat: CoopMatNV}, "coop.kc:11:2: workgroup-scope cooperative matrix (SPV_NV_cooperative_matrix has none; use the KHR flavour) is not supported by target spirv (-coopmat nv)"},
		{Options{Version: V1_3}, "coop.kc:11:2: workgroup-scope cooperative matrix (SPV_NV_cooperative_matrix2 requires SPIR-V 1.6) is not supported by target spirv 1.3"},
	} {
		_, err := Emit(m, tc.opts)
		var ue *ir.UnsupportedError
		if !errors.As(err, &ue) || !strings.HasSuffix(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want an UnsupportedError ending %q", tc.opts, err, tc.want)
		}
	}
	mixed := coopModule(t, "enable cooperative_matrix\nenable cooperative_matrix2\n"+
		"kernel wg(c read_write []f32) workgroup(64) {\n\tcoopStore(coopmat<f32, 16, 16, acc, workgroup>(1.0), c, 0, 16, row_major)\n}\n"+
		"kernel sg(c read_write []f32) workgroup(32) {\n\tcoopStore(coopmat<f32, 16, 16, acc>(1.0), c, 0, 16, row_major)\n}\n")
	for kernel, want := range map[string]Version{"sg": V1_3, "wg": V1_6, "": V1_6} {
		mod, err := Emit(mixed, Options{Kernel: kernel})
		if err != nil {
			t.Fatalf("kernel %q: %v", kernel, err)
		}
		if got := VersionOf(mod.Words); got != want {
			t.Errorf("kernel %q: SPIR-V %s, want %s", kernel, got, want)
		}
	}
}
