package backend

import (
	"context"
	"fmt"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/ir"
)

// emitters turn kernel k of a checked module into an artifact for one
// target.
var emitters = map[Target]func(m *ir.Module, k *ir.Kernel) (*emit.Artifact, error){
	WGSL: func(m *ir.Module, k *ir.Kernel) (*emit.Artifact, error) {
		return wgsl.Emit(m, wgsl.Options{Kernel: k.Name})
	},
	SPIRV: func(m *ir.Module, k *ir.Kernel) (*emit.Artifact, error) {
		return spirv.Emit(m, spirv.Options{Kernel: k.Name})
	},
}

// Emit lowers kernel of the checked module m to an artifact for target,
// holding that kernel only.
func Emit(m *ir.Module, kernel string, target Target) (*emit.Artifact, error) {
	if m == nil || !m.Checked {
		return nil, fmt.Errorf("backend: module is not checked")
	}
	k := m.Kernel(kernel)
	if k == nil {
		return nil, fmt.Errorf("backend: module %s has no kernel %q", m.File, kernel)
	}
	emit := emitters[target]
	if emit == nil {
		return nil, fmt.Errorf("backend: no emitter for target %s", target)
	}
	return emit(m, k)
}

// LoadIR emits kernel of the checked module m for the device's preferred
// target that has an emitter, and loads it (through the pipeline cache).
func (d *Device) LoadIR(ctx context.Context, m *ir.Module, kernel string) (*Pipeline, error) {
	for _, t := range d.info.Targets {
		if emitters[t] == nil {
			continue
		}
		a, err := Emit(m, kernel, t)
		if err != nil {
			return nil, err
		}
		return d.Load(ctx, a)
	}
	return nil, fmt.Errorf("backend: no emitter for any target of %s device %q (%v)", d.info.Driver, d.info.Name, d.info.Targets)
}
