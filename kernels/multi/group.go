package multi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/kernels"
)

// Group is a set of devices used together, each with its own
// kernels.Context, and the weight by which batches are split over them.
// Its methods may be called from several goroutines, but calls that run
// work (Run and what builds on it) are meant to be made one at a time: two
// concurrent calls record into the same devices' scopes, which is correct
// but gives no extra parallelism.
type Group struct {
	ws     []Worker
	weight []float64
	owned  bool // Close closes the devices (Open opened them)
}

// Worker is one device of a group as Run hands it to the work: its
// position in the group, the device and the group's Context on it.
type Worker struct {
	Index   int
	Device  *backend.Device
	Context *kernels.Context
}

// String names the worker's device in errors and reports.
func (w Worker) String() string {
	i := w.Device.Info()
	return fmt.Sprintf("%d: %s [%s %s]", w.Index, i.Name, i.Driver, i.API)
}

// DeviceError is the failure of one device's part of a call, naming the
// device: its position in the group and its adapter.
type DeviceError struct {
	Index   int
	Adapter backend.AdapterInfo
	Err     error
}

func (e *DeviceError) Error() string {
	return fmt.Sprintf("multi: device %d (%s [%s %s]): %v", e.Index, e.Adapter.Name, e.Adapter.Driver, e.Adapter.API, e.Err)
}

func (e *DeviceError) Unwrap() error { return e.Err }

// Open opens every adapter the policy accepts, in adapter order, and
// returns a group that owns them (Close closes them). It fails when no
// adapter is accepted or when an accepted one fails to open: a scheduler
// quietly short of a device would run at a fraction of the speed asked
// for. Narrow the policy to leave a device out.
func Open(ctx context.Context, p Policy) (*Group, error) {
	as, aerr := backend.Adapters(ctx)
	mine := p.Filter(as)
	if len(mine) == 0 {
		names := make([]string, len(as))
		for i, a := range as {
			names[i] = a.String()
		}
		return nil, errors.Join(fmt.Errorf("multi: no adapter accepted by the policy (adapters: %s)", strings.Join(names, "; ")), aerr)
	}
	devs, err := OpenAll(ctx, mine)
	if err != nil {
		return nil, err
	}
	g := New(devs...)
	g.owned = true
	return g, nil
}

// OpenAll opens each adapter in order, the same one as often as it is
// listed; when one fails it closes those it opened and names the adapter.
func OpenAll(ctx context.Context, as []backend.AdapterInfo) ([]*backend.Device, error) {
	var devs []*backend.Device
	for _, a := range as {
		d, err := backend.OpenAdapter(ctx, a)
		if err != nil {
			for _, d := range devs {
				d.Close()
			}
			return nil, fmt.Errorf("multi: open %s: %w", a, err)
		}
		devs = append(devs, d)
	}
	return devs, nil
}

// New returns a group over devices the caller opened (the same adapter
// opened twice is two devices) and keeps owning: Close leaves them open.
// Weights start equal.
func New(devs ...*backend.Device) *Group {
	g := &Group{}
	for i, d := range devs {
		g.ws = append(g.ws, Worker{Index: i, Device: d, Context: kernels.New(d)})
		g.weight = append(g.weight, 1)
	}
	return g
}

// Len is the number of devices.
func (g *Group) Len() int { return len(g.ws) }

// Workers returns the group's devices with their Contexts, in order.
func (g *Group) Workers() []Worker { return append([]Worker(nil), g.ws...) }

// Weights returns the split weights, one per device.
func (g *Group) Weights() []float64 { return append([]float64(nil), g.weight...) }

// SetWeights sets the split weights: one per device, finite and not
// negative, at least one positive. A device of weight 0 gets no work.
func (g *Group) SetWeights(w []float64) error {
	if len(w) != len(g.ws) {
		return fmt.Errorf("multi: %d weights for %d devices", len(w), len(g.ws))
	}
	sum := 0.0
	for i, x := range w {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("multi: weight %d is %g; want a finite value >= 0", i, x)
		}
		sum += x
	}
	if !(sum > 0) {
		return errors.New("multi: every weight is 0")
	}
	g.weight = append([]float64(nil), w...)
	return nil
}

// Close releases the Contexts' scratch buffers and, for a group Open
// made, closes the devices (joining their errors).
func (g *Group) Close() error {
	var errs []error
	for _, w := range g.ws {
		w.Context.Close()
		if g.owned {
			if err := w.Device.Close(); err != nil {
				errs = append(errs, &DeviceError{Index: w.Index, Adapter: w.Device.Info(), Err: err})
			}
		}
	}
	return errors.Join(errs...)
}

