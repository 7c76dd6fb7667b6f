//go:build linux && cgo

package vulkan

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Every Vulkan entry point kc calls takes only integer-class arguments
// (handles, 32- and 64-bit integers, pointers), so on the 64-bit Linux ABIs
// (x86-64 System V, AAPCS64) one trampoline per arity, with every argument
// widened to uintptr_t, calls any of them. The result is the VkResult (or
// garbage for void functions, which the Go side ignores).
typedef uintptr_t U;
typedef int32_t (*kc_fn0)(void);
typedef int32_t (*kc_fn1)(U);
typedef int32_t (*kc_fn2)(U, U);
typedef int32_t (*kc_fn3)(U, U, U);
typedef int32_t (*kc_fn4)(U, U, U, U);
typedef int32_t (*kc_fn5)(U, U, U, U, U);
typedef int32_t (*kc_fn6)(U, U, U, U, U, U);
typedef int32_t (*kc_fn7)(U, U, U, U, U, U, U);
typedef int32_t (*kc_fn8)(U, U, U, U, U, U, U, U);
typedef int32_t (*kc_fn10)(U, U, U, U, U, U, U, U, U, U);
typedef int32_t (*kc_fn11)(U, U, U, U, U, U, U, U, U, U, U);
typedef U (*kc_fnp2)(U, U);

static int32_t kc_call0(U f) { return ((kc_fn0)f)(); }
static int32_t kc_call1(U f, U a) { return ((kc_fn1)f)(a); }
static int32_t kc_call2(U f, U a, U b) { return ((kc_fn2)f)(a, b); }
static int32_t kc_call3(U f, U a, U b, U c) { return ((kc_fn3)f)(a, b, c); }
static int32_t kc_call4(U f, U a, U b, U c, U d) { return ((kc_fn4)f)(a, b, c, d); }
static int32_t kc_call5(U f, U a, U b, U c, U d, U e) { return ((kc_fn5)f)(a, b, c, d, e); }
static int32_t kc_call6(U f, U a, U b, U c, U d, U e, U g) { return ((kc_fn6)f)(a, b, c, d, e, g); }
static int32_t kc_call7(U f, U a, U b, U c, U d, U e, U g, U h) { return ((kc_fn7)f)(a, b, c, d, e, g, h); }
static int32_t kc_call8(U f, U a, U b, U c, U d, U e, U g, U h, U i) { return ((kc_fn8)f)(a, b, c, d, e, g, h, i); }
static int32_t kc_call10(U f, U a, U b, U c, U d, U e, U g, U h, U i, U j, U k) { return ((kc_fn10)f)(a, b, c, d, e, g, h, i, j, k); }
static int32_t kc_call11(U f, U a, U b, U c, U d, U e, U g, U h, U i, U j, U k, U m) { return ((kc_fn11)f)(a, b, c, d, e, g, h, i, j, k, m); }
static U kc_callp2(U f, U a, U b) { return ((kc_fnp2)f)(a, b); }

// kc_dispatch records one compute dispatch: an optional barrier against
// every earlier command, the pipeline and descriptor-set binds when they
// changed (with one dynamic uniform offset when dyn is set), and
// vkCmdDispatch. One cgo crossing per dispatch keeps recording cheap.
typedef struct {
	U barrier, bindPipeline, bindSets, dispatch;
	U barrier2; // vkCmdPipelineBarrier2 for compute-to-compute barriers, or 0
} kc_cmdfns;

typedef struct {
	uint32_t sType; uint32_t pad; U pNext; uint32_t src, dst;
} kc_membarrier;

// kc_barrier makes the writes of every earlier compute or transfer command
// visible to every later one (VK_STRUCTURE_TYPE_MEMORY_BARRIER; stages
// COMPUTE_SHADER|TRANSFER on both sides; SHADER_WRITE|TRANSFER_WRITE ->
// UNIFORM_READ|SHADER_READ|SHADER_WRITE|TRANSFER_READ|TRANSFER_WRITE).
static void kc_barrier(U fn, U cmd) {
	kc_membarrier mb = {46, 0, 0, 0x40 | 0x1000, 0x8 | 0x20 | 0x40 | 0x800 | 0x1000};
	((kc_fn10)fn)(cmd, 0x800 | 0x1000, 0x800 | 0x1000, 0, 1, (U)&mb, 0, 0, 0, 0);
}

// kc_computeBarrier orders a dispatch after the previous dispatch: compute
// shader writes to compute shader reads and writes. Much cheaper than
// kc_barrier where transfer stages are involved (lavapipe drains its queue
// for those).
static void kc_computeBarrier(U fn, U cmd) {
	kc_membarrier mb = {46, 0, 0, 0x40, 0x20 | 0x40};
	((kc_fn10)fn)(cmd, 0x800, 0x800, 0, 1, (U)&mb, 0, 0, 0, 0);
}

