package kernels_test

import (
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/kernels"
)

// decodeRoute is one way SetDecodeRoute can run a decode product.
type decodeRoute struct {
	kernel  string
	layout  kernels.SkinnyLayout
	team, r int // gemv.kc's team and rows (0: the default)
	u       int // gemv.kc's strides of k a step (0: the default)
	sg      int // gemvsg.kc: 1 on, -1 off, 0 the default
	wid     int // 1: f16 widened by integer ops (SetGEMVWiden)
	wg, ct  int // gemvtsg.kc's workgroup size and column words (0: the default)
	slices  int // gemvt.kc's and gemvtsg.kc's slices of k (0: the default)
	label   string
}

// decodeRoutes lists the routes for m rows of f16/bf16 weights d on dev:
// the default choice, gemv.kc / gemvt.kc (up to 8 rows; a·bᵀ: its
// default team shape and the alternatives teams lists), every layout of coopmat's skinny
// tensor-core kernel the device has for the problem, and coopmat's choice
// (a·b, or 16 rows).
func decodeRoutes(info backend.AdapterInfo, m, k, n int, d, xd kernels.DType, transB bool) []decodeRoute {
	rs := []decodeRoute{{label: "default"}}
	if transB || m <= 8 { // gemvt.kc's reduction of 16 rows needs 64 KiB of shared memory
		rs = append(rs, decodeRoute{kernel: "gemv", label: "gemv"})
	}
	if !transB && m <= 8 {
		rs = append(rs, decodeRoute{kernel: "gemv", sg: -1, label: "gemvt_kc"})
	}
	if !transB && info.Subgroups {
		rs = append(rs, decodeRoute{kernel: "gemv", sg: 1, slices: 3, label: "gemvtsg_s3"})
		for _, s := range gemvtShapes(m) {
			rs = append(rs, s.route())
		}
	}
	if transB {
		for _, tr := range gemvTeams(m) {
			rs = append(rs, decodeRoute{kernel: "gemv", team: tr[0], r: tr[1], sg: -1, label: fmt.Sprintf("gemv_t%d_r%d", tr[0], tr[1])})
		}
		// f16 widened by integer ops: the default and, at 1 row, the
		// shapes it was timed against
		if m <= 8 {
			rs = append(rs, decodeRoute{wid: 1, label: "default_w1"})
		}
		if m == 1 {
			rs = append(rs, decodeRoute{kernel: "gemv", team: 128, r: 2, sg: -1, wid: 1, label: "gemv_t128_r2_w1"},
				decodeRoute{kernel: "gemv", team: 64, r: 1, sg: -1, wid: 1, label: "gemv_t64_r1_w1"})
			if info.Subgroups {
				rs = append(rs, decodeRoute{kernel: "gemv", team: 128, r: 4, sg: 1, wid: 1, label: "gemvsg_t128_r4_w1"})
			}
		}
		if info.Subgroups {
			rs = append(rs, decodeRoute{kernel: "gemv", sg: 1, label: "gemvsg"})
			for _, tr := range sgTeams(m) {
				rs = append(rs, decodeRoute{kernel: "gemv", team: tr[0], r: tr[1], sg: 1, label: fmt.Sprintf("gemvsg_t%d_r%d", tr[0], tr[1])})
			}
		}
		for _, s := range unrolled(m) {
			if s.sg && !info.Subgroups {
				continue
			}
			r := decodeRoute{kernel: "gemv", team: s.team, r: s.r, u: s.u, sg: -1, label: fmt.Sprintf("gemv_t%d_r%d_u%d", s.team, s.r, s.u)}
			if s.sg {
				r.sg, r.label = 1, "gemvsg"+r.label[4:]
			}
			rs = append(rs, r)
		}
	}
	o := coopmat.Options{M: m, N: n, K: k, TransB: transB, DType: d.String()}
	if xd == kernels.F32 {
		o.AType = "f32"
	}
	if cs, err := coopmat.Candidates(info, o); err == nil {
		for _, p := range cs {
			if p.Generator == "skinny" {
				l := kernels.SkinnyLayout{S: p.Subgroups[0], TN: p.Tile.TN, KS: p.Tile.BK, Whole: p.KS > p.Tile.BK, Packed: p.Packed, Prefetch: p.Prefetch, StageB: p.StageB}
				label := fmt.Sprintf("skinny_%dx%dx%d", l.S, l.TN, l.KS)
				if l.Whole {
					label += "_whole"
				}
				if l.Packed {
					label += "_pk"
				}
				if l.Prefetch > 0 {
					label += fmt.Sprintf("_pf%d", l.Prefetch)
				}
				if l.StageB {
					label += "_sb"
				}
				rs = append(rs, decodeRoute{kernel: "skinny", layout: l, label: label})
			}
		}
	}
	if m == 16 || !transB { // a·b of up to 8 rows: coopmat's gemv generator
		rs = append(rs, decodeRoute{kernel: "coop", label: "coop"})
	}
	return rs
}

