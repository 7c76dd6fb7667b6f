package backend

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Time is the timing oracle: it runs p with args over groups warmups times
// untimed, then samples times, and returns each sample's duration. With GPU
// timestamps (Info().Timestamps) every sample is bracketed by timestamps and
// all samples share as few submissions as the timestamp pool allows, so
// the durations are GPU execution times; without them each sample is
// submitted and waited for on its own and timed on the host clock (which
// then includes submission latency). Work recorded earlier is flushed and
// waited for first; Time must not be called inside a scope.
func (d *Device) Time(ctx context.Context, p *Pipeline, args Args, groups [3]uint32, warmups, samples int) ([]time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	if d.depth > 0 {
		return nil, errors.New("backend: Time inside a scope")
	}
	if samples <= 0 || warmups < 0 {
		return nil, fmt.Errorf("backend: Time needs samples > 0 and warmups >= 0 (got %d, %d)", samples, warmups)
	}
	if err := d.checkDispatch(p, args, groups); err != nil {
		return nil, err
	}
	if groups[0] == 0 || groups[1] == 0 || groups[2] == 0 {
		return nil, errors.New("backend: Time with a zero workgroup count")
	}
	if err := d.flushLocked(ctx); err != nil {
		return nil, err
	}
	if err := d.impl.Wait(ctx); err != nil {
		return nil, err
	}
	// Hold a scope so recordDispatch does not submit each dispatch.
	d.depth++
	defer func() { d.depth-- }()
	for i := 0; i < warmups; i++ {
		if err := d.recordDispatch(p, args, groups); err != nil {
			return nil, err
		}
	}
	if d.info.Timestamps {
		return d.timeGPU(ctx, p, args, groups, samples)
	}
	return d.timeHost(ctx, p, args, groups, samples)
}

func (d *Device) timeGPU(ctx context.Context, p *Pipeline, args Args, groups [3]uint32, samples int) ([]time.Duration, error) {
	out := make([]time.Duration, 0, samples)
	for len(out) < samples {
		n := min(samples-len(out), MaxTimestamps/2)
		for i := 0; i < n; i++ {
			e, err := d.encoder()
			if err != nil {
				return nil, d.failLocked(err)
			}
			if _, err := e.Timestamp(); err != nil {
				return nil, d.failLocked(fmt.Errorf("backend: timestamp: %w", err))
			}
			if err := d.recordDispatch(p, args, groups); err != nil {
				return nil, err
			}
			if _, err := e.Timestamp(); err != nil {
				return nil, d.failLocked(fmt.Errorf("backend: timestamp: %w", err))
			}
		}
		res, err := d.submitReads(ctx, nil)
		if err != nil {
			return nil, err
		}
		if len(res.Timestamps) != 2*n {
			return nil, fmt.Errorf("backend: driver returned %d timestamps, want %d", len(res.Timestamps), 2*n)
		}
		for i := 0; i < n; i++ {
			t0, t1 := res.Timestamps[2*i], res.Timestamps[2*i+1]
			if t1 < t0 {
				t1 = t0
			}
			out = append(out, time.Duration(t1-t0))
		}
	}
	return out, nil
}

func (d *Device) timeHost(ctx context.Context, p *Pipeline, args Args, groups [3]uint32, samples int) ([]time.Duration, error) {
	if err := d.flushLocked(ctx); err != nil {
		return nil, err
	}
	if err := d.impl.Wait(ctx); err != nil {
		return nil, err
	}
	out := make([]time.Duration, 0, samples)
	for i := 0; i < samples; i++ {
		t0 := time.Now()
		if err := d.recordDispatch(p, args, groups); err != nil {
			return nil, err
		}
		if err := d.submitLocked(ctx); err != nil {
			return nil, err
		}
		if err := d.impl.Wait(ctx); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// Timing is the GPU execution time of one dispatch recorded by
// DispatchTimed. It is filled in when the dispatch's submission completes:
// the submit of a scope holding a timed dispatch waits for the device, so
// time what you profile, not the steady state.
type Timing struct {
	Name     string        // the kernel's name
	Duration time.Duration // valid once Done
	Done     bool
	begin    int
}

// pendingTiming is a Timing waiting for its encoder's submit.
type pendingTiming struct {
	t      *Timing
	encGen uint64
}

// DispatchTimed is Dispatch bracketed by GPU timestamps. It needs an adapter
// with timestamps (Info().Timestamps).
func (d *Device) DispatchTimed(p *Pipeline, args Args, groups [3]uint32) (*Timing, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, ErrClosed
	}
	if !d.info.Timestamps {
		return nil, fmt.Errorf("backend: %s adapter %q has no GPU timestamps", d.info.Driver, d.info.Name)
	}
	if err := d.checkDispatch(p, args, groups); err != nil {
		return nil, err
	}
	if groups[0] == 0 || groups[1] == 0 || groups[2] == 0 {
		return &Timing{Name: p.name, Done: true}, nil
	}
	e, err := d.encoder()
	if err != nil {
		return nil, d.failLocked(err)
	}
	if d.encStamps+2 > MaxTimestamps {
		if err := d.submitLocked(context.Background()); err != nil {
			return nil, err
		}
		if e, err = d.encoder(); err != nil {
			return nil, d.failLocked(err)
		}
	}
	t := &Timing{Name: p.name}
	if t.begin, err = e.Timestamp(); err != nil {
		return nil, d.failLocked(fmt.Errorf("backend: timestamp: %w", err))
	}
	d.encStamps++
	d.timings = append(d.timings, pendingTiming{t, d.encGen})
	depth := d.depth
	d.depth++ // keep recordDispatch from submitting before the second stamp
	err = d.recordDispatch(p, args, groups)
	d.depth--
	if err != nil {
		return nil, err
	}
	if _, err := e.Timestamp(); err != nil {
		return nil, d.failLocked(fmt.Errorf("backend: timestamp: %w", err))
	}
	d.encStamps++
	d.encUsed = true
	if depth == 0 {
		return t, d.submitLocked(context.Background())
	}
	return t, nil
}

// resolveTimings fills the Timings of the encoder just submitted.
func (d *Device) resolveTimings(gen uint64, res *Result) {
	keep := d.timings[:0]
	for _, pt := range d.timings {
		if pt.encGen != gen {
			keep = append(keep, pt)
			continue
		}
		if res != nil && pt.t.begin+1 < len(res.Timestamps) {
			t0, t1 := res.Timestamps[pt.t.begin], res.Timestamps[pt.t.begin+1]
			if t1 > t0 {
				pt.t.Duration = time.Duration(t1 - t0)
			}
			pt.t.Done = true
		}
	}
	d.timings = keep
}
