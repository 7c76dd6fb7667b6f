package coopmat

import (
	"context"
	"fmt"
	"math"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
)

// generators build the main kernel of a plan, by Plan.Generator.
var generators = map[string]func(Plan) (*ir.Module, string, error){
	"f32":     buildF32,
	"coopmat": buildCoop,
	"coop2":   buildCoop2,
	"gemv":    buildGemv,
	"skinny":  buildSkinny,
}

// Candidates lists every plan the device can run for o, best guess first:
// for f16/bf16 the skinny kernel's plans where it applies (gemv.go), the
// skinny tensor-core kernel's (skinny.go), then cooperative-matrix plans (subgroup scope; Coop2Candidates lists the
// workgroup-scope ones); register-tiled ones for f32.
func Candidates(info backend.AdapterInfo, o Options) ([]Plan, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.atype() != o.dtype() { // f32 A: the skinny tensor-core kernel only
		if cs := skinnyCandidates(info, o); len(cs) > 0 {
			return cs, nil
		}
		return nil, &ir.UnsupportedError{Target: info.Name, Feature: o.String() + " matmul (f32 A times 16-bit B: the skinny tensor-core kernel, at most 16 rows, with cooperative matrices)"}
	}
	if o.dtype() != "f32" {
		cs := append(gemvCandidates(info, o), skinnyCandidates(info, o)...)
		cs = append(cs, CoopCandidates(info, o)...)
		if len(cs) == 0 {
			return nil, &ir.UnsupportedError{Target: info.Name, Feature: o.dtype() + " matmul (no cooperative matrix with " + o.dtype() + " inputs and f32 accumulate)"}
		}
		return cs, nil
	}
	cs := f32Candidates(info, o)
	if len(cs) == 0 {
		return nil, fmt.Errorf("coopmat: no f32 matmul tile fits %s (limits %+v)", info.Name, info.Limits)
	}
	return cs, nil
}

// Choose returns the plan for o on the device: the tuned one from the
// cache when there is one for this device, driver and problem, else the
// untuned default.
func Choose(info backend.AdapterInfo, o Options) (Plan, error) {
	if err := o.Validate(); err != nil {
		return Plan{}, err
	}
	if p, ok := lookupTuned(info, o); ok {
		return p, nil
	}
	if o.atype() != o.dtype() {
		cs, err := Candidates(info, o)
		if err != nil {
			return Plan{}, err
		}
		return cs[0], nil
	}
	if o.dtype() != "f32" {
		if g := gemvCandidates(info, o); len(g) > 0 && o.M <= gemvDefaultRows {
			return g[0], nil
		}
		// At most 16 rows otherwise: the skinny tensor-core kernel (on the
		// H200, 16x4096x4096 Bᵀ f16: 915-930 GB/s over B against 680-690
		// for the tiled kernels' default, 2026-12-01).
		if s := skinnyCandidates(info, o); len(s) > 0 {
			return s[0], nil
		}
		cs := CoopCandidates(info, o)
		if len(cs) == 0 {
			return Plan{}, &ir.UnsupportedError{Target: info.Name, Feature: o.dtype() + " matmul (no cooperative matrix with " + o.dtype() + " inputs and f32 accumulate)"}
		}
		return coopDefault(cs, o), nil
	}
	return f32Default(info, o)
}

// Matmul is a product ready to run on one device: its kernels loaded and,
// for split-k plans, its scratch buffer allocated. It is not safe for
// concurrent Run calls that use the scratch buffer.
type Matmul struct {
	dev     *backend.Device
	plan    Plan
	main    *backend.Pipeline
	reduce  *backend.Pipeline
	scratch *backend.Buffer
}

// New prepares the product o on dev with the plan Choose picks.
func New(ctx context.Context, dev *backend.Device, o Options) (*Matmul, error) {
	p, err := Choose(dev.Info(), o)
	if err != nil {
		return nil, err
	}
	return NewPlan(ctx, dev, p)
}