// gemvTeams are gemv.kc's team shapes tried beside its default for m rows.
func gemvTeams(m int) [][2]int {
	if m == 1 {
		return [][2]int{{64, 1}, {128, 4}, {256, 2}, {256, 4}}
	}
	return [][2]int{{64, 2}, {32, 1}, {128, 1}}
}

// gemvtShape is a shape of gemvtsg.kc: workgroup size, 16-byte column
// words a workgroup, rows a lane loads a step.
type gemvtShape struct{ wg, ct, u int }

// route is the test route of s (x·W).
func (s gemvtShape) route() decodeRoute {
	return decodeRoute{kernel: "gemv", sg: 1, wg: s.wg, ct: s.ct, u: s.u, label: fmt.Sprintf("gemvtsg_w%d_c%d_u%d", s.wg, s.ct, s.u)}
}

// gemvtShapes are gemvtsg.kc's shapes tried for m rows of x·W: 4096
// columns in words of 4 make 128 workgroups (blocks of 2 words, 256
// workgroups, ran 25-45% slower at one row on the H200, 2026-12-02; 8
// words make 64 blocks, which the host cuts into two slices of k), with
// a lane's U rows of W in flight.
func gemvtShapes(m int) []gemvtShape {
	switch {
	case m == 1:
		return []gemvtShape{{512, 4, 4}, {512, 4, 8}, {1024, 4, 4}, {256, 4, 16}, {512, 2, 8}, {512, 8, 8}}
	case m <= 4:
		return []gemvtShape{{1024, 4, 2}, {512, 4, 4}, {512, 2, 4}, {256, 2, 8}}
	case m <= 8:
		return []gemvtShape{{256, 2, 4}, {256, 4, 4}}
	}
	return []gemvtShape{{256, 4, 2}}
}

// gemvShape is a shape of gemv.kc (sg: gemvsg.kc) with u strides of k
// a step.
type gemvShape struct {
	team, r, u int
	sg         bool
}

// unrolled are the shapes tried with several strides of k a step for m
// rows: today's defaults and their neighbours (at 1 row fewer, fatter
// workgroups: 128/4 makes 512 of them where 128/2 makes 1,024), each with
// 1 stride (the same route as without U, labelled for the sweep) and 2, 4
// (8) strides: at 1 row and teams of 128, 4 strides are a lane's whole
// share of k = 4096.
func unrolled(m int) []gemvShape {
	var ss []gemvShape
	add := func(team, r int, sg bool, us ...int) {
		for _, u := range us {
			ss = append(ss, gemvShape{team, r, u, sg})
		}
	}
	switch {
	case m == 1:
		add(128, 2, false, 1, 2, 4)
		add(128, 4, false, 1, 2, 4)
		add(64, 1, false, 1, 4, 8)
		add(128, 4, true, 1, 2, 4)
	case m <= 4:
		add(64, 2, false, 1, 2, 4)
		add(64, 8, true, 1, 2)
		add(64, 4, true, 1, 2, 4)
	case m <= 8:
		add(64, 4, true, 1, 2, 4)
		add(64, 2, true, 1, 4)
	}
	return ss
}

