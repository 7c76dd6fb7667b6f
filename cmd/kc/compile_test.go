package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

func defineArgs(c kctest.Case) []string {
	var args []string
	for k, v := range c.Defines {
		args = append(args, "-D", k+"="+v)
	}
	return args
}

// TestCompileMatchesGolden: `kc compile` writes exactly the golden
// artifacts for every test kernel and text target.
func TestCompileMatchesGolden(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		for _, tgt := range []struct{ target, want, ext string }{
			{"wgsl", "wgsl", "wgsl"}, {"spvasm", "spirv", "spvasm"}, {"hlsl", "hlsl", "hlsl"},
		} {
			if !c.Wants(tgt.want) {
				continue
			}
			args := append([]string{"compile", "-target", tgt.target}, defineArgs(c)...)
			out, stderr, code := kc(t, "", append(args, c.Path)...)
			if code != exitOK {
				t.Errorf("kc compile -target %s %s: exit %d\n%s", tgt.target, c.Name, code, stderr)
				continue
			}
			want, err := os.ReadFile(kctest.Golden(t, c.Name, tgt.ext))
			if err != nil {
				t.Fatal(err)
			}
			if out != string(want) {
				t.Errorf("kc compile -target %s %s differs from its golden file", tgt.target, c.Name)
			}
		}
	}
}

// TestCompileSPIRVFile writes binaries with -o through both SPIR-V paths
// and has spirv-val accept them.
func TestCompileSPIRVFile(t *testing.T) {
	val := kctest.Tool(t, "spirv-val")
	dir := t.TempDir()
	for _, via := range []string{"", "hlsl"} {
		if via == "hlsl" {
			kctest.Tool(t, "glslangValidator")
		}
		out := filepath.Join(dir, "matmul"+via+".spv")
		args := []string{"compile", "-target", "spirv", "-o", out}
		if via != "" {
			args = append(args, "-via", via)
		}
		root := kctest.Root(t)
		if _, stderr, code := kc(t, "", append(args, filepath.Join(root, "testdata/kernels/matmul_tiled.kc"))...); code != exitOK {
			t.Fatalf("kc %v: exit %d\n%s", args, code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil || len(data) < 20 || data[0] != 0x03 || data[1] != 0x02 || data[2] != 0x23 || data[3] != 0x07 {
			t.Fatalf("%s is not a SPIR-V module (%d bytes, %v)", out, len(data), err)
		}
		if msg, err := exec.Command(val, "--target-env", "vulkan1.1", out).CombinedOutput(); err != nil {
			t.Errorf("spirv-val rejects kc compile -via %q output: %v\n%s", via, err, msg)
		}
	}
}

func TestCompileFlags(t *testing.T) {
	root := kctest.Root(t)
	spec := filepath.Join(root, "testdata/kernels/specialized.kc")
	two := filepath.Join(root, "testdata/kernels/two_kernels.kc")
	a, _, code := kc(t, "", "compile", spec)
	if code != exitOK {
		t.Fatalf("compile specialized.kc: exit %d", code)
	}
	// Overriding a constant changes the output; naming a missing one is an error.
	consts := specializedConsts(t, spec)
	if len(consts) == 0 {
		t.Fatal("specialized.kc declares no constant")
	}
	b, stderr, code := kc(t, "", "compile", "-D", consts[0]+"=3", spec)
	if code != exitOK || a == b {
		t.Errorf("-D %s=3: exit %d, output changed: %v\n%s", consts[0], code, a != b, stderr)
	}
	if _, stderr, code := kc(t, "", "compile", "-D", "NO_SUCH_CONST=1", spec); code != exitInput || !strings.Contains(stderr, "NO_SUCH_CONST") {
		t.Errorf("-D of an undeclared constant: exit %d, %q", code, stderr)
	}
	if _, stderr, code := kc(t, "", "compile", "-kernel", "nope", two); code != exitInput || !strings.Contains(stderr, `no kernel "nope"`) {
		t.Errorf("-kernel nope: exit %d, %q", code, stderr)
	}
	if _, stderr, code := kc(t, "", "compile", "-target", "spirv", "-via", "hlsl", two); code != exitInput || !strings.Contains(stderr, "name one") {
		t.Errorf("-via hlsl on two kernels without -kernel: exit %d, %q", code, stderr)
	}
	if _, _, code := kc(t, "", "compile", "-via", "msl", two); code != exitUsage {
		t.Errorf("-via msl: exit %d, want 2", code)
	}
	// Standard input.
	src, _ := os.ReadFile(filepath.Join(root, "testdata/kernels/saxpy.kc"))
	if out, stderr, code := kc(t, string(src), "compile", "-"); code != exitOK || !strings.Contains(out, "fn saxpy") {
		t.Errorf("compile -: exit %d\n%s", code, stderr)
	}
}

// specializedConsts lists the constants specialized.kc declares.
func specializedConsts(t *testing.T, path string) []string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(src), "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[0] == "const" {
			names = append(names, f[1])
		}
	}
	return names
}
