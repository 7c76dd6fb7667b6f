//go:build !js

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
	layout *wgpu.PipelineLayout
	params int64 // params block bytes; 0 when none
	nbufs  int
}

func (p *pipeline) Release() {} // released with the device (Close)

func (p *pipeline) release() {
	p.pipe.Release()
	p.layout.Release()
	p.bgl.Release()
}

// ShaderModule creates a shader module from WGSL text or SPIR-V words and
// returns naga's message on rejection. Exported within the driver for the
// golden-file validation test.
func (d *device) shaderModule(a *backend.Artifact) (*wgpu.ShaderModule, error) {
	switch a.Target {
	case backend.WGSL:
		m, err := d.dev.CreateShaderModule(&wgpu.ShaderModuleDescriptor{
			Label:          a.Layout.Kernel,
			WGSLDescriptor: &wgpu.ShaderModuleWGSLDescriptor{Code: string(a.Code)},
		})
		if err != nil {
			return nil, nagaError(err)
		}
		return m, nil
	case backend.SPIRV:
		return createSPIRVModule(d.dev, a.Layout.Kernel, a.Words)
	}
	return nil, fmt.Errorf("wgpu: unsupported target %s", a.Target)
}

// nagaError strips the binding's function prefix from a shader error.
func nagaError(err error) error {
	msg := strings.TrimPrefix(err.Error(), "wgpu.(*Device).CreateShaderModule(): ")
	return fmt.Errorf("naga: %s", msg)
}

func (d *device) NewPipeline(ctx context.Context, a *backend.Artifact) (backend.PipelineImpl, error) {
	mod, err := d.shaderModule(a)
	if err != nil {
		return nil, err
	}
	defer mod.Release()
	p, err := d.buildPipeline(a, mod, false)
	if err != nil && a.Target == backend.SPIRV && strings.Contains(err.Error(), "doesn't match the shader Storage") {
		// naga's SPIR-V front end reads NonWritable on a block member
		// (glslang's spelling) as read-write; retry with every storage
		// buffer read-write, which is what it then expects.
		p, err = d.buildPipeline(a, mod, true)
	}
	if err != nil {
		return nil, err
	}
	d.pipes = append(d.pipes, p)
	return p, nil
}

// buildPipeline creates the bind-group layout, pipeline layout and compute
// pipeline; allWritable declares every storage buffer read-write.
func (d *device) buildPipeline(a *backend.Artifact, mod *wgpu.ShaderModule, allWritable bool) (*pipeline, error) {
	var entries []wgpu.BindGroupLayoutEntry
	if a.Layout.Params > 0 {
		entries = append(entries, wgpu.BindGroupLayoutEntry{
			Binding:    0,
			Visibility: wgpu.ShaderStageCompute,
			Buffer: wgpu.BufferBindingLayout{
				Type:             wgpu.BufferBindingTypeUniform,
				HasDynamicOffset: true,
				MinBindingSize:   uint64(a.Layout.Params),
			},
		})
	}
	for _, b := range a.Layout.Buffers {
		t := wgpu.BufferBindingTypeStorage
		if b.ReadOnly && !allWritable {
			t = wgpu.BufferBindingTypeReadOnlyStorage
		}
		entries = append(entries, wgpu.BindGroupLayoutEntry{
			Binding:    uint32(b.Binding),
			Visibility: wgpu.ShaderStageCompute,
			Buffer:     wgpu.BufferBindingLayout{Type: t},
		})
	}
	bgl, err := d.dev.CreateBindGroupLayout(&wgpu.BindGroupLayoutDescriptor{Entries: entries})
	if err != nil {
		return nil, err
	}
	pl, err := d.dev.CreatePipelineLayout(&wgpu.PipelineLayoutDescriptor{BindGroupLayouts: []*wgpu.BindGroupLayout{bgl}})
	if err != nil {
		bgl.Release()
		return nil, err
	}
	cp, err := d.dev.CreateComputePipeline(&wgpu.ComputePipelineDescriptor{
		Label:   a.Layout.Kernel,
		Layout:  pl,
		Compute: wgpu.ProgrammableStageDescriptor{Module: mod, EntryPoint: a.Entry},
	})
	if err != nil {
		pl.Release()
		bgl.Release()
		return nil, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "wgpu.(*Device).CreateComputePipeline(): "))
	}
	return &pipeline{pipe: cp, bgl: bgl, layout: pl, params: int64(a.Layout.Params), nbufs: len(a.Layout.Buffers)}, nil
}
