package wgpu

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/kcgo/kc/backend"
)

// pipeline is a backend.PipelineImpl: the compute pipeline and its explicit
// bind-group layout (binding 0 the params uniform with a dynamic offset).
type pipeline struct {
	pipe   *wgpu.ComputePipeline
	bgl    *wgpu.BindGroupLayout
	params int64
}

func (p *pipeline) Release() {} // the browser collects it with the device

// NewPipeline compiles WGSL with the browser's compiler (Tint in Chromium)
// inside a validation error scope: a rejected shader comes back with the
// compiler's messages, a bad layout with the validation error.
func (d *device) NewPipeline(ctx context.Context, a *backend.Artifact) (backend.PipelineImpl, error) {
	if a.Target != backend.WGSL {
		return nil, fmt.Errorf("wgpu: the browser takes WGSL only, not %s", a.Target)
	}
	d.js.Call("pushErrorScope", "validation")
	p, perr := d.build(ctx, a)
	gpuErr, err := await(ctx, d.js.Call("popErrorScope"))
	switch {
	case perr != nil:
		return nil, perr
	case err != nil:
		return nil, fmt.Errorf("wgpu: %w", err)
	case gpuErr.Truthy():
		return nil, fmt.Errorf("wgpu: %s", gpuErr.Get("message").String())
	}
	return p, nil
}

func (d *device) build(ctx context.Context, a *backend.Artifact) (*pipeline, error) {
	mod, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
		Label:          a.Layout.Kernel,
		WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: string(a.Code)},
	})
	if err != nil {
		return nil, err
	}
	if err := compileErrors(ctx, mod); err != nil {
		return nil, err
	}
	var entries []wgpu.BindGroupLayoutEntry
	if a.Layout.Params > 0 {
		entries = append(entries, wgpu.BindGroupLayoutEntry{
			Binding:    0,
			Visibility: wgpu.ShaderStageCompute,
			Buffer:     wgpu.BufferBindingLayout{Type: wgpu.BufferBindingTypeUniform, HasDynamicOffset: true, MinBindingSize: uint64(a.Layout.Params)},
		})
	}
	for _, b := range a.Layout.Buffers {
		t := wgpu.BufferBindingTypeStorage
		if b.ReadOnly {
			t = wgpu.BufferBindingTypeReadOnlyStorage
		}
		entries = append(entries, wgpu.BindGroupLayoutEntry{Binding: uint32(b.Binding), Visibility: wgpu.ShaderStageCompute, Buffer: wgpu.BufferBindingLayout{Type: t}})
	}
	bgl, err := d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Entries: entries})
	if err != nil {
		return nil, err
	}
	pl, err := d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		return nil, err
	}
	cp, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Layout:  pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: a.Entry},
	})
	if err != nil {
		return nil, err
	}
	return &pipeline{pipe: cp, bgl: bgl, params: int64(a.Layout.Params)}, nil
}

// compileErrors returns the compiler's error messages for a shader module
// as one error ("wgsl:LINE:COL: error: MESSAGE" lines; Tint writes them in Chromium), or nil.
func compileErrors(ctx context.Context, mod *wgpu.ShaderModule) error {
	info, err := await(ctx, jsOf(mod).Call("getCompilationInfo"))
	if err != nil {
		return fmt.Errorf("wgpu: getCompilationInfo: %w", err)
	}
	var lines []string
	msgs := info.Get("messages")
	for i := 0; i < msgs.Length(); i++ {
		m := msgs.Index(i)
		if m.Get("type").String() != "error" {
			continue
		}
		lines = append(lines, fmt.Sprintf("wgsl:%d:%d: error: %s", m.Get("lineNum").Int(), m.Get("linePos").Int(), m.Get("message").String()))
	}
	if lines == nil {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}
