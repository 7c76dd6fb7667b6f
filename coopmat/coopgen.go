package coopmat

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// The cooperative-matrix (tensor-core) kernel. Like the f32 kernel its
// source is .kc text written here; every number in it comes from the plan,
// so the text reads as one kernel.
//
// Layout, for a workgroup of SM x SN subgroups computing a BM x BN tile of
// C (instruction shape IM x IN x IK; each subgroup owns TM x TN instruction
// tiles, a block of TM·IM x TN·IN, held as TM·TN f32 accumulators in
// separately named locals so that every matrix is a compile-time name):
//   - shared As0/As1 [BM·LDA] hold the k-slice of A row-major, LDA = BK+8;
//     Bs0/Bs1 hold B's slice row-major, [BK·LDB] with LDB = BN+8 (C = A·B),
//     or B's rows n-major, [BN·LDB] with LDB = BK+8, read back with
//     col_major loads (C = A·Bᵀ). The 8-element skew moves consecutive
//     rows onto other banks;
//   - the k loop is double-buffered through registers: each step loads the
//     next slice from global memory into registers, runs the
//     multiply-adds on one shared stage, writes the registers into the
//     other stage, and waits at one barrier (with one stage, Tile.Stages
//     1: waits, writes the registers into the same stage, waits again).
//     The two-stage loop is unrolled twice, each stage a named array: a
//     rolled loop flipping a uniform stage index (one body, offsets
//     computed at run time) was slower on the H200 (2026-12-01: 137-177
//     against 189-202 TFLOP/s at 8192³, docs/PERF.md);
//   - direct plans (Plan.Direct) hold no slice in registers across the
//     multiply-adds: each slice is loaded and stored to shared memory
//     between barriers (directLoop), the load latency left to the other
//     workgroups on the multiprocessor; fewer registers live;
//   - swizzled plans (Plan.Swizzle) hand out tiles in bands of tile rows
//     (tileOrigin), for L2 reuse among the workgroups running at once;
//   - global loads are 16 bytes (vec4<u32>, 8 elements) when the row length
//     allows (K%8 == 0 for A and for Bᵀ, N%8 == 0 for B), else one element;
//   - packed plans (Plan.Packed) declare the shared stage of an operand
//     with 16-byte loads as an array of vec4<u32>: each load goes into
//     shared memory as it came, one 16-byte store, and coopLoad reads the
//     matrices from the words (ir.CoopPacks: offsets and strides in
//     vec4s, so the skewed row length stays a multiple of 8 elements);
//     otherwise the stage holds elements, and a load's eight f16 lanes
//     come out of its words by bitcast, bf16 ones through f32
//     (bf16(bitcast<f32>(w << 16)) is exact: bf16 is f32's upper half),
//     in eight 2-byte stores (banks.go).
//
// Edges: loads outside the matrix (rows past M or N, k past the slice's
// end) leave zeros in shared memory, so the multiply-adds need no guards.
// A workgroup whose tile lies inside C (a uniform test) stores its
// accumulators with coopStore straight into C; a tile on the edge stores
// each accumulator into a per-subgroup shared scratch (Cs) and copies the
// elements inside C with guarded scalar stores. A bf16 C goes through Cs
// on every tile (store: matrix conversions round as the driver likes).
//
// Split-k (Plan.Splits > 1): workgroup z sums k in [z·KS, (z+1)·KS) into
// slice z of an f32 scratch that matmul_reduce adds up, scales and rounds
// to C's type; the main kernel then writes f32.

