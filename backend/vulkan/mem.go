//go:build linux && cgo

package vulkan

import (
	"fmt"
	"unsafe"
)

// arena hands out zeroed C memory for the structures passed to Vulkan and
// frees it all at once. Vulkan structures point at each other (pNext chains,
// arrays of create infos), which cgo forbids for Go memory; in C memory they
// may point anywhere.
type arena struct{ ptrs []unsafe.Pointer }

// alloc returns n zeroed bytes.
func (a *arena) alloc(n uintptr) unsafe.Pointer {
	p := cAlloc(n)
	a.ptrs = append(a.ptrs, p)
	return p
}

// free releases everything the arena handed out.
func (a *arena) free() {
	for _, p := range a.ptrs {
		cFree(p)
	}
	a.ptrs = a.ptrs[:0]
}

// cstr copies s into the arena as a NUL-terminated string.
func (a *arena) cstr(s string) uintptr {
	p := a.alloc(uintptr(len(s) + 1))
	copy(unsafe.Slice((*byte)(p), len(s)), s)
	return uintptr(p)
}

// cstrs copies ss into the arena as an array of C strings.
func (a *arena) cstrs(ss []string) uintptr {
	if len(ss) == 0 {
		return 0
	}
	arr := unsafe.Slice((*uintptr)(a.alloc(uintptr(len(ss))*8)), len(ss))
	for i, s := range ss {
		arr[i] = a.cstr(s)
	}
	return uintptr(unsafe.Pointer(&arr[0]))
}

// bytes copies b into the arena.
func (a *arena) bytes(b []byte) uintptr {
	p := a.alloc(uintptr(len(b)))
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	return uintptr(p)
}

// allocator hands out zeroed C memory: an arena, or a scratch block.
type allocator interface {
	alloc(n uintptr) unsafe.Pointer
}

// scratch is one block of C memory, allocated once per device, that the
// hot recording paths (descriptor sets, copy commands) take their Vulkan
// structures from: a few bump allocations instead of a cgo calloc and free
// each (about a dozen cgo crossings per dispatch that binds a new set).
// Package backend serialises calls into a device, and no user of the
// scratch calls another, so one block serves; reset after each use.
type scratch struct {
	block      unsafe.Pointer
	size, used uintptr
	over       arena // what does not fit
}

const scratchSize = 64 << 10

func newScratch() *scratch { return &scratch{block: cAlloc(scratchSize), size: scratchSize} }

// alloc returns n zeroed bytes, 8-aligned.
func (s *scratch) alloc(n uintptr) unsafe.Pointer {
	n = (n + 7) &^ 7
	if n == 0 {
		n = 8
	}
	if s.used+n > s.size {
		return s.over.alloc(n)
	}
	p := unsafe.Add(s.block, s.used)
	s.used += n
	clear(unsafe.Slice((*byte)(p), n))
	return p
}

// reset gives everything back.
func (s *scratch) reset() {
	s.used = 0
	s.over.free()
}

func (s *scratch) destroy() {
	s.reset()
	cFree(s.block)
	s.block = nil
}

// newIn allocates a zeroed T in a's C memory.
func newIn[T any](a allocator) *T {
	var z T
	return (*T)(a.alloc(unsafe.Sizeof(z)))
}

// sliceIn allocates n zeroed Ts in a's C memory.
func sliceIn[T any](a allocator, n int) []T {
	if n == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(a.alloc(unsafe.Sizeof(z)*uintptr(n))), n)
}

// addr is the address of a C-memory object, as Vulkan wants it.
func addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// saddr is the address of the first element of a C-memory slice (0 if empty).
func saddr[T any](s []T) uintptr {
	if len(s) == 0 {
		return 0
	}
	return uintptr(unsafe.Pointer(&s[0]))
}

// cString reads a NUL-terminated fixed-size char array.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// Error is a failed Vulkan call.
type Error struct {
	Call   string // the Vulkan function, e.g. "vkCreateBuffer"
	Result int32  // its VkResult
}

func (e *Error) Error() string {
	name, ok := vkResultNames[e.Result]
	if !ok {
		name = "VkResult"
	}
	return fmt.Sprintf("vulkan: %s: %s (%d)", e.Call, name, e.Result)
}

// check turns a VkResult into an error naming the call.
func check(callName string, r int32) error {
	if r == 0 {
		return nil
	}
	return &Error{Call: callName, Result: r}
}

// unsafePointer converts a pointer to C memory for a header view.
func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
