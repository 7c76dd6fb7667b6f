package kernels

import (
	"context"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

//go:embed *.kc
var sources embed.FS

// Context is the library bound to one device (the seed's compute context;
// not a context.Context). It keeps the compiled pipelines and the prepared
// matrix products of that device. Its methods are safe for concurrent use
// as far as the device's recording is: ops recorded from several
// goroutines into one scope interleave.
type Context struct {
	dev *backend.Device

	mu    sync.Mutex
	mods  map[string]*ir.Module
	pipes map[string]*backend.Pipeline
	mms   map[mmKey]*coopmat.Matmul
	// splits are splitKeys' plans (splitcache.go), made on first use
	splits map[splitKey]*splitPipes

	// poison, when set (by tests), fills every new output with a NaN
	// pattern before the op writes it, so that an element an op fails to
	// write shows.
	poison bool
	// maxGroups, when positive (in tests), replaces the device's limit
	// of workgroups per grid dimension, so that small tensors exercise
	// the two-dimensional grids of large ones.
	maxGroups int
	// rowsLooped (tests) makes the row ops take rows.kc at every length.
	rowsLooped bool
	// rowTune, when set (tests, benchmarks), replaces the configuration
	// of long rows.
	rowTune rowTuning
	// flash16, when NSG is set (tests, benchmarks), fixes flash16's
	// subgroups and key block (DH and SUB are ignored).
	flash16 flash16Config
	// decode, when set (tests, benchmarks), replaces the split-key
	// kernels' default configuration (decodeTune).
	decode decodeTuning
	// gemvTeam and gemvR, when positive (tests, benchmarks), fix gemv.kc's
	// team size and rows per team.
	gemvTeam, gemvR int
	// gemvU, when positive (tests, benchmarks), fixes gemv.kc's and
	// gemvsg.kc's strides of k a lane loads before it adds (their U).
	gemvU int
	// gemvSG (tests, benchmarks): 1 makes gemv take gemvsg.kc where the
	// device allows it, -1 never, 0 the route's choice.
	gemvSG int
	// gemvWid (tests, benchmarks): 1 makes gemv.kc and gemvsg.kc widen
	// f16 by integer ops instead of unpack2x16float.
	gemvWid int
	// gemvtSlices, when positive (tests, benchmarks), fixes how many
	// slices of k gemvt.kc cuts.
	gemvtSlices int
	// gemvtWG and gemvtCT, when positive (tests, benchmarks), fix
	// gemvtsg.kc's workgroup size and column words a workgroup (gemvU its
	// rows a step, gemvSG whether it runs at all).
	gemvtWG, gemvtCT int
	// copyByCommand (tests, benchmarks) makes Dup use the device's
	// transfer command even where the copy kernel applies.
	copyByCommand bool
	// coopF32 (tests, benchmarks) sends f32 products a·bᵀ of at most
	// gemvF32MaxRows rows to coopmat instead of gemv.kc's gemv4f, the
	// default since its measurement on the H200 (3.5-3.9x coopmat's tiled
	// kernel, docs/PERF.md).
	coopF32 bool
	// noGEMV (tests, benchmarks) sends every 16-bit product to the
	// cooperative-matrix or f32 path.
	noGEMV bool
	// timed, when set (benchmarks, on devices with GPU timestamps),
	// brackets every dispatch with timestamps and keeps its Timing in
	// timings.
	timed   bool
	timings []*backend.Timing
	// decodeForce, when its Kernel is set (tests, benchmarks), fixes how
	// products of at most 16 rows with 16-bit b run (decodeRoute).
	decodeForce decodeRoute
}

// New returns a Context on dev. Nothing is compiled until an op needs it.
func New(dev *backend.Device) *Context {
	return &Context{
		dev:   dev,
		mods:  map[string]*ir.Module{},
		pipes: map[string]*backend.Pipeline{},
		mms:   map[mmKey]*coopmat.Matmul{},
	}
}

// Device returns the device the context records on.
func (c *Context) Device() *backend.Device { return c.dev }

// Close releases the matrix products' scratch buffers. Tensors stay valid
// until released; the pipelines stay in the device's cache.
func (c *Context) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, mm := range c.mms {
		mm.Close()
	}
	c.mms = map[mmKey]*coopmat.Matmul{}
}

