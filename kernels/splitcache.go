package kernels

import (
	"strconv"

	"github.com/kcgo/kc/backend"
)

// splitKey is what decides splitKeys' kernels (not the tensors).
type splitKey struct {
	in, out              DType
	tq, s, heads, kv, dh int
	t                    decodeTuning
}

// splitPipes is the split-key kernels' plan for a splitKey: splitPart's
// partial kernel (nil where none applies), its span, and the merge.
type splitPipes struct {
	part, merge *backend.Pipeline
	span        int
}

// maxSplitPlans bounds the plans kept (a decoder asks for a new key
// length every token); past it the cache starts over.
const maxSplitPlans = 64

// splitPlanFor returns the split-key plan of these shapes, remembered per
// Context: building it (the specialisation's map, its cache key) cost
// more of the host's recording than the two dispatches (BenchmarkRecordDecode;
// docs/PERF.md "Decode attention: the host's recording in the wall
// time").
func (c *Context) splitPlanFor(in, out DType, tq, s, heads, kvHeads, dh int) (*splitPipes, error) {
	key := splitKey{in, out, tq, s, heads, kvHeads, dh, c.decodeTune(in)}
	c.mu.Lock()
	p := c.splits[key]
	c.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p = &splitPipes{}
	if pc := c.splitPart(in, tq, s, heads, kvHeads, dh); pc.ok() {
		var err error
		if p.part, err = c.splitPipeline(pc); err != nil {
			return nil, err
		}
		merge, md := mergeSpec(dh, out)
		if p.merge, err = c.pipeline("decode4.kc", merge, md); err != nil {
			return nil, err
		}
		p.span = pc.span
	}
	c.mu.Lock()
	if c.splits == nil || len(c.splits) >= maxSplitPlans {
		c.splits = map[splitKey]*splitPipes{}
	}
	c.splits[key] = p
	c.mu.Unlock()
	return p, nil
}

// mergeSpec is decode4.kc's merge of the split-key partial results of
// heads of dh into out's type: its kernel and specialisation (the merge
// reads only DH, WG and H16; the rest is any valid specialisation).
func mergeSpec(dh int, out DType) (string, map[string]string) {
	md := map[string]string{"DH": strconv.Itoa(dh), "G": "1", "WG": "256", "LN": "1", "VB": "1", "RED": "1024"}
	if out == F32 {
		return "decode4_merge", md
	}
	md["H16"] = h16Def[out]
	return "decode4_merge16", md
}