// sgTeams are gemvsg.kc's team shapes tried beside its default for m rows.
func sgTeams(m int) [][2]int {
	if m == 1 {
		return [][2]int{{128, 4}, {256, 4}, {64, 2}}
	}
	return [][2]int{{64, 2}, {128, 4}, {32, 4}, {64, 8}}
}

// set makes r c's route (and gemv.kc's team shape).
func (r decodeRoute) set(c *kernels.Context) {
	c.SetDecodeRoute(r.kernel, r.layout)
	c.SetGEMV(r.team, r.r)
	c.SetGEMVUnroll(r.u)
	c.SetGEMVSubgroups(r.sg)
	c.SetGEMVWiden(r.wid)
	c.SetGEMVT(r.wg, r.ct)
	c.SetGEMVTSlices(r.slices)
}

// TestDecodeRoutes runs the decode products (1 to 16 rows of a, f32 or of
// the weights' type, times f16 or bf16 weights, a·bᵀ and a·b) through
// every route on the device: gemv.kc/gemvt.kc, every layout of coopmat's
// skinny tensor-core kernel (devices with cooperative matrices: the
// H200), coopmat's tiled kernels, and the default choice, against float64
// on the rounded inputs (checkHalfProduct's bound: the f32 accumulation
// and, for f32 a, its rounding to the weights' type). Ragged sizes on
// every device, 4096x4096 weights on a GPU (sampled columns). On a CPU
// device every case checks the default route, and one of each shape's
// four cases (a f32 or 16-bit, a·bᵀ or a·b) one other route, both drawn
// afresh (KC_TEST_ALL=1: every route): the whole list compiles too many
// kernels for CI's time.
// For a device call on a budget: KC_DECODE_TYPES (f16 or bf16) narrows
// the weights' types, KC_DECODE_ROUTES (a regular expression over
// "m<rows>/<route>", e.g. "/default$") the routes, and
// KC_DECODE_SHAPES=big the sizes to 4096x4096 weights and two ragged ones
// (=tails: four ragged ones whose k ends inside an unrolled step;
// =aligned: one whose rows are 16-byte aligned both ways, k and n ragged
// to the skinny kernel's chunks and tiles, as its staged forms need;
// =gemvt: the three whose n suits gemvtsg.kc's vector loads).
func TestDecodeRoutes(t *testing.T) {
	c := open(t, "vulkan")
	info := c.Device().Info()
	rng := kctest.NewRand(t)
	defer decodeRoute{}.set(c)
	shapes := [][3]int{{1, 17, 70}, {1, 1000, 77}, {3, 1000, 1001}, {16, 64, 1000}, {5, 1030, 100}, {2, 4096, 24},
		// k past the last whole step of 4 (or 2, 8) strides of every
		// unrolled shape: 437, 225, 250 16-byte words a row
		{1, 3496, 77}, {4, 1800, 50}, {7, 2000, 33},
		// x·W through gemvtsg.kc: n a multiple of 8 in a partial last
		// block of column words, k odd (rows of 16-bit x start on a
		// word's high half) and ragged to every step of U rows
		{3, 1001, 264}, {16, 333, 64}, {1, 2071, 8}}
	switch os.Getenv("KC_DECODE_SHAPES") {
	case "big":
		shapes = [][3]int{{3, 1000, 1001}, {16, 1000, 1001}}
	case "tails":
		shapes = [][3]int{{1, 3496, 77}, {3, 1000, 1001}, {4, 1800, 50}, {7, 2000, 33}}
	case "aligned":
		shapes = [][3]int{{16, 1000, 1032}}
	case "gemvt":
		shapes = [][3]int{{3, 1001, 264}, {16, 333, 64}, {1, 2071, 8}}
	}
	if info.Type != backend.TypeCPU {
		shapes = append(shapes, [3]int{1, 4096, 4096}, [3]int{4, 4096, 4096}, [3]int{8, 4096, 4096}, [3]int{16, 4096, 4096})
	}
	only := regexp.MustCompile(os.Getenv("KC_DECODE_ROUTES"))
	all := checkAll(c)
	skipped := map[string]bool{}
	for _, d := range halfTypes {
		if ty := os.Getenv("KC_DECODE_TYPES"); ty != "" && ty != d.String() {
			continue
		}
		for _, mkn := range shapes {
			m, k, n := mkn[0], mkn[1], mkn[2]
			combo, extraAt := 0, rng.Intn(4)
			bs := kctest.Randn(rng, k*n, -1, 1)
			b, bt := uploadOf(t, c, d, bs, k, n), uploadOf(t, c, d, bs, n, k)
			for _, ad := range []kernels.DType{kernels.F32, d} {
				as := kctest.Randn(rng, m*k, -1, 1)
				a := uploadOf(t, c, ad, as, m, k)
				for _, tb := range []bool{true, false} {
					checked := 0
					rs := decodeRoutes(info, m, k, n, d, ad, tb)
					// the default route always; on a CPU device one other
					// in one of a shape's four a types and forms
					if !all && combo != extraAt {
						rs = rs[:1]
					} else {
						rs = append(rs[:1:1], sample(t, c, rng, rs[1:], 1)...)
					}
					combo++
					for _, r := range rs {
						if !only.MatchString(fmt.Sprintf("m%d/%s", m, r.label)) {
							continue
						}
						checked++
						r.set(c)
						var y *kernels.Tensor
						var err error
						scale := 1.0
						if tb {
							scale = 0.5 + rng.Float64()
							y, err = c.MatMulBT(a, bt, float32(scale))
						} else {
							y, err = c.MatMul(a, b)
						}
						if err != nil {
							t.Fatalf("%s %s·%s %dx%dx%d bt=%v: %v", r.label, ad, d, m, k, n, tb, err)
						}
						name := fmt.Sprintf("%s %s·%s %dx%dx%d bt=%v", r.label, ad, d, m, k, n, tb)
						checkSampled(t, name, host(t, y), as, bs, m, k, n, ad, d, tb, scale, rng)
						if y.DType() != ad {
							t.Errorf("%s: result %s, want %s", name, y.DType(), ad)
						}
						y.Release()
					}
					t.Logf("%s·%s %dx%dx%d bt=%v: %d routes checked", ad, d, m, k, n, tb, checked)
					if _, ok := coopmat.CoopShape(info, d.String()); !ok && !skipped[d.String()] {
						skipped[d.String()] = true
						t.Logf("%s has no %s cooperative matrix: the skinny tensor-core routes are not run here", info.Name, d)
					}
				}
				a.Release()
			}
			b.Release()
			bt.Release()
		}
	}
}