// coopShape is the structural part of a cooperative-matrix kernel.
type coopShape struct {
	In, Out     string // element types of A and B, and of C ("f32" for split-k partials)
	TransB      bool
	VecA, VecB  bool // 16-byte loads of A's and B's rows
	IM, IN, IK  int  // instruction shape
	SM, SN      int  // subgroups per workgroup (rows x columns)
	TM, TN      int  // instruction tiles per subgroup
	KSteps, Sub int  // instruction k-steps per slice (BK = KSteps·IK); subgroup size
	Stages      int  // shared stages (1 or 2)
	Packed      bool // 16-byte loads staged into vec4<u32> shared arrays
	Interior    bool // unchecked fetches of slices inside A and B
	Direct      bool // slices loaded and stored between the barriers, no register prefetch
	Swizzle     int  // tiles handed out in bands of Swizzle tile rows (0, 1: row by row)
	// CScratch stores every tile through Cs: C's rows (N elements of
	// Out) are not a multiple of 16 bytes, so a coopStore straight into C
	// would break Vulkan's alignment rule (ir.CoopAlign) on every row
	// but the first.
	CScratch     bool
	BM, BN, BK   int
	Threads, LDA int
	LDB          int
}

func (p Plan) coopShape() (coopShape, error) {
	if p.Shape == nil {
		return coopShape{}, fmt.Errorf("coopmat: plan %s has no instruction shape", p)
	}
	t := p.Tile
	sh := p.Shape
	s := coopShape{In: p.dtype(), Out: p.ctype(), TransB: p.TransB,
		VecA: p.K%8 == 0, VecB: (p.TransB && p.K%8 == 0) || (!p.TransB && p.N%8 == 0),
		IM: sh.M, IN: sh.N, IK: sh.K, SM: p.Subgroups[0], SN: p.Subgroups[1], TM: t.TM, TN: t.TN,
		BM: t.BM, BN: t.BN, BK: t.BK, Threads: p.Threads, Packed: p.Packed, Interior: p.Interior,
		Direct: p.Direct, Swizzle: p.Swizzle}
	if p.Splits > 1 {
		s.Out = "f32"
	}
	s.CScratch = s.Out == "bf16" || int64(p.N)*typeSize(s.Out)%16 != 0
	if s.SM < 1 || s.SN < 1 || s.TM < 1 || s.TN < 1 || s.IK < 1 || t.BK%s.IK != 0 ||
		s.BM != s.SM*s.TM*s.IM || s.BN != s.SN*s.TN*s.IN || s.Threads%(s.SM*s.SN) != 0 {
		return coopShape{}, fmt.Errorf("coopmat: cooperative tile %s with %v subgroups and shape %s is inconsistent", t, p.Subgroups, sh)
	}
	if s.Packed && (s.IK%8 != 0 || s.IN%8 != 0) {
		return coopShape{}, fmt.Errorf("coopmat: packed staging needs instruction shapes in multiples of 8 elements, not %s", sh)
	}
	s.KSteps = t.BK / s.IK
	s.Stages = min(max(t.Stages, 1), 2)
	s.Sub = s.Threads / (s.SM * s.SN)
	s.LDA = s.BK + coopSkew
	s.LDB = s.BN + coopSkew
	if s.TransB {
		s.LDB = s.BK + coopSkew
	}
	return s, nil
}

func (s coopShape) name() string {
	n := fmt.Sprintf("matmul_%s_%s_%dx%d", s.In, s.Out, s.TM, s.TN)
	if s.IN != s.IM || s.IK != s.IM {
		n += fmt.Sprintf("_i%dx%dx%d", s.IM, s.IN, s.IK)
	}
	n += marks(mark{s.TransB, "_nt"}, mark{s.VecA, "_va"}, mark{s.VecB, "_vb"},
		mark{s.Packed, "_p"}, mark{s.Interior, "_i"}, mark{s.Direct, "_d"}, mark{s.CScratch && s.Out != "bf16", "_cs"})
	if s.Swizzle > 1 {
		n += fmt.Sprintf("_s%d", s.Swizzle)
	}
	return n
}

// bRows is the number of rows of B's shared stage.
func (s coopShape) bRows() int {
	if s.TransB {
		return s.BN
	}
	return s.BK
}

// coopShared is the shared memory of a kernel in bytes: two stages of A and
// B at 2 bytes an element, and one f32 instruction tile per subgroup for
// edge stores.
func (s coopShape) coopShared() int {
	return s.Stages*2*(s.BM*s.LDA+s.bRows()*s.LDB) + 4*s.SM*s.SN*s.IM*s.IN
}

