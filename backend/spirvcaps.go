package backend

import (
	"fmt"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// SPIR-V capabilities Load checks against the device.
const (
	capCooperativeMatrixNV  = 5357
	capCooperativeMatrixKHR = 6022
)

// spirvCaps lists the capabilities a SPIR-V module declares: its leading
// OpCapability instructions (the first section of every module).
func spirvCaps(words []uint32) map[uint32]bool {
	caps := map[uint32]bool{}
	for i := 5; i < len(words); {
		op, n := words[i]&0xffff, int(words[i]>>16)
		if op != 17 || n < 2 || i+n > len(words) { // OpCapability
			break
		}
		caps[words[i+1]] = true
		i += n
	}
	return caps
}

// coopFlavorFits checks a SPIR-V artifact's cooperative-matrix flavour
// against the device's: a KHR module on a device with only
// VK_NV_cooperative_matrix (or the reverse) would fail inside the driver.
func (d *Device) coopFlavorFits(a *emit.Artifact, e *emit.Entry) error {
	if a.Target != SPIRV {
		return nil
	}
	caps := spirvCaps(a.Words)
	khr, nv := coopFlavors(d.info)
	target := d.info.Driver + " " + string(a.Target) + " on " + d.info.Name
	switch {
	case caps[capCooperativeMatrixKHR] && !khr:
		return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's SPV_KHR_cooperative_matrix (the device has only VK_NV_cooperative_matrix: emit with -coopmat nv, or load through LoadIR)", e.Kernel)}
	case caps[capCooperativeMatrixNV] && !nv:
		return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's SPV_NV_cooperative_matrix (the device has only VK_KHR_cooperative_matrix: emit with -coopmat khr, or load through LoadIR)", e.Kernel)}
	}
	return nil
}
