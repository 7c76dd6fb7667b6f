package kernels

import (
	"strconv"

	"github.com/kcgo/kc/backend"
)

// decodeTuning is the split-key kernels' configuration (DecodeAttention
// and CausalAttention for up to splitMaxQueries queries): which partial
// kernel runs, each kernel's shape, and how many workgroups. A tuning set
// by a test or benchmark applies to every cache type; decodeTune fills
// some of its zero fields from the type's default.
//
// The partial kernel is the first of these that is switched on and
// applies to the cache's type, the shapes and the device (splitPart): LR
// (decodelr.kc), TC (decodetc.go, 16-bit caches), SG (decodesg.kc), then
// D4 (decode4.kc for f32 caches, decode4h.kc for 16-bit ones), which is
// never switched off.
type decodeTuning struct {
	// Span is the keys a workgroup takes (a power of two, at least one
	// step or round of the kernel; 0: chosen by decodeTuning.span so
	// that about Groups workgroups run, or TC.Groups or LR.Groups where
	// those kernels run and set them).
	Span, Groups int
	// IntWiden makes decodesg.kc and decode4h.kc widen f16 by integer
	// ops instead of unpack2x16float (their WID; slower on the H200:
	// docs/PERF.md, "Widening f16 on the H200").
	IntWiden bool

	D4 d4Tuning
	SG sgTuning
	TC tcTuning
	LR lrTuning
}

// d4Tuning is decode4.kc's and decode4h.kc's shape (decode4Defs): a
// workgroup per key/value head and span, reading rows as 16-byte
// vectors.
type d4Tuning struct {
	// Invocations is the invocations a workgroup (WG: 128 or 256).
	Invocations int
	// KeyLanes is the invocations a key in the score pass (LN: 1, 2 or
	// 4).
	KeyLanes int
	// ValueRows is the value rows a step of the online softmax (VB).
	ValueRows int
	// PreloadValues (decode4h.kc only) loads a round's values with its
	// keys (PRE).
	PreloadValues bool
}

// sgTuning is decodesg.kc's shape (decodeSGDefs).
type sgTuning struct {
	// On selects decodesg.kc where it applies.
	On bool
	// KeyLanes is the invocations a key (KL; at most the lanes a row
	// takes).
	KeyLanes int
	// Subgroups is the subgroups a workgroup (NS).
	Subgroups int
	// Steps is the steps of keys a batch (U; 0: 1).
	Steps int
}

// tcTuning is the tensor-core kernel's shape (decodetc.go, 16-bit caches
// on cooperative matrices; see Context.decodeTC).
type tcTuning struct {
	// On selects the tensor-core kernel where it applies.
	On bool
	// Subgroups is the subgroups a workgroup (0: 4, or 2 or 1 where 4
	// need more shared memory than the device has).
	Subgroups int
	// Tiles is the tiles of 16 keys a subgroup takes a block (0: 1).
	Tiles int
	// Columns is the matrices' head columns, 8 or 16 (0: 8 for f16 with
	// at most 8 query heads per key/value head, else 16).
	Columns int
	// Loads is how keys and values are loaded: 0 keys straight from k,
	// values staged through shared memory; 1 both straight; 2 both
	// staged; 3 keys staged, values straight; 4 as 0, each block's loads
	// issued while the block before runs.
	Loads int
	// Groups is about how many workgroups run (0: decodeTuning.Groups).
	Groups int
}

// lrTuning is decodelr.kc's shape (decodeLRDefs): a key row across the
// lanes of a subgroup, the queries in registers.
type lrTuning struct {
	// On selects decodelr.kc where it applies. Over 16-bit caches it is
	// taken before the tensor-core kernel.
	On bool
	// Subgroups is the subgroups a workgroup (NS).
	Subgroups int
	// Rows is the rows a lane group takes a batch (RB; 0: lrDefs'
	// choice).
	Rows int
	// ValuesAfter loads a batch's values after its dots (VA).
	ValuesAfter bool
	// Prefetch loads the next batch's rows before a batch's arithmetic
	// (PF).
	Prefetch bool
	// Funcs does the loads and the butterfly by functions over arrays
	// (FN: the first form, kept to compare).
	Funcs bool
	// HalfVector spreads half a 16-bit vector a lane, so a row over
	// twice the lanes (HV; ignored for f32 caches).
	HalfVector bool
	// Groups is about how many workgroups run (0:
	// decodeTuning.Groups).
	Groups int
}

