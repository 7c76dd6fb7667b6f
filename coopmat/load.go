package coopmat

import (
	"context"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
)

// load builds a plan's kernel and loads it through the device's pipeline
// cache. It is the one place coopmat turns IR into a pipeline, so the
// emitter record (backend.Artifact today) is named nowhere else.
func load(ctx context.Context, dev *backend.Device, gen func(Plan) (*ir.Module, string, error), p Plan) (*backend.Pipeline, error) {
	m, kernel, err := gen(p)
	if err != nil {
		return nil, err
	}
	return dev.LoadIR(ctx, m, kernel)
}
