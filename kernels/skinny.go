package kernels

import (
	"context"
	"errors"
	"fmt"

	"github.com/kcgo/kc/coopmat"
)

// Decode-shaped products: at most 16 rows of a times 16-bit weights b, a
// model's step. They read b once, so they run at the speed b streams from
// memory, and each kernel below is built for that; which one runs is
// decodeRouteFor's choice.

// decodeRoute is how a product of at most 16 rows with 16-bit b runs.
type decodeRoute struct {
	// Kernel: "gemv" (gemv.kc, a·bᵀ), "gemvt" (gemvt.kc, a·b), "skinny"
	// (coopmat's skinny tensor-core kernel) or "coop" (coopmat's choice
	// for the problem: tiled cooperative matrices, or f32 where the device
	// has none).
	Kernel string
	// Layout is the skinny kernel's (zero: coopmat's first candidate).
	Layout skinnyLayout
	// Team and R are gemv's team of lanes and rows of b a team (zero: 128
	// and 2), U its strides of k a lane loads before it adds (zero: 1);
	// SG takes gemvsg.kc (a reduction by subgroup shuffles, and no bound
	// on R from shared memory) where the device can.
	Team, R, U int
	SG         bool
	// WG and CT are gemvtsg.kc's workgroup size and 16-byte column words
	// a workgroup (U its rows of b a lane loads a step; SG takes it over
	// gemvt.kc; zero: gemvtRoute's).
	WG, CT int
}

// skinnyLayout is a layout of coopmat's skinny tensor-core kernel:
// subgroups of a workgroup (k split among them), 16-column tiles of C per
// subgroup, k per workgroup (the split-k slice), or with Whole all of k a
// workgroup, in chunks of KS (no split-k).
type skinnyLayout struct {
	S, TN, KS int
	Whole     bool
	Packed    bool // b read as 16-byte words by the cooperative loads
	// Prefetch is the k-steps of b the cooperative loads run ahead of the
	// multiply-adds, from before a is staged (coopmat.Plan.Prefetch; 0
	// none); where b's rows are not 16-byte aligned the kernel stages b
	// anyway, and the layout without it runs.
	Prefetch int
	// StageB stages b's block in shared memory with 16-byte loads
	// (coopmat.Plan.StageB; b's rows 16-byte aligned only, else the
	// layout without it runs).
	StageB bool
}

// The default routes, from the H200 (2026-12-01; GB/s over 4096x4096 f16
// weights, products chained as a model's are, f32 a / f16 a; the history
// and every figure are in docs/PERF.md, the sections "Decode products"
// from "1-16 rows" on; one configuration's figures moved by up to 30%
// between runs, so only wide margins or every same-call comparison
// decide):
//
//   - a·bᵀ, 1 row: gemv.kc 128/2 with f32 a (2561-2603; the kernel alone
//     2789), gemvsg.kc 128/4 with f16 a (2582-2760 since the kernel rounds
//     the 16-bit result itself: 1927-1931 with the cast after it);
//     PyTorch's F.linear 1210-1960 in the same calls;
//   - a·bᵀ, 2-4 rows of f32 a: gemvsg.kc 64/4 (2203-2319 at 4); 2-3 rows
//     of f16 a: gemv.kc 64/2 (4 rows 1709-1760);
//   - a·bᵀ, 5-7 rows of f32 a: gemvsg.kc 64/4 (1780-1820 at 8 rows);
//   - a·bᵀ, from 8 rows of f32 a and 4 of 16-bit a: the skinny
//     tensor-core kernel, coopmat's first layout for a·bᵀ, 4 subgroups of
//     one tile, all of k a workgroup in chunks of 512, b's block staged in
//     shared memory (coopmat.Plan.StageB): 1886-2024 / 2033-2136 at 8 and
//     16 rows, where gemvsg.kc ran 1764-1805 / 1512-1627 at 8 and the
//     skinny kernel's earlier layouts 915-1127 at 16; without cooperative
//     matrices gemv.kc 64/2 beyond 8 rows;
//   - a·b, 1-4 rows: gemvtsg.kc (2026-12-02, two calls: all of k a
//     workgroup, one dispatch), 512 invocations of 4 column words and 4
//     rows a step at 1 row (2425-2496; the kernel alone 2521-2621, where
//     gemvt.kc ran 1766-1775 / 1928-1956), 1024 of 4 words and 2 rows
//     at 2-4 rows (1764-1939 at 4, where the skinny kernel ran
//     1752-1784; 2-3 rows not timed);
//     PyTorch's x @ W 2053 / 2086 and 1468 / 1412 at 1 / 4 rows in those
//     calls; gemvt.kc where the device has no subgroup shuffles or n is
//     not a multiple of 8;
//   - a·b, 5-16 rows: the skinny kernel, coopmat's first layout for a·b
//     (8 subgroups of one tile, all of k in chunks of 512, b's loads 4
//     steps ahead: 1679-1790 at 8 and 16 rows, 2026-12-02, where
//     gemvtsg.kc's best ran 1445-1706 at 8; 4x4x512 at fewer than 4096
//     columns); without cooperative matrices coopmat's choice.
//
// More loads in flight in gemv.kc and gemvsg.kc (U strides a step) did
// not help: U stays 1.
var (
	skinnyDefault = skinnyLayout{}
	// skinnyMinRows is the fewest rows that take the skinny kernel by
	// default, by form: a·bᵀ with f32 a, a·bᵀ with 16-bit a, a·b (whose
	// 1-4 rows take gemvtsg.kc).
	skinnyMinRows = [3]int{8, 4, 5}
)

