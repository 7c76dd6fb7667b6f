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
// target; flavor is the SPIR-V cooperative-matrix flavour.
var emitters = map[Target]func(m *ir.Module, k *ir.Kernel, flavor spirv.CoopMatFlavor) (*emit.Artifact, error){
	WGSL: func(m *ir.Module, k *ir.Kernel, _ spirv.CoopMatFlavor) (*emit.Artifact, error) {
		return wgsl.Emit(m, wgsl.Options{Kernel: k.Name})
	},
	SPIRV: func(m *ir.Module, k *ir.Kernel, flavor spirv.CoopMatFlavor) (*emit.Artifact, error) {
		return spirv.Emit(m, spirv.Options{Kernel: k.Name, CoopMat: flavor})
	},
}

// Emit lowers kernel of the checked module m to an artifact for target,
// holding that kernel only. Cooperative matrices in SPIR-V take the KHR
// flavour; EmitFor picks the flavour a device has.
func Emit(m *ir.Module, kernel string, target Target) (*emit.Artifact, error) {
	k, err := emitKernel(m, kernel, target)
	if err != nil {
		return nil, err
	}
	return emitters[target](m, k, spirv.CoopMatKHR)
}

// EmitFor is Emit for the device a describes: a SPIR-V kernel with
// cooperative matrices gets SPV_KHR_cooperative_matrix when the device
// offers VK_KHR_cooperative_matrix shapes, else SPV_NV_cooperative_matrix
// when it offers VK_NV_cooperative_matrix ones, and on a device with
// neither an *ir.UnsupportedError naming the feature and the device.
func EmitFor(m *ir.Module, kernel string, target Target, a AdapterInfo) (*emit.Artifact, error) {
	k, err := emitKernel(m, kernel, target)
	if err != nil {
		return nil, err
	}
	flavor := spirv.CoopMatKHR
	if target == SPIRV && k.Features&ir.FeatureCoopMat != 0 {
		if flavor, err = coopFlavor(k, a); err != nil {
			return nil, err
		}
	}
	return emitters[target](m, k, flavor)
}

// emitKernel finds kernel in m for Emit and EmitFor.
func emitKernel(m *ir.Module, kernel string, target Target) (*ir.Kernel, error) {
	if m == nil || !m.Checked {
		return nil, fmt.Errorf("backend: module is not checked")
	}
	k := m.Kernel(kernel)
	if k == nil {
		return nil, fmt.Errorf("backend: module %s has no kernel %q", m.File, kernel)
	}
	if emitters[target] == nil {
		return nil, fmt.Errorf("backend: no emitter for target %s", target)
	}
	return k, nil
}

// coopFlavor is the cooperative-matrix flavour of SPIR-V kernel k for the
// device a: KHR where the device has it (the flavour kc prefers: use-typed
// matrices, bf16, workgroup scope), NV where it has only that.
func coopFlavor(k *ir.Kernel, a AdapterInfo) (spirv.CoopMatFlavor, error) {
	khr, nv := coopFlavors(a)
	switch {
	case khr:
		return spirv.CoopMatKHR, nil
	case nv:
		return spirv.CoopMatNV, nil
	}
	return 0, &ir.UnsupportedError{Pos: k.FeatPos[ir.FeatureCoopMat], Target: a.Driver + " spirv on " + a.Name,
		Feature: "cooperative_matrix (the device has neither VK_KHR_cooperative_matrix nor VK_NV_cooperative_matrix)"}
}

// coopFlavors reports which cooperative-matrix extensions the device's
// subgroup-scope shapes come from.
func coopFlavors(a AdapterInfo) (khr, nv bool) {
	for _, s := range a.CoopMat {
		khr = khr || s.Flavor == "khr"
		nv = nv || s.Flavor == "nv"
	}
	return khr, nv
}

// LoadIR emits kernel of the checked module m for the device's preferred
// target that has an emitter (with the cooperative-matrix flavour the
// device has, as EmitFor), and loads it (through the pipeline cache).
func (d *Device) LoadIR(ctx context.Context, m *ir.Module, kernel string) (*Pipeline, error) {
	for _, t := range d.info.Targets {
		if emitters[t] == nil {
			continue
		}
		a, err := EmitFor(m, kernel, t, d.info)
		if err != nil {
			return nil, err
		}
		return d.Load(ctx, a)
	}
	return nil, fmt.Errorf("backend: no emitter for any target of %s device %q (%v)", d.info.Driver, d.info.Name, d.info.Targets)
}
