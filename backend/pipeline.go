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
		{ir.FeatureDot4Packed, d.info.IntegerDot},
	}
	for _, h := range have {
		if a.Features&h.f != 0 && !h.ok {
			return &ir.UnsupportedError{Target: target + " on " + d.info.Name, Feature: h.f.Name()}
		}
	}
	if err := d.fitsWorkgroup(a); err != nil {
		return err
	}
	if max := d.info.Limits.MaxStorageBuffersPerStage; max > 0 && len(a.Layout.Buffers) > max {
		return fmt.Errorf("backend: load %s: %d storage buffers exceed the device's %d", a.name(), len(a.Layout.Buffers), max)
	}
	return nil
}

// limitNames spells the workgroup limits as each driver's API names them.
var limitNames = map[string][2]string{
	"vulkan": {"maxComputeWorkGroupInvocations", "maxComputeWorkGroupSize"},
	"wgpu":   {"maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSize"},
}

// fitsWorkgroup checks the artifact's workgroup size against the device's
// limits. The language allows up to 1024 invocations (ir's limit); a device
// may allow fewer (WebGPU's default is 256, Vulkan guarantees 128), and a
// pipeline over the limit would fail inside the driver or, on wgpu, abort
// the process at submit. A zero limit is unknown and not checked.
func (d *Device) fitsWorkgroup(a *Artifact) error {
	w, lim := a.Layout.Workgroup, d.info.Limits
	names, ok := limitNames[d.info.Driver]
	if !ok {
		names = [2]string{"MaxInvocationsPerWorkgroup", "MaxWorkgroupSize"}
	}
	// An *ir.UnsupportedError, as for a missing feature: the kernel is
	// valid, this device cannot run it.
	target := d.info.Driver + " " + string(a.Target) + " on " + d.info.Name
	if total := w[0] * w[1] * w[2]; lim.MaxInvocationsPerWorkgroup > 0 && total > lim.MaxInvocationsPerWorkgroup {
		return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's workgroup size %dx%dx%d = %d invocations (the device's %s is %d)",
			a.name(), w[0], w[1], w[2], total, names[0], lim.MaxInvocationsPerWorkgroup)}
	}
	for i, n := range w {
		if max := lim.MaxWorkgroupSize[i]; max > 0 && n > max {
			return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's workgroup size %c = %d (the device's %s[%d] is %d)",
				a.name(), "xyz"[i], n, names[1], i, max)}
		}
	}
	return nil
}
