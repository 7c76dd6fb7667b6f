package kernels

import (
	"math/bits"
	"strconv"
)

// decodeLRDefs returns decodelr.kc's span and specialisation under t (its
// shape: t.LR, lrTuning) for a cache of type d, or nil where it does not
// apply (lrDefs) or where the device lacks the subgroups, shared memory
// or invocations.
func (c *Context) decodeLRDefs(d DType, t decodeTuning, tq, s, heads, kvHeads, dh int) (int, map[string]string) {
	info := c.dev.Info()
	lt := t.LR
	sg, ns := info.SubgroupSize, max(lt.Subgroups, 1)
	if !info.Subgroups || ns*sg > info.Limits.MaxInvocationsPerWorkgroup {
		return 0, nil
	}
	g := heads / kvHeads
	if need := 8*g*ns + 4*ns*dh; need > info.Limits.MaxSharedMemory {
		return 0, nil
	}
	pd := lrDefs(sg, d, lt.Rows, ns, b2i(lt.ValuesAfter), b2i(lt.Prefetch), b2i(lt.Funcs), b2i(lt.HalfVector), g, dh)
	if pd == nil {
		return 0, nil
	}
	rb, _ := strconv.Atoi(pd["RB"])
	lr, _ := strconv.Atoi(pd["LR"])
	return t.span(ns*(sg/lr)*rb, lt.Groups, tq, s, kvHeads), pd
}

// lrDefs is decodelr.kc's specialisation for subgroups of sg lanes, a
// cache of type d, rb rows a lane group a batch (0: as many as make 8
// vectors a lane, where a lane holds at most 4 vectors of the queries,
// else nil), ns subgroups, va,
// pf, fn, hv (16-bit caches only: half a vector a lane, so a row over
// twice the lanes), g query heads per key/value head and head dimension dh; nil where the
// kernel does not apply: subgroups that are not a power of two from 8 to
// 128 (the kernel takes lanes local_index % SG of consecutive invocations
// as one subgroup, as NVIDIA and lavapipe lay them out), a head dimension
// that is not a power of two from 32 (decode4_merge's columns a
// workgroup) to 256, g that is not a power of two at most the lanes a row takes (the
// butterfly leaves each lane scores of one head), or rb not a power of
// two up to 32.
func lrDefs(sg int, d DType, rb, ns, va, pf, fn, hv, g, dh int) map[string]string {
	if sg < 8 || sg > 128 || sg&(sg-1) != 0 || dh > maxHeadDim || dh < 32 || dh&(dh-1) != 0 {
		return nil
	}
	e := 16 / d.Size()
	if d == F32 {
		hv = 0
	}
	hv = min(hv, 1)
	lr := min(sg, dh/e<<hv)
	if rb == 0 {
		// the default: 8 vectors a lane a batch, and only where a lane
		// holds at most 4 vectors of the queries (the registers of the
		// H200 figures: more spilled in other configurations)
		vc := dh / e << hv / lr
		if g*vc > 4 {
			return nil
		}
		rb = max(1, 8/vc)
	}
	if g < 1 || g&(g-1) != 0 || g > lr || rb&(rb-1) != 0 || rb > 32 {
		return nil
	}
	lg := func(x int) int { return bits.Len(uint(x)) - 1 }
	llr, ln := lg(lr), lg(rb*g)
	return map[string]string{"DH": strconv.Itoa(dh), "G": strconv.Itoa(g), "SG": strconv.Itoa(sg),
		"NS": strconv.Itoa(ns), "H16": h16Def[d], "VE": strconv.Itoa(e / 4), "RB": strconv.Itoa(rb), "VA": strconv.Itoa(min(va, 1)), "PF": strconv.Itoa(min(pf, 1)), "FN": strconv.Itoa(min(fn, 1)), "HV": strconv.Itoa(hv),
		"LR": strconv.Itoa(lr), "LLR": strconv.Itoa(llr), "LSG": strconv.Itoa(lg(sg)), "LN": strconv.Itoa(ln), "LRB": strconv.Itoa(lg(rb)), "T": strconv.Itoa(min(llr, ln))}
}