// stageLoad describes how one operand's slice travels from global memory
// into a shared stage: Rows x Cols elements of a row-major matrix, Vec
// elements per load (8 or 1).
type stageLoad struct {
	Name       string // "a" or "b": register names
	Buf        string // global buffer
	Sh         string // shared array prefix (As, Bs)
	Rows, Cols int    // of the slice
	Vec        int
	LD         int    // shared row stride
	Row, Col   string // expressions of the slice's first row and column (k0 stands for the slice's k)
	RowLim     string // bound of the row index ("M", "N", "kend")
	ColLim     string // bound of the column index
	Stride     string // global row length
	Kind       string // "a" (rows are not k) or "b": which index is k
}

func (s coopShape) loads() []stageLoad {
	vec := func(v bool) int {
		if v {
			return 8
		}
		return 1
	}
	a := stageLoad{Name: "a", Buf: "A", Sh: "As", Rows: s.BM, Cols: s.BK, Vec: vec(s.VecA), LD: s.LDA,
		Row: "row0", Col: "K0", RowLim: "M", ColLim: "kend", Stride: "K"}
	b := stageLoad{Name: "b", Buf: "B", Sh: "Bs", Rows: s.BK, Cols: s.BN, Vec: vec(s.VecB), LD: s.LDB,
		Row: "K0", Col: "col0", RowLim: "kend", ColLim: "N", Stride: "N"}
	if s.TransB {
		b = stageLoad{Name: "b", Buf: "B", Sh: "Bs", Rows: s.BN, Cols: s.BK, Vec: vec(s.VecB), LD: s.LDB,
			Row: "col0", Col: "K0", RowLim: "N", ColLim: "kend", Stride: "K"}
	}
	return []stageLoad{a, b}
}

// packed reports whether l's shared stage holds vec4<u32> words.
func (s coopShape) packed(l stageLoad) bool { return s.Packed && l.Vec == 8 }

// shType is the element type of l's shared stage.
func (s coopShape) shType(l stageLoad) string {
	if s.packed(l) {
		return "vec4<u32>"
	}
	return s.In
}

// rowCol is the slice row and vector column that vector e of l's slice
// goes to, as .kc text over e: in order, or for packed stages in the
// bank-conflict-free order of banks.go.
func (s coopShape) rowCol(l stageLoad) (row, col string) {
	st := 1
	if s.packed(l) {
		st, _ = bestSpread(l, s.Threads, s.Sub)
	}
	return spreadText(l, st)
}

// per is the number of loads each invocation makes for one slice.
func (l stageLoad) per(threads int) int { return l.Rows * l.Cols / l.Vec / threads }

