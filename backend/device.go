package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// ErrClosed is returned by every method of a closed Device.
var ErrClosed = errors.New("backend: device is closed")

// ErrDeviceLost is wrapped by errors a driver returns once its device is
// lost; the Device is unusable afterwards.
var ErrDeviceLost = errors.New("backend: device lost")

// Device is an open GPU device: the API kernels, buffers and dispatches go
// through. Its methods are safe for concurrent use; they are serialised by
// one mutex, and the dispatch scope (Begin/End) belongs to the device, not
// to a goroutine.
type Device struct {
	mu     sync.Mutex
	impl   DeviceImpl
	info   AdapterInfo
	closed bool

	// Recording state.
	depth     int          // open scopes
	enc       EncoderImpl  // open encoder, or nil
	encGen    uint64       // generation of the open encoder (bumped per encoder)
	encUsed   bool         // enc has recorded commands
	scopeErr  error        // first recording error inside the open scopes
	deferred  []BufferImpl // releases waiting for enc to be submitted
	encStamps int          // timestamps recorded into enc
	timings   []pendingTiming

	// Early submits inside a scope (SetScopeFlush): the first chunk's
	// dispatches (0: none, one submit at the outermost End), the
	// dispatches in the open encoder, and the count at which it is
	// submitted next.
	flushFirst int
	encDisp    int
	flushNext  int

	pipes map[key]*Pipeline
	pool  map[int64][]pooledBuf // free pooled buffers by requested size
	live  map[*Buffer]struct{}  // buffers not yet released
	pers  persistent
	stats Stats

	// Scratch reused by Dispatch to keep recording allocation-free.
	params []byte
	ranges []Range
}

func newDevice(impl DeviceImpl, info AdapterInfo) *Device {
	return &Device{
		impl:       impl,
		info:       info,
		pipes:      map[key]*Pipeline{},
		pool:       map[int64][]pooledBuf{},
		live:       map[*Buffer]struct{}{},
		flushFirst: scopeFlushDefault(info),
	}
}

// EnvScopeFlush is the environment variable that sets a new device's
// SetScopeFlush (a count of dispatches; 0: one submit a scope).
const EnvScopeFlush = "KC_SCOPE_FLUSH"

// DefaultScopeFlush is the first early submit's dispatches in a scope on
// a GPU unless KC_SCOPE_FLUSH says otherwise. On the H200 (docs/PERF.md,
// "Decode attention: the host's recording in the wall time") a chain of
// 30 decode attentions over 32k keys recorded 14.8 µs an op while the
// GPU sat idle, all of it in the wall time; submitting the first 2 or 8
// dispatches early and then doubling chunks ran the chain at 77.8-78.8 µs
// an op against 97 (the GPU's own time 76.5). On a CPU device (lavapipe)
// the default is 0: there the device's threads and the recording share
// the cores, and early submits made the example decoder 25-30% slower on
// this project's 2-core machine.
const DefaultScopeFlush = 4

func scopeFlushDefault(info AdapterInfo) int {
	if v, ok := os.LookupEnv(EnvScopeFlush); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n
		}
	}
	if info.Type == TypeCPU {
		return 0
	}
	return DefaultScopeFlush
}

// Info describes the device's adapter.
func (d *Device) Info() AdapterInfo { return d.info }

// Stats returns a snapshot of the device's cumulative counters.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stats
}

// Pipelines returns the number of distinct pipelines in the cache.
func (d *Device) Pipelines() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.pipes)
}

// Close submits any recorded work, waits for the device to go idle and
// releases every pipeline and buffer of the device. Buffers and pipelines
// must not be used afterwards. Close is idempotent.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	var errs []error
	if d.enc != nil {
		errs = append(errs, d.submitLocked(context.Background()))
	}
	errs = append(errs, d.impl.Wait(context.Background()))
	d.closed = true
	for _, p := range d.pipes {
		p.impl.Release()
	}
	d.pipes = nil
	for _, bs := range d.pool {
		for _, b := range bs {
			b.impl.Release()
		}
	}
	d.pool = nil
	for b := range d.live {
		b.impl.Release()
		b.impl = nil
	}
	d.live = nil
	d.pers = persistent{}
	errs = append(errs, d.impl.Close())
	return errors.Join(errs...)
}

// Wait submits recorded work and blocks until the device has finished all
// work submitted so far, or ctx is done.
func (d *Device) Wait(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if err := d.flushLocked(ctx); err != nil {
		return err
	}
	return d.impl.Wait(ctx)
}

// encoder returns the open encoder, opening one if needed.
func (d *Device) encoder() (EncoderImpl, error) {
	if d.enc != nil {
		return d.enc, nil
	}
	e, err := d.impl.NewEncoder()
	if err != nil {
		return nil, err
	}
	d.enc = e
	d.encGen++
	d.encUsed = false
	d.encStamps = 0
	d.encDisp = 0
	return e, nil
}

// submitLocked submits the open encoder (there must be one) without reads.
func (d *Device) submitLocked(ctx context.Context) error {
	_, err := d.submitReads(ctx, nil)
	return err
}

// submitReads submits the open encoder, or a fresh one when none is open,
// with reads appended, then runs the deferred releases.
func (d *Device) submitReads(ctx context.Context, reads []Range) (*Result, error) {
	e, err := d.encoder()
	if err != nil {
		return nil, err
	}
	d.enc = nil
	res, err := e.Submit(ctx, reads)
	d.stats.Submits++
	if len(d.timings) > 0 {
		d.resolveTimings(d.encGen, res)
	}
	for _, b := range d.deferred {
		b.Release()
	}
	d.deferred = d.deferred[:0]
	if err != nil {
		return nil, fmt.Errorf("backend: submit: %w", err)
	}
	return res, nil
}

// flushLocked submits the open encoder if it has recorded anything.
func (d *Device) flushLocked(ctx context.Context) error {
	if d.enc == nil {
		return nil
	}
	if !d.encUsed && len(d.deferred) == 0 {
		return nil // keep the empty encoder for later
	}
	return d.submitLocked(ctx)
}

// failLocked records a recording error: the open encoder is discarded and
// the error is kept for the scope's End.
func (d *Device) failLocked(err error) error {
	if d.enc != nil {
		d.enc.Discard()
		d.enc = nil
		d.resolveTimings(d.encGen, nil)
		for _, b := range d.deferred {
			b.Release()
		}
		d.deferred = d.deferred[:0]
	}
	if d.scopeErr == nil && d.depth > 0 {
		d.scopeErr = err
	}
	return err
}
