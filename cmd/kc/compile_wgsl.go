package main

import (
	"context"

	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/ir"
)

func init() {
	targets["wgsl"] = target{"WGSL text", emitWGSL}
}

func emitWGSL(_ context.Context, m *ir.Module, o compileOptions) ([]byte, error) {
	dialect, _ := wgsl.CoopMatDialectByName(o.coopmat) // "" (checked by runCompile): wgpu
	a, err := wgsl.Emit(m, wgsl.Options{Kernel: o.kernel, CoopMat: dialect})
	if err != nil {
		return nil, err
	}
	return a.Code, nil
}