// coopSource writes the kernel's .kc text.
func coopSource(s coopShape) (string, error) {
	for _, l := range s.loads() {
		if (l.Rows*l.Cols/l.Vec)%s.Threads != 0 || l.Cols%l.Vec != 0 {
			return "", fmt.Errorf("coopmat: a %dx%d slice does not split evenly over %d invocations", l.Rows, l.Cols, s.Threads)
		}
	}
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format+"\n", args...) }
	bdesc, op := "KxN", "A x B"
	if s.TransB {
		bdesc, op = "NxK", "A x B^T"
	}
	p("// %s: C = scale * %s, row-major; A is MxK, B is %s (%s), C is MxN (%s).", s.name(), op, bdesc, s.In, s.Out)
	p("// Generated by package coopmat: %dx%d subgroups of %d, each %dx%d tiles of %dx%dx%d; slice %dx%dx%d.",
		s.SM, s.SN, s.Sub, s.TM, s.TN, s.IM, s.IN, s.IK, s.BM, s.BN, s.BK)
	p("// grid: ceil(N/%d) x ceil(M/%d) x splits; workgroup z sums k in [z*KS, (z+1)*KS) into C's slice z.", s.BN, s.BM)
	enables := map[string]bool{s.In: true, s.Out: true}
	if enables["f16"] {
		p("enable f16")
	}
	if enables["bf16"] {
		p("enable bf16")
	}
	p("enable cooperative_matrix")
	p("")
	elem := func(l stageLoad) string {
		if l.Vec == 8 {
			return "vec4<u32>"
		}
		return s.In
	}
	ls := s.loads()
	p("kernel %s(M u32, N u32, K u32, KS u32, scale f32, A read []%s, B read []%s, C read_write []%s) workgroup(%d) {",
		s.name(), elem(ls[0]), elem(ls[1]), s.Out, s.Threads)
	for st := 0; st < s.Stages; st++ {
		for _, l := range ls {
			n := l.Rows * l.LD
			if s.packed(l) {
				n /= 8
			}
			p("\tshared %s%d [%d]%s", l.Sh, st, n, s.shType(l))
		}
	}
	p("\tshared Cs [%d]f32", s.SM*s.SN*s.IM*s.IN)
	p("\tlet t = local_index")
	p("\tlet sg = t / %d", s.Sub)
	p("\tlet lane = t %% %d", s.Sub)
	p("\tlet wm = sg / %d", s.SN)
	p("\tlet wn = sg %% %d", s.SN)
	s.tileOrigin(&w)
	p("\tlet kbeg = workgroup_id.z * KS")
	p("\tlet kend = min(K, kbeg + KS)")
	for i := 0; i < s.TM; i++ {
		for j := 0; j < s.TN; j++ {
			p("\tvar c%d_%d coopmat<f32, %d, %d, acc>", i, j, s.IM, s.IN)
		}
	}
	s.regs(&w)
	if s.Direct {
		s.directLoop(&w)
		s.store(&w)
		p("}")
		return w.String(), nil
	}
	s.fetch(&w, "\t", "kbeg")
	s.put(&w, "\t", 0)
	p("\tworkgroupBarrier()")
	if s.Stages == 1 {
		p("\tfor k0 := kbeg; k0 < kend; k0 += %d {", s.BK)
		s.fetch(&w, "\t\t", fmt.Sprintf("k0 + %d", s.BK))
		s.compute(&w, 0)
		p("\t\tworkgroupBarrier()")
		s.put(&w, "\t\t", 0)
		p("\t\tworkgroupBarrier()")
		p("\t}")
		s.store(&w)
		p("}")
		return w.String(), nil
	}
	p("\tfor k0 := kbeg; k0 < kend; k0 += %d {", 2*s.BK)
	s.fetch(&w, "\t\t", fmt.Sprintf("k0 + %d", s.BK))
	s.compute(&w, 0)
	s.put(&w, "\t\t", 1)
	p("\t\tworkgroupBarrier()")
	s.fetch(&w, "\t\t", fmt.Sprintf("k0 + %d", 2*s.BK))
	s.compute(&w, 1)
	s.put(&w, "\t\t", 0)
	p("\t\tworkgroupBarrier()")
	p("\t}")
	s.store(&w)
	p("}")
	return w.String(), nil
}

// tileOrigin defines row0 and col0, the first row and column of the
// workgroup's tile of C. Unswizzled, workgroup (x, y) takes tile column x
// of tile row y, and the workgroups that run at once (launched in order of
// x, then y) cover a few rows of tiles: all of B's columns. Swizzled, the
// linear workgroup index walks bands of Swizzle tile rows (the last band
// what is left), down a band's column before moving right, so that the
// workgroups running at once need fewer distinct rows of A and columns of
// B, more of them found in L2.
func (s coopShape) tileOrigin(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	if s.Swizzle <= 1 {
		p("let row0 = workgroup_id.y * %d", s.BM)
		p("let col0 = workgroup_id.x * %d", s.BN)
		return
	}
	p("let gx = (N + %d) / %d", s.BN-1, s.BN)
	p("let gy = (M + %d) / %d", s.BM-1, s.BM)
	p("let wid = workgroup_id.y * gx + workgroup_id.x")
	p("let band = wid / (gx * %d)", s.Swizzle)
	p("let first = band * %d", s.Swizzle)
	p("let high = min(gy - first, %d)", s.Swizzle)
	p("let inband = wid - band * gx * %d", s.Swizzle)
	p("let row0 = (first + inband %% high) * %d", s.BM)
	p("let col0 = (inband / high) * %d", s.BN)
}

