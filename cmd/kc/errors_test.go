package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
)

// TestBadInput runs `kc check` and `kc compile` on every file in
// testdata/errors. Each must exit 1 with positioned diagnostics and no
// output; the diagnostics must match NAME.err exactly (go test -update
// rewrites them).
func TestBadInput(t *testing.T) {
	t.Chdir(kctest.Root(t))
	paths, err := filepath.Glob("testdata/errors/*.kc")
	if err != nil || len(paths) < 12 {
		t.Fatalf("want at least 12 bad-input cases in testdata/errors, got %d (%v)", len(paths), err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".kc")
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := kc(t, "", "check", path)
			if code != exitInput {
				t.Errorf("kc check %s: exit %d, want %d", path, code, exitInput)
			}
			if stdout != "" {
				t.Errorf("kc check %s wrote to stdout: %q", path, stdout)
			}
			for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !strings.HasPrefix(line, path+":") {
					t.Errorf("diagnostic lacks a %s:line:col: prefix: %q", path, line)
				}
			}
			golden.Check(t, strings.TrimSuffix(path, ".kc")+".err", []byte(stderr))
			for _, tgt := range []string{"wgsl", "spirv"} {
				out, _, code := kc(t, "", "compile", "-target", tgt, path)
				if code != exitInput || out != "" {
					t.Errorf("kc compile -target %s %s: exit %d with %d bytes of output, want exit 1 and none", tgt, path, code, len(out))
				}
			}
		})
	}
}

// TestCheckCorpus: every test kernel checks cleanly from the command line.
func TestCheckCorpus(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		args := []string{"check"}
		for k, v := range c.Defines {
			args = append(args, "-D", k+"="+v)
		}
		args = append(args, c.Path)
		if _, stderr, code := kc(t, "", args...); code != exitOK {
			t.Errorf("kc check %s: exit %d\n%s", c.Name, code, stderr)
		}
	}
}

// TestFmtIdempotent: kc fmt of its own output is unchanged, and -w leaves
// a canonical file untouched.
func TestFmtIdempotent(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		once, stderr, code := kc(t, "", "fmt", c.Path)
		if code != exitOK {
			t.Fatalf("kc fmt %s: exit %d\n%s", c.Name, code, stderr)
		}
		tmp := filepath.Join(t.TempDir(), c.Name+".kc")
		if err := os.WriteFile(tmp, []byte(once), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stderr, code := kc(t, "", "fmt", "-w", tmp); code != exitOK {
			t.Fatalf("kc fmt -w: exit %d\n%s", code, stderr)
		}
		twice, _ := os.ReadFile(tmp)
		if string(twice) != once {
			t.Errorf("kc fmt is not idempotent on %s", c.Name)
		}
	}
}
