// Package precompiled runs kernels that `kc gen` compiled ahead of time.
// A generated file holds one Kernel per .kc kernel, carrying its artifacts
// for every target (WGSL text, SPIR-V words, HLSL text, each with its entry
// point as emitted) and its reflection, and a typed launcher function that
// calls Kernel.Dispatch. Kernel.Artifact gives the emitters' record
// (emit.Artifact) back for the backend to load.
//
// A Kernel loads its pipeline once per device, from the artifact the device
// prefers (backend.AdapterInfo.Targets order), and records dispatches into
// the device's current scope (backend.Device.Begin/End), so launchers
// compose into one submission like any other dispatch.
package precompiled

import (
	"context"
	"fmt"
	"sync"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// Kernel is one precompiled kernel. Its exported fields are set by generated
// code and must not change after first use.
type Kernel struct {
	Name   string // the .kc kernel name
	Source string // where it was declared: file:line:col
	Spec   string // the compile-time constants it was built with ("TILE=16")
	// Reflection is ir's record of the kernel: bindings, params block,
	// workgroup size, features.
	Reflection ir.KernelReflection
	// Per target: the code ("" or nil when the target cannot express the
	// kernel) and its entry point as emitted, which differs from Name where
	// Name is a keyword or reserved word of the target ("" means Name).
	WGSL       string
	WGSLEntry  string
	SPIRV      []uint32
	SPIRVEntry string
	HLSL       string // for hosts that compile it with dxc themselves
	HLSLEntry  string

	mu    sync.Mutex
	pipes map[*backend.Device]*backend.Pipeline
}

// Artifact returns the kernel's artifact for target t, or false when the
// kernel carries none.
func (k *Kernel) Artifact(t emit.Target) (*emit.Artifact, bool) {
	a := &emit.Artifact{Target: t}
	var entry string
	switch t {
	case emit.WGSL:
		a.Code, entry = []byte(k.WGSL), k.WGSLEntry
	case emit.SPIRV:
		a.Words, entry = k.SPIRV, k.SPIRVEntry
	case emit.HLSL:
		a.Code, entry = []byte(k.HLSL), k.HLSLEntry
	default:
		return nil, false
	}
	if len(a.Code) == 0 && len(a.Words) == 0 {
		return nil, false
	}
	if entry == "" {
		entry = k.Name
	}
	a.Entries = []emit.Entry{{Kernel: k.Name, Name: entry, Reflection: k.Reflection}}
	return a, true
}

// Pipeline returns the kernel's pipeline on dev, loading it on first use
// from the first of the device's targets the kernel has an artifact for.
func (k *Kernel) Pipeline(ctx context.Context, dev *backend.Device) (*backend.Pipeline, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.pipes[dev]; ok {
		return p, nil
	}
	info := dev.Info()
	for _, t := range info.Targets {
		a, ok := k.Artifact(t)
		if !ok {
			continue
		}
		p, err := dev.Load(ctx, a)
		if err != nil {
			return nil, fmt.Errorf("kernel %s (%s): %w", k.Name, k.Source, err)
		}
		if k.pipes == nil {
			k.pipes = map[*backend.Device]*backend.Pipeline{}
		}
		k.pipes[dev] = p
		return p, nil
	}
	return nil, fmt.Errorf("kernel %s (%s): no artifact for any target of device %q (%v)", k.Name, k.Source, info.Name, info.Targets)
}

// Forget drops the pipeline cached for dev; call it after closing a device
// that the program does not use again.
func (k *Kernel) Forget(dev *backend.Device) {
	k.mu.Lock()
	delete(k.pipes, dev)
	k.mu.Unlock()
}

// Dispatch loads the kernel on dev if needed and records one dispatch over
// groups workgroups into dev's current scope.
func (k *Kernel) Dispatch(ctx context.Context, dev *backend.Device, args backend.Args, groups [3]uint32) error {
	p, err := k.Pipeline(ctx, dev)
	if err != nil {
		return err
	}
	return dev.Dispatch(p, args, groups)
}