// directLoop writes the k loop of a Direct plan: each slice is loaded
// and stored to shared memory right away (the staging registers die at
// once), so the multiply-adds hold only accumulators and fragments. With
// one stage: barrier, load and store, barrier, multiply-adds. With two,
// one barrier a slice: load and store slice k+1 into the other stage,
// multiply-add stage k, barrier (the other stage was last read before the
// previous barrier).
func (s coopShape) directLoop(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	if s.Stages == 1 {
		p("for k0 := kbeg; k0 < kend; k0 += %d {", s.BK)
		p("\tworkgroupBarrier()")
		s.fetch(w, "\t\t", "k0")
		s.put(w, "\t\t", 0)
		p("\tworkgroupBarrier()")
		s.compute(w, 0)
		p("}")
		return
	}
	s.fetch(w, "\t", "kbeg")
	s.put(w, "\t", 0)
	p("workgroupBarrier()")
	p("for k0 := kbeg; k0 < kend; k0 += %d {", 2*s.BK)
	s.fetch(w, "\t\t", fmt.Sprintf("k0 + %d", s.BK))
	s.put(w, "\t\t", 1)
	s.compute(w, 0)
	p("\tworkgroupBarrier()")
	s.fetch(w, "\t\t", fmt.Sprintf("k0 + %d", 2*s.BK))
	s.put(w, "\t\t", 0)
	s.compute(w, 1)
	p("\tworkgroupBarrier()")
	p("}")
}

// regs declares the registers that carry one slice from fetch to put.
func (s coopShape) regs(w *strings.Builder) {
	for _, l := range s.loads() {
		for i := 0; i < l.per(s.Threads); i++ {
			fmt.Fprintf(w, "\tvar r%s%d %s\n", l.Name, i, s.regType(l))
		}
	}
}

func (s coopShape) regType(l stageLoad) string {
	if l.Vec == 8 {
		return "vec4<u32>"
	}
	return s.In
}

// fetch loads the slice at k = k0 into the registers, zero outside the
// matrix. With Interior, a slice inside A and B (a test uniform over the
// workgroup) is loaded without the per-load checks.
func (s coopShape) fetch(w *strings.Builder, in, k0 string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, in+format+"\n", args...) }
	p("{")
	p("\tlet K0 = %s", k0)
	if s.Interior {
		p("\tif row0 + %d <= M && col0 + %d <= N && K0 + %d <= kend {", s.BM, s.BN, s.BK)
		s.loadSlice(w, in+"\t", false)
		p("\t} else {")
		s.loadSlice(w, in+"\t", true)
		p("\t}")
	} else {
		s.loadSlice(w, in, true)
	}
	p("}")
}

// loadSlice writes the loads of one slice into the registers, checked
// against the matrix bounds (zero outside) or not.
func (s coopShape) loadSlice(w *strings.Builder, in string, checked bool) {
	p := func(format string, args ...any) { fmt.Fprintf(w, in+format+"\n", args...) }
	for _, l := range s.loads() {
		for i := 0; i < l.per(s.Threads); i++ {
			reg := fmt.Sprintf("r%s%d", l.Name, i)
			p("\t{")
			row, col := s.rowCol(l)
			p("\t\tlet e = t + %d", i*s.Threads)
			p("\t\tlet r = %s + %s", l.Row, row)
			p("\t\tlet c = %s + (%s) * %d", l.Col, col, l.Vec)
			load := fmt.Sprintf("%s[r * %s + c]", l.Buf, l.Stride)
			if l.Vec == 8 {
				load = fmt.Sprintf("%s[(r * %s + c) / 8]", l.Buf, l.Stride)
			}
			if checked {
				p("\t\t%s = %s(0)", reg, s.regType(l))
				p("\t\tif r < %s && c < %s {", l.RowLim, l.ColLim)
				p("\t\t\t%s = %s", reg, load)
				p("\t\t}")
			} else {
				p("\t\t%s = %s", reg, load)
			}
			p("\t}")
		}
	}
}