// checkSampled is checkHalfProduct on every entry of small products and
// on 32 random columns of every row of large ones.
func checkSampled(t *testing.T, name string, got, as, bs []float32, m, k, n int, ad, bd kernels.DType, tr bool, scale float64, rng *rand.Rand) {
	t.Helper()
	if m*n*k <= 1<<22 {
		checkHalfProduct(t, name, got, as, bs, m, k, n, ad, bd, tr, scale)
		return
	}
	cols := make([]int, 32)
	for i := range cols {
		cols[i] = rng.Intn(n)
	}
	// the sampled columns as a product of n = 32
	sub := make([]float32, 32*k)
	for j, col := range cols {
		for p := 0; p < k; p++ {
			if tr {
				sub[j*k+p] = bs[col*k+p]
			} else {
				sub[p*32+j] = bs[p*n+col]
			}
		}
	}
	g := make([]float32, m*32)
	for i := 0; i < m; i++ {
		for j, col := range cols {
			g[i*32+j] = got[i*n+col]
		}
	}
	checkHalfProduct(t, name+" (sampled)", g, as, sub, m, k, 32, ad, bd, tr, scale)
}

// BenchmarkDecode times the decode products of the device, 1, 4, 8 and
// 16 rows of a (f32 or f16) times 4096x4096 f16 weights, a·bᵀ
// (MatMulBT) and a·b (MatMul), through every route TestDecodeRoutes
// checks, in GB/s over the weight bytes:
//
//	go test ./kernels -run '^$' -bench Decode -benchtime 10x
//
// Each iteration records 100 products in one scope, a chain: each
// product's a is the previous product's result (so each waits for the
// one before, as a model's layers do, and as PyTorch's stream runs its
// baseline); the weights rotate through 8 matrices (256 MiB, beyond the
// H200's 50 MiB L2). The default route's name says which kernel it is
// ("default_skinny"). "indep" repeats it with every
// product reading the same a instead (BenchmarkHalf's form, the products
// free to overlap). Time is from the scope's end (its one submit) to the
// wait's return; with -sweep, on devices with GPU timestamps, "gpuGB/s"
// is over the median of 20 products' summed dispatch durations instead.
func BenchmarkDecode(b *testing.B) {
	dev, c := openBench(b)
	dim, mats, reps := 4096, 8, 100
	if dev.Info().Type == backend.TypeCPU {
		dim, mats, reps = 256, 2, 4
	}
	defer decodeRoute{}.set(c)
	wbytes := float64(2 * dim * dim)
	ws := make([]*kernels.Tensor, mats)
	for i := range ws {
		ws[i], _ = fillOf(b, c, kernels.F16, dim*dim).Reshape(dim, dim)
	}
	for _, tb := range []bool{true, false} {
		form := "bt"
		if !tb {
			form = "b"
		}
		for _, m := range []int{1, 4, 8, 16} {
			for _, xd := range []kernels.DType{kernels.F32, kernels.F16} {
				x0, _ := fillOf(b, c, xd, m*dim).Reshape(m, dim)
				op := func(x *kernels.Tensor, i int) (*kernels.Tensor, error) {
					if tb {
						return c.MatMulBT(x, ws[i%mats], 1)
					}
					return c.MatMul(x, ws[i%mats])
				}
				routes := decodeRoutes(dev.Info(), m, dim, dim, kernels.F16, xd, tb)
				for _, r := range append(routes, decodeRoute{label: "default_indep"}) {
					r.set(c)
					chain := r.label != "default_indep"
					label := r.label
					if label == "default" {
						label += "_" + kernels.DecodeRoute(c, x0, ws[0], tb)
					}
					name := fmt.Sprintf("%s/m%d/x%s/%s", form, m, xd, label)
					benchChain(b, c, dev, name, x0, wbytes, reps, chain, op)
				}
				x0.Release()
			}
		}
	}
	decodeRoute{}.set(c)
	for _, w := range ws {
		w.Release()
	}
	benchDecodeF32(b, c, dev, dim, mats, reps)
	benchDecoderShapes(b, c, dev, reps)
	cn := 64 << 20
	if dev.Info().Type == backend.TypeCPU {
		cn = 1 << 20
	}
	x := fillOf(b, c, kernels.F32, cn)
	b.Run(fmt.Sprintf("copy/%dMiB", 4*cn>>20), func(b *testing.B) {
		run1 := func() time.Duration {
			return submitOps(b, dev, 20, func(int) (*kernels.Tensor, error) { return c.Dup(x) })
		}
		run1()
		b.ResetTimer()
		var run time.Duration
		for i := 0; i < b.N; i++ {
			run += run1()
		}
		b.ReportMetric(2*4*float64(cn)/(run.Seconds()/float64(b.N*20))/1e9, "GB/s")
	})
}

