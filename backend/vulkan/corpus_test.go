//go:build linux && cgo

package vulkan

import (
	"context"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
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
func hlslGlslang(ctx context.Context, m *ir.Module, k *ir.Kernel) (*emit.Artifact, error) {
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
	if err != nil {
		return nil, err
	}
	return hlsl.CompileSPIRV(ctx, a, k.Name, hlsl.CompileOptions{Compiler: hlsl.Glslang})
}
