package interp

import (
	"fmt"
	"math"
	"runtime/debug"

	"github.com/kcgo/kc/ir"
)

// Options tunes a run.
type Options struct {
	// SubgroupSize is the number of invocations per subgroup: 8 models
	// lavapipe, 32 NVIDIA; 0 means 32. It must be a power of two in 1..128.
	SubgroupSize int
	// MaxSteps bounds the work of one Run, counted as statements executed
	// summed over invocations (a loop iteration counts its condition); 0
	// means DefaultMaxSteps. A run that exceeds it fails with an error.
	MaxSteps int64
	// Races reports data races (docs/semantics.md §2): a location of
	// shared memory or of a storage buffer written by one invocation and
	// read or written by another with no barrier between, or by another
	// workgroup. Lockstep execution would otherwise give a racy kernel one
	// of its possible results silently. It costs about six times the
	// buffers' size in memory.
	Races bool
}

// DefaultMaxSteps is the step budget when Options.MaxSteps is 0.
const DefaultMaxSteps = 1 << 31

// Args are the inputs and outputs of a run.
type Args struct {
	// Params holds every scalar parameter by name: Int for i32 and u32
	// (in range for the type), Float for f32 (rounded to float32).
	Params map[string]ir.Value
	// Buffers holds every storage buffer by name as little-endian element
	// bytes (layout of ir.ElemStride); read_write buffers are modified in
	// place. The length must be a multiple of the element stride.
	Buffers map[string][]byte
}

// Error is a run-time error of a kernel: an out-of-bounds access, a barrier
// in divergent control flow, an exhausted step budget, a data race (with
// Options.Races), or bad arguments. It prints as
// "file:line:col: kernel K, invocation global_id (x, y, z): message".
type Error struct {
	Kernel string    // the kernel's name
	Pos    ir.Pos    // the expression or statement at fault (zero if none)
	Global [3]uint32 // global_id of the faulting invocation, if HasInvocation
	// HasInvocation is false for errors that concern no single invocation
	// (bad arguments, constructs the interpreter cannot run).
	HasInvocation bool
	Msg           string // what went wrong, without position or kernel
}

func (e *Error) Error() string {
	s := ""
	if e.Pos != (ir.Pos{}) {
		s = e.Pos.String() + ": "
	}
	s += "kernel " + e.Kernel
	if e.HasInvocation {
		s += fmt.Sprintf(", invocation global_id (%d, %d, %d)", e.Global[0], e.Global[1], e.Global[2])
	}
	return s + ": " + e.Msg
}

// Stats are facts about a run that its outputs do not show.
type Stats struct {
	// MaxLoopIterations is the most loop iterations any one invocation
	// ran, all its loops (and those of the functions it called) together,
	// counted as Mesa's llvmpipe counts them against its budget
	// (backend.Limits.MaxLoopIterations, docs/lavapipe.md): every pass of
	// a loop, so the pass whose condition fails and the one that breaks
	// count too, and a loop of n iterations that ends on its condition
	// counts n+1. llvmpipe does not count loops its compiler unrolls
	// completely (small constant trip counts), so this can run above its
	// own count, never below.
	MaxLoopIterations int64
	// MaxLoopInvocation is the global_id of the first invocation, in run
	// order (workgroups x fastest, then local index), that ran
	// MaxLoopIterations.
	MaxLoopInvocation [3]uint32
}

// Run executes kernel of the checked module m over groups workgroups (x, y,
// z; a zero count runs nothing) with args, and returns the first error, if
// any (workgroups run in order x fastest, so the first error is
// deterministic). Buffers are modified in place even when an error stops
// the run part way.
func Run(m *ir.Module, kernel string, groups [3]int, args *Args, opts Options) error {
	_, err := RunStats(m, kernel, groups, args, opts)
	return err
}

// RunStats is Run that also returns the run's Stats (of the part that
// ran, when an error stops it).
func RunStats(m *ir.Module, kernel string, groups [3]int, args *Args, opts Options) (st Stats, err error) {
	if m == nil || !m.Checked {
		return st, fmt.Errorf("interp: module is not checked (run ir.Check first)")
	}
	k := m.Kernel(kernel)
	if k == nil {
		return st, fmt.Errorf("interp: no kernel %q in %s", kernel, m.File)
	}
	if args == nil {
		args = &Args{}
	}
	mc, err := newMachine(k, groups, opts)
	if err != nil {
		return st, err
	}
	defer func() {
		r := recover()
		if r != nil {
			mc.foldLoops() // the part of the workgroup the error stopped
		}
		st = Stats{MaxLoopIterations: mc.maxLoops, MaxLoopInvocation: mc.maxLoopsAt}
		if r != nil {
			if e, ok := r.(*Error); ok {
				err = e
				return
			}
			err = fmt.Errorf("interp: internal error running kernel %s: %v\n%s", kernel, r, debug.Stack())
		}
	}()
	if err := mc.bind(args); err != nil {
		return st, err
	}
	body, err := compileKernel(mc)
	if err != nil {
		return st, err
	}
	mc.execute(body)
	return st, nil
}

// newMachine validates the launch shape and options.
func newMachine(k *ir.Kernel, groups [3]int, opts Options) (*machine, error) {
	sg := opts.SubgroupSize
	if sg == 0 {
		sg = 32
	}
	if sg < 1 || sg > 128 || sg&(sg-1) != 0 {
		return nil, fmt.Errorf("interp: subgroup size %d is not a power of two in 1..128", sg)
	}
	n := 1
	for d := 0; d < 3; d++ {
		if k.Size[d] < 1 {
			return nil, fmt.Errorf("interp: kernel %s has workgroup size %v (not checked?)", k.Name, k.Size)
		}
		if groups[d] < 0 || groups[d] > math.MaxUint32 {
			return nil, fmt.Errorf("interp: kernel %s: workgroup count %v out of range", k.Name, groups)
		}
		n *= k.Size[d]
	}
	if n > 1<<16 {
		return nil, fmt.Errorf("interp: kernel %s: workgroup of %d invocations is too large", k.Name, n)
	}
	max := opts.MaxSteps
	if max <= 0 {
		max = DefaultMaxSteps
	}
	return &machine{k: k, n: n, size: k.Size, groups: groups, sgSize: sg, maxSteps: max, races: opts.Races}, nil
}