// gemvRoute is gemv's default for m rows of a of type ad (m <= 16).
func gemvRoute(m int, ad DType) decodeRoute {
	switch {
	case m == 1 && ad == F32:
		return decodeRoute{Kernel: "gemv", Team: 128, R: 2}
	case m == 1:
		return decodeRoute{Kernel: "gemv", Team: 128, R: 4, SG: true}
	case m <= 4 && ad != F32:
		return decodeRoute{Kernel: "gemv", Team: 64, R: 2}
	case m <= 8:
		return decodeRoute{Kernel: "gemv", Team: 64, R: 4, SG: true}
	}
	return decodeRoute{Kernel: "gemv", Team: 64, R: 2}
}

// gemv4fRoute is gemv4f's shape for m rows of f32 a over f32 b, from
// BenchmarkDecode's btf32 form on the H200 (2026-12-02 ~01:05 UTC, 4096x4096
// f32 weights, chained, GB/s over the 64 MiB of weights): one row gemv.kc
// 128/2 3273 (coopmat's tiled kernel 844), four rows gemvsg.kc 64/4 3038
// (858), eight rows gemvsg.kc 64/2 2562 (850; 64/4 1735, its loads of a
// bound it). Sixteen rows take the eight-row shape.
func gemv4fRoute(m int) decodeRoute {
	switch {
	case m == 1:
		return decodeRoute{Kernel: "gemv", Team: 128, R: 2}
	case m <= 4:
		return decodeRoute{Kernel: "gemv", Team: 64, R: 4, SG: true}
	}
	return decodeRoute{Kernel: "gemv", Team: 64, R: 2, SG: true}
}

// decodeRouteFor chooses how o runs (a, b as given to halfProduct): the
// fixed route of tests and benchmarks, else the defaults above (the
// skinny kernel only where the device has it for the problem: cooperative
// matrices of b's type). Products of more than 16 rows always take
// coopmat's choice.
func (c *Context) decodeRouteFor(a, b *Tensor, o coopmat.Options) decodeRoute {
	if o.M > gemvMaxRows || c.noGEMV {
		return decodeRoute{Kernel: "coop"}
	}
	switch f := c.decodeForce; {
	case f.Kernel == "gemv" && !o.TransB, f.Kernel == "gemvt" && o.TransB:
		f.Kernel = map[bool]string{true: "gemv", false: "gemvt"}[o.TransB]
		return f
	case f.Kernel != "":
		return f
	}
	form := 2
	switch {
	case o.TransB && a.dtype == F32:
		form = 0
	case o.TransB:
		form = 1
	}
	if o.M >= skinnyMinRows[form] {
		// The probe prepares the product, so the call that follows finds
		// it in the cache: planning costs 50-80 µs of host time a call.
		// A device without a plan falls back; a plan that fails to build
		// takes the route, so that its error is reported.
		var none *noSkinnyPlan
		if _, err := c.skinnyMatmul(a, b, o, skinnyDefault); !errors.As(err, &none) {
			return decodeRoute{Kernel: "skinny", Layout: skinnyDefault}
		}
	}
	switch {
	case o.TransB:
		return gemvRoute(o.M, a.dtype)
	case o.M <= gemvtMaxRows:
		return gemvtRoute(o.M)
	}
	return decodeRoute{Kernel: "coop"}
}

