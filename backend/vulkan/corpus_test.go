//go:build linux && cgo

package vulkan

import (
	"context"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/ir"
)

// TestCorpus runs every kernel of testdata/kernels on the Vulkan device
// through SPIR-V from emit/spirv and through HLSL -> glslang -> SPIR-V
// (backendtest.Corpus: the kernels' //kc:run directives, fresh random
// inputs, poisoned outputs, every output compared with the interpreter).
func TestCorpus(t *testing.T) {
	backendtest.Corpus(t, openTest(t), []backendtest.Path{
		backendtest.EmitPath(backend.SPIRV),
		{Name: "hlsl-glslang", Artifact: hlslGlslang},
	})
}

// hlslGlslang emits HLSL and compiles it with glslangValidator.
func hlslGlslang(ctx context.Context, m *ir.Module, k *ir.Kernel) (*backend.Artifact, error) {
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
	if err != nil {
		return nil, err
	}
	ent, err := a.Entry(k.Name)
	if err != nil {
		return nil, err
	}
	w, err := hlsl.CompileSPIRV(ctx, a, k.Name, hlsl.CompileOptions{Compiler: hlsl.Glslang})
	if err != nil {
		return nil, err
	}
	return &backend.Artifact{Target: backend.SPIRV, Words: w, Entry: ent.Name, Layout: backend.LayoutOf(k), Features: k.Features}, nil
}
