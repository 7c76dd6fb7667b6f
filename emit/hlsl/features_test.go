package hlsl

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// loadKC parses and checks a .kc file of this package's testdata.
func loadKC(t *testing.T, name string) *ir.Module {
	t.Helper()
	path := filepath.Join("testdata", name)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parse.File(path, src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatalf("check:\n%v", err)
	}
	return m
}

// TestFeaturesCompile emits testdata/features.kc (every op group:
// subgroups, f16, atomics in expressions and conditions, vec3 and array
// buffers, bitcasts, reserved names) and compiles each entry with glslang,
// validating with spirv-val (num_workgroups included: a hidden params field).
func TestFeaturesCompile(t *testing.T) {
	m := loadKC(t, "features.kc")
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "features.hlsl"), a.Code)
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	for _, ent := range a.Entries {
		_, err := CompileSPIRV(context.Background(), a, ent.Kernel, CompileOptions{Compiler: Glslang})
		if ent.Restricted != "" {
			var ue *ir.UnsupportedError
			if !errors.As(err, &ue) {
				t.Errorf("%s: got %v, want *ir.UnsupportedError", ent.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", ent.Name, err)
		}
	}
}

// TestLangCompile emits testdata/lang.kc whole (several kernels sharing
// structs, constant arrays and the builtin copies, each with its own
// function instances), compares it with testdata/lang.hlsl and compiles
// every entry with glslang and spirv-val. TestExecLang runs it.
func TestLangCompile(t *testing.T) {
	m := loadKC(t, "lang.kc")
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "lang.hlsl"), a.Code)
	kctest.Tool(t, GlslangTool)
	kctest.Tool(t, SpirvValTool)
	if len(a.Entries) != len(m.Kernels) {
		t.Fatalf("%d entries, want %d", len(a.Entries), len(m.Kernels))
	}
	for _, ent := range a.Entries {
		if _, err := CompileSPIRV(context.Background(), a, ent.Kernel, CompileOptions{Compiler: Glslang}); err != nil {
			t.Errorf("%s: %v", ent.Name, err)
		}
	}
}