// benchDecodeF32 times chained x·Wᵀ over f32 weights (form "btf32"; x
// f32, 1, 4, 8 and 16 rows): coopmat's tiled product against gemv.kc's
// gemv4f (the default), in its default shape and two others.
func benchDecodeF32(b *testing.B, c *kernels.Context, dev *backend.Device, dim, mats, reps int) {
	ws := make([]*kernels.Tensor, mats)
	for i := range ws {
		ws[i], _ = fillOf(b, c, kernels.F32, dim*dim).Reshape(dim, dim)
	}
	defer c.SetGEMVF32(true)
	defer c.SetGEMV(0, 0)
	op := func(x *kernels.Tensor, i int) (*kernels.Tensor, error) { return c.MatMulBT(x, ws[i%mats], 1) }
	for _, m := range []int{1, 4, 8, 16} {
		x0, _ := fillOf(b, c, kernels.F32, m*dim).Reshape(m, dim)
		for _, r := range []struct {
			label     string
			f32       bool
			team, per int
		}{{"coop", false, 0, 0}, {"default_gemv4f", true, 0, 0}, {"gemv4f_t64_r2", true, 64, 2}, {"gemv4f_t256_r4", true, 256, 4}} {
			c.SetGEMVF32(r.f32)
			c.SetGEMV(r.team, r.per)
			benchChain(b, c, dev, fmt.Sprintf("btf32/m%d/xf32/%s", m, r.label), x0, float64(4*dim*dim), reps, true, op)
		}
		x0.Release()
	}
	for _, w := range ws {
		w.Release()
	}
}

