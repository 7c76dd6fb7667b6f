package backend

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// This file is the contract between package backend and a driver package
// (backend/wgpu, backend/vulkan). A driver is small on purpose: it creates
// buffers, pipelines and command encoders and submits them. Everything that
// every driver would otherwise repeat lives in package backend, above the
// driver: adapter choice and KC_DEVICE, the pipeline cache, buffer pooling
// and the persistent region, host-side bounds checks, dispatch scopes,
// readback batching, statistics and the timing oracle.
//
// Threading: package backend serialises every call into one DeviceImpl (and
// everything created from it) under one mutex, so a driver needs no locking
// of its own for calls made through these interfaces. Calls from different
// DeviceImpls may run concurrently.
//
// Errors: a driver never panics and never lets its GPU library abort the
// process on input that package backend has validated (see the guarantees on
// each method). Errors are returned as values; a lost device is reported by
// returning an error wrapping ErrDeviceLost from the call that notices it.

// Driver is a GPU API binding. A driver package registers one Driver value
// from its init function with Register, the way database/sql drivers do:
//
//	import _ "github.com/kcgo/kc/backend/wgpu"
type Driver interface {
	// Name is the driver's short lower-case name ("wgpu", "vulkan"). It
	// appears in AdapterInfo.Driver and in KC_DEVICE selectors, and orders
	// the drivers when adapters are numbered (by name, ascending).
	Name() string

	// Adapters lists every adapter this driver can open, in a stable order
	// (the same order on every call within a process). It is called by
	// backend.Adapters, possibly many times; a driver may cache the answer.
	// A driver whose system library is missing returns (nil, err) with an
	// error saying what is missing; package backend reports it and goes on
	// with the other drivers. The driver fills every field of AdapterInfo
	// except Index, which package backend assigns; DriverIndex must be the
	// position in the returned slice.
	Adapters(ctx context.Context) ([]AdapterInfo, error)

	// Open creates a device on the adapter at position index of the slice
	// Adapters returned. The device enables every optional capability the
	// adapter reports in its AdapterInfo (f16, subgroups, timestamps,
	// cooperative matrices), so artifacts that need them can be loaded.
	Open(ctx context.Context, index int) (DeviceImpl, error)
}

// DeviceImpl is an open logical device: the driver-level half of Device.
type DeviceImpl interface {
	// Info describes the adapter the device was opened on, with the same
	// contents as the AdapterInfo that Adapters returned for it.
	Info() AdapterInfo

	// NewBuffer creates a device-local storage buffer of size bytes, usable
	// as a storage binding (read-only or read-write), as the source and
	// destination of copies, and as the destination of WriteBuffer. Its
	// contents are zero. Package backend guarantees 0 < size <=
	// Limits.MaxBufferSize and size % 16 == 0.
	NewBuffer(size int64) (BufferImpl, error)

	// WriteBuffer copies data into b at byte offset off. It is ordered on the
	// device timeline after all work submitted before the call and before
	// all work submitted after it (WebGPU's queue.writeBuffer semantics); it
	// may return before the copy has happened (data may be reused by the
	// caller as soon as it returns). Package backend guarantees off % 4 ==
	// 0, len(data) % 4 == 0, len(data) > 0 and off+len(data) <= b's size,
	// and that no encoder that has recorded work using b is open (it flushes
	// first), so a driver may implement it as a staging copy submitted on
	// its own.
	WriteBuffer(b BufferImpl, off int64, data []byte) error

	// NewPipeline builds a compute pipeline from an artifact. The artifact's
	// Target is one of Info().Targets; its Layout describes the bindings the
	// code declares (binding 0 the params uniform block when Layout.Params >
	// 0, then the storage buffers in Layout.Buffers order). A compile or
	// validation error is returned as an error carrying the driver's or
	// compiler's message, never a crash. Package backend caches the result
	// by content and calls NewPipeline once per distinct artifact.
	NewPipeline(ctx context.Context, a *Artifact) (PipelineImpl, error)

	// NewEncoder starts recording a command buffer. Package backend keeps at
	// most one encoder open per device at a time.
	NewEncoder() (EncoderImpl, error)

	// Wait blocks until all submitted work has completed, or ctx is done.
	Wait(ctx context.Context) error

	// Close waits for submitted work and releases the device and everything
	// created from it that is still alive. Package backend calls it exactly
	// once, with no encoder open, after releasing what it holds.
	Close() error
}

// BufferImpl is a driver buffer.
type BufferImpl interface {
	// Size is the size in bytes it was created with.
	Size() int64
	// Release frees the buffer. Package backend calls it at most once, never
	// while an open encoder has recorded work that uses the buffer (it
	// submits first), but possibly while submitted work that uses it is
	// still executing: the driver must then defer freeing the memory until
	// that work has completed (wgpu does this itself; a Vulkan driver keeps
	// the buffer on a list freed when the submission's fence signals).
	Release()
}