// kc_computeBarrier2 is kc_computeBarrier through synchronization2
// (VkMemoryBarrier2 in a VkDependencyInfo): COMPUTE_SHADER stage on both
// sides, SHADER_STORAGE_WRITE -> SHADER_STORAGE_READ|SHADER_STORAGE_WRITE.
typedef struct {
	uint32_t sType; uint32_t pad; U pNext;
	uint64_t srcStage, srcAccess, dstStage, dstAccess;
} kc_membarrier2;
typedef struct {
	uint32_t sType; uint32_t pad; U pNext;
	uint32_t flags, memoryBarrierCount; U pMemoryBarriers;
	uint32_t bufferCount, pad2; U pBuffers;
	uint32_t imageCount, pad3; U pImages;
} kc_depinfo;

static void kc_computeBarrier2(U fn, U cmd) {
	kc_membarrier2 mb = {1000314000, 0, 0, 0x800, 0x400000000ull, 0x800, 0x200000000ull | 0x400000000ull};
	kc_depinfo di = {1000314003, 0, 0, 0, 1, (U)&mb, 0, 0, 0, 0, 0, 0};
	((kc_fn2)fn)(cmd, (U)&di);
}

// barrier: 0 none, 1 kc_computeBarrier (or kc_computeBarrier2), 2 kc_barrier.
static void kc_dispatch(kc_cmdfns *fns, U cmd, int barrier, U pipeline, U layout, U set, int dyn, uint32_t dynOff, uint32_t x, uint32_t y, uint32_t z) {
	if (barrier == 1 && fns->barrier2) kc_computeBarrier2(fns->barrier2, cmd);
	else if (barrier == 1) kc_computeBarrier(fns->barrier, cmd);
	if (barrier == 2) kc_barrier(fns->barrier, cmd);
	if (pipeline) ((kc_fn3)fns->bindPipeline)(cmd, 1, pipeline);
	if (set) {
		U s = set;
		uint32_t off = dynOff;
		((kc_fn8)fns->bindSets)(cmd, 1, layout, 0, 1, (U)&s, dyn ? 1 : 0, dyn ? (U)&off : 0);
	}
	((kc_fn4)fns->dispatch)(cmd, x, y, z);
}

// kc_cmd is one command of a batch (cmdlist.go; Go mirrors it as cmdRec):
// kind 0..11 calls fn with that many arguments a[0..kind-1], KC_DISPATCH
// is kc_dispatch with fn the kc_cmdfns table and a[0..9] its arguments,
// KC_BARRIER is kc_barrier(fn, a[0]). Pointer arguments point into the
// batch's C arena, never into Go memory.
typedef struct { U kind, fn, a[11]; } kc_cmd;
enum { KC_DISPATCH = 12, KC_BARRIER = 13 };

// kc_run_cmds replays n batched commands in order: one cgo crossing for
// the whole batch instead of one per command.
static void kc_run_cmds(kc_cmd *c, int n) {
	for (int i = 0; i < n; i++, c++) {
		U f = c->fn, *a = c->a;
		switch (c->kind) {
		case 0: kc_call0(f); break;
		case 1: kc_call1(f, a[0]); break;
		case 2: kc_call2(f, a[0], a[1]); break;
		case 3: kc_call3(f, a[0], a[1], a[2]); break;
		case 4: kc_call4(f, a[0], a[1], a[2], a[3]); break;
		case 5: kc_call5(f, a[0], a[1], a[2], a[3], a[4]); break;
		case 6: kc_call6(f, a[0], a[1], a[2], a[3], a[4], a[5]); break;
		case 7: kc_call7(f, a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
		case 8: kc_call8(f, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
		case 10: kc_call10(f, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]); break;
		case 11: kc_call11(f, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]); break;
		case KC_DISPATCH:
			kc_dispatch((kc_cmdfns *)f, a[0], (int)a[1], a[2], a[3], a[4], (int)a[5], (uint32_t)a[6], (uint32_t)a[7], (uint32_t)a[8], (uint32_t)a[9]);
			break;
		case KC_BARRIER: kc_barrier(f, a[0]); break;
		}
	}
}

static size_t kc_cmd_size(void) { return sizeof(kc_cmd); }

// kc_open loads the Vulkan loader and returns vkGetInstanceProcAddr, or 0
// with *err set to dlerror's text.
static U kc_open(const char *name, void **handle, const char **err) {
	void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) { *err = dlerror(); return 0; }
	void *f = dlsym(h, "vkGetInstanceProcAddr");
	if (!f) { *err = dlerror(); dlclose(h); return 0; }
	*handle = h;
	return (U)f;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// loaderName is the shared object the driver loads at run time.
const loaderName = "libvulkan.so.1"

// openLoader dlopens the Vulkan loader (loaderName) and returns
// vkGetInstanceProcAddr.
func openLoader() (uintptr, error) { return openLib(loaderName) }