// NewPlan prepares a product with a given plan (as Candidates lists them).
func NewPlan(ctx context.Context, dev *backend.Device, p Plan) (*Matmul, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := p.check(dev.Info()); err != nil {
		return nil, err
	}
	if err := p.checkSplits(dev.Info()); err != nil {
		return nil, err
	}
	gen := generators[p.Generator]
	if gen == nil {
		return nil, fmt.Errorf("coopmat: unknown generator %q", p.Generator)
	}
	mm := &Matmul{dev: dev, plan: p}
	var err error
	if mm.main, err = load(ctx, dev, gen, p); err != nil {
		return nil, err
	}
	if p.Splits > 1 {
		if mm.reduce, err = load(ctx, dev, func(Plan) (*ir.Module, string, error) { return buildReduce(p.ctype()) }, p); err != nil {
			return nil, err
		}
		if mm.scratch, err = dev.Alloc(4 * int64(p.Splits) * int64(p.M) * int64(p.N)); err != nil {
			return nil, err
		}
	}
	return mm, nil
}

// Plan returns the plan the product runs with.
func (mm *Matmul) Plan() Plan { return mm.plan }

// Pipelines returns the product's pipelines: the main kernel, then the
// split-k reduction when the plan has one (for their compile statistics,
// backend.Pipeline.Statistics).
func (mm *Matmul) Pipelines() []*backend.Pipeline {
	if mm.reduce != nil {
		return []*backend.Pipeline{mm.main, mm.reduce}
	}
	return []*backend.Pipeline{mm.main}
}

// Close releases the scratch buffer (the pipelines stay in the device's
// cache).
func (mm *Matmul) Close() {
	if mm.scratch != nil {
		mm.scratch.Release()
		mm.scratch = nil
	}
}

// Run records the product C = scale·A·B (or ·Bᵀ) into the device's current
// scope: a, b and c hold exactly M·K, K·N (N·K) and M·N elements of the
// product's type. Like any
// dispatch, it is submitted at once outside a scope.
func (mm *Matmul) Run(a, b, c backend.View) error {
	if err := mm.checkViews(a, b, c); err != nil {
		return err
	}
	return mm.run(a, b, c, mm.dev.Dispatch)
}

// RunTimed is Run with each of the product's dispatches (one, or the
// split-k product and its reduction) bracketed by GPU timestamps
// (backend.Device.DispatchTimed: the adapter must report Timestamps). The
// timings are filled in when the scope is submitted and completes.
func (mm *Matmul) RunTimed(a, b, c backend.View) ([]*backend.Timing, error) {
	if err := mm.checkViews(a, b, c); err != nil {
		return nil, err
	}
	var ts []*backend.Timing
	err := mm.run(a, b, c, func(p *backend.Pipeline, args backend.Args, g [3]uint32) error {
		t, err := mm.dev.DispatchTimed(p, args, g)
		if err == nil {
			ts = append(ts, t)
		}
		return err
	})
	return ts, err
}

// checkViews verifies the operands' sizes.
func (mm *Matmul) checkViews(a, b, c backend.View) error {
	p := mm.plan
	want := p.operandBytes()
	for i, v := range []backend.View{a, b, c} {
		if n := want[i]; v.Size != n {
			return fmt.Errorf("coopmat: %s: %c is %d bytes, want %d", p.Options, "ABC"[i], v.Size, n)
		}
	}
	return nil
}

// run records the product's dispatches through dispatch.
func (mm *Matmul) run(a, b, c backend.View, dispatch func(*backend.Pipeline, backend.Args, [3]uint32) error) error {
	p := mm.plan
	if p.Splits <= 1 {
		return dispatch(mm.main, backend.Args{Params: mm.params(p.scale()), Buffers: []backend.View{a, b, c}}, p.Groups())
	}
	return mm.dev.Do(func() error {
		part := mm.scratch.View()
		if err := dispatch(mm.main, backend.Args{Params: mm.params(1), Buffers: []backend.View{a, b, part}}, p.Groups()); err != nil {
			return err
		}
		mn := p.M * p.N
		args := backend.Args{Params: []uint32{uint32(mn), uint32(p.Splits), math.Float32bits(p.scale())}, Buffers: []backend.View{part, c}}
		return dispatch(mm.reduce, args, backend.Groups(uint32(ceilDiv(mn, 256))))
	})
}

// params are the main kernel's scalar parameters.
func (mm *Matmul) params(scale float32) []uint32 {
	p := mm.plan
	return []uint32{uint32(p.M), uint32(p.N), uint32(p.K), uint32(p.KS), math.Float32bits(scale)}
}

// Multiply is New, Run and Close in one: for a product run once.
func Multiply(ctx context.Context, dev *backend.Device, o Options, a, b, c backend.View) error {
	mm, err := New(ctx, dev, o)
	if err != nil {
		return err
	}
	defer mm.Close()
	return mm.Run(a, b, c)
}