// PipelineImpl is a driver compute pipeline (with its bind-group or
// descriptor-set layout and whatever per-pipeline caches the driver keeps).
type PipelineImpl interface {
	// Release frees the pipeline; called at most once, from Device.Close
	// after all work has completed.
	Release()
}

// Range is a byte range of a driver buffer.
type Range struct {
	Buf       BufferImpl
	Off, Size int64
	// Dst, in a read range given to EncoderImpl.Submit, is where the
	// caller wants the bytes (len == Size), or nil. A driver may write
	// them there and return Dst itself in Result.Reads; otherwise package
	// backend copies them.
	Dst []byte
}

// EncoderImpl records commands for one submission. Commands execute on the
// device in the order they were recorded, each seeing the memory effects of
// all earlier ones (the driver inserts whatever barriers that takes; wgpu
// does it itself, Vulkan needs a compute-to-compute/transfer barrier between
// commands that touch the same memory or simply between all of them).
// Recording should be cheap: a dispatch-heavy step records hundreds of
// dispatches per submission, and the goal is a few microseconds of CPU each.
type EncoderImpl interface {
	// Dispatch records one dispatch of p. params holds the bytes of the
	// params uniform block (len == the pipeline's Layout.Params; nil when
	// that is 0); params and bufs are valid only during the call (package
	// backend reuses them), so a driver copies what it keeps, and may pack
	// the params of many dispatches into one buffer it uploads at submit.
	// bufs[i] binds Layout.Buffers[i] (binding i+1). Package backend
	// guarantees: len(bufs) == len(Layout.Buffers); every range is inside its
	// buffer, has Size > 0, Off a multiple of
	// Limits.MinStorageBufferOffsetAlignment and Size <=
	// Limits.MaxStorageBufferBindingSize; a buffer bound read_write is not
	// also bound read-only in the same dispatch; each groups[i] is in
	// 1..Limits.MaxWorkgroupsPerDimension.
	Dispatch(p PipelineImpl, params []byte, bufs []Range, groups [3]uint32) error

	// Copy records a device-to-device copy of size bytes. Package backend
	// guarantees both ranges are inside their buffers, offsets and size are
	// multiples of 4, size > 0, and the ranges do not overlap when src and
	// dst are the same buffer.
	Copy(src BufferImpl, srcOff int64, dst BufferImpl, dstOff int64, size int64) error

	// Timestamp records a GPU timestamp after all previously recorded
	// commands and before all later ones, and returns its index among this
	// encoder's timestamps (0, 1, 2, ...). Only called when
	// Info().Timestamps is true; at most MaxTimestamps per encoder.
	Timestamp() (int, error)

	// Submit ends recording and submits the work. When reads is empty and
	// no timestamp was recorded it may return as soon as the work is queued.
	// Otherwise it appends copies of every read range to host-visible memory
	// after all recorded work, submits once, waits once (honouring ctx), and
	// returns the bytes of each range in order (Result.Reads) and the
	// timestamps in nanoseconds (Result.Timestamps, already scaled by the
	// timestamp period). Read ranges satisfy the Copy guarantees. The
	// encoder is not used after Submit, whatever it returns. An empty
	// encoder (nothing recorded) with reads is valid: it is how a readback
	// with nothing pending is done.
	Submit(ctx context.Context, reads []Range) (*Result, error)

	// Discard drops the recorded work without submitting it; the encoder is
	// not used afterwards. Called after a recording error.
	Discard()
}

// MaxTimestamps is the most timestamps package backend records into one
// encoder; a driver sizes its query pool for it.
const MaxTimestamps = 4096

// Result is what EncoderImpl.Submit returns.
type Result struct {
	Reads      [][]byte // one per read range, in order
	Timestamps []uint64 // nanoseconds, one per Timestamp call, in order
}

var (
	driversMu sync.Mutex
	drivers   = map[string]Driver{}
)

// Register makes a driver available to Adapters and Open. It is called from
// the driver package's init function; registering two drivers with the same
// name panics (a programming error, as in database/sql).
func Register(d Driver) {
	driversMu.Lock()
	defer driversMu.Unlock()
	if d == nil {
		panic("backend: Register driver is nil")
	}
	if _, dup := drivers[d.Name()]; dup {
		panic(fmt.Sprintf("backend: Register called twice for driver %q", d.Name()))
	}
	drivers[d.Name()] = d
}

// Drivers returns the names of the registered drivers, sorted.
func Drivers() []string {
	driversMu.Lock()
	defer driversMu.Unlock()
	names := make([]string, 0, len(drivers))
	for n := range drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func driverByName(name string) Driver {
	driversMu.Lock()
	defer driversMu.Unlock()
	return drivers[name]
}
