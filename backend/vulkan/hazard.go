//go:build linux && cgo

package vulkan

// Barrier placement. Commands in one command buffer run in any order and
// overlap unless a barrier separates them, so kc records a barrier only
// where a command touches memory an earlier command (since the last
// barrier) wrote, or writes memory an earlier command read. Independent
// dispatches in one scope (no buffer range written by one and touched by
// another) therefore run back to back with no barrier between them, and a
// dependent chain gets one barrier per link. A barrier is a global memory
// barrier: compute-to-compute when everything since the last barrier and
// the next command are dispatches (the cheap kind; lavapipe drains its
// whole queue for transfer stages), compute|transfer on both sides
// otherwise. The first command of every command buffer is preceded by a
// full barrier, which orders it after all earlier submissions.

// maxRangesPerBuffer bounds the ranges remembered per buffer between
// barriers; past it they merge into one covering range (conservative: a
// spurious barrier, never a missing one).
const maxRangesPerBuffer = 16

// hazards is what a frame's commands touched since its last barrier.
type hazards struct {
	w, r     spanSet // ranges written / read, by VkBuffer
	transfer bool    // a transfer command since the last barrier
	started  bool    // a barrier has been recorded in this frame
	barriers int     // barriers recorded in this frame

	// With collect set (KC_VULKAN_BARRIER=buffer), barrierFor leaves in
	// pend every range written since the previous barrier, for buffer
	// memory barriers instead of a global one.
	collect bool
	pend    []access
}

// access is one buffer range a command reads or writes.
type access struct {
	buf       uintptr
	off, size uint64
	write     bool
}

func (h *hazards) reset() {
	h.w.clear()
	h.r.clear()
	h.transfer, h.started, h.barriers = false, false, 0
	h.pend = h.pend[:0]
}

// spanSet is the ranges of each buffer touched since the last barrier. It
// is cleared at every barrier (once per link of a dependent chain), so it
// keeps its memory: the span lists of cleared entries are reused, and
// buffers are found by a linear scan until there are more than
// spanSetScan of them, then through a map.
type spanSet struct {
	bufs  []uintptr
	spans [][]span // spans[i] are bufs[i]'s
	n     int      // entries in use
	idx   map[uintptr]int
	byIdx bool // idx is in use
}

const spanSetScan = 8

func (s *spanSet) clear() {
	s.n = 0
	if s.byIdx {
		clear(s.idx)
		s.byIdx = false
	}
}

func (s *spanSet) find(buf uintptr) int {
	if s.byIdx {
		if i, ok := s.idx[buf]; ok {
			return i
		}
		return -1
	}
	for i, b := range s.bufs[:s.n] {
		if b == buf {
			return i
		}
	}
	return -1
}

// get returns buf's spans (nil when none).
func (s *spanSet) get(buf uintptr) []span {
	if i := s.find(buf); i >= 0 {
		return s.spans[i]
	}
	return nil
}

// add notes sp for buf.
func (s *spanSet) add(buf uintptr, sp span) {
	i := s.find(buf)
	if i < 0 {
		i = s.n
		if i < len(s.bufs) {
			s.bufs[i], s.spans[i] = buf, s.spans[i][:0]
		} else {
			s.bufs, s.spans = append(s.bufs, buf), append(s.spans, nil)
		}
		s.n++
		switch {
		case s.byIdx:
			s.idx[buf] = i
		case s.n > spanSetScan:
			if s.idx == nil {
				s.idx = map[uintptr]int{}
			}
			for j, b := range s.bufs[:s.n] {
				s.idx[b] = j
			}
			s.byIdx = true
		}
	}
	s.spans[i] = addSpan(s.spans[i], sp)
}

// envBarrier selects the barrier between dependent dispatches: "global"
// (the default: one global memory barrier) or "buffer" (a buffer memory
// barrier per range written since the last barrier). It exists to measure
// what each costs on a device (scripts/h200-runtime.sh).
const envBarrier = "KC_VULKAN_BARRIER"

// bufferBarriers records compute-to-compute buffer memory barriers for
// ranges (an execution-only barrier when there are none).
func (d *device) bufferBarriers(f *frame, ranges []access) {
	a := d.cmds
	a.reserve()
	bs := sliceIn[vkBufferMemoryBarrier](a, len(ranges))
	for i, r := range ranges {
		bs[i] = vkBufferMemoryBarrier{sType: stBufferMemoryBarrier, srcAccessMask: accessShaderWrite, dstAccessMask: accessShaderRead | accessShaderWrite,
			srcQueueFamilyIndex: queueFamilyIgnored, dstQueueFamilyIndex: queueFamilyIgnored, buffer: r.buf, offset: r.off, size: r.size}
	}
	a.call(d.l.fn.CmdPipelineBarrier, f.cmd, pipelineStageComputeShader, pipelineStageComputeShader, 0, 0, 0, uintptr(len(ranges)), saddr(bs), 0, 0)
}

// barrierFor returns the barrier a command with the given accesses needs
// (barrierNone, barrierCompute or barrierFull), notes its accesses, and
// clears what a barrier makes safe. compute says the command is a dispatch.
func (h *hazards) barrierFor(acc []access, compute bool) int {
	kind := barrierNone
	switch {
	case !h.started:
		kind = barrierFull
	case h.conflicts(acc):
		kind = barrierCompute
		if h.transfer || !compute {
			kind = barrierFull
		}
	}
	if kind != barrierNone {
		if h.collect {
			h.pend = h.pend[:0]
			for i, buf := range h.w.bufs[:h.w.n] {
				for _, s := range h.w.spans[i] {
					h.pend = append(h.pend, access{buf, s.off, s.size, true})
				}
			}
		}
		h.w.clear()
		h.r.clear()
		h.transfer, h.started = false, true
		h.barriers++
	}
	for _, a := range acc {
		m := &h.r
		if a.write {
			m = &h.w
		}
		m.add(a.buf, span{a.off, a.size})
	}
	if !compute {
		h.transfer = true
	}
	return kind
}

// conflicts reports a read or write of memory written since the last
// barrier, or a write of memory read since it.
func (h *hazards) conflicts(acc []access) bool {
	for _, a := range acc {
		s := span{a.off, a.size}
		if overlapsAny(h.w.get(a.buf), s) || (a.write && overlapsAny(h.r.get(a.buf), s)) {
			return true
		}
	}
	return false
}

func overlapsAny(ss []span, s span) bool {
	for _, o := range ss {
		if o.off < s.off+s.size && s.off < o.off+o.size {
			return true
		}
	}
	return false
}

// addSpan adds s to ss (unless already there), merging everything into one
// covering span when the list is full.
func addSpan(ss []span, s span) []span {
	for _, o := range ss {
		if o == s {
			return ss
		}
	}
	if len(ss) < maxRangesPerBuffer {
		return append(ss, s)
	}
	lo, hi := s.off, s.off+s.size
	for _, o := range ss {
		lo, hi = min(lo, o.off), max(hi, o.off+o.size)
	}
	return append(ss[:0], span{lo, hi - lo})
}
