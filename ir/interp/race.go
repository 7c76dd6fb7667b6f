package interp

import (
	"github.com/kcgo/kc/ir"
)

// Data races on shared memory (Options.Races). Lockstep execution gives a
// racy kernel one of its possible results, so a missing workgroupBarrier
// goes unnoticed; the detector reports it instead. Between two
// workgroupBarrier calls (an epoch) a location of shared memory may be
// written by one invocation and then accessed only by it, or read by any
// number of invocations; anything else is a data race (WGSL: undefined).
// Atomics do not take part. Locations are tracked per 2 bytes.

type raceMem struct {
	name   string
	wEpoch []uint32 // epoch of the last write
	wLane  []int32
	rEpoch []uint32 // epoch of the last reads
	rLane  []int32  // the only reader in rEpoch, or -1 for several
}

func newRaceMem(name string, size int) *raceMem {
	u := (size + 1) / 2
	return &raceMem{name: name, wEpoch: make([]uint32, u), wLane: make([]int32, u), rEpoch: make([]uint32, u), rLane: make([]int32, u)}
}

// read records that lane reads bytes [off, off+size) and reports a race
// with a write by another invocation in this epoch.
func (r *raceMem) read(m *machine, pos ir.Pos, lane int32, off, size int) {
	e := m.epoch
	for u := off / 2; u < (off+size+1)/2; u++ {
		if r.wEpoch[u] == e && r.wLane[u] != lane {
			m.race(pos, lane, r.name, off, "reads", "wrote", r.wLane[u])
		}
		if r.rEpoch[u] != e {
			r.rEpoch[u], r.rLane[u] = e, lane
		} else if r.rLane[u] != lane {
			r.rLane[u] = -1
		}
	}
}

// write records that lane writes bytes [off, off+size) and reports a race
// with an access by another invocation in this epoch.
func (r *raceMem) write(m *machine, pos ir.Pos, lane int32, off, size int) {
	e := m.epoch
	for u := off / 2; u < (off+size+1)/2; u++ {
		if r.wEpoch[u] == e && r.wLane[u] != lane {
			m.race(pos, lane, r.name, off, "writes", "wrote", r.wLane[u])
		}
		if r.rEpoch[u] == e && r.rLane[u] != lane {
			m.race(pos, lane, r.name, off, "writes", "read", r.rLane[u])
		}
		r.wEpoch[u], r.wLane[u] = e, lane
	}
}

func (m *machine) race(pos ir.Pos, lane int32, name string, off int, does, done string, other int32) {
	by := "several other invocations"
	if other >= 0 {
		by = "local invocation " + itoa(int64(other))
	}
	m.fail(pos, lane, "data race on shared %s (byte %d): this invocation %s it after %s %s it with no workgroupBarrier() between", name, off, does, by, done)
}

// raceLoad and raceStore put a loader or storer of a shared-memory ref
// under the detector (when the ref has one).
func (c *compiler) raceLoad(r ref, ld func(act []int32, offs []int, out []uint32)) func(act []int32, offs []int, out []uint32) {
	if r.race == nil {
		return ld
	}
	m, rm, pos, size := c.m, r.race, r.pos, memStride(r.ty)
	return func(act []int32, offs []int, out []uint32) {
		for _, l := range act {
			rm.read(m, pos, l, offs[l], size)
		}
		ld(act, offs, out)
	}
}

func (c *compiler) raceStore(r ref, st func(act []int32, offs []int, v []uint32)) func(act []int32, offs []int, v []uint32) {
	if r.race == nil {
		return st
	}
	m, rm, pos, size := c.m, r.race, r.pos, memStride(r.ty)
	return func(act []int32, offs []int, v []uint32) {
		for _, l := range act {
			rm.write(m, pos, l, offs[l], size)
		}
		st(act, offs, v)
	}
}