// defaultDecode is the configuration the split-key kernels run over an
// f32 cache unless a test or benchmark sets another, the fastest of the
// H200 sweeps (docs/PERF.md, "Decode attention: a key row across a
// subgroup"): decodelr.kc with 4 subgroups a workgroup, 8 vectors a lane
// a batch (8 rows of 128), about 1024 workgroups, where it applies and a
// lane holds at most 4 vectors of the queries (Rows 0: lrDefs); at 32k
// keys, 32/8 heads of 128 it ran 2942 and 3133 GB/s against decode4.kc's
// 2313 and 2323 in the same call (2026-12-01). Elsewhere decode4.kc with
// 4 invocations per key and 8 value rows a step, about 1024 workgroups;
// SG is decodesg.kc's where a tuning asks for it (KeyLanes and Subgroups:
// decodeTune; its Steps are not taken).
var defaultDecode = decodeTuning{
	Groups: 1024,
	D4:     d4Tuning{Invocations: 256, KeyLanes: 4, ValueRows: 8},
	SG:     sgTuning{KeyLanes: 4, Subgroups: 4, Steps: 2},
	LR:     lrTuning{On: true, Subgroups: 4},
}

// defaultDecode16 is the configuration over 16-bit caches: decode4h.kc
// with workgroups of 128, each invocation dotting all 16 vectors of a key
// row of 128 halves (KeyLanes 1: 16 16-byte loads a lane in flight where
// KeyLanes 4 had 4), 8 value rows a step and about 512 workgroups. On the H200
// (2026-12-01, three calls ~21:19-21:26 UTC, 32k keys, 32/8 heads of 128,
// docs/PERF.md "Decode attention: more loads a lane") it ran 1593-1637
// GB/s of f16 (GPU time 1935-1956) where the previous default (workgroups
// of 256, LN 4, VB 4) ran 1112-1181 in the same calls: 1.4x. SG is
// decodesg.kc's, what a tuning asking for it gets (as defaultDecode's).
//
// Where the device has the cooperative matrices, the tensor-core kernel
// (decodetc.go) runs instead: 4 subgroups a workgroup (Subgroups 0: fewer
// where 4 need more shared memory than the device has), one tile of 16
// keys a subgroup per block, the values staged through shared memory,
// about 256 workgroups. On the H200 (2026-12-01, two calls ~23:00 and
// ~23:04 UTC, docs/PERF.md "Decode attention over 16-bit caches on tensor
// cores") it ran 1791-1966 GB/s of f16 (GPU time 2250-2280) where
// decode4h.kc's configuration above ran 1448-1523 (1942-1949) in the same
// calls, 1.2-1.3x; PyTorch's SDPA decode 1912-2078.
//
// Before both, where a lane holds at most 4 vectors of the queries
// (lrDefs; subgroups of 32, heads of 128 and up to 4 query heads per
// key/value head), decodelr.kc with half a vector a lane (HalfVector: a
// row of 128 halves over the 32 lanes, the f32 default's registers a
// lane: 64, no local memory), 8 rows a batch, 4 subgroups, about 1024
// workgroups (LR.Groups). On the H200 (2026-12-02, two calls ~01:14 and
// ~01:24 UTC, docs/PERF.md "Decode attention over 16-bit caches: half a
// vector a lane") its GPU time was 2416-2439 GB/s of f16 against the
// tensor-core kernel's 2260-2270 in the same calls (1.07x), its wall time
// the same within the spread (1787-2009 against 1843-2015), and over bf16
// 2450-2461 against 1859-1866 (1.31x; wall 1679-2082 against 1481-1570).
var defaultDecode16 = decodeTuning{
	Groups: 512,
	D4:     d4Tuning{Invocations: 128, KeyLanes: 1, ValueRows: 8},
	SG:     sgTuning{KeyLanes: 4, Subgroups: 4, Steps: 2},
	TC:     tcTuning{On: true, Tiles: 1, Groups: 256},
	LR:     lrTuning{On: true, Subgroups: 4, HalfVector: true, Groups: 1024},
}

