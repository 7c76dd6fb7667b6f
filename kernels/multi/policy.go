package multi

import (
	"slices"
	"strings"

	"github.com/kcgo/kc/backend"
)

// Policy says which adapters a Group uses. The zero Policy accepts every
// adapter of every driver; each set field narrows the choice, and an
// adapter must pass them all.
type Policy struct {
	// Drivers keeps adapters of these drivers only ("vulkan", "wgpu").
	Drivers []string
	// Types keeps adapters of these types only (Discrete: {TypeDiscrete}).
	Types []backend.DeviceType
	// APIs keeps adapters whose API starts with one of these ("Vulkan":
	// leaves out wgpu's OpenGL adapters).
	APIs []string
	// Name keeps adapters whose name or driver info contains the text
	// (case-insensitive): "H200", "llvmpipe".
	Name string
	// Accept, when set, is asked last.
	Accept func(backend.AdapterInfo) bool
}

// Discrete is the policy of discrete GPUs only, through the Vulkan driver:
// what a host with several GPUs should use (without it, a multi-GPU
// Vulkan host also offers each GPU a second time through wgpu).
var Discrete = Policy{Drivers: []string{"vulkan"}, Types: []backend.DeviceType{backend.TypeDiscrete}}

// Accepts reports whether p keeps the adapter.
func (p Policy) Accepts(a backend.AdapterInfo) bool {
	if len(p.Drivers) > 0 && !slices.Contains(p.Drivers, a.Driver) {
		return false
	}
	if len(p.Types) > 0 && !slices.Contains(p.Types, a.Type) {
		return false
	}
	if len(p.APIs) > 0 && !slices.ContainsFunc(p.APIs, func(api string) bool { return strings.HasPrefix(a.API, api) }) {
		return false
	}
	if p.Name != "" {
		low := strings.ToLower(p.Name)
		if !strings.Contains(strings.ToLower(a.Name), low) && !strings.Contains(strings.ToLower(a.DriverInfo), low) {
			return false
		}
	}
	return p.Accept == nil || p.Accept(a)
}

// Filter returns the adapters of as that p accepts, in order.
func (p Policy) Filter(as []backend.AdapterInfo) []backend.AdapterInfo {
	var out []backend.AdapterInfo
	for _, a := range as {
		if p.Accepts(a) {
			out = append(out, a)
		}
	}
	return out
}