// Split divides n items into one count per weight, proportional to the
// weights (largest remainder: every count is within one of n·wᵢ/Σw, ties
// go to the lower index), so that device i owns items
// [Σ_{j<i} countⱼ, Σ_{j≤i} countⱼ). Contiguous ranges keep a batch's
// order: gathering the parts in device order rebuilds it.
func Split(n int, weights []float64) []int {
	out := make([]int, len(weights))
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	if n <= 0 || !(sum > 0) {
		return out
	}
	rem := make([]float64, len(weights))
	left := n
	for i, w := range weights {
		exact := float64(n) * w / sum
		out[i] = int(math.Floor(exact))
		rem[i] = exact - float64(out[i])
		left -= out[i]
	}
	for ; left > 0; left-- {
		best := -1
		for i := range rem {
			if weights[i] > 0 && (best < 0 || rem[i] > rem[best]) {
				best = i
			}
		}
		out[best]++
		rem[best] = -1
	}
	return out
}

// Work is one device's part of a call: items [lo, hi) of the batch.
type Work func(ctx context.Context, w Worker, lo, hi int) error

// Run splits n items over the devices by their weights and calls fn once
// for each device that got items, each in its own goroutine, and waits
// for all of them. fn records on its worker's Context (typically in one
// scope of the worker's device, ended before reading back) and writes its
// part of the results into disjoint host memory.
//
// The first failing device cancels the ctx handed to the others (work
// already submitted runs to completion; they stop at their next check).
// Run returns every device's error as a *DeviceError, joined; a sibling's
// cancellation is not reported as an error of its own. A panic inside fn
// is returned as its device's error, not raised. When ctx is done before
// the call, Run returns ctx.Err() and starts nothing.
func (g *Group) Run(ctx context.Context, n int, fn Work) error {
	return g.run(ctx, Split(n, g.weight), fn)
}

// run calls fn for each device with a positive count, on consecutive
// ranges.
func (g *Group) run(ctx context.Context, counts []int, fn Work) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(g.ws) == 0 {
		return errors.New("multi: the group has no devices")
	}
	inner, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errs := make([]error, len(g.ws))
	var wg sync.WaitGroup
	lo := 0
	for i, w := range g.ws {
		hi := lo + counts[i]
		if hi > lo {
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				if err := call(inner, fn, w, lo, hi); err != nil {
					errs[i] = &DeviceError{Index: w.Index, Adapter: w.Device.Info(), Err: err}
					cancel(errs[i])
				}
			}(lo, hi)
		}
		lo = hi
	}
	wg.Wait()
	return joinErrs(ctx, errs)
}

// call runs fn, turning a panic into an error so that one device's
// failure reaches the caller with its name instead of ending the process.
func call(ctx context.Context, fn Work, w Worker, lo, hi int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return fn(ctx, w, lo, hi)
}

// joinErrs joins the devices' errors, leaving out the cancellations that
// a failing sibling caused (ctx itself still live).
func joinErrs(ctx context.Context, errs []error) error {
	var out []error
	failed := false
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			failed = true
		}
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		if failed && ctx.Err() == nil && errors.Is(err, context.Canceled) {
			continue
		}
		out = append(out, err)
	}
	return errors.Join(out...)
}

// checkCtx is the check Work makes between recorded steps: recording
// takes no context.Context, so a long recording loop asks here.
func checkCtx(ctx context.Context) error { return context.Cause(ctx) }

// Calibrate times probe on every device, all at once as Run runs them
// (one untimed warm-up, then reps timed calls each), sets the weights to
// each device's calls per second and returns them. probe should do a
// representative share of the real work and wait for it (read back or
// Device.Wait), or the time measured is only recording.
func (g *Group) Calibrate(ctx context.Context, reps int, probe func(ctx context.Context, w Worker) error) ([]float64, error) {
	if reps < 1 {
		return nil, fmt.Errorf("multi: calibrate with %d repetitions", reps)
	}
	secs := make([]float64, len(g.ws))
	err := g.each(ctx, func(ctx context.Context, w Worker) error {
		if err := probe(ctx, w); err != nil {
			return err
		}
		start := time.Now()
		for r := 0; r < reps; r++ {
			if err := probe(ctx, w); err != nil {
				return err
			}
		}
		secs[w.Index] = time.Since(start).Seconds()
		return nil
	})
	if err != nil {
		return nil, err
	}
	rates := make([]float64, len(secs))
	for i, s := range secs {
		rates[i] = float64(reps) / math.Max(s, 1e-9)
	}
	return rates, g.SetWeights(rates)
}