// put writes the registers of fetch into shared stage st. A 16-byte
// register goes out as eight 2-byte stores, its words in a rotated order
// that keeps each store instruction free of bank conflicts (banks.go).
func (s coopShape) put(w *strings.Builder, in string, st int) {
	p := func(format string, args ...any) { fmt.Fprintf(w, in+format+"\n", args...) }
	for _, l := range s.loads() {
		vecs := l.Cols / l.Vec
		rot, _ := bestRotation(l, s.Threads, s.Sub)
		for i := 0; i < l.per(s.Threads); i++ {
			reg := fmt.Sprintf("r%s%d", l.Name, i)
			sh := fmt.Sprintf("%s%d", l.Sh, st)
			p("{")
			p("\tlet e = t + %d", i*s.Threads)
			if l.Vec == 1 {
				p("\t%s[e / %d * %d + e %% %d] = %s", sh, vecs, l.LD, vecs, reg)
				p("}")
				continue
			}
			if s.packed(l) {
				row, col := s.rowCol(l)
				p("\t%s[(%s) * %d + %s] = %s", sh, row, l.LD/8, col, reg)
				p("}")
				continue
			}
			p("\tlet row = e / %d", vecs)
			p("\tlet col = e %% %d", vecs)
			p("\tlet o = row * %d + col * 8", l.LD)
			if rt := rot.text(); rt != "" {
				p("\tlet rot = %s", rt)
			} else {
				p("\tlet rot = u32(0)")
			}
			for j := 0; j < 4; j++ {
				p("\t{")
				p("\t\tlet wj = (rot + %d) & 3", j)
				p("\t\tlet v = %s[wj]", reg)
				if s.In == "f16" {
					p("\t\tlet h = bitcast<vec2<f16>>(v)")
					p("\t\t%s[o + wj * 2] = h.x", sh)
					p("\t\t%s[o + wj * 2 + 1] = h.y", sh)
				} else {
					p("\t\t%s[o + wj * 2] = bf16(bitcast<f32>(v << 16))", sh)
					p("\t\t%s[o + wj * 2 + 1] = bf16(bitcast<f32>(v & 0xffff0000))", sh)
				}
				p("\t}")
			}
			p("}")
		}
	}
}

// compute writes the multiply-adds on shared stage st: for each k-step,
// TM fragments of A, TN of B and TM·TN multiply-adds. (Loading B's
// fragments first and each of A's just before its multiply-adds, fewer
// fragments live, was no faster on the H200: 270 against 271 TFLOP/s.)
func (s coopShape) compute(w *strings.Builder, st int) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t\t"+format+"\n", args...) }
	ls := s.loads()
	// u divides offsets and strides of a packed stage: they count vec4s.
	ua, ub := 1, 1
	if s.packed(ls[0]) {
		ua = 8
	}
	if s.packed(ls[1]) {
		ub = 8
	}
	for kk := 0; kk < s.KSteps; kk++ {
		p("{")
		for i := 0; i < s.TM; i++ {
			p("\tlet a%d = coopLoad<coopmat<%s, %d, %d, a>>(As%d, (wm * %d + %d) * %d + %d, %d, row_major)",
				i, s.In, s.IM, s.IK, st, s.TM*s.IM, i*s.IM, s.LDA/ua, kk*s.IK/ua, s.LDA/ua)
		}
		for j := 0; j < s.TN; j++ {
			if s.TransB {
				p("\tlet b%d = coopLoad<coopmat<%s, %d, %d, b>>(Bs%d, (wn * %d + %d) * %d + %d, %d, col_major)",
					j, s.In, s.IK, s.IN, st, s.TN*s.IN, j*s.IN, s.LDB/ub, kk*s.IK/ub, s.LDB/ub)
			} else {
				p("\tlet b%d = coopLoad<coopmat<%s, %d, %d, b>>(Bs%d, %d + wn * %d + %d, %d, row_major)",
					j, s.In, s.IK, s.IN, st, kk*s.IK*s.LDB/ub, s.TN*s.IN/ub, j*s.IN/ub, s.LDB/ub)
			}
		}
		for i := 0; i < s.TM; i++ {
			for j := 0; j < s.TN; j++ {
				p("\tc%d_%d = coopMulAdd(a%d, b%d, c%d_%d)", i, j, i, j, i, j)
			}
		}
		p("}")
	}
}

