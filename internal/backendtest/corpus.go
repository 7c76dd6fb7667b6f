package backendtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// Path is one way from a checked kernel to a device: an emitter, perhaps
// an external compiler, and the artifact the driver loads.
type Path struct {
	Name string
	// Artifact builds the loadable artifact of kernel k of m (Spec is set
	// from the case's defines when left empty).
	Artifact func(ctx context.Context, m *ir.Module, k *ir.Kernel) (*emit.Artifact, error)
	// Skip, when set, says why the path cannot carry a kernel ("" when it
	// can): a limit of the path, not of kc.
	Skip func(c kctest.Case, k *ir.Kernel) string
	// KnownLoadFailure, when set, says whether a load error is a known
	// limit of the driver's compiler ("" when it is not).
	KnownLoadFailure func(err error) string
}

// EmitPath is the path through backend.Emit for target.
func EmitPath(target backend.Target) Path {
	return Path{Name: string(target), Artifact: func(_ context.Context, m *ir.Module, k *ir.Kernel) (*emit.Artifact, error) {
		return backend.Emit(m, k.Name, target)
	}}
}

// Corpus runs every kernel of testdata/kernels through each path on d
// with fresh random inputs (poisoned outputs) drawn from the kernel's
// //kc:run directives, runs the same inputs on the reference interpreter
// with d's subgroup size, and compares every read_write buffer
// (runspec.Check: integers bit for bit, floats within the kernel's
// stated tolerance; a documented Deviation of d's adapter is accepted
// where it applies). A kernel needing a feature d lacks must be refused
// by Load with an *ir.UnsupportedError, and is then skipped. A run whose
// invocations need more loop iterations than d runs (MaxLoopIterations)
// fails with a *LoopBudgetError before anything is compared.
func Corpus(t *testing.T, d *backend.Device, paths []Path) {
	CorpusOf(t, d, kctest.Cases(t), paths)
}

// CorpusOf is Corpus over cases read by other means than from disk: the
// browser's test fetches testdata/kernels over HTTP and makes each case
// with kctest.NewCase.
func CorpusOf(t *testing.T, d *backend.Device, cases []kctest.Case, paths []Path) {
	info := d.Info()
	seed := rand.Uint64()
	t.Logf("seed %d, device %s (%s), subgroup size %d", seed, info.Name, info.Driver, info.SubgroupSize)
	if len(cases) == 0 {
		t.Fatal("no corpus cases")
	}
	for _, c := range cases {
		m := c.Module(t)
		for _, k := range m.Kernels {
			run := c.Run(t, m, k)
			for _, p := range paths {
				t.Run(c.Name+"/"+k.Name+"/"+p.Name, func(t *testing.T) {
					rnd := rand.New(rand.NewPCG(seed, uint64(len(c.Name))<<8|uint64(len(k.Name))))
					corpusKernel(t, d, c, m, k, p, run, rnd)
				})
			}
		}
	}
}

// Lacks names a feature kernel k needs and the device lacks, or "".
func Lacks(info backend.AdapterInfo, k *ir.Kernel) string {
	if k.Features&ir.FeatureF16 != 0 && !info.F16 {
		return "f16"
	}
	if k.Features&ir.FeatureSubgroups != 0 && !info.Subgroups {
		return "subgroups"
	}
	if k.Features&ir.FeatureCoopMat != 0 && len(info.CoopMat) == 0 {
		return "cooperative matrices"
	}
	if k.Features&ir.FeatureDot4Packed != 0 && !info.IntegerDot {
		return "packed_4x8_integer_dot_product"
	}
	// A workgroup larger than the device allows (the language allows up
	// to 1024 invocations; WebGPU's default limit is 256).
	lim, s := info.Limits, k.Size
	if n := s[0] * s[1] * s[2]; lim.MaxInvocationsPerWorkgroup > 0 && n > lim.MaxInvocationsPerWorkgroup {
		return fmt.Sprintf("a workgroup of %d invocations (it allows %d)", n, lim.MaxInvocationsPerWorkgroup)
	}
	for i, n := range s {
		if max := lim.MaxWorkgroupSize[i]; max > 0 && n > max {
			return fmt.Sprintf("a workgroup %d wide in %c (it allows %d)", n, "xyz"[i], max)
		}
	}
	return ""
}

