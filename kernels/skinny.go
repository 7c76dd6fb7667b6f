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
	// (coopmat.Plan.StageB; a·bᵀ with 16-byte aligned rows only, else the
	// layout without it runs).
	StageB bool
}

// The default routes, from the H200 (2026-12-01, two device calls; GB/s
// over 4096x4096 f16 weights, products chained as a model's are;
// docs/PERF.md, "Decode products"; f32 a / f16 a; figures of one
// configuration in two runs differed by up to 30%, so only wide margins
// decide):
//
//   - a·bᵀ, 1 row: f32 a gemv.kc, teams of 128, 2 rows a team (2583;
//     gemvsg.kc 2593 at 128/4), f16 a gemvsg.kc 128/4 (2035; gemv.kc
//     1890); the skinny tensor-core kernel at most 966;
//   - a·bᵀ, 2-4 rows: f32 a gemvsg.kc 64/4, f16 a gemv.kc 64/2 (1733);
//   - a·bᵀ, 5-8 rows: gemvsg.kc 64/4 (1810 / 1448 at 8 rows);
//   - a·bᵀ, 9-16 rows: the skinny tensor-core kernel (915 / 930 at 16
//     rows as 4 subgroups of 4 tiles, k in slices of 512; gemv.kc's best
//     587 / 912, gemvsg.kc 603 / 879, coopmat's tiled kernels 687 / 680),
//     gemv.kc 64/2 without cooperative matrices;
//   - a·b: gemvt.kc at 1 row (1761; the skinny kernel 1262, coopmat's gemv
//     961), the skinny kernel from 2 (gemvt.kc fell to 818 / 736 at 4
//     rows; the skinny kernel 4x4x512 1187 / 1227 at 8, 887-1149 at 16,
//     and its speed hardly depends on the rows: it pads them to 16); where
//     the device has no cooperative matrices gemvt.kc up to 4 rows, else
//     coopmat's choice.
//
// Since gemv.kc's and gemvsg.kc's loops load a step's words of W before
// widening any (U strides a step; two later calls, ~21:08 and ~21:13 UTC,
// docs/PERF.md "Decode products: loads in flight"), gemvsg.kc 64/8, the
// 4-row f32 default until then, runs 921-927 (1957-2059 before), and
// 64/4 2187-2319 (the default in the second call 2203 / 2290 against the
// old default's 1998 / 1957 and the old best, gemv.kc 64/2, 2076 / 2132).
// One stride a step stays the default: at 1 row 2 strides measured level
// with it (2536-2685 against 2532-2667) and 4 or 8 strides 3-19% below;
// at 4 and 8 rows every shape with 2 or 4 strides measured below the best
// shape with one (by up to 25%). The other routes measured as before.
//
// The skinny kernel's layout is coopmat's first (skinnyDefault, zero): at
// 4096 columns or more 8 subgroups of one tile, all of k a workgroup in
// chunks of 512, B's loads 4 steps ahead (docs/PERF.md, "prefetch";
// 2026-12-01, second call: a·bᵀ 1098 / 1121 at 16 rows against 915 / 945
// for 4x4x512, a·b 1736 / 1729 at 8 and 1684 / 1729 at 16 against 1214 /
// 1264 and 1148 / 1247; the first call alike for a·bᵀ, a·b 1302-1468
// before A's staging was hoisted; gemvsg.kc at 8 rows of a·bᵀ 1878 /
// 1491 stays), 4x4x512 at fewer columns (too few workgroups).
//
// Since the skinny kernel's staged form (b's block copied into shared
// memory with 16-byte loads; coopmat.Plan.StageB) coopmat's first layout
// for a·bᵀ is 4 subgroups of one tile, all of k a workgroup in chunks of
// 512, staged (docs/PERF.md, "staged"; 2026-12-01, two calls, ~21:39 and
// ~21:43 UTC, two passes each, f32 a / f16 a, GB/s): at 16 rows
// 1886-1980 / 2033-2118 against 1096-1122 for the prefetch form's
// 8x1x512 (PyTorch's F.linear 1335-1392); it also beats gemv.kc's
// defaults at 8 rows in every comparison of both calls (1941-2024 /
// 2089-2136 against gemvsg.kc 1764-1805 / gemv 1512-1627) and, with f16 a,
// at 4 rows (2071-2094 against 1684-1735, one call), not with f32 a at 4
// rows (1966-2045 against 2205-2238) or 1 row (1957-1973 against
// 2471-2520). So a·bᵀ takes the skinny kernel from 8 rows of f32 a and 4
// of 16-bit a (at 1 row of f16 a it measured 2114-2146 against 1885-1964,
// one call: gemv.kc stays).
var (
	skinnyDefault = skinnyLayout{}
	// skinnyMinRows is the fewest rows that take the skinny kernel by
	// default, by form: a·bᵀ with f32 a, a·bᵀ with 16-bit a, a·b.
	skinnyMinRows = [3]int{8, 4, 2}
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
		return decodeRoute{Kernel: "gemvt"}
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
// or staged layout the product cannot take (b's rows not 16-byte aligned;
// staged, a·b) is the same layout without prefetch or staging.
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
	ct := F32
	if mm.Plan().CType != "f32" {
		ct = a.dtype
	}
	return c.runProduct(mm, a, b, o, ct, a.dtype)
}
