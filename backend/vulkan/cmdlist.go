//go:build linux && cgo

package vulkan

import (
	"fmt"
	"os"
	"unsafe"
)

// Batched recording. Each cgo call costs a Go-to-C transition (a few tens
// of nanoseconds, more when the runtime's scheduler state is contended),
// and recording a dispatch used to cost at least one, plus one per
// descriptor-set write, copy and barrier. The encoder instead appends each
// vkCmd* call (and vkUpdateDescriptorSets) as a fixed-size record to a
// list in C memory, with the structures the call points at copied into a
// C arena that lives until the list is replayed, and kc_run_cmds replays
// the whole list in one crossing. The list is flushed when it is full and
// before anything that needs the recorded commands in their command
// buffers: vkEndCommandBuffer (every submit, graph finish, discard), an
// immediate free of an object (deferFree), Close. Every batched call
// returns void, so no result is ever waited for. Records hold only C
// memory and handles (cgo's pointer rules: no Go pointers in C memory).

// cmdRec mirrors kc_cmd: a kind (the argument count of a plain call, or
// cmdDispatch / cmdBarrier), the function, its arguments.
type cmdRec struct {
	kind, fn uintptr
	a        [maxCmdArgs]uintptr
}

const (
	cmdListCap   = 512      // records per batch
	cmdArenaSize = 64 << 10 // bytes per arena chunk
	cmdArenaKeep = 4 << 20  // most bytes of arena kept across batches
)

// envBatch selects batched recording: "off" replays each record as soon as
// it is added (one crossing per command, as before batching), to measure
// what batching saves on a device (scripts/h200-runtime.sh).
const envBatch = "KC_VULKAN_BATCH"

// cmdList is a device's pending batch. Package backend serialises calls
// into a device, so it needs no lock.
type cmdList struct {
	recs   []cmdRec // C memory
	n      int      // records pending
	direct bool     // KC_VULKAN_BATCH=off: flush after every record

	// The arena: chunks of C memory that never move while a batch is
	// pending (pointers into them are in the records). The last chunk is
	// being filled up to used; a batch that overflows the first chunk gets
	// new ones, and its flush merges them into one chunk of their total
	// size (up to cmdArenaKeep), so the next such batch fits in one.
	chunks    []unsafe.Pointer
	sizes     []uintptr
	used      uintptr
	chunkSize uintptr

	flushes int // batches replayed (a test counter)
}

// newCmdList allocates a list of capacity records with arena chunks of
// chunk bytes (tests pass tiny ones to exercise flushing and growth).
func newCmdList(capacity int, chunk uintptr) *cmdList {
	recs := unsafe.Slice((*cmdRec)(cAlloc(uintptr(capacity)*unsafe.Sizeof(cmdRec{}))), capacity)
	return &cmdList{recs: recs, chunkSize: chunk, direct: os.Getenv(envBatch) == "off"}
}

// reserve makes room for one more record without a flush in between: call
// it before taking arena memory for a record (a flush resets the arena).
func (l *cmdList) reserve() {
	if l.n == len(l.recs) {
		l.flush()
	}
}

// push appends a call of fn with args (kind: cmdDispatch, cmdBarrier, or
// the argument count for a plain call).
func (l *cmdList) push(kind, fn uintptr, args ...uintptr) {
	// kc_run_cmds has a trampoline for 0-8, 10 and 11 arguments (no
	// Vulkan command kc batches takes 9).
	if len(args) > maxCmdArgs || (kind <= maxCmdArgs && (kind != uintptr(len(args)) || kind == 9)) {
		panic(fmt.Sprintf("vulkan: no batched call of kind %d with %d arguments", kind, len(args)))
	}
	l.reserve()
	r := &l.recs[l.n]
	r.kind, r.fn = kind, fn
	copy(r.a[:], args)
	l.n++
	if l.direct {
		l.flush()
	}
}

// call appends a plain call of fn.
func (l *cmdList) call(fn uintptr, args ...uintptr) { l.push(uintptr(len(args)), fn, args...) }

// dispatch appends kc_dispatch: a barrier of the given kind, the pipeline
// and set binds when they are non-zero (dyn: the set has a dynamic uniform
// buffer, bound at dynOff), vkCmdDispatch(x, y, z).
func (l *cmdList) dispatch(fns *cmdFns, cmd uintptr, barrier int, pipeline, layout, set uintptr, dyn bool, dynOff uint32, x, y, z uint32) {
	d := uintptr(0)
	if dyn {
		d = 1
	}
	l.push(cmdDispatch, uintptr(unsafe.Pointer(fns)), cmd, uintptr(barrier), pipeline, layout, set, d, uintptr(dynOff), uintptr(x), uintptr(y), uintptr(z))
}

// barrier appends kc_barrier.
func (l *cmdList) barrier(fns *cmdFns, cmd uintptr) {
	l.push(cmdBarrier, uintptr(fns.barrier), cmd)
}

// alloc returns n zeroed, 8-aligned bytes of the arena, valid until the
// next flush (implements allocator).
func (l *cmdList) alloc(n uintptr) unsafe.Pointer {
	n = max((n+7)&^7, 8)
	last := len(l.chunks) - 1
	if last < 0 || l.used+n > l.sizes[last] {
		l.grow(max(l.chunkSize, n))
		last = len(l.chunks) - 1
	}
	p := unsafe.Add(l.chunks[last], l.used)
	l.used += n
	clear(unsafe.Slice((*byte)(p), n))
	return p
}

// grow adds a chunk of size bytes.
func (l *cmdList) grow(size uintptr) {
	l.chunks = append(l.chunks, cAlloc(size))
	l.sizes = append(l.sizes, size)
	l.used = 0
}

// resetArena makes the arena empty, merging its chunks into one when the
// batch needed more than one.
func (l *cmdList) resetArena() {
	l.used = 0
	if len(l.chunks) <= 1 {
		return
	}
	var total uintptr
	for i, c := range l.chunks {
		total += l.sizes[i]
		cFree(c)
	}
	l.chunks, l.sizes = l.chunks[:0], l.sizes[:0]
	l.grow(max(l.chunkSize, min(total, cmdArenaKeep)))
}

// flush replays the pending records into their command buffers and
// resets the arena.
func (l *cmdList) flush() {
	if l.n > 0 {
		runCmds(&l.recs[0], l.n)
		l.n = 0
		l.flushes++
	}
	l.resetArena()
}

// destroy frees the list's C memory; pending records are replayed first.
func (l *cmdList) destroy() {
	l.flush()
	for _, c := range l.chunks {
		cFree(c)
	}
	l.chunks, l.sizes = nil, nil
	cFree(unsafe.Pointer(&l.recs[0]))
	l.recs = nil
}

// end flushes the batch and ends f's command buffer.
func (d *device) end(cmd uintptr) int32 {
	d.cmds.flush()
	return call(d.l.fn.EndCommandBuffer, cmd)
}
