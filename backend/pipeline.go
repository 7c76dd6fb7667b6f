package backend

import (
	"context"
	"fmt"
	"slices"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// Pipeline is a loaded kernel: a compute pipeline plus its binding layout.
// Pipelines live as long as the device; Device.Close releases them.
type Pipeline struct {
	dev    *Device
	impl   PipelineImpl
	layout ir.KernelReflection
	target Target
	name   string
}

// Layout returns the pipeline's binding layout: ir's reflection of the
// kernel (binding 0 the params block when it has scalar parameters, then
// the storage buffers in Buffers order).
func (p *Pipeline) Layout() ir.KernelReflection { return p.layout }

// Name is the kernel's .kc name.
func (p *Pipeline) Name() string { return p.name }

// Target is the artifact kind the pipeline was built from.
func (p *Pipeline) Target() Target { return p.target }

// Load builds a pipeline from an artifact holding one kernel (an emitter's
// output for one kernel, or Artifact.Only), or returns the cached one for
// an artifact with the same content hash and layout (Stats counts a compile
// or a cache hit). An artifact for a target the device does not accept, or
// needing a feature it lacks, is refused with an error; a compile error
// carries the driver's message.
func (d *Device) Load(ctx context.Context, a *emit.Artifact) (*Pipeline, error) {
	if a == nil || len(a.Entries) != 1 {
		n := 0
		if a != nil {
			n = len(a.Entries)
		}
		return nil, fmt.Errorf("backend: load: the artifact holds %d kernels; load one (emit.Artifact.Only)", n)
	}
	e := &a.Entries[0]
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	k := keyOf(a, e)
	if p, ok := d.pipes[k]; ok {
		d.stats.CacheHits++
		return p, nil
	}
	if err := d.canLoad(a, e); err != nil {
		return nil, err
	}
	impl, err := d.impl.NewPipeline(ctx, a)
	if err != nil {
		return nil, fmt.Errorf("backend: load %s: %w", e.Kernel, err)
	}
	d.stats.Compiles++
	p := &Pipeline{dev: d, impl: impl, layout: e.Reflection, target: a.Target, name: e.Kernel}
	d.pipes[k] = p
	return p, nil
}

func (d *Device) canLoad(a *emit.Artifact, e *emit.Entry) error {
	if !slices.Contains(d.info.Targets, a.Target) {
		return fmt.Errorf("backend: %s device %q does not accept %s artifacts (accepts %v)", d.info.Driver, d.info.Name, a.Target, d.info.Targets)
	}
	switch a.Target {
	case WGSL:
		if len(a.Code) == 0 {
			return fmt.Errorf("backend: load %s: empty WGSL code", e.Kernel)
		}
	case SPIRV:
		if len(a.Words) < 5 || a.Words[0] != 0x07230203 {
			return fmt.Errorf("backend: load %s: not a SPIR-V module (bad magic or header)", e.Kernel)
		}
	}
	if e.Name == "" {
		return fmt.Errorf("backend: load %s: no entry point", e.Kernel)
	}
	if n := e.Reflection.ParamsSize(); n%16 != 0 || n < 0 {
		return fmt.Errorf("backend: load %s: params block size %d is not a multiple of 16", e.Kernel, n)
	}
	target := d.info.Driver + " " + string(a.Target)
	feats := e.Reflection.FeatureSet()
	have := []struct {
		f  ir.Feature
		ok bool
	}{
		{ir.FeatureF16, d.info.F16},
		{ir.FeatureSubgroups, d.info.Subgroups},
		{ir.FeatureCoopMat, len(d.info.CoopMat) > 0},
		{ir.FeatureDot4Packed, d.info.IntegerDot},
		{ir.FeatureBF16, d.info.BF16},
		{ir.FeatureInt8, d.info.Int8},
		{ir.FeatureCoopMat2, d.info.CoopMat2 != nil && d.info.CoopMat2.WorkgroupScope},
	}
	for _, h := range have {
		if feats&h.f != 0 && !h.ok {
			return &ir.UnsupportedError{Target: target + " on " + d.info.Name, Feature: h.f.Name()}
		}
	}
	if feats&ir.FeatureCoopMat != 0 {
		if err := d.coopFlavorFits(a, e); err != nil {
			return err
		}
	}
	if err := d.coopTypes(target+" on "+d.info.Name, a, e); err != nil {
		return err
	}
	if err := d.fitsWorkgroup(a.Target, e); err != nil {
		return err
	}
	if feats&ir.FeatureCoopMat2 != 0 {
		if err := d.fitsCoopMat2(a.Target, e); err != nil {
			return err
		}
	}
	if err := d.fitsShared(a.Target, e); err != nil {
		return err
	}
	if max := d.info.Limits.MaxStorageBuffersPerStage; max > 0 && len(e.Reflection.Buffers) > max {
		return fmt.Errorf("backend: load %s: %d storage buffers exceed the device's %d", e.Kernel, len(e.Reflection.Buffers), max)
	}
	return nil
}

// limitNames spells the workgroup limits as each driver's API names them.
var limitNames = map[string][2]string{
	"vulkan": {"maxComputeWorkGroupInvocations", "maxComputeWorkGroupSize"},
	"wgpu":   {"maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSize"},
}

// sharedLimitNames spells the shared-memory limit as each driver's API
// names it.
var sharedLimitNames = map[string]string{
	"vulkan": "maxComputeSharedMemorySize",
	"wgpu":   "maxComputeWorkgroupStorageSize",
}

// fitsShared checks the kernel's shared memory against the device's limit.
// The language allows 256 KiB (ir's limit); devices allow far less (48 KiB
// on the H200's Vulkan, 32 KiB on lavapipe, 16 KiB by WebGPU's default),
// and a pipeline over the limit is undefined behaviour in Vulkan and a
// validation abort on wgpu. A zero limit is unknown and not checked.
func (d *Device) fitsShared(t Target, e *emit.Entry) error {
	max := d.info.Limits.MaxSharedMemory
	n := e.Reflection.SharedBytes()
	if max <= 0 || n <= max {
		return nil
	}
	name, ok := sharedLimitNames[d.info.Driver]
	if !ok {
		name = "MaxSharedMemory"
	}
	return &ir.UnsupportedError{Target: d.info.Driver + " " + string(t) + " on " + d.info.Name,
		Feature: fmt.Sprintf("kernel %s's %d bytes of shared memory (the device's %s is %d)", e.Kernel, n, name, max)}
}

// fitsCoopMat2 checks a kernel with workgroup-scope matrices against
// VK_NV_cooperative_matrix2's limits: the workgroup's invocations against
// cooperativeMatrixWorkgroupScopeMaxWorkgroupSize, and its shared memory
// against maxComputeSharedMemorySize less the driver's reserve
// (VUID-RuntimeSpirv-maxComputeSharedMemorySize-10168).
func (d *Device) fitsCoopMat2(t Target, e *emit.Entry) error {
	c := d.info.CoopMat2
	target := d.info.Driver + " " + string(t) + " on " + d.info.Name
	w := e.Reflection.Workgroup
	if total := w[0] * w[1] * w[2]; c.MaxWorkgroupSize > 0 && total > c.MaxWorkgroupSize {
		return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's workgroup of %d invocations with workgroup-scope cooperative matrices (cooperativeMatrixWorkgroupScopeMaxWorkgroupSize is %d)",
			e.Kernel, total, c.MaxWorkgroupSize)}
	}
	if max := d.info.Limits.MaxSharedMemory - c.ReservedShared; d.info.Limits.MaxSharedMemory > 0 && e.Reflection.SharedBytes() > max {
		return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's %d bytes of shared memory with workgroup-scope cooperative matrices (the device's maxComputeSharedMemorySize %d less the %d reserved for them)",
			e.Kernel, e.Reflection.SharedBytes(), d.info.Limits.MaxSharedMemory, c.ReservedShared)}
	}
	return nil
}

