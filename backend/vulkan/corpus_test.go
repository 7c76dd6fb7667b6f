//go:build linux && cgo

package vulkan

import (
	"context"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestCorpus runs every kernel of testdata/kernels on the Vulkan device
// through SPIR-V from emit/spirv and through HLSL -> glslang -> SPIR-V
// (backendtest.Corpus: the kernels' //kc:run directives, fresh random
// inputs, poisoned outputs, every output compared with the interpreter);
// cooperative-matrix kernels also through the NV flavour of emit/spirv.
func TestCorpus(t *testing.T) {
	backendtest.Corpus(t, openTest(t), []backendtest.Path{
		backendtest.EmitPath(backend.SPIRV),
		{Name: "spirv-nv", Artifact: spirvNV, Skip: onlyCoopMat},
		{Name: "hlsl-glslang", Artifact: hlslGlslang},
	})
}

// spirvNV emits SPIR-V with SPV_NV_cooperative_matrix.
func spirvNV(ctx context.Context, m *ir.Module, k *ir.Kernel) (*emit.Artifact, error) {
	return spirv.Emit(m, spirv.Options{Kernel: k.Name, CoopMat: spirv.CoopMatNV})
}

// onlyCoopMat skips the NV path for kernels without cooperative matrices,
// which the default path already runs.
func onlyCoopMat(_ kctest.Case, k *ir.Kernel) string {
	if k.Features&ir.FeatureCoopMat == 0 {
		return "no cooperative matrix (the NV flavour differs only there)"
	}
	return ""
}

// hlslGlslang emits HLSL and compiles it with glslangValidator.
func hlslGlslang(ctx context.Context, m *ir.Module, k *ir.Kernel) (*emit.Artifact, error) {
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: k.Name})
	if err != nil {
		return nil, err
	}
	return hlsl.CompileSPIRV(ctx, a, k.Name, hlsl.CompileOptions{Compiler: hlsl.Glslang})
}

// TestCorpusLoopBudget: the corpus runner names a kernel whose loops
// exceed lavapipe's budget instead of comparing its silently wrong
// result (backendtest.LoopBudget), on both SPIR-V paths.
func TestCorpusLoopBudget(t *testing.T) {
	d := openTest(t)
	t.Run("spirv", func(t *testing.T) { backendtest.LoopBudget(t, d, backendtest.EmitPath(backend.SPIRV)) })
	t.Run("hlsl-glslang", func(t *testing.T) {
		backendtest.LoopBudget(t, d, backendtest.Path{Name: "hlsl-glslang", Artifact: hlslGlslang})
	})
}
