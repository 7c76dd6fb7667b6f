// Package kctest holds what kc's own tests share: the test-kernel corpus in
// testdata/kernels with its directives, the policy for missing tools
// (skip with a reason locally, fail in CI, because a skipped check in CI is
// a lie), and the numeric helpers of the GPU tests (fresh random inputs
// with a logged seed, comparison against a float64 reference within a
// stated tolerance).
//
// Directives are comment lines in a test kernel, read by internal/directive
// (docs/language.md, "Run directives"; the corpus keeps them at the end of
// each file so that golden line numbers stay put):
//
//	//kc:targets wgsl spirv     the targets this case is emitted for (default: all)
//	//kc:define TILE=16         a compile-time constant for the golden build
//	//kc:skip-naga REASON       naga v0.23 (wgpu) cannot take this kernel, and why
//	//kc:run n=200..400 len(x)=n grid=ceil(n/64) ...   how each kernel runs
package kctest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Case is one test kernel.
type Case struct {
	Name     string // file name without .kc
	Path     string
	Src      []byte
	Targets  []string          // nil: every target
	Defines  map[string]string // -D values for the golden build
	SkipNaga string            // non-empty: why naga v0.23 cannot take it
	Dirs     *directive.File   // every directive, //kc:run included
}

// Root returns the repository root (the directory holding go.mod).
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("kctest: go.mod not found above the working directory")
		}
		dir = parent
	}
}

// Golden returns the golden file path for a case and a file extension
// ("wgsl", "spvasm", "hlsl").
func Golden(t testing.TB, name, ext string) string {
	return filepath.Join(Root(t), "testdata", "golden", name+"."+ext)
}

// Cases reads every testdata/kernels/*.kc in name order.
func Cases(t testing.TB) []Case {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(Root(t), "testdata", "kernels", "*.kc"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []Case
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseDirectives(p, src)
		if err != nil {
			t.Fatalf("kctest: %v", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		t.Fatal("kctest: no test kernels in testdata/kernels")
	}
	return out
}

// NewCase makes the Case of a test kernel read by other means than Cases
// (a browser test fetches the files over HTTP). Bad directives fail t.
func NewCase(t testing.TB, path string, src []byte) Case {
	t.Helper()
	c, err := parseDirectives(path, src)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func parseDirectives(path string, src []byte) (Case, error) {
	f, err := directive.Parse(path, src)
	if err != nil {
		return Case{}, err
	}
	return Case{
		Name:     strings.TrimSuffix(filepath.Base(path), ".kc"),
		Path:     path,
		Src:      src,
		Targets:  f.Targets,
		Defines:  f.Defines,
		SkipNaga: f.SkipNaga,
		Dirs:     f,
	}, nil
}

// Run returns the //kc:run of kernel k of the case's module m, failing t
// when the directives do not fit the kernel.
func (c Case) Run(t testing.TB, m *ir.Module, k *ir.Kernel) *directive.Run {
	t.Helper()
	if err := c.Dirs.Check(m); err != nil {
		t.Fatalf("%s:\n%v", c.Name, err)
	}
	r, err := c.Dirs.For(m, k)
	if err != nil || r == nil {
		t.Fatalf("%s: kernel %s has no //kc:run directive (%v): every corpus kernel states how it runs", c.Name, k.Name, err)
	}
	return r
}

// Wants reports whether the case is emitted for target.
func (c Case) Wants(target string) bool {
	if c.Targets == nil {
		return true
	}
	for _, t := range c.Targets {
		if t == target {
			return true
		}
	}
	return false
}

// Module parses, specialises and checks the case, failing t on any error.
func (c Case) Module(t testing.TB) *ir.Module {
	t.Helper()
	m, err := parse.Load(c.Path, c.Src, c.Defines)
	if err != nil {
		t.Fatalf("%s:\n%v", c.Name, err)
	}
	return m
}

// InCI reports whether the tests run in CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Missing reports that a test needs something absent: it fails the test in
// CI and skips it with the reason elsewhere.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("required in CI: "+format, args...)
	}
	t.Skipf("skipped: "+format, args...)
}

// Tool returns the path of an executable on PATH, or reports it Missing.
func Tool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, "%s not on PATH (scripts/test.sh installs it)", name)
	}
	return p
}
