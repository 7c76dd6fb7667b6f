package coopmat

import (
	"context"
	"slices"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/ir"
)

// load builds a plan's kernel and loads it through the device's pipeline
// cache. It is the one place coopmat turns IR into a pipeline, so the
// emitter record (backend.Artifact today) is named nowhere else. A
// cooperative-matrix plan whose instruction shape came from the device's
// VK_NV_cooperative_matrix list is emitted with SPV_NV_cooperative_matrix
// (the device offers that shape through that extension); other plans use
// the device's default emission (SPV_KHR_cooperative_matrix).
func load(ctx context.Context, dev *backend.Device, gen func(Plan) (*ir.Module, string, error), p Plan) (*backend.Pipeline, error) {
	m, kernel, err := gen(p)
	if err != nil {
		return nil, err
	}
	if p.Generator == "coopmat" && p.Shape != nil && p.Shape.Flavor == "nv" && slices.Contains(dev.Info().Targets, backend.SPIRV) {
		a, err := spirv.Emit(m, spirv.Options{Kernel: kernel, CoopMat: spirv.CoopMatNV})
		if err != nil {
			return nil, err
		}
		return dev.Load(ctx, a)
	}
	return dev.LoadIR(ctx, m, kernel)
}