// benchDecoderShapes times one-row x·Wᵀ (x f32) over the example
// decoder's matrices (form "dec"; width 2048, MLP 5632, vocabulary 32000,
// an eighth of each on CPU devices) with f16 and f32 weights through the
// default routes: "attn" chains [2048, 2048] products, "mlp" alternates
// [5632, 2048] and [2048, 5632] (gate or up, then down), "head" repeats
// [32000, 2048] on one x (free to overlap). Each shape rotates through 4
// matrices (8 for attn). The decoder with f16 weights ran slower than with
// f32 (256 against 312 tokens/s on the H200, docs/PERF.md) though its
// weights are half the bytes; these are its products' figures.
func benchDecoderShapes(b *testing.B, c *kernels.Context, dev *backend.Device, reps int) {
	d, ff, vocab := 2048, 5632, 32000
	if dev.Info().Type == backend.TypeCPU {
		d, ff, vocab = d/8, ff/8, vocab/8
	}
	for _, sh := range []struct {
		name  string
		dims  [][2]int // the [n, k] of the matrices a chain rotates through
		chain bool
	}{
		{"attn", [][2]int{{d, d}}, true},
		{"mlp", [][2]int{{ff, d}, {d, ff}}, true},
		{"head", [][2]int{{vocab, d}}, false},
	} {
		for _, wt := range []kernels.DType{kernels.F16, kernels.F32} {
			mats := 4
			if sh.name == "attn" {
				mats = 8
			}
			ws := make([]*kernels.Tensor, mats)
			for i := range ws {
				nk := sh.dims[i%len(sh.dims)]
				ws[i], _ = fillOf(b, c, wt, nk[0]*nk[1]).Reshape(nk[0], nk[1])
			}
			x0, _ := fillOf(b, c, kernels.F32, d).Reshape(1, d)
			op := func(x *kernels.Tensor, i int) (*kernels.Tensor, error) { return c.MatMulBT(x, ws[i%mats], 1) }
			nk := sh.dims[0]
			route := "gemv4f" // f32 weights: MatMulBT's gemv4f (k a multiple of 4)
			if wt != kernels.F32 {
				route = kernels.DecodeRoute(c, x0, ws[0], true)
			}
			name := fmt.Sprintf("dec/%s/w%s/default_%s", sh.name, wt, route)
			benchChain(b, c, dev, name, x0, float64(wt.Size()*nk[0]*nk[1]), reps, sh.chain, op)
			x0.Release()
			for _, w := range ws {
				w.Release()
			}
		}
	}
}

