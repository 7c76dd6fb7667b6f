//go:build linux && cgo

package vulkan

import "os"

// envQueue selects the queue family kc's device submits to. By default it
// is a compute-only family (no graphics bit) where the device has one with
// timestamps: NVIDIA exposes one beside its universal family, and on the
// H200 on 2026-12-01 a submit and fence round trip there was 1.5-2.5 µs
// shorter (a 1 MiB copy 9-11% faster, a one-dispatch graph 14%) with the
// same cost per dependent dispatch (docs/PERF.md). "universal" keeps the
// physical device's own choice (the first compute family, preferring
// timestamps), as does a device without a compute-only family (lavapipe).
const envQueue = "KC_VULKAN_QUEUE"

// queueFamilies reads p's queue families.
func queueFamilies(in *instance, p *physical) []vkQueueFamilyProperties {
	var a arena
	defer a.free()
	n := newIn[uint32](&a)
	call(in.fn.getQueueFamilyProperties, p.handle, addr(n), 0)
	if *n == 0 {
		return nil
	}
	fams := sliceIn[vkQueueFamilyProperties](&a, int(*n))
	call(in.fn.getQueueFamilyProperties, p.handle, addr(n), saddr(fams))
	return append([]vkQueueFamilyProperties(nil), fams[:*n]...)
}

// onFamily returns a copy of p that opens its queue in the first family
// whose flags include all of want and none of avoid, with timestamps, or
// false when p has none.
func onFamily(in *instance, p *physical, want, avoid uint32) (*physical, bool) {
	for i, f := range queueFamilies(in, p) {
		if f.queueFlags&want == want && f.queueFlags&avoid == 0 && f.queueCount > 0 && f.timestampValidBits > 0 {
			q := *p
			q.family, q.qfamily = i, f
			return &q, true
		}
	}
	return nil, false
}

// queueChoice applies KC_VULKAN_QUEUE to p.
func queueChoice(in *instance, p *physical) *physical {
	if os.Getenv(envQueue) != "universal" {
		if q, ok := onFamily(in, p, queueCompute, queueGraphics); ok {
			return q
		}
	}
	return p
}
