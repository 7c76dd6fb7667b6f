package main

import (
	"context"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/ir"
)

func init() {
	targets["hlsl"] = target{"HLSL text (shader model 6)", emitHLSL}
	targets["dxil"] = target{"DXIL container (needs dxc)", emitDXIL}
}

func emitHLSL(_ context.Context, m *ir.Module, o compileOptions) ([]byte, error) {
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: o.kernel})
	if err != nil {
		return nil, err
	}
	return a.Code, nil
}

// hlslCompileOptions maps the CLI flags onto the compiler drivers.
func hlslCompileOptions(o compileOptions) (hlsl.CompileOptions, error) {
	var co hlsl.CompileOptions
	if err := co.SetCompiler(o.hlslCompiler); err != nil {
		return co, err
	}
	if o.spirvVersion == "1.6" {
		co.TargetEnv = "vulkan1.3"
	}
	return co, nil
}

// spirvViaHLSL compiles kc's HLSL for one kernel with dxc or glslang; the
// result has passed spirv-val.
func spirvViaHLSL(ctx context.Context, m *ir.Module, o compileOptions) (*emit.Artifact, error) {
	co, err := hlslCompileOptions(o)
	if err != nil {
		return nil, err
	}
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: o.kernel})
	if err != nil {
		return nil, err
	}
	return hlsl.CompileSPIRV(ctx, a, o.kernel, co)
}

func emitDXIL(ctx context.Context, m *ir.Module, o compileOptions) ([]byte, error) {
	co, err := hlslCompileOptions(o)
	if err != nil {
		return nil, err
	}
	a, err := hlsl.Emit(m, hlsl.Options{Kernel: o.kernel})
	if err != nil {
		return nil, err
	}
	return hlsl.CompileDXIL(ctx, a, o.kernel, co)
}