// skinnyOptions are o as coopmat's skinny kernel takes it for a and b: b's
// type; f32 a read as it is (the kernel rounds it to b's type as it stages
// it, as the cast before the tiled kernels would); C of a's type (a bf16
// C rounded to nearest even by the kernel's scalar conversion).
func skinnyOptions(a, b *Tensor, o coopmat.Options) coopmat.Options {
	o.DType, o.CType = b.dtype.String(), a.dtype.String()
	if a.dtype == F32 {
		o.AType = "f32"
	}
	return o
}

// skinnyPlan returns the skinny tensor-core plan of layout l (zero: the
// first) for o, or an error where the device has none. A prefetching
// or staged layout the product cannot take (b's rows not 16-byte aligned)
// is the same layout without prefetch or staging.
func (c *Context) skinnyPlan(a, b *Tensor, o coopmat.Options, l skinnyLayout) (coopmat.Plan, error) {
	o = skinnyOptions(a, b, o)
	if _, ok := coopmat.CoopShape(c.dev.Info(), o.DType); !ok {
		return coopmat.Plan{}, fmt.Errorf("kernels: %s has no %s cooperative matrix", c.dev.Info().Name, o.DType)
	}
	cs, err := coopmat.Candidates(c.dev.Info(), o)
	if err != nil {
		return coopmat.Plan{}, err
	}
	if p, ok := skinnyMatch(cs, l); ok {
		return p, nil
	}
	return coopmat.Plan{}, fmt.Errorf("kernels: no skinny tensor-core plan %v for %s on %s", l, o, c.dev.Info().Name)
}

// skinnyMatch is the first skinny plan of cs in layout l (zero: the first
// skinny plan); for a prefetching or staged layout that cs lacks (as
// where b's rows are not 16-byte aligned), the layout without either.
func skinnyMatch(cs []coopmat.Plan, l skinnyLayout) (coopmat.Plan, bool) {
	if p, ok := skinnyExact(cs, l); ok || (l.Prefetch == 0 && !l.StageB) {
		return p, ok
	}
	l.Prefetch, l.StageB = 0, false
	return skinnyExact(cs, l)
}

// skinnyExact is the first skinny plan of cs in layout l (zero: the first
// skinny plan).
func skinnyExact(cs []coopmat.Plan, l skinnyLayout) (coopmat.Plan, bool) {
	for _, p := range cs {
		if p.Generator != "skinny" {
			continue
		}
		// k in one chunk: the whole-k plan and the split one are the same
		whole := p.KS > p.Tile.BK || p.Splits == 1
		if (l == skinnyLayout{}) || (l.S == p.Subgroups[0] && l.TN == p.Tile.TN && l.KS == p.Tile.BK && (l.Whole == whole || p.Splits == 1) &&
			l.Packed == p.Packed && l.Prefetch == p.Prefetch && l.StageB == p.StageB) {
			return p, true
		}
	}
	return coopmat.Plan{}, false
}

// noSkinnyPlan is skinnyMatmul's error where the device has no skinny
// tensor-core plan for the product (as against one that fails to build).
type noSkinnyPlan struct{ err error }

func (e *noSkinnyPlan) Error() string { return e.err.Error() }
func (e *noSkinnyPlan) Unwrap() error { return e.err }

// skinnyMatmul returns the prepared skinny tensor-core product of layout l
// for o, planned and built the first time (decodeRouteFor's probe and
// every product after it then find it in the cache), or an error where the
// device has none.
func (c *Context) skinnyMatmul(a, b *Tensor, o coopmat.Options, l skinnyLayout) (*coopmat.Matmul, error) {
	return c.prepared(mmKey{o: skinnyOptions(a, b, o), layout: l}, func() (*coopmat.Matmul, error) {
		p, err := c.skinnyPlan(a, b, o, l)
		if err != nil {
			return nil, &noSkinnyPlan{err}
		}
		return coopmat.NewPlan(context.Background(), c.dev, p)
	})
}

// skinny records a·b (or scale·a·bᵀ) through coopmat's skinny
// tensor-core kernel in layout l: one dispatch (two with split-k), a read
// as it is.
func (c *Context) skinny(a, b *Tensor, o coopmat.Options, l skinnyLayout) (*Tensor, error) {
	mm, err := c.skinnyMatmul(a, b, o, l)
	if err != nil {
		return nil, err
	}
	return c.runProduct(mm, a, b, o, a.dtype) // skinnyOptions: C of a's type
}
