package interp

import (
	"fmt"
	"math"
	"sort"

	"github.com/kcgo/kc/ir"
)

// machine is one Run: the kernel compiled for its workgroup size, the bound
// arguments and the state of the workgroup being executed. Invocations of
// a workgroup run in lockstep (see doc.go): every compiled expression and
// statement acts on a list of active lanes, a lane being an invocation's
// local_index, and values are columns of four uint32 words per lane.
type machine struct {
	k        *ir.Kernel
	n        int // invocations per workgroup
	size     [3]int
	groups   [3]int
	sgSize   int
	wgid     [3]int
	steps    int64
	maxSteps int64
	races    bool   // Options.Races
	epoch    uint32 // advanced by every workgroupBarrier and workgroup
	// storageEpoch is advanced by every storageBarrier and workgroup
	storageEpoch uint32

	// loops counts each lane's loop iterations in this workgroup, all its
	// loops together (Stats.MaxLoopIterations); maxLoops is the largest
	// count of the workgroups before (foldLoops) and maxLoopsAt its
	// invocation's global_id.
	loops      []int64
	maxLoops   int64
	maxLoopsAt [3]uint32

	live  []bool // lane has not returned
	nlive int
	all   []int32 // 0..n-1

	params  map[*ir.Param]uint32
	buffers map[*ir.Param][]byte
	shared  [][]byte  // zeroed at the start of every workgroup
	mats    []*matrix // cooperative matrices of this workgroup (coopmat.go)
	// coopScope is the scope of the cooperative operation running (coopmat.go)
	coopScope ir.MatrixScope

	// builtin columns
	globalID, localID, workgroupID, numWorkgroups, localIndex, sgSizeCol, sgInvocation []uint32
}

// newCol returns a zeroed value column for every lane.
func (m *machine) newCol() []uint32 { return make([]uint32, 4*m.n) }

// newLanes returns an empty lane list with room for every lane.
func (m *machine) newLanes() []int32 { return make([]int32, 0, m.n) }