// benchChain times reps products op(x, i) in one scope, each product's x
// the previous one's result when chain is set (as a model's layers run),
// else x0 for all (free to overlap): GB/s over wbytes a product, µs a
// product, and with -sweep or -gpu the products' own GPU time.
func benchChain(b *testing.B, c *kernels.Context, dev *backend.Device, name string, x0 *kernels.Tensor, wbytes float64, reps int, chain bool, op func(x *kernels.Tensor, i int) (*kernels.Tensor, error)) {
	b.Run(name, func(b *testing.B) {
		run1 := func() time.Duration {
			x := x0
			d := submitOps(b, dev, reps, func(i int) (*kernels.Tensor, error) {
				y, err := op(x, i)
				if err != nil || !chain {
					return y, err
				}
				if x != x0 {
					x.Release()
				}
				x = y
				return nil, nil
			})
			if x != x0 {
				x.Release()
			}
			return d
		}
		run1()                       // compiles the pipelines
		warm(dev, func() { run1() }) // the clocks up
		b.ResetTimer()
		var run time.Duration
		for i := 0; i < b.N; i++ {
			run += run1()
		}
		el := run.Seconds() / float64(b.N*reps)
		b.ReportMetric(wbytes/el/1e9, "GB/s")
		b.ReportMetric(el*1e6, "us/op")
		// the product's own dispatches by GPU timestamps, beside the
		// chain's wall time (what the barriers and the ramps between
		// products cost)
		if chain && gpuFigures(dev) {
			i := 0
			if t := gpuTime(b, c, dev, func() (*kernels.Tensor, error) { i++; return op(x0, i) }); t > 0 {
				b.ReportMetric(wbytes/t.Seconds()/1e9, "gpuGB/s")
			}
		}
	})
}

// TestDecodeDefaults: the default routes are those kernels/skinny.go
// documents from the H200's figures: x·Wᵀ gemv.kc/gemvsg.kc up to 7 rows
// of f32 x and 3 of 16-bit x, the skinny tensor-core kernel from there
// where the device has cooperative matrices of the weights' type (else
// gemv.kc); x·W gemvt (gemvtsg.kc or gemvt.kc) up to 4 rows, then the
// skinny kernel (without one, coopmat's choice); more than 16 rows
// coopmat's choice.
func TestDecodeDefaults(t *testing.T) {
	c := open(t, "vulkan")
	_, coop := coopmat.CoopShape(c.Device().Info(), "f16")
	w, err := c.EmptyOf(kernels.F16, 64, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 17} {
		for _, xd := range []kernels.DType{kernels.F32, kernels.F16} {
			x, err := c.EmptyOf(xd, m, 64)
			if err != nil {
				t.Fatal(err)
			}
			wantBT, wantB := "gemv", "gemvt"
			btSkinny := 8 // the fewest rows of x·Wᵀ that take the skinny kernel
			if xd != kernels.F32 {
				btSkinny = 4
			}
			switch {
			case m > 16:
				wantBT, wantB = "coop", "coop"
			case coop:
				if m >= btSkinny {
					wantBT = "skinny"
				}
				if m > 4 {
					wantB = "skinny"
				}
			case m > 4:
				wantB = "coop"
			}
			if got := kernels.DecodeRoute(c, x, w, true); got != wantBT {
				t.Errorf("x·Wᵀ, %d rows of %s: route %s, want %s", m, xd, got, wantBT)
			}
			if got := kernels.DecodeRoute(c, x, w, false); got != wantB {
				t.Errorf("x·W, %d rows of %s: route %s, want %s", m, xd, got, wantB)
			}
			x.Release()
		}
	}
}
