package coopmat

import (
	"fmt"
	"strconv"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// f32Tiles are the register-tiled kernel's candidate tiles, best first for
// large products on a large GPU (the order measured on the H200,
// docs/PERF.md): 8x8 results per thread in a 128x128 tile is the classic
// SGEMM blocking (64 fmas per 4 shared vec4 reads); the smaller ones keep
// more workgroups busy on small or skinny products and fit devices with
// fewer invocations per workgroup; the flat 16- and 32-row tiles are for
// products with few rows (a transformer's decode step), where 128-row
// tiles compute mostly padding (added after the H200 measurement: not yet
// timed there). On the H200, double buffering (Stages 2) was slower than
// one stage with a 16-deep k-step and faster with an 8-deep one; tuning
// decides per device.
var f32Tiles = []Tile{
	{BM: 128, BN: 128, BK: 16, TM: 8, TN: 8, Stages: 1},
	{BM: 128, BN: 128, BK: 8, TM: 8, TN: 8, Stages: 2},
	{BM: 128, BN: 128, BK: 8, TM: 8, TN: 8, Stages: 2, Pad: 1},
	{BM: 128, BN: 128, BK: 8, TM: 8, TN: 8, Stages: 1},
	{BM: 128, BN: 128, BK: 16, TM: 8, TN: 8, Stages: 2},
	{BM: 128, BN: 64, BK: 8, TM: 8, TN: 8, Stages: 2},
	{BM: 64, BN: 128, BK: 16, TM: 4, TN: 8, Stages: 2},
	{BM: 128, BN: 64, BK: 16, TM: 8, TN: 4, Stages: 2},
	{BM: 64, BN: 64, BK: 16, TM: 4, TN: 4, Stages: 2},
	{BM: 64, BN: 64, BK: 8, TM: 4, TN: 4, Stages: 1},
	{BM: 32, BN: 128, BK: 16, TM: 4, TN: 4, Stages: 1},
	{BM: 16, BN: 128, BK: 16, TM: 4, TN: 4, Stages: 1},
	{BM: 32, BN: 32, BK: 16, TM: 4, TN: 4, Stages: 1},
}

// f32Plan completes a plan for the f32 kernel with tile t.
func f32Plan(o Options, t Tile) Plan {
	p := Plan{Options: o, Generator: "f32", Tile: t}
	p.Threads = (t.BM / t.TM) * (t.BN / t.TN)
	p.Shared = 16 * max(t.Stages, 1) * t.BK * (t.BM/4 + t.Pad + t.BN/4 + t.Pad)
	tiles := ceilDiv(o.M, t.BM) * ceilDiv(o.N, t.BN)
	p.Splits, p.KS = splitK(tiles, o.K, t.BK, workgroupTarget, minSplitK)
	if p.Splits > 1 && ceilDiv(o.M*o.N, 256) > 65535 {
		// the reduction's grid would exceed the portable 65535 workgroups
		p.Splits, p.KS = 1, ceilDiv(o.K, t.BK)*t.BK
	}
	return p
}

// f32Candidates lists the f32 plans the device can run, best guess first.
func f32Candidates(info backend.AdapterInfo, o Options) []Plan {
	var out []Plan
	for _, t := range f32Tiles {
		p := f32Plan(o, t)
		p.fitSplits(info)
		if p.check(info) == nil {
			out = append(out, p)
		}
	}
	return out
}

// f32Default is the untuned f32 choice (defaultOf over the f32 candidates).
func f32Default(info backend.AdapterInfo, o Options) (Plan, error) {
	cs := f32Candidates(info, o)
	if len(cs) == 0 {
		return Plan{}, fmt.Errorf("coopmat: no f32 matmul tile fits %s (limits %+v)", info.Name, info.Limits)
	}
	return defaultOf(cs, o), nil
}

// defaultOf is the untuned choice among candidates cs (best first): the
// first whose tile does not dwarf the product, so that a 17x17 product
// does not run in one 128x128 tile with most of its threads idle, and that
// keeps enough workgroups busy (32 tiles, else the first that splits k).
func defaultOf(cs []Plan, o Options) Plan {
	var fit []Plan
	for _, p := range cs {
		if p.Tile.BM <= 2*max(o.M, 16) && p.Tile.BN <= 2*max(o.N, 16) {
			fit = append(fit, p)
		}
	}
	for _, p := range fit {
		if ceilDiv(o.M, p.Tile.BM)*ceilDiv(o.N, p.Tile.BN) >= 32 {
			return p
		}
	}
	for _, p := range fit {
		if p.Splits > 1 {
			return p
		}
	}
	if len(fit) > 0 {
		return fit[len(fit)-1]
	}
	return cs[len(cs)-1]
}

func (p Plan) f32Shape() f32Shape {
	return f32Shape{
		TM: p.Tile.TM, TN: p.Tile.TN, TransB: p.TransB,
		VecA: p.K%4 == 0,
		VecB: (p.TransB && p.K%4 == 0) || (!p.TransB && p.N%4 == 0),
		VecC: p.N%4 == 0,
	}
}

// buildF32 generates and checks the plan's f32 kernel.
func buildF32(p Plan) (*ir.Module, string, error) {
	t := p.Tile
	if t.TM%4 != 0 || t.TN%4 != 0 || t.BM%(4*t.TM/4) != 0 || t.BM%t.TM != 0 || t.BN%t.TN != 0 || t.BK%4 != 0 {
		return nil, "", fmt.Errorf("coopmat: f32 tile %s: TM, TN and BK must be multiples of 4 dividing the tile", t)
	}
	s := p.f32Shape()
	// The text already holds t's values; specialising them again is what
	// `kc compile -D` would do with the printed kernel, and checks that the
	// constants named in the text are the plan's.
	defs := map[string]string{
		"BM": strconv.Itoa(t.BM), "BN": strconv.Itoa(t.BN), "BK": strconv.Itoa(t.BK), "PAD": strconv.Itoa(t.Pad),
	}
	m, err := parse.Load(s.name()+".kc", []byte(f32Source(s, t)), defs)
	if err != nil {
		return nil, "", fmt.Errorf("coopmat: generated f32 kernel %s %s: %w", s.name(), t, err)
	}
	return m, s.name(), nil
}

// reduceSource sums a split-k product's slices: C[i] = scale · Σ_z P[z·MN+i],
// rounded to C's element type ct (f32, f16 or bf16).
func reduceSource(ct string) string {
	enable, name, val := "", "matmul_reduce", "s * scale"
	if ct != "f32" {
		enable, name, val = "enable "+ct+"\n", "matmul_reduce_"+ct, ct+"(s * scale)"
	}
	return fmt.Sprintf(`%s// %s: C[i] = scale * (P[i] + P[MN + i] + ... ), S slices of MN values. grid: ceil(MN/256) x 1 x 1
kernel %s(MN u32, S u32, scale f32, P read []f32, C read_write []%s) workgroup(256) {
	let i = global_id.x
	if i >= MN {
		return
	}
	var s f32
	for z := u32(0); z < S; z++ {
		s += P[z * MN + i]
	}
	C[i] = %s
}
`, enable, name, name, ct, val)
}

// buildReduce builds the split-k reduction writing C's type ct.
func buildReduce(ct string) (*ir.Module, string, error) {
	src := reduceSource(ct)
	name := "matmul_reduce"
	if ct != "f32" {
		name += "_" + ct
	}
	m, err := parse.Load(name+".kc", []byte(src), nil)
	return m, name, err
}