// bind checks args against the kernel's parameters and stores them.
func (m *machine) bind(a *Args) error {
	m.params = map[*ir.Param]uint32{}
	m.buffers = map[*ir.Param][]byte{}
	known := map[string]bool{}
	for _, p := range m.k.Params {
		known[p.Name] = true
		if p.Kind == ir.BufferParam {
			b, ok := a.Buffers[p.Name]
			if !ok {
				return m.argErr("missing buffer %s (%s []%s)", p.Name, p.Access, p.Type)
			}
			if _, ok := a.Params[p.Name]; ok {
				return m.argErr("%s is a buffer, given as a scalar parameter", p.Name)
			}
			stride := ir.ElemStride(p.Type)
			if stride <= 0 {
				return m.argErr("buffer %s has element type %s without a layout", p.Name, p.Type)
			}
			if len(b)%stride != 0 {
				return m.argErr("buffer %s holds %d bytes, not a multiple of the %d-byte stride of %s", p.Name, len(b), stride, p.Type)
			}
			if len(b)/stride > math.MaxUint32 {
				return m.argErr("buffer %s is too large", p.Name)
			}
			m.buffers[p] = b
			continue
		}
		v, ok := a.Params[p.Name]
		if !ok {
			if _, isBuf := a.Buffers[p.Name]; isBuf {
				return m.argErr("%s is a scalar parameter (%s), given as a buffer", p.Name, p.Type)
			}
			return m.argErr("missing parameter %s (%s)", p.Name, p.Type)
		}
		bits, err := paramBits(p, v)
		if err != nil {
			return m.argErr("%v", err)
		}
		m.params[p] = bits
	}
	var unknown []string
	for name := range a.Params {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	for name := range a.Buffers {
		if !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return m.argErr("no parameter named %s", unknown[0])
	}
	return nil
}

// paramBits converts a scalar argument to its bits, strictly.
func paramBits(p *ir.Param, v ir.Value) (uint32, error) {
	t, _ := p.Type.(ir.Scalar)
	switch t {
	case ir.I32, ir.U32:
		if v.Kind != ir.IntValue {
			return 0, fmt.Errorf("parameter %s (%s) needs an integer value", p.Name, t)
		}
		lo, hi := int64(math.MinInt32), int64(math.MaxInt32)
		if t == ir.U32 {
			lo, hi = 0, math.MaxUint32
		}
		if v.Int < lo || v.Int > hi {
			return 0, fmt.Errorf("parameter %s: %d out of range for %s", p.Name, v.Int, t)
		}
		return uint32(v.Int), nil
	case ir.F32:
		if v.Kind != ir.FloatValue {
			return 0, fmt.Errorf("parameter %s (f32) needs a float value", p.Name)
		}
		return math.Float32bits(float32(v.Float)), nil
	}
	return 0, fmt.Errorf("parameter %s has unsupported type %s", p.Name, p.Type)
}

func (m *machine) argErr(format string, args ...any) error {
	return &Error{Kernel: m.k.Name, Pos: m.k.Pos, Msg: fmt.Sprintf(format, args...)}
}

// fail stops the run with an error at pos for lane.
func (m *machine) fail(pos ir.Pos, lane int32, format string, args ...any) {
	e := &Error{Kernel: m.k.Name, Pos: pos, HasInvocation: true, Msg: fmt.Sprintf(format, args...)}
	for d := 0; d < 3; d++ {
		e.Global[d] = uint32(m.wgid[d]*m.size[d]) + m.localID[int(lane)*4+d]
	}
	panic(e)
}

// step charges len(act) steps at pos.
func (m *machine) step(pos ir.Pos, act []int32) {
	m.steps += int64(len(act))
	if m.steps > m.maxSteps {
		m.fail(pos, act[0], "step budget of %d exhausted (runaway loop?)", m.maxSteps)
	}
}

// initBuiltins fills the columns that do not change between workgroups.
func (m *machine) initBuiltins() {
	m.globalID, m.localID, m.workgroupID = m.newCol(), m.newCol(), m.newCol()
	m.numWorkgroups, m.localIndex = m.newCol(), m.newCol()
	m.sgSizeCol, m.sgInvocation = m.newCol(), m.newCol()
	m.live = make([]bool, m.n)
	m.loops = make([]int64, m.n)
	m.all = make([]int32, m.n)
	sx, sy := m.size[0], m.size[1]
	for l := 0; l < m.n; l++ {
		m.all[l] = int32(l)
		o := 4 * l
		m.localID[o] = uint32(l % sx)
		m.localID[o+1] = uint32(l / sx % sy)
		m.localID[o+2] = uint32(l / (sx * sy))
		m.localIndex[o] = uint32(l)
		m.sgSizeCol[o] = uint32(m.sgSize)
		m.sgInvocation[o] = uint32(l % m.sgSize)
		for d := 0; d < 3; d++ {
			m.numWorkgroups[o+d] = uint32(m.groups[d])
		}
	}
}

// execute runs body for every workgroup, x fastest.
func (m *machine) execute(body stmtFn) {
	if m.groups[0] == 0 || m.groups[1] == 0 || m.groups[2] == 0 {
		return
	}
	for z := 0; z < m.groups[2]; z++ {
		for y := 0; y < m.groups[1]; y++ {
			for x := 0; x < m.groups[0]; x++ {
				m.wgid = [3]int{x, y, z}
				m.startWorkgroup()
				body(m.all)
				m.foldLoops()
			}
		}
	}
}

// foldLoops takes the workgroup's largest per-lane loop count into the
// run's (Stats.MaxLoopIterations): on a tie the earlier workgroup, then
// the lower local index, keeps it. It runs after each workgroup and, when
// an error stops one, for the part that ran (RunStats).
func (m *machine) foldLoops() {
	for l, n := range m.loops {
		if n > m.maxLoops {
			m.maxLoops = n
			copy(m.maxLoopsAt[:], m.globalID[4*l:4*l+3])
		}
	}
}

// startWorkgroup resets the per-workgroup state.
func (m *machine) startWorkgroup() {
	for l := 0; l < m.n; l++ {
		m.live[l] = true
		o := 4 * l
		for d := 0; d < 3; d++ {
			m.workgroupID[o+d] = uint32(m.wgid[d])
			m.globalID[o+d] = uint32(m.wgid[d]*m.size[d]) + m.localID[o+d]
		}
	}
	m.nlive = m.n
	clear(m.loops)
	m.mats = m.mats[:0]
	m.epoch++
	m.storageEpoch++
	for _, s := range m.shared {
		clear(s)
	}
}