// Tensor uploads data as an f32 tensor of the given shape (len(data)
// must be the product of the dimensions). TensorOf makes f16 and bf16
// tensors.
func (c *Context) Tensor(data []float32, shape ...int) (*Tensor, error) {
	return c.TensorOf(F32, data, shape...)
}

// Empty allocates an f32 tensor whose contents are undefined until an op
// or kernel writes them (NaN patterns with SetPoison on). EmptyOf
// allocates other types.
func (c *Context) Empty(shape ...int) (*Tensor, error) { return c.EmptyOf(F32, shape...) }

// ToHost reads several tensors back with one submit and one wait, each
// widened to float32 (exactly, from f16 and bf16).
func (c *Context) ToHost(ctx context.Context, ts ...*Tensor) ([][]float32, error) {
	vs := make([]backend.View, len(ts))
	for i, t := range ts {
		if t.c != c {
			return nil, fmt.Errorf("kernels: tohost: tensor %d belongs to another context", i)
		}
		vs[i] = t.View()
	}
	bs, err := c.dev.ReadMany(ctx, vs...)
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(bs))
	for i, b := range bs {
		out[i] = decode(ts[i].dtype, b, ts[i].Len())
	}
	return out, nil
}

// SetPoison makes every tensor an op returns, and every Empty one, start
// as NaN bit patterns (of f32, and pairs of f16 or bf16) before it is
// written, at the cost of one fill dispatch each: a test or a debugging
// session then sees any element an op fails to write. Off by default.
func (c *Context) SetPoison(on bool) { c.poison = on }

// SetTimed makes every dispatch c records from now on carry GPU
// timestamps, kept for TakeTimings, or (false) stops it. It is a
// profiler, not a clock: a scope holding a timed dispatch waits for the
// device at its submit (backend.Device.DispatchTimed), so a timed run
// tells which kernels the GPU spends its time in, and the wall time of
// the same run untimed tells how fast it is. On a device without GPU
// timestamps (backend.AdapterInfo.Timestamps) it fails and nothing
// changes. Device-to-device copies (SetRows, Dup on sizes the copy
// kernel does not take) are not timed.
func (c *Context) SetTimed(on bool) error {
	if on && !c.dev.Info().Timestamps {
		return fmt.Errorf("kernels: %s adapter %q has no GPU timestamps", c.dev.Info().Driver, c.dev.Info().Name)
	}
	c.timed = on
	return nil
}

// TakeTimings returns the Timings of the dispatches recorded since the
// last call while SetTimed was on, and forgets them. A Timing is filled
// once its submission has completed: read them after the readback (or
// Device.Wait) that follows the work.
func (c *Context) TakeTimings() []*backend.Timing {
	t := c.timings
	c.timings = nil
	return t
}

// KernelTime is one kernel's share of a timed run: its dispatches and
// their GPU time together.
type KernelTime struct {
	Kernel     string
	Dispatches int
	Total      time.Duration
}

// ByKernel sums timings per kernel name, the longest total first (ties
// by name). Timings not yet filled (their submission has not completed)
// are left out.
func ByKernel(ts []*backend.Timing) []KernelTime {
	at := map[string]int{}
	var out []KernelTime
	for _, t := range ts {
		if !t.Done {
			continue
		}
		i, ok := at[t.Name]
		if !ok {
			i = len(out)
			at[t.Name] = i
			out = append(out, KernelTime{Kernel: t.Name})
		}
		out[i].Dispatches++
		out[i].Total += t.Duration
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		return out[i].Kernel < out[j].Kernel
	})
	return out
}

// output allocates an op's f32 result, poisoned in tests.
func (c *Context) output(shape []int) (*Tensor, error) { return c.outputOf(F32, shape) }