func corpusKernel(t testing.TB, d *backend.Device, c kctest.Case, m *ir.Module, k *ir.Kernel, p Path, run *directive.Run, rnd *rand.Rand) {
	ctx := context.Background()
	info := d.Info()
	lacks := Lacks(info, k)
	if p.Skip != nil && lacks == "" {
		if why := p.Skip(c, k); why != "" {
			t.Skipf("NOT RUN on path %s: %s", p.Name, why)
		}
	}
	art, err := p.Artifact(ctx, m, k)
	var unsup *ir.UnsupportedError
	if errors.As(err, &unsup) {
		t.Skipf("NOT RUN: path %s cannot express kernel %s: %v", p.Name, k.Name, err)
	}
	if err != nil {
		t.Fatalf("%s: %v", p.Name, err)
	}
	if lacks != "" {
		// kc's own check must refuse it, naming the feature.
		if _, err := d.Load(ctx, art); !errors.As(err, &unsup) {
			t.Fatalf("Load of kernel %s (needs %s) on a device without it: %v; want an *ir.UnsupportedError", k.Name, lacks, err)
		}
		t.Skipf("NOT RUN: device %s lacks %s, which kernel %s needs (Load says: %v)", info.Name, lacks, k.Name, unsup)
	}
	pl, err := d.Load(ctx, art)
	if err != nil && p.KnownLoadFailure != nil {
		if why := p.KnownLoadFailure(err); why != "" {
			t.Skipf("NOT RUN: %s: %v", why, err)
		}
	}
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	plan, err := runspec.Draw(run, m, k, rnd, runspec.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want, st, err := OnInterp(m, plan, info.SubgroupSize, false)
	if err != nil {
		t.Fatalf("interp: %v", err)
	}
	if err := CheckLoops(info, k, st); err != nil {
		t.Fatalf("%v, %v", err, plan)
	}
	got, err := OnDevice(ctx, d, pl, plan)
	if err != nil {
		t.Fatalf("device: %v", err)
	}
	for i, b := range Outputs(k) {
		if msg := check(t, info, c, k, run, b, got[i], want[i]); msg != "" {
			t.Errorf("%s (%s), %v: %s", b.Name, ir.ElemScalar(b.Type), plan, msg)
		}
	}
}

// Outputs are the read_write buffers of k in binding order.
func Outputs(k *ir.Kernel) []*ir.Param {
	var out []*ir.Param
	for _, b := range ir.Buffers(k) {
		if b.Access == ir.ReadWrite {
			out = append(out, b)
		}
	}
	return out
}

// OnDevice uploads the plan's buffers, dispatches pl once and reads every
// read_write buffer back in one batched read.
func OnDevice(ctx context.Context, d *backend.Device, pl *backend.Pipeline, plan *runspec.Plan) ([][]byte, error) {
	args := backend.Args{Params: plan.Words()}
	var outs []backend.View
	for i, b := range ir.Buffers(plan.Kernel) {
		buf, err := d.Upload(plan.Bufs[i])
		if err != nil {
			return nil, err
		}
		defer buf.Release()
		v := buf.Slice(0, int64(len(plan.Bufs[i])))
		args.Buffers = append(args.Buffers, v)
		if b.Access == ir.ReadWrite {
			outs = append(outs, v)
		}
	}
	g := plan.Grid
	if err := d.Dispatch(pl, args, backend.Groups(uint32(g[0]), uint32(g[1]), uint32(g[2]))); err != nil {
		return nil, err
	}
	return d.ReadMany(ctx, outs...)
}

// OnInterp runs the plan on the reference interpreter (on copies of its
// buffers) and returns the read_write buffers' final bytes and the run's
// stats.
func OnInterp(m *ir.Module, plan *runspec.Plan, subgroupSize int, races bool) ([][]byte, interp.Stats, error) {
	if subgroupSize <= 0 {
		subgroupSize = 8
	}
	args := &interp.Args{Params: plan.Params, Buffers: map[string][]byte{}}
	for i, b := range ir.Buffers(plan.Kernel) {
		args.Buffers[b.Name] = append([]byte(nil), plan.Bufs[i]...)
	}
	st, err := interp.RunStats(m, plan.Kernel.Name, plan.Grid, args, interp.Options{SubgroupSize: subgroupSize, Races: races})
	if err != nil {
		return nil, st, err
	}
	var out [][]byte
	for _, b := range Outputs(plan.Kernel) {
		out = append(out, args.Buffers[b.Name])
	}
	return out, st, nil
}

// LoopBudgetError says that a run needs more loop iterations per
// invocation than a device runs before it silently ends every loop
// (backend.Limits.MaxLoopIterations, llvmpipe's quirk: docs/lavapipe.md):
// the device's result would be wrong without any error, so it is not
// compared.
type LoopBudgetError struct {
	Kernel, Device string
	Needs          int64     // interp.Stats.MaxLoopIterations
	At             [3]uint32 // global_id of the invocation that needs them
	Budget         int       // the device's MaxLoopIterations
}

func (e *LoopBudgetError) Error() string {
	return fmt.Sprintf("kernel %s needs %d loop iterations per invocation; device %s stops at %d "+
		"(invocation global_id (%d, %d, %d); Limits.MaxLoopIterations, a driver quirk: docs/lavapipe.md)",
		e.Kernel, e.Needs, e.Device, e.Budget, e.At[0], e.At[1], e.At[2])
}

// CheckLoops returns a *LoopBudgetError when the interpreter's run of k
// (st) needs more loop iterations in one invocation than the device
// described by info runs, nil when it does not or info knows no limit.
// The interpreter counts loops llvmpipe unrolls too, so it may name a
// kernel a little before llvmpipe would go wrong, never after.
func CheckLoops(info backend.AdapterInfo, k *ir.Kernel, st interp.Stats) error {
	if max := info.Limits.MaxLoopIterations; max > 0 && st.MaxLoopIterations > int64(max) {
		return &LoopBudgetError{Kernel: k.Name, Device: info.Name, Needs: st.MaxLoopIterations, At: st.MaxLoopInvocation, Budget: max}
	}
	return nil
}

func defines(c kctest.Case) string {
	var kv []string
	for k, v := range c.Defines {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}
