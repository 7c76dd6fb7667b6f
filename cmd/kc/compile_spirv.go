package main

import (
	"context"
	"fmt"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/ir"
)

func init() {
	targets["spirv"] = target{"SPIR-V binary (direct emitter, or -via hlsl)", emitSPIRVBinary}
	targets["spvasm"] = target{"SPIR-V disassembly", emitSPIRVText}
}

func spirvVersion(s string) (spirv.Version, error) {
	switch s {
	case "":
		return 0, nil // the emitter's default: 1.3, or 1.6 where the kernel needs it
	case "1.3":
		return spirv.V1_3, nil
	case "1.6":
		return spirv.V1_6, nil
	}
	return 0, fmt.Errorf("unknown -spirv-version %q (want 1.3 or 1.6)", s)
}

// emitSPIRV returns the SPIR-V artifact from the direct emitter, or from
// kc's HLSL through dxc or glslang with -via hlsl.
func emitSPIRV(ctx context.Context, m *ir.Module, o compileOptions) (*emit.Artifact, error) {
	if o.via == "hlsl" {
		return spirvViaHLSL(ctx, m, o)
	}
	v, err := spirvVersion(o.spirvVersion)
	if err != nil {
		return nil, err
	}
	flavor, ok := spirv.CoopMatFlavorByName(o.coopmat)
	if !ok {
		flavor = spirv.CoopMatKHR // o.coopmat is "" when a caller builds compileOptions itself
	}
	return spirv.Emit(m, spirv.Options{Kernel: o.kernel, Version: v, CoopMat: flavor})
}

func emitSPIRVBinary(ctx context.Context, m *ir.Module, o compileOptions) ([]byte, error) {
	a, err := emitSPIRV(ctx, m, o)
	if err != nil {
		return nil, err
	}
	return a.Bytes(), nil
}

func emitSPIRVText(ctx context.Context, m *ir.Module, o compileOptions) ([]byte, error) {
	a, err := emitSPIRV(ctx, m, o)
	if err != nil {
		return nil, err
	}
	text, err := spirv.Disassemble(a.Words)
	return []byte(text), err
}
