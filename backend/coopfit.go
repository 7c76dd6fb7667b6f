package backend

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// A cooperative-matrix type is valid on a device only where it matches
// one of the matrices of the device's reported properties in element
// type, scope, rows and columns (Vulkan's VUID-RuntimeSpirv-
// OpTypeCooperativeMatrixKHR-08974; with VK_NV_cooperative_matrix2's
// flexible dimensions, rows and columns multiples of an entry's
// granularity, and at workgroup scope a workgroup of the entry's
// invocations). A module breaking that fails inside the driver, or not at
// all and computes garbage, so the backend checks it before loading.
//
// kc's use decides the role: an `a` matrix must be an entry's A (M x K),
// a `b` matrix its B (K x N). An accumulator must have an entry's M x N
// and one of its types: C and Result, and also A and B, because kc
// converts the f32 accumulator to the output type before storing it (bf16
// on the H200, whose driver lists bf16 only as an input type, and runs
// the conversion).

// coopTypeNames spells kc's element types as CoopMatShape does, where
// they differ.
var coopTypeNames = map[string]string{"i8": "s8", "i32": "s32"}

// coopUseNames names the matrices of each use in messages.
var coopUseNames = map[string]string{"a": "A", "b": "B", "acc": "accumulator"}

// coopRole is the shape of the matrix of one use in an entry, and the
// element types it may have there.
func coopRole(s CoopMatShape, use string) (rows, cols int, types []string) {
	switch use {
	case "a":
		return s.M, s.K, []string{s.A}
	case "b":
		return s.K, s.N, []string{s.B}
	}
	return s.M, s.N, []string{s.C, s.Result, s.A, s.B}
}

// coopOffers reports whether entry s has matrix c: its element type and
// its shape at its use, exactly or, flexible, as multiples of s's
// granularity (at most maxDim a side when maxDim > 0).
func coopOffers(s CoopMatShape, c ir.CoopMatReflection, flexible bool, maxDim int) bool {
	rows, cols, types := coopRole(s, c.Use)
	elem := c.Elem
	if n, ok := coopTypeNames[elem]; ok {
		elem = n
	}
	if !slices.Contains(types, elem) || rows < 1 || cols < 1 {
		return false
	}
	if !flexible {
		return c.Rows == rows && c.Cols == cols
	}
	return c.Rows%rows == 0 && c.Cols%cols == 0 && (maxDim <= 0 || c.Rows <= maxDim && c.Cols <= maxDim)
}

// coopEntries lists the entries a matrix at scope may match on device a,
// from a module of flavor ("khr", "nv"; "" for any): the fixed ones (of
// that flavor) and, with cooperative_matrix2's flexible dimensions, the
// flexible ones; at workgroup scope only those of invocations.
func coopEntries(a AdapterInfo, scope, flavor string, invocations int) (fixed, flex []CoopMatShape) {
	for _, s := range a.CoopMat {
		if (s.Scope == scope || s.Scope == "" && scope == "subgroup") && (flavor == "" || s.Flavor == flavor) {
			fixed = append(fixed, s)
		}
	}
	if c := a.CoopMat2; c != nil {
		for _, s := range c.Flexible {
			if s.Scope == scope && (scope != "workgroup" || s.Invocations == 0 || s.Invocations == invocations) {
				if c.FlexibleDimensions {
					flex = append(flex, s)
				} else {
					fixed = append(fixed, s)
				}
			}
		}
	}
	return fixed, flex
}