// decodeTune is the configuration for a cache of type d: the test's or
// benchmark's where one is set, else the type's default. A set tuning
// takes the default's D4 shape where its Invocations or KeyLanes are 0
// (its ValueRows where those are set and it is 0), the default's
// SG.KeyLanes, SG.Subgroups, LR.Subgroups and Groups where they are 0,
// and nothing else.
func (c *Context) decodeTune(d DType) decodeTuning {
	def := defaultDecode
	if d != F32 {
		def = defaultDecode16
	}
	t := c.decode
	if t == (decodeTuning{}) {
		return def
	}
	if t.D4.Invocations == 0 || t.D4.KeyLanes == 0 {
		t.D4.Invocations, t.D4.KeyLanes, t.D4.ValueRows = def.D4.Invocations, def.D4.KeyLanes, def.D4.ValueRows
	}
	if t.D4.ValueRows == 0 {
		t.D4.ValueRows = def.D4.ValueRows
	}
	if t.SG.KeyLanes == 0 {
		t.SG.KeyLanes = def.SG.KeyLanes
	}
	if t.SG.Subgroups == 0 {
		t.SG.Subgroups = def.SG.Subgroups
	}
	if t.LR.Subgroups == 0 {
		t.LR.Subgroups = def.LR.Subgroups
	}
	if t.Groups == 0 {
		t.Groups = def.Groups
	}
	return t
}

// span is the keys per workgroup: t.Span, or the power of two from step
// up that gives about groups workgroups (t.Groups where groups is 0).
func (t decodeTuning) span(step, groups, tq, s, kvHeads int) int {
	if groups == 0 {
		groups = t.Groups
	}
	span := t.Span
	if span == 0 {
		span = step
		for span < 1<<20 && kvHeads*tq*ceilDiv(s, span) > groups {
			span *= 2
		}
	}
	return max(span, step)
}

// boolDef is a boolean knob as the kernels' specialisations spell it.
func boolDef(on bool) string {
	if on {
		return "1"
	}
	return "0"
}

// b2i is 1 for true, 0 for false.
func b2i(on bool) int {
	if on {
		return 1
	}
	return 0
}

// splitChoice is a split-key partial kernel for a cache type, shapes and
// tuning (splitPart): the tensor-core kernel in configuration tc where
// isTC is set, else kernel of the embedded file specialised with defs;
// none where neither is set.
type splitChoice struct {
	file, kernel string
	defs         map[string]string
	tc           decodeTCConfig
	isTC         bool
	// span is the keys a workgroup takes.
	span int
}

// ok says whether a partial kernel applies.
func (p splitChoice) ok() bool { return p.isTC || p.defs != nil }

// name is the partial kernel's file ("decodetc.go" for the tensor-core
// kernel, "" where none applies).
func (p splitChoice) name() string {
	if p.isTC {
		return "decodetc.go"
	}
	return p.file
}

// splitPart is the one place that decides which split-key partial kernel
// runs over a cache of type d for these shapes under the context's tuning
// (decodeTune): the first of LR, TC and SG that is on and applies
// (decodeLRDefs, decodeTC, decodeSGDefs), else decode4.kc (f32) or
// decode4h.kc (f16, bf16), or none where those do not apply either.
func (c *Context) splitPart(d DType, tq, s, heads, kvHeads, dh int) splitChoice {
	t := c.decodeTune(d)
	if t.LR.On {
		if span, pd := c.decodeLRDefs(d, t, tq, s, heads, kvHeads, dh); pd != nil {
			return splitChoice{file: "decodelr.kc", kernel: "decodelr_partial", defs: pd, span: span}
		}
	}
	if f, span, ok := c.decodeTC(d, t, tq, s, heads, kvHeads, dh); ok {
		return splitChoice{tc: f, isTC: true, span: span}
	}
	if t.SG.On {
		if span, pd := c.decodeSGDefs(d, t, tq, s, heads, kvHeads, dh); pd != nil {
			return splitChoice{file: "decodesg.kc", kernel: "decodesg_partial", defs: pd, span: span}
		}
	}
	if d == F32 {
		span, pd := c.decode4Defs(t, tq, s, heads, kvHeads, dh)
		return splitChoice{file: "decode4.kc", kernel: "decode4_partial", defs: pd, span: span}
	}
	span, pd := c.decode4hDefs(d, t, tq, s, heads, kvHeads, dh)
	return splitChoice{file: "decode4h.kc", kernel: "decode4h_partial", defs: pd, span: span}
}

// splitPipeline is the partial kernel's pipeline (p.ok()).
func (c *Context) splitPipeline(p splitChoice) (*backend.Pipeline, error) {
	if p.isTC {
		return c.decodeTCPipeline(p.tc)
	}
	return c.pipeline(p.file, p.kernel, p.defs)
}