// openLib dlopens a Vulkan loader by name and returns vkGetInstanceProcAddr.
func openLib(lib string) (uintptr, error) {
	name := C.CString(lib)
	defer C.free(unsafe.Pointer(name))
	var h unsafe.Pointer
	var cerr *C.char
	f := C.kc_open(name, &h, &cerr)
	if f == 0 {
		msg := "not found"
		if cerr != nil {
			msg = C.GoString(cerr)
		}
		return 0, fmt.Errorf("vulkan: cannot load the Vulkan loader %s (install libvulkan1 and a Vulkan driver): %s", lib, msg)
	}
	return uintptr(f), nil
}

// call invokes a Vulkan entry point with integer-class arguments and
// returns its VkResult (meaningless for void functions).
func call(fn uintptr, a ...uintptr) int32 {
	u := func(i int) C.U { return C.U(a[i]) }
	f := C.U(fn)
	switch len(a) {
	case 0:
		return int32(C.kc_call0(f))
	case 1:
		return int32(C.kc_call1(f, u(0)))
	case 2:
		return int32(C.kc_call2(f, u(0), u(1)))
	case 3:
		return int32(C.kc_call3(f, u(0), u(1), u(2)))
	case 4:
		return int32(C.kc_call4(f, u(0), u(1), u(2), u(3)))
	case 5:
		return int32(C.kc_call5(f, u(0), u(1), u(2), u(3), u(4)))
	case 6:
		return int32(C.kc_call6(f, u(0), u(1), u(2), u(3), u(4), u(5)))
	case 7:
		return int32(C.kc_call7(f, u(0), u(1), u(2), u(3), u(4), u(5), u(6)))
	case 8:
		return int32(C.kc_call8(f, u(0), u(1), u(2), u(3), u(4), u(5), u(6), u(7)))
	case 10:
		return int32(C.kc_call10(f, u(0), u(1), u(2), u(3), u(4), u(5), u(6), u(7), u(8), u(9)))
	case 11:
		return int32(C.kc_call11(f, u(0), u(1), u(2), u(3), u(4), u(5), u(6), u(7), u(8), u(9), u(10)))
	}
	panic(fmt.Sprintf("vulkan: no trampoline for %d arguments", len(a)))
}

// procAddr calls a vkGet*ProcAddr-style function (two arguments, pointer
// result).
func procAddr(getter, handle uintptr, name string) uintptr {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return uintptr(C.kc_callp2(C.U(getter), C.U(handle), C.U(uintptr(unsafe.Pointer(cs)))))
}

// cmdFns is the C-side table of the entry points kc_dispatch uses.
type cmdFns = C.kc_cmdfns

// newCmdFns allocates the table in C memory (it is passed to C on every
// dispatch, so it must not live in Go memory).
func newCmdFns(barrier, bindPipeline, bindSets, dispatch uintptr) *cmdFns {
	p := (*cmdFns)(C.calloc(1, C.size_t(unsafe.Sizeof(cmdFns{}))))
	p.barrier = C.U(barrier)
	p.bindPipeline = C.U(bindPipeline)
	p.bindSets = C.U(bindSets)
	p.dispatch = C.U(dispatch)
	return p
}

func freeCmdFns(p *cmdFns) { C.free(unsafe.Pointer(p)) }

// setBarrier2 makes kc_dispatch record compute-to-compute barriers through
// vkCmdPipelineBarrier2 (fn), or through vkCmdPipelineBarrier when fn is 0.
func setBarrier2(p *cmdFns, fn uintptr) { p.barrier2 = C.U(fn) }

// Barrier kinds for cmdList.dispatch.
const (
	barrierNone    = 0
	barrierCompute = 1 // after a dispatch
	barrierFull    = 2 // after a transfer, or first in a frame
)

// Command kinds of a batch beyond the plain calls (kind = argument count).
const (
	cmdDispatch = C.KC_DISPATCH
	cmdBarrier  = C.KC_BARRIER
	maxCmdArgs  = 11
)

// runCmds replays n commands of a batch through kc_run_cmds.
func runCmds(recs *cmdRec, n int) { C.kc_run_cmds((*C.kc_cmd)(unsafe.Pointer(recs)), C.int(n)) }

// cmdRecSize is C's sizeof(kc_cmd), for the layout test.
func cmdRecSize() uintptr { return uintptr(C.kc_cmd_size()) }

// recordBarrier records kc_barrier.
func recordBarrier(f *cmdFns, cmd uintptr) { C.kc_barrier(f.barrier, C.U(cmd)) }

// cAlloc returns n zeroed bytes of C memory.
func cAlloc(n uintptr) unsafe.Pointer {
	if n == 0 {
		n = 1
	}
	return C.calloc(1, C.size_t(n))
}

// cFree releases memory from cAlloc.
func cFree(p unsafe.Pointer) { C.free(p) }