// coopMatFits reports whether device a offers cooperative matrix c in a
// kernel of invocations invocations (a module of flavor, "" for any); when
// it does not, why not: the matrices of c's use and scope it has.
func coopMatFits(a AdapterInfo, c ir.CoopMatReflection, flavor string, invocations int) (bool, string) {
	fixed, flex := coopEntries(a, c.Scope, flavor, invocations)
	maxDim := 0
	if a.CoopMat2 != nil {
		maxDim = a.CoopMat2.MaxDimension
	}
	var have []string
	for _, s := range fixed {
		if coopOffers(s, c, false, 0) {
			return true, ""
		}
		rows, cols, types := coopRole(s, c.Use)
		for _, t := range types[:min(len(types), 2)] {
			have = appendNew(have, fmt.Sprintf("%s %dx%d", t, rows, cols))
		}
	}
	for _, s := range flex {
		if coopOffers(s, c, true, maxDim) {
			return true, ""
		}
		rows, cols, types := coopRole(s, c.Use)
		for _, t := range types[:min(len(types), 2)] {
			have = appendNew(have, fmt.Sprintf("%s multiples of %dx%d", t, rows, cols))
		}
	}
	where := c.Scope + "-scope"
	if c.Scope == "workgroup" {
		where = fmt.Sprintf("workgroup-scope (for %d invocations)", invocations)
	}
	if len(have) == 0 {
		return false, fmt.Sprintf("the device reports no %s cooperative matrices", where)
	}
	return false, fmt.Sprintf("the device's %s %s matrices are %s", where, coopUseNames[c.Use], strings.Join(have, ", "))
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// moduleFlavor is the cooperative-matrix flavour of a SPIR-V artifact
// ("khr" or "nv"), "" for other targets (whose matrices may be either).
func moduleFlavor(a *emit.Artifact) string {
	if a.Target != SPIRV {
		return ""
	}
	caps := spirvCaps(a.Words)
	switch {
	case caps[capCooperativeMatrixKHR]:
		return "khr"
	case caps[capCooperativeMatrixNV]:
		return "nv"
	}
	return ""
}

// coopTypes checks each cooperative-matrix type of the artifact's kernel
// against the device's reported properties (coopMatFits).
func (d *Device) coopTypes(target string, a *emit.Artifact, e *emit.Entry) error {
	w := e.Reflection.Workgroup
	flavor := moduleFlavor(a)
	for _, c := range e.Reflection.CoopMats {
		if ok, why := coopMatFits(d.info, c, flavor, w[0]*w[1]*w[2]); !ok {
			return &ir.UnsupportedError{Target: target, Feature: fmt.Sprintf("kernel %s's cooperative matrix %s (%s)", e.Kernel, coopString(c), why)}
		}
	}
	return nil
}

// coopString spells a matrix type as .kc source does.
func coopString(c ir.CoopMatReflection) string {
	if c.Scope == "workgroup" {
		return fmt.Sprintf("coopmat<%s, %d, %d, %s, workgroup>", c.Elem, c.Rows, c.Cols, c.Use)
	}
	return fmt.Sprintf("coopmat<%s, %d, %d, %s>", c.Elem, c.Rows, c.Cols, c.Use)
}

// SupportsKernel reports whether adapter a can run kernel k of a checked
// module: it offers k's features (Supports) and each of its
// cooperative-matrix types, in element type and shape (as Load checks
// them); when it cannot, the error names what is missing and the device.
func SupportsKernel(a AdapterInfo, k *ir.Kernel) error {
	target := a.Driver + " on " + a.Name
	for _, f := range optionalFeatures {
		if k.Features&f != 0 && !Supports(a, f) {
			return &ir.UnsupportedError{Pos: k.FeatPos[f], Target: target, Feature: f.Name()}
		}
	}
	n := k.Size[0] * k.Size[1] * k.Size[2]
	for _, t := range k.Coops {
		c := ir.CoopMatReflection{Elem: t.Elem.String(), Rows: t.Rows, Cols: t.Cols, Use: t.Use.String(), Scope: t.Scope.String()}
		if ok, why := coopMatFits(a, c, "", n); !ok {
			return &ir.UnsupportedError{Pos: k.Pos, Target: target, Feature: fmt.Sprintf("kernel %s's cooperative matrix %s (%s)", k.Name, coopString(c), why)}
		}
	}
	return nil
}