// decode4Defs returns decode4.kc's span and specialisation under t for
// these shapes, or nil where it does not apply: head dimensions that are
// not a power of two from 32 to 256, more than 16 query heads per
// key/value head (their accumulators would not stay in registers), or
// shared memory the device lacks.
func (c *Context) decode4Defs(t decodeTuning, tq, s, heads, kvHeads, dh int) (int, map[string]string) {
	return c.vecDecodeDefs(4, t, tq, s, heads, kvHeads, dh)
}

// decode4hDefs is decode4Defs for decode4h.kc over a cache of type d
// (16-byte vectors of 4 or 8 elements).
func (c *Context) decode4hDefs(d DType, t decodeTuning, tq, s, heads, kvHeads, dh int) (int, map[string]string) {
	e := 16 / d.Size()
	span, pd := c.vecDecodeDefs(e, t, tq, s, heads, kvHeads, dh)
	if pd != nil {
		pd["H16"], pd["VE"] = h16Def[d], strconv.Itoa(e/4)
		pd["PRE"], pd["WID"] = boolDef(t.D4.PreloadValues), boolDef(t.IntWiden)
	}
	return span, pd
}

// vecDecodeDefs is the span and specialisation that decode4.kc and
// decode4h.kc share, for key and value rows read as 16-byte vectors of e
// elements.
func (c *Context) vecDecodeDefs(e int, t decodeTuning, tq, s, heads, kvHeads, dh int) (int, map[string]string) {
	if dh < 32 || dh > 256 || dh&(dh-1) != 0 {
		return 0, nil
	}
	g, dv := heads/kvHeads, dh/e
	wg, ln := t.D4.Invocations, t.D4.KeyLanes
	if g > 16 || dv > wg || dv%ln != 0 {
		return 0, nil
	}
	vb := min(t.D4.ValueRows, dv/ln)
	span := t.span(wg/ln, 0, tq, s, kvHeads)
	red := max(g, e) * wg
	// qs, red and st (the device's own limit: the backend checks it
	// again when it loads the kernel)
	if need := 4*g*dh + 4*red + 8*g*(wg/dv); need > c.dev.Info().Limits.MaxSharedMemory {
		return 0, nil
	}
	return span, map[string]string{"DH": strconv.Itoa(dh), "G": strconv.Itoa(g), "WG": strconv.Itoa(wg),
		"LN": strconv.Itoa(ln), "VB": strconv.Itoa(vb), "RED": strconv.Itoa(red)}
}

// decodeSGDefs returns decodesg.kc's span and specialisation under t for
// elements of type d, or nil where it does not apply: no subgroups of 8,
// 16 or 32 (the kernel takes lanes local_index % SG of consecutive
// invocations as one subgroup, as NVIDIA and lavapipe lay them out), rows
// of a head that are not a whole number of 16-byte vectors, a power of
// two of them or a multiple of SG, more than 16 query heads per
// key/value head, or shared memory the device lacks.
func (c *Context) decodeSGDefs(d DType, t decodeTuning, tq, s, heads, kvHeads, dh int) (int, map[string]string) {
	info := c.dev.Info()
	sg, ns := info.SubgroupSize, t.SG.Subgroups
	if !info.Subgroups || (sg != 8 && sg != 16 && sg != 32) || dh > maxHeadDim {
		return 0, nil
	}
	e := 16 / d.Size()
	g, dv := heads/kvHeads, dh/e
	if g > 16 || dh%e != 0 || (dv < sg && dv&(dv-1) != 0) || (dv >= sg && dv%sg != 0) || ns*sg > info.Limits.MaxInvocationsPerWorkgroup {
		return 0, nil
	}
	vl := min(sg, dv)
	kl := min(t.SG.KeyLanes, vl)
	if need := 4*g*dh + 8*g*ns + 4*ns*dh; need > info.Limits.MaxSharedMemory {
		return 0, nil
	}
	h16 := h16Def[d]
	u := max(t.SG.Steps, 1)
	span := t.span(ns*sg/kl*u, 0, tq, s, kvHeads)
	return span, map[string]string{"DH": strconv.Itoa(dh), "G": strconv.Itoa(g), "SG": strconv.Itoa(sg),
		"KL": strconv.Itoa(kl), "VL": strconv.Itoa(vl), "NS": strconv.Itoa(ns), "H16": h16, "VE": strconv.Itoa(e / 4),
		"U": strconv.Itoa(u), "WID": boolDef(t.IntWiden)}
}