// store writes the accumulators to C: straight from the matrices when the
// workgroup's tile is inside C, through Cs with guards on the edges. A C
// whose rows are not 16-byte aligned (CScratch) and a bf16
// C always go through Cs, converted element by element: the conversion of
// a matrix rounds as the driver likes (NVIDIA's toward zero, H200
// 2026-12-01), kc's scalar conversion to nearest even (docs/semantics.md
// §7.2).
func (s coopShape) store(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("\tlet cbase = workgroup_id.z * M * N")
	p("\tif row0 + %d <= M && col0 + %d <= N {", s.BM, s.BN)
	if s.CScratch {
		s.storeScratch(p, false)
	} else {
		for i := 0; i < s.TM; i++ {
			for j := 0; j < s.TN; j++ {
				m := fmt.Sprintf("c%d_%d * scale", i, j)
				if s.Out != "f32" {
					m = fmt.Sprintf("coopmat<%s, %d, %d, acc>(%s)", s.Out, s.IM, s.IN, m)
				}
				p("\t\tcoopStore(%s, C, cbase + (row0 + wm * %d + %d) * N + col0 + wn * %d + %d, N, row_major)",
					m, s.TM*s.IM, i*s.IM, s.TN*s.IN, j*s.IN)
			}
		}
	}
	p("\t} else {")
	s.storeScratch(p, true)
	p("\t}")
}

// storeScratch stores each accumulator into the subgroup's part of Cs and
// copies its elements to C (those inside C when guarded), converted one by
// one to C's type.
func (s coopShape) storeScratch(p func(string, ...any), guarded bool) {
	tile := s.IM * s.IN
	in := "\t\t\t"
	for i := 0; i < s.TM; i++ {
		for j := 0; j < s.TN; j++ {
			p("\t\tcoopStore(c%d_%d * scale, Cs, sg * %d, %d, row_major)", i, j, tile, s.IN)
			p("\t\tworkgroupBarrier()")
			p("\t\tfor e := lane; e < %d; e += %d {", tile, s.Sub)
			p("\t\t\tlet r = row0 + wm * %d + %d + e / %d", s.TM*s.IM, i*s.IM, s.IN)
			p("\t\t\tlet c = col0 + wn * %d + %d + e %% %d", s.TN*s.IN, j*s.IN, s.IN)
			if guarded {
				p("\t\t\tif r < M && c < N {")
				in = "\t\t\t\t"
			}
			x := fmt.Sprintf("Cs[sg * %d + e]", tile)
			if s.Out != "f32" {
				x = fmt.Sprintf("%s(%s)", s.Out, x)
			}
			p(in+"C[cbase + r * N + c] = %s", x)
			if guarded {
				p("\t\t\t}")
			}
			p("\t\t}")
			p("\t\tworkgroupBarrier()")
		}
	}
}

// buildCoop generates and checks the plan's cooperative-matrix kernel.
func buildCoop(p Plan) (*ir.Module, string, error) {
	s, err := p.coopShape()
	if err != nil {
		return nil, "", err
	}
	src, err := coopSource(s)
	if err != nil {
		return nil, "", err
	}
	return loadGenerated(s.name(), p.Tile, src)
}

// loadGenerated parses and checks the generated kernel name's text, the
// tile it was written for named in the error.
func loadGenerated(name string, t Tile, src string) (*ir.Module, string, error) {
	m, err := parse.Load(name+".kc", []byte(src), nil)
	if err != nil {
		return nil, "", fmt.Errorf("coopmat: generated kernel %s %s: %w", name, t, err)
	}
	return m, name, nil
}
