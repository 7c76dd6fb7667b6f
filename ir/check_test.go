package ir_test

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// testHeader opens the kernel that a case without its own kernel, const or
// enable line is wrapped in; the case's first line is line 2.
const testHeader = "kernel k(n u32, f f32, x read []f32, y read_write []f32, iv read_write []i32, h read_write []atomic<u32>) workgroup(64) {\n"

// moduleSrc turns a case into a .kc file: a full module as written, or
// statements wrapped in the test kernel.
func moduleSrc(body string) string {
	for _, p := range []string{"kernel", "const", "enable", "struct", "fn", "precise"} {
		if strings.HasPrefix(body, p+" ") {
			return body + "\n"
		}
	}
	var b strings.Builder
	b.WriteString(testHeader)
	for _, l := range strings.Split(body, "\n") {
		b.WriteString("\t" + l + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// checkErrors parses src as t.kc and returns Check's errors, one string each
// (without the file name), or nil when it checks.
func checkErrors(t *testing.T, src string) []string {
	t.Helper()
	m, err := parse.File("t.kc", []byte(src))
	if err != nil {
		t.Fatalf("parse:\n%v\nsource:\n%s", err, src)
	}
	err = ir.Check(m)
	if err == nil {
		if !m.Checked {
			t.Errorf("Check returned nil but Checked is false")
		}
		return nil
	}
	if m.Checked {
		t.Errorf("Check failed but Checked is true")
	}
	list, ok := err.(ir.ErrorList)
	if !ok {
		t.Fatalf("Check returned %T, want ir.ErrorList: %v", err, err)
	}
	var out []string
	for _, e := range list {
		out = append(out, strings.TrimPrefix(e.Error(), "t.kc:"))
	}
	return out
}

// TestSharedLimits: shared memory above lavapipe's 32 KiB and WebGPU's
// 16 KiB is valid .kc (devices are checked where the backend loads the
// kernel); WebGPULimitWarnings names the WebGPU default, and the checker's
// count (each variable rounded up to 16 bytes) matches the reflection's.
func TestSharedLimits(t *testing.T) {
	src := "kernel k() workgroup(64) {\n\tshared a [10240]f32\n\tshared b [1025]f32\n\tshared c [1]bool\n}\n"
	m, err := parse.File("t.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatalf("48 KiB of shared memory: %v", err)
	}
	k := m.Kernels[0]
	want := 40960 + 4112 + 16
	if got := ir.KernelSharedBytes(k); got != want {
		t.Errorf("KernelSharedBytes = %d, want %d", got, want)
	}
	r := ir.ReflectKernel(k)
	if got := r.SharedBytes(); got != want {
		t.Errorf("reflection SharedBytes = %d, want %d", got, want)
	}
	w := ir.WebGPULimitWarnings(m)
	if len(w) != 1 || w[0] != "t.kc:1:1: warning: kernel k: 45088 bytes of shared memory exceed 16384, WebGPU's default maxComputeWorkgroupStorageSize (WGSL devices that grant only the defaults refuse it)" {
		t.Errorf("warnings: %q", w)
	}
	small := "kernel k() workgroup(64) {\n\tshared a [4096]f32\n}\n"
	if m, err = parse.File("t.kc", []byte(small)); err != nil || ir.Check(m) != nil {
		t.Fatal("16 KiB kernel does not check")
	}
	if w := ir.WebGPULimitWarnings(m); len(w) != 0 {
		t.Errorf("16 KiB kernel warned: %q", w)
	}
}
