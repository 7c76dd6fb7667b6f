package interp

import (
	"fmt"

	"github.com/kcgo/kc/ir"
)

// Data races (Options.Races). Lockstep execution gives a racy kernel one
// of its possible results, so a missing barrier would go unnoticed; the
// detector reports it instead.
//
// Shared memory: between two workgroupBarrier calls (an epoch) a location
// may be written by one invocation and then accessed only by it, or read by
// any number of invocations; anything else is a data race.
//
// Storage buffers: the same within a workgroup, with storageBarrier
// ending the epoch; and a location written by one workgroup may not be
// accessed by another at all (workgroups cannot synchronise except through
// atomics), while any number of workgroups may read it.
//
// Atomics take no part. Locations are tracked per 2 bytes.

type raceMem struct {
	what    string // "shared s", "buffer y"
	storage bool
	wGroup  []int32 // 1 + the workgroup of the last write; 0: never written
	wEpoch  []uint32
	wLane   []int32
	rGroup  []int32 // 1 + the only workgroup that read; 0: none; -1: several
	rEpoch  []uint32
	rLane   []int32 // the only reader in rEpoch, or -1 for several
}

func newRaceMem(what string, size int, storage bool) *raceMem {
	u := (size + 1) / 2
	return &raceMem{what: what, storage: storage,
		wGroup: make([]int32, u), wEpoch: make([]uint32, u), wLane: make([]int32, u),
		rGroup: make([]int32, u), rEpoch: make([]uint32, u), rLane: make([]int32, u)}
}

// clock returns the current workgroup (1-based; always 1 for shared
// memory, which lives in one workgroup) and epoch.
func (r *raceMem) clock(m *machine) (int32, uint32) {
	if r.storage {
		return int32(m.wgLinear() + 1), m.storageEpoch
	}
	return 1, m.epoch
}

// read records that lane reads bytes [off, off+size) and reports a race
// with a write by another invocation.
func (r *raceMem) read(m *machine, pos ir.Pos, lane int32, off, size int) {
	g, e := r.clock(m)
	for u := off / 2; u < (off+size+1)/2; u++ {
		switch {
		case r.wGroup[u] != 0 && r.wGroup[u] != g:
			m.race(pos, lane, r, off, "reads", "wrote", m.groupName(r.wGroup[u]), false)
		case r.wGroup[u] == g && r.wEpoch[u] == e && r.wLane[u] != lane:
			m.race(pos, lane, r, off, "reads", "wrote", laneName(r.wLane[u]), true)
		}
		switch {
		case r.rGroup[u] == 0 || (r.rGroup[u] == g && r.rEpoch[u] != e):
			r.rGroup[u], r.rEpoch[u], r.rLane[u] = g, e, lane
		case r.rGroup[u] != g:
			r.rGroup[u] = -1
		case r.rLane[u] != lane:
			r.rLane[u] = -1
		}
	}
}

// write records that lane writes bytes [off, off+size) and reports a race
// with an access by another invocation.
func (r *raceMem) write(m *machine, pos ir.Pos, lane int32, off, size int) {
	g, e := r.clock(m)
	for u := off / 2; u < (off+size+1)/2; u++ {
		switch {
		case r.wGroup[u] != 0 && r.wGroup[u] != g:
			m.race(pos, lane, r, off, "writes", "wrote", m.groupName(r.wGroup[u]), false)
		case r.wGroup[u] == g && r.wEpoch[u] == e && r.wLane[u] != lane:
			m.race(pos, lane, r, off, "writes", "wrote", laneName(r.wLane[u]), true)
		case r.rGroup[u] == -1:
			m.race(pos, lane, r, off, "writes", "read", "several workgroups", false)
		case r.rGroup[u] != 0 && r.rGroup[u] != g:
			m.race(pos, lane, r, off, "writes", "read", m.groupName(r.rGroup[u]), false)
		case r.rGroup[u] == g && r.rEpoch[u] == e && r.rLane[u] != lane:
			m.race(pos, lane, r, off, "writes", "read", laneName(r.rLane[u]), true)
		}
		r.wGroup[u], r.wEpoch[u], r.wLane[u] = g, e, lane
	}
}

func laneName(l int32) string {
	if l < 0 {
		return "several other invocations"
	}
	return "local invocation " + itoa(int64(l))
}

// groupName names the workgroup g (1-based linear index).
func (m *machine) groupName(g int32) string {
	l := int(g - 1)
	gx, gy := m.groups[0], m.groups[1]
	return fmt.Sprintf("workgroup (%d, %d, %d)", l%gx, l/gx%gy, l/(gx*gy))
}

func (m *machine) wgLinear() int {
	return m.wgid[0] + m.groups[0]*(m.wgid[1]+m.groups[1]*m.wgid[2])
}

func (m *machine) race(pos ir.Pos, lane int32, r *raceMem, off int, does, did, by string, sameGroup bool) {
	tail := " (workgroups cannot synchronise)"
	if sameGroup {
		tail = " with no workgroupBarrier() between"
		if r.storage {
			tail = " with no storageBarrier() between"
		}
	}
	m.fail(pos, lane, "data race on %s (byte %d): this invocation %s it after %s %s it%s", r.what, off, does, by, did, tail)
}

// raceLoad and raceStore put a loader or storer of a shared-memory or
// buffer ref under the detector (when the ref has one).
func (c *compiler) raceLoad(r ref, ld func(act []int32, offs []int, out []uint32)) func(act []int32, offs []int, out []uint32) {
	if r.race == nil {
		return ld
	}
	m, rm, pos, size := c.m, r.race, r.pos, accessSize(r.ty)
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
	m, rm, pos, size := c.m, r.race, r.pos, accessSize(r.ty)
	return func(act []int32, offs []int, v []uint32) {
		for _, l := range act {
			rm.write(m, pos, l, offs[l], size)
		}
		st(act, offs, v)
	}
}

// accessSize is the number of bytes a load or store of t touches (a vec3
// leaves its padding alone).
func accessSize(t ir.Type) int {
	if v, ok := t.(ir.Vector); ok {
		return v.N * memStride(v.Elem)
	}
	return memStride(t)
}
