package coopmat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/kcgo/kc/backend"
)

// EnvCacheDir overrides the directory of the autotune cache (tests point
// it at a temporary directory).
const EnvCacheDir = "KC_TUNE_CACHE"

const cacheFile = "matmul-tune.json"

// CacheDir is the directory of kc's caches: $KC_TUNE_CACHE, else
// os.UserCacheDir()/kc.
func CacheDir() (string, error) {
	if d := os.Getenv(EnvCacheDir); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("coopmat: no cache directory: %w", err)
	}
	return filepath.Join(d, "kc"), nil
}

// Tuned is one cache entry: the fastest plan measured for a problem.
type Tuned struct {
	Plan   Plan
	TFLOPS float64   // its throughput when tuned
	When   time.Time // when it was measured
}

// cache is the file's content: device key -> problem -> entry.
type cache map[string]map[string]Tuned

var cacheMu sync.Mutex

// deviceKey names a device and driver version: a new driver retunes.
func deviceKey(info backend.AdapterInfo) string {
	return fmt.Sprintf("%s|%s|%s|%04x:%04x|%s", info.Driver, info.Name, info.API, info.VendorID, info.DeviceID, info.DriverInfo)
}

func readCache() (cache, string, error) {
	dir, err := CacheDir()
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, cacheFile)
	c := cache{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		// A damaged cache is only a lost optimisation: start afresh.
		return cache{}, path, nil
	}
	return c, path, nil
}

