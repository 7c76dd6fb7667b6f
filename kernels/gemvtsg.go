package kernels

import (
	"strconv"

	"github.com/kcgo/kc/coopmat"
)

// gemvtsgShape is how gemvtsg.kc runs a product: its workgroup size, the
// 16-byte column words (8 columns each) a workgroup owns, the rows of b
// a lane loads a step, and the slices of k (1: all of k a workgroup, one
// dispatch).
type gemvtsgShape struct {
	WG, CT, U, Slices int
}

// gemvtsgGroups is the fewest workgroups gemvtsg.kc is given before it
// cuts k into slices: the H200 has 132 SMs, and n = 4096 in blocks of 4
// column words makes 128 workgroups.
const gemvtsgGroups = 128

// gemvtRoute is gemvt's default for m rows of a (m <= 16): gemvtsg.kc in
// the shapes the H200 measured best (the route table in skinny.go).
func gemvtRoute(m int) decodeRoute {
	switch {
	case m == 1:
		return decodeRoute{Kernel: "gemvt", SG: true, WG: 512, CT: 4, U: 4}
	case m <= 4:
		return decodeRoute{Kernel: "gemvt", SG: true, WG: 1024, CT: 4, U: 2}
	}
	return decodeRoute{Kernel: "gemvt", SG: true, WG: 256, CT: 2, U: 4}
}

// gemvtShape is the shape gemvtsg.kc runs o in, with ok false where it
// does not apply: the route's shape (gemvtRoute's where it has none),
// each replaced by the fixed choice of tests and benchmarks where there
// is one; then narrowed to the device: n a multiple of 8 and b's view on
// 16 bytes (vector loads), subgroups of a power of two from 4 to 128
// lanes that CT divides and that divide WG, and WG and the reduction's
// shared memory (WG/SG·CT·m·32 bytes) within the device's limits (WebGPU's
// default is 256 invocations), halving WG until they fit.
func (c *Context) gemvtShape(o coopmat.Options, b *Tensor, rt decodeRoute) (gemvtsgShape, bool) {
	if rt.WG == 0 {
		rt = gemvtRoute(o.M)
	}
	sh, sg := gemvtsgShape{WG: rt.WG, CT: rt.CT, U: max(rt.U, 1)}, rt.SG
	if c.gemvtWG > 0 {
		sh.WG = c.gemvtWG
	}
	if c.gemvtCT > 0 {
		sh.CT = c.gemvtCT
	}
	if c.gemvU > 0 {
		sh.U = c.gemvU
	}
	if c.gemvSG != 0 {
		sg = c.gemvSG > 0
	}
	info := c.dev.Info()
	n, lanes := shuffleLanes(info)
	if !sg || o.N%8 != 0 || b.View().Off%16 != 0 || !lanes || n%sh.CT != 0 {
		return sh, false
	}
	shared, lim := int(info.Limits.MaxSharedMemory), info.Limits.MaxInvocationsPerWorkgroup
	if x := info.Limits.MaxWorkgroupSize[0]; x > 0 && (lim <= 0 || x < lim) {
		lim = x
	}
	over := func() bool {
		return (shared > 0 && sh.WG/n*sh.CT*o.M*32 > shared) || (lim > 0 && sh.WG > lim)
	}
	for sh.WG > n && over() {
		sh.WG /= 2
	}
	if sh.WG%n != 0 || over() {
		return sh, false
	}
	sh.Slices = c.gemvtsgSlices(o, sh)
	return sh, true
}

// gemvtsgSlices is the slices of k that give the product gemvtsgGroups
// workgroups (one where its column blocks alone make that many; each
// slice at least one step of every lane), or the fixed count of tests
// and benchmarks. Only n = 4096 (one slice, 128 workgroups) was measured;
// the column blocks are not narrowed for smaller n, since blocks of 2
// words (32-byte pieces of W's rows) ran 25-45% slower than of 4 there.
func (c *Context) gemvtsgSlices(o coopmat.Options, sh gemvtsgShape) int {
	if c.gemvtSlices > 0 {
		return min(c.gemvtSlices, o.K)
	}
	step := sh.WG / sh.CT * sh.U // rows of k a workgroup's lanes take a step
	return max(1, min(ceilDiv(gemvtsgGroups, ceilDiv(o.N/8, sh.CT)), o.K/step))
}

// gemvTSG records a·b for 16-bit b [k, n] (n a multiple of 8) through
// gemvtsg.kc in shape sh: one dispatch, the result rounded to a's 16-bit
// type by the kernel; with several slices of k the kernel writes f32
// partial products and gemvt.kc's sum adds them up (and rounds).
func (c *Context) gemvTSG(a, b *Tensor, o coopmat.Options, sh gemvtsgShape) (*Tensor, error) {
	ks := ceilDiv(o.K, sh.Slices)
	slices := ceilDiv(o.K, ks)
	y, err := c.outputOf(a.dtype, []int{o.M, o.N})
	if err != nil {
		return nil, err
	}
	part := y // one slice: the result, rounded by the kernel
	if slices > 1 {
		if part, err = c.output([]int{slices * o.M, o.N}); err != nil {
			y.Release()
			return nil, err
		}
		defer part.Release()
	}
	defs := gemvDefs(o.M, b.dtype)
	if a.dtype.half() {
		defs["XH"] = "1"
	}
	defs["OUT"] = h16Def[part.dtype]
	defs["WG"], defs["CT"], defs["U"] = strconv.Itoa(sh.WG), strconv.Itoa(sh.CT), strconv.Itoa(sh.U)
	defs["SG"] = strconv.Itoa(c.dev.Info().SubgroupSize)
	params := []uint32{uint32(o.N / 8), uint32(o.K), uint32(ks)}
	err = c.run("gemvtsg.kc", "gemvt8", defs, params, c.grid2(ceilDiv(o.N/8, sh.CT)*slices), a, b, part)
	if err == nil && slices > 1 {
		err = c.sumSlices(b.dtype, o.M, o.N, slices, part, y)
	}
	if err != nil {
		y.Release()
		return nil, err
	}
	return y, nil
}
