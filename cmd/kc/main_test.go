package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// kc runs the CLI in-process and returns its stdout, stderr and exit status.
func kc(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{
		stdin:  strings.NewReader(stdin),
		stdout: &out,
		stderr: &errb,
		getenv: func(string) string { return "" },
	}
	code := runCLI(env, args)
	return out.String(), errb.String(), code
}

func TestUsageExitCodes(t *testing.T) {
	tests := []struct {
		args []string
		code int
		in   string // substring expected in stdout+stderr
	}{
		{nil, exitUsage, "Commands:"},
		{[]string{"help"}, exitOK, "compile"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"compile"}, exitUsage, "usage: kc compile"},
		{[]string{"compile", "-target", "pdf", "x.kc"}, exitUsage, `unknown target "pdf"`},
		{[]string{"compile", "-nosuchflag", "x.kc"}, exitUsage, "flag provided but not defined"},
		{[]string{"compile", "-h"}, exitOK, "-target"},
		{[]string{"help", "fmt"}, exitOK, "-w"},
		{[]string{"check"}, exitUsage, "usage: kc check"},
		{[]string{"fmt"}, exitUsage, "usage: kc fmt"},
		{[]string{"compile", "-D", "NOEQUALS", "x.kc"}, exitUsage, "want NAME=VALUE"},
		{[]string{"check", "/nonexistent/x.kc"}, exitInput, "no such file"},
	}
	for _, tt := range tests {
		stdout, stderr, code := kc(t, "", tt.args...)
		if code != tt.code {
			t.Errorf("kc %v: exit %d, want %d\nstderr: %s", tt.args, code, tt.code, stderr)
		}
		if !strings.Contains(stdout+stderr, tt.in) {
			t.Errorf("kc %v: output lacks %q:\n%s%s", tt.args, tt.in, stdout, stderr)
		}
	}
}

// TestCheckWarnsWebGPUShared: 40 KiB of shared memory is valid .kc (the
// device's limit is checked where the kernel loads) but `kc check` warns
// that WebGPU's default of 16 KiB refuses it.
func TestCheckWarnsWebGPUShared(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/wide.kc"
	src := "kernel wide(y read_write []f32) workgroup(64) {\n\tshared s [10240]f32\n\ts[local_index] = 1\n\tworkgroupBarrier()\n\ty[local_index] = s[63 - local_index]\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := kc(t, "", "check", path)
	want := path + ":1:1: warning: kernel wide: 40960 bytes of shared memory exceed 16384, WebGPU's default maxComputeWorkgroupStorageSize (WGSL devices that grant only the defaults refuse it)\n"
	if code != exitOK || stdout != "" || stderr != want {
		t.Errorf("kc check: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}

// TestCheckWarnsWebGPULimits: a workgroup of 1024 is valid .kc (exit 0) but
// `kc check` warns that WebGPU's default limits refuse it.
func TestCheckWarnsWebGPULimits(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/big.kc"
	src := "kernel big(y read_write []u32) workgroup(32, 32) {\n\ty[local_index] = 1\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := kc(t, "", "check", path)
	want := path + ":1:1: warning: kernel big: workgroup size 32x32x1 = 1024 invocations exceeds 256, WebGPU's default maxComputeInvocationsPerWorkgroup (WGSL devices that grant only the defaults refuse it)\n"
	if code != exitOK || stdout != "" || stderr != want {
		t.Errorf("kc check: exit %d, stdout %q, stderr:\n%s\nwant:\n%s", code, stdout, stderr, want)
	}
}