// fitsWorkgroup checks the artifact's workgroup size against the device's
// limits. The language allows up to 1024 invocations (ir's limit); a device
// may allow fewer (WebGPU's default is 256, Vulkan guarantees 128), and a
// pipeline over the limit would fail inside the driver or, on wgpu, abort
// the process at submit. A zero limit is unknown and not checked.
func (d *Device) fitsWorkgroup(t Target, e *emit.Entry) error {
	w, lim := e.Reflection.Workgroup, d.info.Limits
	names, ok := limitNames[d.info.Driver]
	if !ok {
		names = [2]string{"MaxInvocationsPerWorkgroup", "MaxWorkgroupSize"}
	}
	// An *ir.UnsupportedError, as for a missing feature: the kernel is
	// valid, this device cannot run it.
	target := d.info.Driver + " " + string(t) + " on " + d.info.Name
	if total := w[0] * w[1] * w[2]; lim.MaxInvocationsPerWorkgroup > 0 && total > lim.MaxInvocationsPerWorkgroup {
		return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's workgroup size %dx%dx%d = %d invocations (the device's %s is %d)",
			e.Kernel, w[0], w[1], w[2], total, names[0], lim.MaxInvocationsPerWorkgroup)}
	}
	for i, n := range w {
		if max := lim.MaxWorkgroupSize[i]; max > 0 && n > max {
			return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's workgroup size %c = %d (the device's %s[%d] is %d)",
				e.Kernel, "xyz"[i], n, names[1], i, max)}
		}
	}
	return nil
}
