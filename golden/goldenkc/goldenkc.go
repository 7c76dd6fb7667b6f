// Package goldenkc compiles .kc kernels for a set of targets and compares
// each artifact with its golden file, for users who keep generated shaders
// under review. A test needs one call per kernel:
//
//	func TestKernels(t *testing.T) {
//		goldenkc.Check(t, "kernels/saxpy.kc", goldenkc.Options{Dir: "testdata/golden"})
//	}
//
// `go test -update` rewrites the golden files (testdata/golden/saxpy.wgsl,
// .spvasm, .hlsl); a mismatch fails the test with a line diff.
package goldenkc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/ir/parse"
)

// Target is an artifact kind; its value is the golden file's extension.
type Target string

// The targets Check knows.
const (
	WGSL   Target = "wgsl"
	SPVASM Target = "spvasm" // SPIR-V, as kc's disassembly
	HLSL   Target = "hlsl"
)

// AllTargets is the default target set.
var AllTargets = []Target{WGSL, SPVASM, HLSL}

// Options control Check.
type Options struct {
	Dir     string            // directory of the golden files (default "testdata/golden")
	Targets []Target          // default AllTargets
	Defines map[string]string // compile-time constants, as kc's -D
}

// Check compiles the .kc file at path for every target and compares each
// artifact with Dir/NAME.EXT, NAME being the file's base name without .kc.
func Check(t testing.TB, path string, opts Options) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir, targets := opts.Dir, opts.Targets
	if dir == "" {
		dir = filepath.Join("testdata", "golden")
	}
	if targets == nil {
		targets = AllTargets
	}
	name := strings.TrimSuffix(filepath.Base(path), ".kc")
	for _, tgt := range targets {
		out, err := Compile(path, src, opts.Defines, tgt)
		if err != nil {
			t.Errorf("%s: %v", tgt, err)
			continue
		}
		golden.Check(t, filepath.Join(dir, name+"."+string(tgt)), out)
	}
}

// Compile parses, specialises and checks one .kc source and returns the
// artifact for target, as `kc compile -target` writes it.
func Compile(path string, src []byte, defines map[string]string, target Target) ([]byte, error) {
	m, err := parse.Load(path, src, defines)
	if err != nil {
		return nil, err
	}
	switch target {
	case WGSL:
		a, err := wgsl.Emit(m, wgsl.Options{})
		if err != nil {
			return nil, err
		}
		return a.Code, nil
	case SPVASM:
		mod, err := spirv.Emit(m, spirv.Options{})
		if err != nil {
			return nil, err
		}
		text, err := spirv.Disassemble(mod.Words)
		return []byte(text), err
	case HLSL:
		a, err := hlsl.Emit(m, hlsl.Options{})
		if err != nil {
			return nil, err
		}
		return a.Code, nil
	}
	return nil, fmt.Errorf("goldenkc: unknown target %q", target)
}