func writeCache(c cache, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", "\t")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// lookupTuned returns the cached plan for o on the device, if any and still
// valid for its limits.
func lookupTuned(info backend.AdapterInfo, o Options) (Plan, bool) {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	c, _, err := readCache()
	if err != nil {
		return Plan{}, false
	}
	t, ok := c[deviceKey(info)][o.String()]
	if !ok || t.Plan.check(info) != nil || t.Plan.checkSplits(info) != nil || generators[t.Plan.Generator] == nil {
		return Plan{}, false
	}
	p := t.Plan
	p.Options = o // the key covers sizes and type; Scale is the caller's
	return p, true
}

// Remember stores a tuned plan for its problem on the device.
func Remember(info backend.AdapterInfo, t Tuned) error {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	c, path, err := readCache()
	if err != nil {
		return err
	}
	k := deviceKey(info)
	if c[k] == nil {
		c[k] = map[string]Tuned{}
	}
	c[k][t.Plan.Options.String()] = t
	return writeCache(c, path)
}

// ClearCache deletes the autotune cache; the next Choose uses defaults.
func ClearCache() error {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	dir, err := CacheDir()
	if err != nil {
		return err
	}
	err = os.Remove(filepath.Join(dir, cacheFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Trial is one candidate's measurement during Tune.
type Trial struct {
	Plan   Plan
	Time   time.Duration // median kernel time (0 when Err is set)
	TFLOPS float64
	Err    error // the candidate failed to build, load or run
}

// TuneOptions control Tune.
type TuneOptions struct {
	Warmups, Samples int                              // per candidate; defaults 2 and 5
	Progress         func(i, n int, t Trial)          // called after each candidate
	Inputs           func(a, b, c backend.View) error // optional: fills A and B once
	Max              int                              // at most this many candidates (0: all)
	// Workgroup also times the workgroup-scope plans (Coop2Candidates) of
	// an f16/bf16 product on a device with VK_NV_cooperative_matrix2, so
	// that the cache keeps whichever scope is faster for the shape.
	Workgroup bool
}

// Tune times every candidate plan for o on dev (on A, B, C buffers it
// allocates, filled by opts.Inputs when given), stores the fastest in the
// cache and returns all trials, fastest first. Candidates that fail are
// reported in their Trial and skipped; Tune fails only when all do.
func Tune(ctx context.Context, dev *backend.Device, o Options, opts TuneOptions) ([]Trial, error) {
	if opts.Warmups <= 0 {
		opts.Warmups = 2
	}
	if opts.Samples <= 0 {
		opts.Samples = 5
	}
	cands, err := Candidates(dev.Info(), o)
	if err != nil {
		return nil, err
	}
	if opts.Workgroup && o.dtype() != "f32" {
		cands = append(cands, Coop2Candidates(dev.Info(), o)...)
	}
	if opts.Max > 0 && len(cands) > opts.Max {
		cands = cands[:opts.Max]
	}
	bufs, err := allocABC(dev, o)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	if opts.Inputs != nil {
		if err := opts.Inputs(bufs[0].View(), bufs[1].View(), bufs[2].View()); err != nil {
			return nil, err
		}
	}
	var trials []Trial
	for i, p := range cands {
		t := Trial{Plan: p}
		// The first candidate raises the clocks; the others only bridge
		// their own pipeline's compile.
		warm := WarmLoad
		if i > 0 {
			warm = WarmLoad / 5
		}
		t.Time, t.Err = timePlan(ctx, dev, p, bufs, warm, opts.Warmups, opts.Samples)
		if t.Err == nil {
			t.TFLOPS = o.Flops() / t.Time.Seconds() / 1e12
		}
		trials = append(trials, t)
		if opts.Progress != nil {
			opts.Progress(i+1, len(cands), t)
		}
	}
	sort.SliceStable(trials, func(i, j int) bool {
		if (trials[i].Err == nil) != (trials[j].Err == nil) {
			return trials[i].Err == nil
		}
		return trials[i].Time < trials[j].Time
	})
	if trials[0].Err != nil {
		return trials, fmt.Errorf("coopmat: every candidate failed for %s: %w", o, trials[0].Err)
	}
	best := trials[0]
	return trials, Remember(dev.Info(), Tuned{Plan: best.Plan, TFLOPS: best.TFLOPS, When: time.Now().UTC()})
}

func allocABC(dev *backend.Device, o Options) ([]*backend.Buffer, error) {
	var out []*backend.Buffer
	for _, n := range o.operandBytes() {
		b, err := dev.Alloc(n)
		if err != nil {
			for _, x := range out {
				x.Release()
			}
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// timePlan measures a plan on bufs (A, B, C).
func timePlan(ctx context.Context, dev *backend.Device, p Plan, bufs []*backend.Buffer, warm time.Duration, warmups, samples int) (time.Duration, error) {
	mm, err := NewPlan(ctx, dev, p)
	if err != nil {
		return 0, err
	}
	defer mm.Close()
	return mm.time(ctx, bufs[0].View(), bufs[1].View(), bufs[2].View(), warm, warmups, samples)
}

// WarmLoad is how long Time keeps the device busy with the product before
// its warmups: a GPU that idled, even for the seconds of a host-side input
// fill, starts at a fraction of its clock (an H200 at 345 of 1980 MHz), and
// a few warm-up runs of a millisecond do not raise it. On 2026-12-01 `kc
// bench matmul` timed the default 8192³ plan at 56.6 TFLOP/s without it,
// against 305 after sustained load.
const WarmLoad = 250 * time.Millisecond

// Time measures the product on a, b, c: the median of samples runs after
// WarmLoad of sustained runs and then warmups. With GPU timestamps each run
// is the sum of its dispatches' execution times (a split-k plan has two);
// without them, a one-kernel plan goes through the device's timing oracle
// and a split-k plan is timed on the host clock around each run's
// submission and wait.
func (mm *Matmul) Time(ctx context.Context, a, b, c backend.View, warmups, samples int) (time.Duration, error) {
	return mm.time(ctx, a, b, c, WarmLoad, warmups, samples)
}

// time is Time with warm of sustained load first.
func (mm *Matmul) time(ctx context.Context, a, b, c backend.View, warm time.Duration, warmups, samples int) (time.Duration, error) {
	p, dev := mm.plan, mm.dev
	if err := mm.checkViews(a, b, c); err != nil {
		return 0, err
	}
	if err := mm.load(ctx, a, b, c, warm); err != nil {
		return 0, err
	}
	if p.Splits <= 1 {
		args := backend.Args{Params: mm.params(p.scale()), Buffers: []backend.View{a, b, c}}
		ds, err := dev.Time(ctx, mm.main, args, p.Groups(), warmups, samples)
		if err != nil {
			return 0, err
		}
		return median(ds), nil
	}
	var ds []time.Duration
	for i := 0; i < warmups+samples; i++ {
		t0 := time.Now()
		var timings []*backend.Timing
		err := mm.run(a, b, c, func(pl *backend.Pipeline, args backend.Args, g [3]uint32) error {
			if !dev.Info().Timestamps {
				return dev.Dispatch(pl, args, g)
			}
			t, err := dev.DispatchTimed(pl, args, g)
			timings = append(timings, t)
			return err
		})
		if err != nil {
			return 0, err
		}
		if err := dev.Wait(ctx); err != nil {
			return 0, err
		}
		d := time.Since(t0)
		if len(timings) > 0 {
			d = 0
			for _, t := range timings {
				if !t.Done {
					return 0, fmt.Errorf("coopmat: timing of %s not resolved after the wait", t.Name)
				}
				d += t.Duration
			}
		}
		if i >= warmups {
			ds = append(ds, d)
		}
	}
	return median(ds), nil
}

// load runs the product back to back, a batch of runs per submission,
// until d has passed on the host clock (at most 10,000 runs, for tiny
// products), so that the device's clocks have risen before timing.
func (mm *Matmul) load(ctx context.Context, a, b, c backend.View, d time.Duration) error {
	t0 := time.Now()
	for runs, batch := 0, 1; time.Since(t0) < d && runs < 10000; runs += batch {
		err := mm.dev.Do(func() error {
			for i := 0; i < batch; i++ {
				if err := mm.run(a, b, c, mm.dev.Dispatch); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := mm.dev.Wait(ctx); err != nil {
			return err
		}
		batch = min(2*batch, 64) // fewer waits for short products
	}
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
