package backend

import (
	"context"
	"fmt"
	"slices"

	"github.com/kcgo/kc/ir"
)

// Pipeline is a loaded kernel: a compute pipeline plus its binding layout.
// Pipelines live as long as the device; Device.Close releases them.
type Pipeline struct {
	dev    *Device
	impl   PipelineImpl
	layout Layout
	target Target
	name   string
}

// Layout returns the pipeline's binding layout.
func (p *Pipeline) Layout() Layout { return p.layout }

// Name is the kernel's name (the entry point when the layout names none).
func (p *Pipeline) Name() string { return p.name }

// Target is the artifact kind the pipeline was built from.
func (p *Pipeline) Target() Target { return p.target }

// Load builds a pipeline from an artifact, or returns the cached one for an
// artifact with the same content hash and specialisation (Stats counts a
// compile or a cache hit). An artifact for a target the device does not
// accept, or needing a feature it lacks, is refused with an error; a
// compile error carries the driver's message.
func (d *Device) Load(ctx context.Context, a *Artifact) (*Pipeline, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	k := a.key()
	if p, ok := d.pipes[k]; ok {
		d.stats.CacheHits++
		return p, nil
	}
	if err := d.canLoad(a); err != nil {
		return nil, err
	}
	impl, err := d.impl.NewPipeline(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("backend: load %s: %w", a.name(), err)
	}
	d.stats.Compiles++
	p := &Pipeline{dev: d, impl: impl, layout: a.Layout, target: a.Target, name: a.name()}
	d.pipes[k] = p
	return p, nil
}

func (a *Artifact) name() string {
	if a.Layout.Kernel != "" {
		return a.Layout.Kernel
	}
	return a.Entry
}

func (d *Device) canLoad(a *Artifact) error {
	if !slices.Contains(d.info.Targets, a.Target) {
		return fmt.Errorf("backend: %s device %q does not accept %s artifacts (accepts %v)", d.info.Driver, d.info.Name, a.Target, d.info.Targets)
	}
	switch a.Target {
	case WGSL:
		if len(a.Code) == 0 {
			return fmt.Errorf("backend: load %s: empty WGSL code", a.name())
		}
	case SPIRV:
		if len(a.Words) < 5 || a.Words[0] != 0x07230203 {
			return fmt.Errorf("backend: load %s: not a SPIR-V module (bad magic or header)", a.name())
		}
	}
	if a.Entry == "" {
		return fmt.Errorf("backend: load %s: no entry point", a.name())
	}
	if a.Layout.Params%16 != 0 || a.Layout.Params < 0 {
		return fmt.Errorf("backend: load %s: params block size %d is not a multiple of 16", a.name(), a.Layout.Params)
	}
	target := d.info.Driver + " " + string(a.Target)
	have := []struct {
		f  ir.Feature
		ok bool
	}{
		{ir.FeatureF16, d.info.F16},
		{ir.FeatureSubgroups, d.info.Subgroups},
		{ir.FeatureCoopMat, len(d.info.CoopMat) > 0},
	}
	for _, h := range have {
		if a.Features&h.f != 0 && !h.ok {
			return &ir.UnsupportedError{Target: target + " on " + d.info.Name, Feature: h.f.Name()}
		}
	}
	if max := d.info.Limits.MaxStorageBuffersPerStage; max > 0 && len(a.Layout.Buffers) > max {
		return fmt.Errorf("backend: load %s: %d storage buffers exceed the device's %d", a.name(), len(a.Layout.Buffers), max)
	}
	return nil
}
