package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestCompileCoopMat: -coopmat khr (the default) and nv pick the SPIR-V
// cooperative-matrix flavour, nv output passes spirv-val, a bad value is
// a usage error, and text targets refuse the kernel naming feature and
// target.
func TestCompileCoopMat(t *testing.T) {
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "coopmat_matmul.kc")
	for _, tc := range []struct {
		flag, golden string
	}{{"", "coopmat_matmul.spvasm"}, {"khr", "coopmat_matmul.spvasm"}, {"nv", "coopmat_matmul.nv.spvasm"}} {
		args := []string{"compile", "-target", "spvasm"}
		if tc.flag != "" {
			args = append(args, "-coopmat", tc.flag)
		}
		out, stderr, code := kc(t, "", append(args, src)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		want, err := os.ReadFile(filepath.Join(kctest.Root(t), "testdata", "golden", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%v differs from %s", args, tc.golden)
		}
	}
	val := kctest.Tool(t, "spirv-val")
	spv := filepath.Join(t.TempDir(), "c.spv")
	if _, stderr, code := kc(t, "", "compile", "-target", "spirv", "-coopmat", "nv", "-o", spv, src); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if msg, err := exec.Command(val, "--target-env", "vulkan1.1", spv).CombinedOutput(); err != nil {
		t.Errorf("spirv-val rejects -coopmat nv output: %v\n%s", err, msg)
	}
	for _, tc := range []struct{ args, want string }{
		{"-target spirv -coopmat amd", `unknown -coopmat "amd" for -target spirv (want khr or nv)`},
		{"-target spirv -coopmat wgpu", `unknown -coopmat "wgpu" for -target spirv (want khr or nv)`},
		{"-target wgsl -coopmat nv", `unknown -coopmat "nv" for -target wgsl (want wgpu or chromium)`},
		{"-target hlsl -coopmat khr", `-coopmat does not apply to -target hlsl`},
		{"-target spirv -via hlsl -coopmat nv", `-coopmat "nv" with -via hlsl: DXC writes SPV_KHR_cooperative_matrix only (want khr)`},
	} {
		args := append([]string{"compile"}, strings.Fields(tc.args)...)
		if _, stderr, code := kc(t, "", append(args, src)...); code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

// TestCompileCoopMatText: -coopmat wgpu (the default) and chromium pick
// the WGSL dialect, and -target hlsl writes DXC's templates: each exactly
// its golden file.
func TestCompileCoopMatText(t *testing.T) {
	src := filepath.Join(kctest.Root(t), "testdata", "kernels", "coopmat_matmul.kc")
	for _, tc := range []struct{ args, golden string }{
		{"-target wgsl", "coopmat_matmul.wgsl"},
		{"-target wgsl -coopmat wgpu", "coopmat_matmul.wgsl"},
		{"-target wgsl -coopmat chromium", "coopmat_matmul.chromium.wgsl"},
		{"-target hlsl", "coopmat_matmul.hlsl"},
	} {
		args := append([]string{"compile"}, strings.Fields(tc.args)...)
		out, stderr, code := kc(t, "", append(args, src)...)
		if code != exitOK {
			t.Errorf("%s: exit %d\n%s", tc.args, code, stderr)
			continue
		}
		want, err := os.ReadFile(filepath.Join(kctest.Root(t), "testdata", "golden", tc.golden))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%s differs from %s", tc.args, tc.golden)
		}
	}
	// glslang cannot compile them: named, with the position and what can.
	_, stderr, code := kc(t, "", "compile", "-target", "spirv", "-via", "hlsl", "-hlsl-compiler", "glslang", src)
	if code != exitInput || !strings.Contains(stderr, "coopmat_matmul.kc:13:2: cooperative matrices (glslang cannot write SPV_KHR_cooperative_matrix") || !strings.Contains(stderr, "target hlsl via glslang") {
		t.Errorf("-via hlsl -hlsl-compiler glslang: exit %d, stderr %q", code, stderr)
	}
}

// anyCoopMat reports whether some adapter kc sees offers cooperative matrices.
func anyCoopMat(t *testing.T) bool {
	out, _, _ := kc(t, "", "devices", "-json")
	var d struct {
		Adapters []struct{ CoopMat []json.RawMessage }
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("kc devices -json: %v\n%s", err, out)
	}
	for _, a := range d.Adapters {
		if len(a.CoopMat) > 0 {
			return true
		}
	}
	return false
}

// needsCoopMat reports whether a kernel of m uses cooperative matrices.
func needsCoopMat(m *ir.Module) bool {
	for _, k := range m.Kernels {
		if k.Features&ir.FeatureCoopMat != 0 {
			return true
		}
	}
	return false
}
