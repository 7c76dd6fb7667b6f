package kernels

import (
	"context"
	"math"
	"strconv"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
)

// MatMul returns a·b for a [m, k] and b [k, n]: a [m, n] tensor. a and b
// are both f32, both f16 or both bf16, or a is f32 and b f16 or bf16
// (weights stored narrow); the result has a's type and every product
// accumulates in f32. 16-bit products run on the device's cooperative
// matrices (a cast to b's type first when it is f32) where it has them
// for b's type, else through f32 (the operands cast up, the f32 product,
// the result cast back). Products of at most 16 rows (decoding) take the
// kernels built for streaming b once (see decodeRouteFor): up to 4 rows
// gemvtsg.kc (one dispatch; gemvt.kc where the device has no subgroup
// shuffles or n is not a multiple of 8), from 5 coopmat's skinny
// tensor-core kernel, which rounds f32 a to b's type as it reads it.
func (c *Context) MatMul(a, b *Tensor) (*Tensor, error) {
	if err := c.ownsTyped("matmul", a, b); err != nil {
		return nil, err
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[0] {
		return nil, operandErr("matmul", "want [m k] and [k n]", nil, a, b)
	}
	return c.product("matmul", a, b, coopmat.Options{M: a.shape[0], K: a.shape[1], N: b.shape[1]})
}

// MatMulBT returns scale·a·bᵀ for a [m, k] and b [n, k] (b not transposed
// in memory): a [m, n] tensor. This is q·kᵀ with the 1/√d folded in, and
// x·Wᵀ for weights stored as [out, in]. A zero scale means 1. The types
// are as for MatMul. With 16-bit b and at most 16 rows in a (decoding),
// it runs a kernel that streams b once (see decodeRouteFor): gemv.kc or
// gemvsg.kc for up to 7 rows of f32 a (used as it is) or 3 of 16-bit a,
// coopmat's skinny tensor-core kernel from there where the device has
// cooperative matrices (else gemv.kc up to 16 rows). With f32 a and b of
// at most 16 rows, k a multiple of 4, it runs gemv.kc's or gemvsg.kc's
// gemv4f.
func (c *Context) MatMulBT(a, b *Tensor, scale float32) (*Tensor, error) {
	if err := c.ownsTyped("matmulbt", a, b); err != nil {
		return nil, err
	}
	if len(a.shape) != 2 || len(b.shape) != 2 || a.shape[1] != b.shape[1] {
		return nil, operandErr("matmulbt", "want [m k] and [n k]", nil, a, b)
	}
	return c.product("matmulbt", a, b, coopmat.Options{M: a.shape[0], K: a.shape[1], N: b.shape[0], TransB: true, Scale: scale})
}

// gemvMaxRows is the most rows of a that MatMulBT gives to gemv.kc, and
// gemvtMaxRows that MatMul gives to gemvtsg.kc or gemvt.kc by default
// (their partial sums, 8 columns of each row an invocation, stay in
// registers up to 4 rows: gemvtsg.kc ran 40-45% slower at 8 rows than at
// 4 on the H200, and gemvt.kc's reduction needs 64 KiB of shared memory
// at 16 rows).
const (
	gemvMaxRows  = 16
	gemvtMaxRows = 4
	// gemvF32MaxRows is the most rows of a that an f32 a·bᵀ gives to
	// gemv4f (beyond, coopmat's tiled kernel).
	gemvF32MaxRows = 16
)

// product records o: a coopmat product prepared once per problem, or
// gemv.kc.
func (c *Context) product(op string, a, b *Tensor, o coopmat.Options) (*Tensor, error) {
	switch {
	case a.dtype == b.dtype:
	case a.dtype == F32 && b.dtype.half():
	default:
		return nil, operandErr(op, "element types differ (%s and %s): want one type, or f32 times f16 or bf16", []any{a.dtype, b.dtype}, a, b)
	}
	if b.dtype.half() {
		return c.halfProduct(op, a, b, o)
	}
	if !c.coopF32 && o.TransB && o.M <= gemvF32MaxRows && o.K%4 == 0 && a.View().Off%16 == 0 && b.View().Off%16 == 0 {
		return c.gemv(a, b, o, gemv4fRoute(o.M))
	}
	mm, err := c.matmul(o)
	if err != nil {
		return nil, err
	}
	return c.runProduct(mm, a, b, o, F32)
}

// runProduct runs mm on a and b into a new [o.M, o.N] tensor of type t,
// the C type mm was planned with.
func (c *Context) runProduct(mm *coopmat.Matmul, a, b *Tensor, o coopmat.Options, t DType) (*Tensor, error) {
	out, err := c.outputOf(t, []int{o.M, o.N})
	if err != nil {
		return nil, err
	}
	if c.timed {
		var ts []*backend.Timing
		ts, err = mm.RunTimed(a.View(), b.View(), out.View())
		c.timings = append(c.timings, ts...)
	} else {
		err = mm.Run(a.View(), b.View(), out.View())
	}
	if err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// halfProduct records a product with 16-bit b; the result has a's type.
func (c *Context) halfProduct(op string, a, b *Tensor, o coopmat.Options) (*Tensor, error) {
	switch r := c.decodeRouteFor(a, b, o); r.Kernel {
	case "gemv":
		return c.gemv(a, b, o, r)
	case "gemvt":
		return c.gemvT(a, b, o, r)
	case "skinny":
		return c.skinny(a, b, o, r.Layout)
	}
	dt := b.dtype
	if _, ok := coopmat.CoopShape(c.dev.Info(), dt.String()); !ok {
		return c.viaF32(a.dtype, []*Tensor{a, b}, func(ts []*Tensor) (*Tensor, error) {
			return c.product(op, ts[0], ts[1], o)
		})
	}
	x := a
	if a.dtype != dt {
		var err error
		if x, err = c.Cast(a, dt); err != nil {
			return nil, err
		}
		defer x.Release()
	}
	// C of a's type straight from the kernel: coopmat writes a bf16 C
	// element by element with kc's scalar conversion (round to nearest
	// even), never with the matrix conversion that the H200's driver
	// rounds toward zero, so no f32 result and cast are needed.
	o.DType, o.CType = dt.String(), a.dtype.String()
	mm, err := c.matmul(o)
	if err != nil {
		return nil, err
	}
	return c.runProduct(mm, x, b, o, a.dtype)
}

// gemv records scale·a·bᵀ through gemv.kc or gemvsg.kc (rt's shape):
// gemv4 (or gemv4h for 16-bit a) when k is a multiple of 8 and the views
// start on 16 bytes, else gemv.kc's gemv1 on f32 a. A 16-bit result is
// rounded by the kernel itself, two rows to a word, where n and the
// workgroup's rows are even (a cast dispatch after the product cost a
// fifth of a one-row product's time on the H200); otherwise the kernel
// writes f32 and the result is cast.
func (c *Context) gemv(a, b *Tensor, o coopmat.Options, rt decodeRoute) (*Tensor, error) {
	var tmp []*Tensor
	defer func() { releaseAll(tmp) }()
	outT := a.dtype
	// Beyond 8 rows of f32 a, its loads (32 bytes a row for every 16 of
	// b) bound the kernel; rounding a to b's type would halve them (1.7x
	// on the H200, 2026-12-01) but would make a product's rounding depend
	// on its row count (a prefill would differ from the decode steps), so
	// a stays f32.
	vec := o.K%8 == 0 && a.View().Off%16 == 0 && b.View().Off%16 == 0
	kernel, kp := "gemv4", o.K/8
	switch {
	case b.dtype == F32:
		// f32 weights, four to a word (product checks k and the views)
		kernel, kp = "gemv4f", o.K/4
	case vec && a.dtype.half():
		kernel = "gemv4h"
	case !vec:
		kernel, kp = "gemv1", o.K
		var err error
		if a, err = c.asF32(a, &tmp); err != nil {
			return nil, err
		}
	}
	team, r, u, sg := c.gemvShape(o.M, rt)
	file := "gemv.kc"
	if sg && kernel != "gemv1" {
		file = "gemvsg.kc"
	} else {
		r = c.gemvFit(o.M, team, r)
	}
	yT := F32
	if outT.half() && o.N%2 == 0 && 256/team*r%2 == 0 {
		yT = outT
	}
	y, err := c.outputOf(yT, []int{o.M, o.N})
	if err != nil {
		return nil, err
	}
	defs := gemvDefs(o.M, b.dtype)
	defs["R"], defs["TEAM"], defs["U"], defs["OUT"] = strconv.Itoa(r), strconv.Itoa(team), strconv.Itoa(u), h16Def[yT]
	if c.gemvWid != 0 {
		defs["WID"] = "1"
	}
	if file == "gemvsg.kc" {
		defs["SG"] = strconv.Itoa(c.dev.Info().SubgroupSize)
	}
	scale := o.Scale
	if scale == 0 {
		scale = 1
	}
	params := []uint32{uint32(o.N), uint32(kp), math.Float32bits(scale)}
	if err := c.run(file, kernel, defs, params, c.grid2(ceilDiv(o.N, 256/team*r)), a, b, y); err != nil {
		y.Release()
		return nil, err
	}
	return c.fromF32(y, outT)
}

// gemvT records a·b for 16-bit b [k, n]: through gemvtsg.kc (gemvTSG)
// where rt and the device allow it (gemvtShape), else through gemvt.kc: gemvt4 when n
// is a multiple of 8 and b's view starts on 16 bytes, else gemvt1; a
// 16-bit a (b's type) is read as it is. gemvt.kc cuts k into slices
// (about 512 workgroups: at 1x4096x4096 on the H200, 32 slices reached
// 2111 GB/s, 16 1941, 64 1850, 128 1369) whose partial products sum adds
// up; the slices' extra traffic, 8·slices·m·n bytes, stays under an
// eighth of b's 2·k·n. sum rounds a 16-bit result itself where m·n is
// even; with one slice, or m·n odd, the f32 result is cast.
func (c *Context) gemvT(a, b *Tensor, o coopmat.Options, rt decodeRoute) (*Tensor, error) {
	if sh, ok := c.gemvtShape(o, b, rt); ok {
		return c.gemvTSG(a, b, o, sh)
	}
	var tmp []*Tensor
	defer func() { releaseAll(tmp) }()
	outT := a.dtype
	kernel, cols, np := "gemvt4", 8*32, o.N/8
	if o.N%8 != 0 || b.View().Off%16 != 0 {
		kernel, cols, np = "gemvt1", 32, o.N
	}
	blocks := ceilDiv(o.N, cols)
	slices := max(1, min(ceilDiv(512, blocks), o.K/(32*o.M), ceilDiv(o.K, 32)))
	if c.gemvtSlices > 0 {
		slices = min(c.gemvtSlices, o.K)
	}
	ks := ceilDiv(o.K, slices)
	slices = ceilDiv(o.K, ks)
	yT := F32
	if outT.half() && slices > 1 && o.M*o.N%2 == 0 {
		yT = outT
	}
	y, err := c.outputOf(yT, []int{o.M, o.N})
	if err != nil {
		return nil, err
	}
	part := y
	if slices > 1 {
		if part, err = c.output([]int{slices * o.M, o.N}); err != nil {
			y.Release()
			return nil, err
		}
		tmp = append(tmp, part)
	}
	defs := gemvDefs(o.M, b.dtype)
	if a.dtype.half() {
		defs["XH"] = "1"
	}
	params := []uint32{uint32(np), uint32(o.K), uint32(ks), math.Float32bits(1)}
	err = c.run("gemvt.kc", kernel, defs, params, c.grid2(blocks*slices), a, b, part)
	if err == nil && slices > 1 {
		err = c.sumSlices(b.dtype, o.M, o.N, slices, part, y)
	}
	if err != nil {
		y.Release()
		return nil, err
	}
	return c.fromF32(y, outT)
}

// sumSlices records gemvt.kc's sum for a product over b of type bt: y
// [m, n] (f32, or a 16-bit type the kernel rounds to, m·n even) = the sum
// of part's f32 partial products, [slices·m, n], one [m, n] a slice of k.
func (c *Context) sumSlices(bt DType, m, n, slices int, part, y *Tensor) error {
	defs := gemvDefs(m, bt)
	defs["OUT"] = h16Def[y.dtype]
	mn := m * n
	items := mn // sum's invocations: an output each, or a word of two
	if y.dtype != F32 {
		items = mn / 2
	}
	return c.run("gemvt.kc", "sum", defs, []uint32{uint32(mn), uint32(slices)}, c.grid(items, 256), part, y)
}

// asF32 gives a 16-bit t cast to f32, the cast added to *tmp for its
// caller to release, or an f32 t itself.
func (c *Context) asF32(t *Tensor, tmp *[]*Tensor) (*Tensor, error) {
	if !t.dtype.half() {
		return t, nil
	}
	x, err := c.Cast(t, F32)
	if err != nil {
		return nil, err
	}
	*tmp = append(*tmp, x)
	return x, nil
}

// releaseAll releases a product's temporaries (their work stays recorded).
func releaseAll(ts []*Tensor) {
	for _, t := range ts {
		t.Release()
	}
}

// gemvDefs are the specialisations gemv.kc and gemvt.kc share: the rows
// m of a, and BF where b is bf16.
func gemvDefs(m int, bt DType) map[string]string {
	defs := map[string]string{"M": strconv.Itoa(m)}
	if bt == BF16 {
		defs["BF"] = "1"
	}
	return defs
}

// fromF32 gives the result y of a product (f32, or already of type t) as
// type t: y itself, or its cast (y released).
func (c *Context) fromF32(y *Tensor, t DType) (*Tensor, error) {
	if y.dtype == t {
		return y, nil
	}
	defer y.Release()
	return c.Cast(y, t)
}

// gemvShape is the team size, rows per team, strides of k a step and
// reduction (true: gemvsg.kc's subgroup shuffles) gemv runs m rows of a
// with: the route's, each replaced by the fixed choice of tests and
// benchmarks where there is one, and gemvsg.kc only where the device has
// subgroup shuffles of a power of two from 4 to 128 lanes (teams then at
// least a subgroup).
func (c *Context) gemvShape(m int, rt decodeRoute) (team, r, u int, sg bool) {
	team, r, u, sg = rt.Team, rt.R, max(rt.U, 1), rt.SG
	if team == 0 {
		team, r = 128, 2
	}
	if c.gemvTeam > 0 {
		team = c.gemvTeam
	}
	if c.gemvR > 0 {
		r = c.gemvR
	}
	if c.gemvU > 0 {
		u = c.gemvU
	}
	if c.gemvSG != 0 {
		sg = c.gemvSG > 0
	}
	n, ok := shuffleLanes(c.dev.Info())
	if !ok {
		sg = false
	}
	if sg {
		team = max(team, n)
	}
	return team, r, u, sg
}

// shuffleLanes is the device's subgroup size, and whether gemvsg.kc and
// gemvtsg.kc can reduce by its shuffles: subgroups of a power of two
// from 4 to 128 lanes (which divides gemv.kc's 256-invocation
// workgroups).
func shuffleLanes(info backend.AdapterInfo) (int, bool) {
	n := info.SubgroupSize
	return n, info.Subgroups && n >= 4 && n <= 128 && n&(n-1) == 0
}

// gemvFit is the rows per team r, or fewer, whose partial sums gemv.kc's
// reduction (TEAM·(m·r·TEAMS + 1) f32) fits into the device's shared
// memory.
func (c *Context) gemvFit(m, team, r int) int {
	shared := int(c.dev.Info().Limits.MaxSharedMemory)
	for r > 1 && shared > 0 && 4*team*(m*r*(256/team)+1) > shared {
		r /= 2
	}
	return r
}

// matmul returns the prepared product for o. A split-k product's scratch
// buffer is shared by every use of it: uses recorded one after another on
// one device are ordered, so sharing is safe.
func (c *Context) matmul(o coopmat.Options) (*coopmat.Matmul, error) {
	return c.prepared(mmKey{o: o}, func() (*coopmat.Matmul, error) { return coopmat.New(context.Background(), c.dev, o) })
}

// mmKey names a prepared product: its options and, for the skinny
// tensor-core kernel taken by kernels' own choice, the layout.
type mmKey struct {
	o      coopmat.Options
	layout skinnyLayout
}

// prepared returns the product named k, made by mk the first time.
func (c *Context) prepared(k mmKey, mk func() (*coopmat.Matmul, error)) (*coopmat.Matmul, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if mm := c.mms[k]; mm != nil {
		return mm, nil
	}
	mm, err := mk()
	if err != nil {
		return nil, err
	}
	c.mms[k] = mm
	return mm, nil
}