// outputOf allocates an op's result of type d, poisoned in tests (every
// word a NaN pattern of each type: f32, and two f16 or bf16 NaNs).
func (c *Context) outputOf(d DType, shape []int) (*Tensor, error) {
	t, err := c.emptyOf(d, shape...)
	if err != nil || !c.poison {
		return t, err
	}
	n := int(t.bind().Size / 4)
	if err := c.run("elementwise.kc", "fill", nil, []uint32{uint32(n), 0xffc1ffc1}, c.grid(n, 256), t); err != nil {
		t.Release()
		return nil, err
	}
	return t, nil
}

// pipeline returns kernel of the embedded file, specialised with defs,
// compiling it on first use.
func (c *Context) pipeline(file, kernel string, defs map[string]string) (*backend.Pipeline, error) {
	return c.pipelineOf(file+defsKey(defs), kernel, func() (*ir.Module, error) { return loadSource(file, defs) })
}

// loadSource parses the embedded file specialised with defs.
func loadSource(file string, defs map[string]string) (*ir.Module, error) {
	src, err := sources.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return parse.Load(file, src, defs)
}

// pipelineOf returns kernel of the module cached under mkey, building the
// module with load and compiling the kernel on first use.
func (c *Context) pipelineOf(mkey, kernel string, load func() (*ir.Module, error)) (*backend.Pipeline, error) {
	pkey := mkey + "#" + kernel
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.pipes[pkey]; p != nil {
		return p, nil
	}
	m := c.mods[mkey]
	if m == nil {
		var err error
		if m, err = load(); err != nil {
			return nil, fmt.Errorf("kernels: %w", err)
		}
		c.mods[mkey] = m
	}
	p, err := c.dev.LoadIR(context.Background(), m, kernel)
	if err != nil {
		return nil, fmt.Errorf("kernels: %s in %s: %w", kernel, mkey, err)
	}
	c.pipes[pkey] = p
	return p, nil
}

func defsKey(defs map[string]string) string {
	if len(defs) == 0 {
		return ""
	}
	ks := make([]string, 0, len(defs))
	for k, v := range defs {
		ks = append(ks, k+"="+v)
	}
	sort.Strings(ks)
	return "?" + strings.Join(ks, "&")
}

// run records one dispatch of kernel with the tensors bound in order.
func (c *Context) run(file, kernel string, defs map[string]string, params []uint32, groups [3]uint32, ts ...*Tensor) error {
	p, err := c.pipeline(file, kernel, defs)
	if err != nil {
		return err
	}
	return c.dispatch(p, params, groups, ts...)
}

// dispatch records one dispatch of p with the tensors bound in order.
func (c *Context) dispatch(p *backend.Pipeline, params []uint32, groups [3]uint32, ts ...*Tensor) error {
	vs := make([]backend.View, len(ts))
	for i, t := range ts {
		vs[i] = t.bind()
	}
	if c.timed {
		t, err := c.dev.DispatchTimed(p, backend.Args{Params: params, Buffers: vs}, groups)
		if err == nil {
			c.timings = append(c.timings, t)
		}
		return err
	}
	return c.dev.Dispatch(p, backend.Args{Params: params, Buffers: vs}, groups)
}

// grid is the two-dimensional grid covering n items with wg per
// workgroup (the kernels flatten workgroup_id.y * num_workgroups.x +
// workgroup_id.x), so that more than MaxWorkgroupsPerDimension groups fit.
func (c *Context) grid(n, wg int) [3]uint32 {
	return c.grid2(ceilDiv(n, wg))
}

// grid2 spreads g workgroups over x and y.
func (c *Context) grid2(g int) [3]uint32 {
	max := int(c.dev.Info().Limits.MaxWorkgroupsPerDimension)
	if c.maxGroups > 0 {
		max = c.maxGroups
	}
	if max <= 0 {
		max = 65535
	}
	if g <= max {
		return backend.Groups(uint32(g))
	}
	y := ceilDiv(g, max)
	return backend.Groups(uint32(ceilDiv(g, y)), uint32(y))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
