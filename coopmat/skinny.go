package coopmat

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
)

// The skinny tensor-core kernel ("skinny"): C = scale·A·B or scale·A·Bᵀ
// for f16/bf16 products of at most one instruction tile of rows (M <= 16,
// a decode step), where B streams from memory once and the tiled kernels'
// shared staging of B is pure overhead.
//
// A workgroup of S subgroups takes BN = TN·IN columns of C and a slice of
// KS values of k (Tile.BK; split-k over the grid's z, so a 4096x4096 B in
// slices of 256 makes 1,024 workgroups at BN 64). A's 16 x KS slice is
// staged once into shared memory (rows past M and k past the slice's end
// as zeros; 16-byte loads when K is a multiple of 8); subgroup g multiplies k in [g·KS/S, (g+1)·KS/S), its B
// matrices loaded straight from global memory with coopLoad (row-major
// from B, column-major from Bᵀ: no shared staging, no barrier in the k
// steps), the steps unrolled. The S subgroups' TN accumulators meet in
// shared memory (coopStore, barrier, every invocation summing S values of
// one element) and are written scaled and rounded into C, or as f32 into
// split-k slice z for matmul_reduce.
//
// Edges: coopLoad reads whole tiles, so a workgroup whose columns or
// slice reach past N or K (a test uniform over the workgroup) stages each
// of B's tiles through a per-subgroup shared scratch with guarded element
// loads, zeros outside, between barriers. So does every workgroup when
// B's row length (N, or K for Bᵀ) is not a multiple of 8 elements: a
// cooperative load from memory needs 16-byte aligned rows.
//
// Prefetch D (Plan.Prefetch; direct B only): an interior workgroup's
// subgroups first issue the cooperative loads of B of the first D k-steps
// of their share of the slice (or chunk), each into its own matrix, and
// only then stage A and wait at the barrier; step st issues step st+D's
// loads before it multiplies. B does not depend on shared memory, so its
// round trips overlap one another and A's staging instead of following
// the staging and each other step by step. A subgroup holds up to
// (D+1) x TN B matrices (4 registers a lane each at 16x16 f16); D equal
// to the share's steps loads all of it first. The prefetch form also
// stages A with every 16-byte load of an invocation issued before the
// first store (stageAHoisted), where the loop would wait out one round
// trip per load. On the H200 neither lifted the split-k layouts; the two
// together lifted the whole-k one, A's part most for A·B (docs/PERF.md,
// "prefetch").
//
// Staged (Plan.StageB; B's rows 16-byte aligned, skinnystage.go): an
// interior workgroup copies its block of B ([n,k] or [k,n]) into shared
// memory with 16-byte loads issued a chunk ahead and loads the B matrices
// from there, where the column-major cooperative loads from global memory
// capped A·Bᵀ near 1,100 GB/s on the H200; staged, 1,900-2,100
// (docs/PERF.md, "staged").

// skinnyShape is the structural part of a skinny tensor-core kernel.
type skinnyShape struct {
	In, Out    string // element types of A and B, and of C ("f32" for split-k partials)
	AIn        string // element type of A in memory: In, or f32 (rounded to In as it is staged)
	TransB     bool
	Loop       bool // the workgroup's slice of k (Plan.KS, a runtime parameter) walked in chunks of KS
	Direct     bool // B's interior tiles loaded from global memory (16-byte aligned rows)
	Packed     bool // B bound as 16-byte words (Plan.Packed; needs Direct): coopLoad reads them
	Prefetch   int  // k-steps of interior B loaded ahead, from before A is staged (Plan.Prefetch; needs Direct)
	Staged     bool // B's interior block staged in shared memory with 16-byte loads (Plan.StageB; needs Direct)
	VecA       bool // A staged with 16-byte loads (K a multiple of 8)
	IM, IN, IK int  // instruction shape
	S, TN      int  // subgroups (k split among them); instruction tiles of C per subgroup
	KS, Sub    int  // k per workgroup, or per chunk with Loop (Tile.BK); subgroup size
	LDA        int  // A's shared row length
	LDW        int  // the staged block's row length in 16-byte words (Staged)
}

func (p Plan) skinnyShape() (skinnyShape, error) {
	if p.Shape == nil {
		return skinnyShape{}, fmt.Errorf("coopmat: plan %s has no instruction shape", p)
	}
	sh := p.Shape
	s := skinnyShape{In: p.dtype(), AIn: p.atype(), Out: p.ctype(), TransB: p.TransB, IM: sh.M, IN: sh.N, IK: sh.K,
		S: p.Subgroups[0], TN: p.Tile.TN, KS: p.Tile.BK}
	s.Direct = (p.TransB && p.K%8 == 0) || (!p.TransB && p.N%8 == 0)
	s.Loop = p.KS > s.KS
	s.Packed = p.Packed
	s.Prefetch = p.Prefetch
	s.Staged = p.StageB
	s.VecA = p.K%s.aVec() == 0
	if p.Splits > 1 {
		s.Out = "f32"
	}
	if s.S < 1 || s.TN < 1 || s.IK < 1 || p.dtype() == "f32" || p.M > s.IM || p.Tile.BM != s.IM ||
		p.Tile.BN != s.TN*s.IN || s.KS%(s.S*s.IK) != 0 || p.KS%s.KS != 0 || p.KS < s.KS || p.Threads%s.S != 0 || (s.Packed && !s.Direct) ||
		p.Prefetch < 0 || (s.Prefetch > 0 && (!s.Direct || s.Prefetch > s.KS/(s.S*s.IK))) || (s.Staged && !s.stagedFits(p.Threads)) {
		return skinnyShape{}, fmt.Errorf("coopmat: skinny tensor-core plan %s does not fit %s", p, p.Options)
	}
	s.Sub = p.Threads / s.S
	s.LDA = s.KS + coopSkew
	if s.Staged {
		s.LDW = s.stagedLDW()
	}
	return s, nil
}

// stagedFits reports whether the staged form (Plan.StageB) takes s on
// threads invocations: 16-byte aligned rows of B and of A (K a multiple
// of 8), rows of the block whole 16-byte words (k of a step for Bᵀ, the
// tile's columns for B), no other form of B's loads, and a whole number
// of 16-byte loads of B's block and of A's chunk an invocation.
func (s skinnyShape) stagedFits(threads int) bool {
	return s.Direct && s.VecA && !s.Packed && s.Prefetch == 0 && ((s.TransB && s.IK%8 == 0) || (!s.TransB && s.IN%8 == 0)) &&
		(s.TN*s.IN*s.KS/8)%threads == 0 && (s.IM*s.KS/s.aVec())%threads == 0
}

func (s skinnyShape) name() string {
	n := fmt.Sprintf("skinny_%s_%s_%dx%d_k%d", s.In, s.Out, s.S, s.TN, s.KS)
	return n + marks(mark{s.AIn != s.In, "_a" + s.AIn}, mark{s.TransB, "_nt"}, mark{s.Loop, "_loop"}, mark{s.Direct, "_d"}, mark{s.Packed, "_pk"}, mark{s.Prefetch > 0, fmt.Sprintf("_pf%d", s.Prefetch)}, mark{s.Staged, "_sb"}, mark{s.VecA, "_va"})
}

// aVec is the elements of A in one 16-byte load.
func (s skinnyShape) aVec() int { return 16 / int(typeSize(s.AIn)) }

// bTile and cTile are the elements of one B tile (IK x IN) and of one C tile (IM x IN).
func (s skinnyShape) bTile() int { return s.IK * s.IN }
func (s skinnyShape) cTile() int { return s.IM * s.IN }

// shared is the kernel's shared memory in bytes: A's slice, the B staging
// scratch of every subgroup's TN tiles, and the reduction's f32 tiles;
// with Staged also the block of B (bRows rows of LDW words).
func (s skinnyShape) shared() int {
	n := 2*s.IM*s.LDA + 2*s.S*s.TN*s.bTile() + 4*s.S*s.TN*s.cTile()
	if s.Staged {
		n += 16 * s.bRows() * s.LDW
	}
	return n
}

// words reports whether B is bound as 16-byte words (Packed, or Staged's
// 16-byte loads).
func (s skinnyShape) words() bool { return s.Packed || s.Staged }

// skinnySource writes the kernel's .kc text.
func skinnySource(s skinnyShape) string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format+"\n", args...) }
	bdesc, op := "KxN", "A x B"
	if s.TransB {
		bdesc, op = "NxK", "A x B^T"
	}
	threads := s.S * s.Sub
	p("// %s: C = scale * %s, row-major; A is MxK (M <= %d), B is %s (%s), C is MxN (%s).", s.name(), op, s.IM, bdesc, s.In, s.Out)
	p("// Generated by package coopmat: %d subgroups of %d splitting %d of k, each %d tiles of %dx%dx%d.", s.S, s.Sub, s.KS, s.TN, s.IM, s.IN, s.IK)
	p("// grid: ceil(N/%d) x 1 x splits; workgroup z sums k in [z*KS, (z+1)*KS) into C's slice z.", s.TN*s.IN)
	enables := map[string]bool{s.In: true, s.Out: true}
	for _, t := range []string{"f16", "bf16"} {
		if enables[t] {
			p("enable %s", t)
		}
	}
	p("enable cooperative_matrix")
	p("")
	at := s.AIn
	switch {
	case s.VecA && s.AIn == "f32":
		at = "vec4<f32>"
	case s.VecA:
		at = "vec4<u32>"
	}
	if s.AIn == "f32" && s.In == "bf16" {
		p("// rne rounds x to bf16, to nearest even, with integer arithmetic:")
		p("// conversions that narrow may round otherwise (the H200's driver")
		p("// rounds toward zero), and the masked value converts exactly.")
		p("fn rne(x f32) bf16 {")
		p("\tlet u = bitcast<u32>(x)")
		p("\treturn bf16(bitcast<f32>((u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000))")
		p("}")
		p("")
	}
	bt := s.In
	if s.words() {
		bt = "vec4<u32>"
		s.bAt(&w)
	}
	p("kernel %s(M u32, N u32, K u32, KS u32, scale f32, A read []%s, B read []%s, C read_write []%s) workgroup(%d) {",
		s.name(), at, bt, s.Out, threads)
	p("\tshared As [%d]%s", s.IM*s.LDA, s.In)
	p("\tshared Bs [%d]%s", s.S*s.TN*s.bTile(), s.In)
	p("\tshared Red [%d]f32", s.S*s.TN*s.cTile())
	if s.Staged {
		p("\tshared Bw [%d]vec4<u32>", s.bRows()*s.LDW)
	}
	p("\tlet t = local_index")
	p("\tlet sg = t / %d", s.Sub)
	p("\tlet lane = t %% %d", s.Sub)
	p("\tlet col0 = workgroup_id.x * %d", s.TN*s.IN)
	for j := 0; j < s.TN; j++ {
		p("\tvar c%d coopmat<f32, %d, %d, acc>", j, s.IM, s.IN)
	}
	if s.Staged {
		s.stagedSetup(&w)
	}
	if s.Loop {
		// The slice in chunks of KS: A's chunk staged, the barrier, the
		// chunk's steps, a barrier before the next chunk overwrites As.
		p("\tlet zend = min(K, workgroup_id.z * KS + KS)")
		p("\tfor kbeg := workgroup_id.z * KS; kbeg < zend; kbeg += %d {", s.KS)
		p("\tlet kend = min(zend, kbeg + %d)", s.KS)
	} else {
		p("\tlet kbeg = workgroup_id.z * KS")
		p("\tlet kend = min(K, kbeg + KS)")
	}
	switch {
	case s.Staged:
		s.stagedBody(&w)
	case s.Prefetch > 0:
		s.prefetchBody(&w)
	default:
		s.body(&w)
	}
	if s.Loop {
		p("\tworkgroupBarrier()")
		p("\t}")
	}
	s.reduce(&w)
	p("}")
	return w.String()
}

// body stages A's slice, then runs the subgroup's k-steps: B's tiles
// loaded from global memory step by step in an interior workgroup
// (Direct), else staged.
func (s skinnyShape) body(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	ksub := s.KS / s.S
	s.stageA(w)
	p("\tworkgroupBarrier()")
	p("\tlet ks = kbeg + sg * %d", ksub)
	if s.Direct {
		p("\tif col0 + %d <= N && kbeg + %d <= K {", s.TN*s.IN, s.KS)
		for st := 0; st < ksub/s.IK; st++ {
			s.step(w, st, false)
		}
		p("\t} else {")
	} else {
		p("\t{")
	}
	for st := 0; st < ksub/s.IK; st++ {
		s.step(w, st, true)
	}
	p("\t}")
}

// prefetchBody is body with B's interior loads ahead: in an interior
// workgroup the B matrices of the first Prefetch k-steps are loaded
// before A is staged and the barrier, then each step loads those of the
// step Prefetch ahead and multiplies; an edge workgroup stages A and B as
// body does. The test is uniform over the workgroup, so the barriers
// inside either branch are reached by all or none.
func (s skinnyShape) prefetchBody(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	ksub := s.KS / s.S
	p("\tlet ks = kbeg + sg * %d", ksub)
	p("\tif col0 + %d <= N && kbeg + %d <= K {", s.TN*s.IN, s.KS)
	steps := ksub / s.IK
	load := func(st int) {
		for j := 0; j < s.TN; j++ {
			p("\tlet b%d_%d = %s", st, j, s.bLoad(j, fmt.Sprintf("ks + %d", st*s.IK)))
		}
	}
	for st := 0; st < s.Prefetch; st++ {
		load(st)
	}
	s.stageA(w)
	p("\tworkgroupBarrier()")
	for st := 0; st < steps; st++ {
		if st+s.Prefetch < steps {
			load(st + s.Prefetch)
		}
		p("\t{")
		p("\t\tlet a = %s", s.aLoad(st))
		for j := 0; j < s.TN; j++ {
			p("\t\tc%d = coopMulAdd(a, b%d_%d, c%d)", j, st, j, j)
		}
		p("\t}")
	}
	s.edgeBranch(w)
}

// edgeBranch closes an interior branch with the edge workgroups' else:
// A staged, the barrier, B's tiles staged step by step with guards.
func (s skinnyShape) edgeBranch(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("\t} else {")
	s.stageA(w)
	p("\tworkgroupBarrier()")
	for st := 0; st < s.KS/s.S/s.IK; st++ {
		s.step(w, st, true)
	}
	p("\t}")
}

// aLoad is the cooperative load of A's matrix for k-step st of the
// subgroup's share, from the staged slice.
func (s skinnyShape) aLoad(st int) string {
	return fmt.Sprintf("coopLoad<coopmat<%s, %d, %d, a>>(As, sg * %d + %d, %d, row_major)", s.In, s.IM, s.IK, s.KS/s.S, st*s.IK, s.LDA)
}

// stageA copies A's 16 x KS slice into shared memory, zeros past M and
// past the slice's end: a 16-byte load at a time when K is a multiple of
// its elements (8 of 16 bits, their halves out of the words by bitcast,
// bf16 through f32, exact; 4 of f32 A, each rounded to In), else one
// element a load.
func (s skinnyShape) stageA(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	threads := s.S * s.Sub
	if !s.VecA {
		p("for e := t; e < %d; e += %d {", s.IM*s.KS, threads)
		p("\tlet m = e / %d", s.KS)
		p("\tlet k = kbeg + e %% %d", s.KS)
		p("\tvar x %s", s.In)
		p("\tif m < M && k < kend {")
		p("\t\tx = %s", s.narrow("A[m * K + k]"))
		p("\t}")
		p("\tAs[m * %d + e %% %d] = x", s.LDA, s.KS)
		p("}")
		return
	}
	n := s.aVec()
	vecs := s.KS / n
	if s.Prefetch > 0 && s.IM*vecs%threads == 0 {
		s.stageAHoisted(w)
		return
	}
	p("for e := t; e < %d; e += %d {", s.IM*vecs, threads)
	p("\tlet m = e / %d", vecs)
	p("\tlet k = kbeg + e %% %d * %d", vecs, n)
	if s.AIn == "f32" {
		p("\tvar v vec4<f32>")
	} else {
		p("\tvar v vec4<u32>")
	}
	p("\tif m < M && k < kend {")
	p("\t\tv = A[(m * K + k) / %d]", n)
	p("\t}")
	p("\tlet o = m * %d + e %% %d * %d", s.LDA, vecs, n)
	s.storeVec(w, "\t", "v", "o")
	p("}")
}

// stageAHoisted is stageA's 16-byte form with every invocation's loads
// issued first, then the conversions and stores (the prefetch form): the
// loop's load, store, load, ... would wait out one round trip per 16
// bytes. The loads read a clamped, in-bounds address, and a vector past M
// or the slice's end becomes zeros after all of them are issued.
func (s skinnyShape) stageAHoisted(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	threads := s.S * s.Sub
	n := s.aVec()
	vecs := s.KS / n
	vt := "vec4<u32>"
	if s.AIn == "f32" {
		vt = "vec4<f32>"
	}
	iters := s.IM * vecs / threads
	p("var az %s", vt)
	for i := 0; i < iters; i++ {
		p("let am%d = (t + %d) / %d", i, i*threads, vecs)
		p("let ak%d = kbeg + (t + %d) %% %d * %d", i, i*threads, vecs, n)
		p("var av%d = A[(min(am%d, M - 1) * K + min(ak%d, K - %d)) / %d]", i, i, i, n, n)
	}
	for i := 0; i < iters; i++ {
		p("if am%d >= M || ak%d >= kend {", i, i)
		p("\tav%d = az", i)
		p("}")
		p("{")
		p("\tlet o = am%d * %d + (t + %d) %% %d * %d", i, s.LDA, i*threads, vecs, n)
		s.storeVec(w, "\t", fmt.Sprintf("av%d", i), "o")
		p("}")
	}
}

// storeVec writes the 16 bytes of A in v (vec4<f32>, or vec4<u32> of
// 16-bit halves) to As from offset o, converted to In.
func (s skinnyShape) storeVec(w *strings.Builder, ind, v, o string) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+ind+format+"\n", args...) }
	if s.AIn == "f32" {
		for j := 0; j < 4; j++ {
			p("As[%s + %d] = %s", o, j, s.narrow(v+"."+"xyzw"[j:j+1]))
		}
		return
	}
	for j := 0; j < 4; j++ {
		c := "xyzw"[j : j+1]
		if s.In == "f16" {
			p("let h%d = bitcast<vec2<f16>>(%s.%s)", j, v, c)
			p("As[%s + %d] = h%d.x", o, 2*j, j)
			p("As[%s + %d] = h%d.y", o, 2*j+1, j)
		} else {
			p("As[%s + %d] = bf16(bitcast<f32>(%s.%s << 16))", o, 2*j, v, c)
			p("As[%s + %d] = bf16(bitcast<f32>(%s.%s & 0xffff0000))", o, 2*j+1, v, c)
		}
	}
}

// bAt writes the function that reads element e of packed B.
func (s skinnyShape) bAt(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("// bAt is element e of B, held as 16-byte words.")
	p("fn bAt(B read []vec4<u32>, e u32) %s {", s.In)
	p("\tlet v = B[e / 8]")
	p("\tlet q = e / 2 %% 4")
	p("\tvar w = v.x")
	for i, c := range []string{"y", "z", "w"} {
		p("\tif q == %d {", i+1)
		p("\t\tw = v.%s", c)
		p("\t}")
	}
	p("\tif (e & 1) == 1 {")
	p("\t\tw = w >> 16")
	p("\t}")
	if s.In == "f16" {
		p("\treturn bitcast<vec2<f16>>(w).x")
	} else {
		p("\treturn bf16(bitcast<f32>(w << 16))")
	}
	p("}")
	p("")
}

// narrow converts an element of A as loaded (x) to the staged type In:
// x itself, or f32 rounded to nearest even (bf16 through rne).
func (s skinnyShape) narrow(x string) string {
	switch {
	case s.AIn == s.In:
		return x
	case s.In == "bf16":
		return "rne(" + x + ")"
	}
	return s.In + "(" + x + ")"
}

// step writes instruction k-step st of a subgroup's share: one A matrix
// from shared memory, TN B matrices (from global memory, or staged
// through the subgroup's scratch with guarded loads), TN multiply-adds.
func (s skinnyShape) step(w *strings.Builder, st int, staged bool) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t\t"+format+"\n", args...) }
	p("{")
	p("\tlet k = ks + %d", st*s.IK)
	p("\tlet a = %s", s.aLoad(st))
	if staged {
		p("\tworkgroupBarrier()")
		for j := 0; j < s.TN; j++ {
			p("\tfor e := lane; e < %d; e += %d {", s.bTile(), s.Sub)
			p("\t\tlet r = k + e / %d", s.IN)
			p("\t\tlet c = col0 + %d + e %% %d", j*s.IN, s.IN)
			p("\t\tvar x %s", s.In)
			p("\t\tif r < kend && c < N {")
			switch {
			case s.words() && s.TransB:
				p("\t\t\tx = bAt(B, c * K + r)")
			case s.words():
				p("\t\t\tx = bAt(B, r * N + c)")
			case s.TransB:
				p("\t\t\tx = B[c * K + r]")
			default:
				p("\t\t\tx = B[r * N + c]")
			}
			p("\t\t}")
			p("\t\tBs[(sg * %d + %d) * %d + e] = x", s.TN, j, s.bTile())
			p("\t}")
		}
		p("\tworkgroupBarrier()")
	}
	for j := 0; j < s.TN; j++ {
		if staged {
			p("\tlet b%d = coopLoad<coopmat<%s, %d, %d, b>>(Bs, (sg * %d + %d) * %d, %d, row_major)", j, s.In, s.IK, s.IN, s.TN, j, s.bTile(), s.IN)
		} else {
			p("\tlet b%d = %s", j, s.bLoad(j, "k"))
		}
	}
	for j := 0; j < s.TN; j++ {
		p("\tc%d = coopMulAdd(a, b%d, c%d)", j, j, j)
	}
	p("}")
}

// bLoad is the cooperative load of B's tile j of the workgroup's columns
// at k (an expression) from global memory: row-major from B, column-major
// from Bᵀ, offsets and strides in 16-byte words when B is packed.
func (s skinnyShape) bLoad(j int, k string) string {
	m := fmt.Sprintf("coopmat<%s, %d, %d, b>", s.In, s.IK, s.IN)
	kr := k // k as a factor
	if strings.Contains(k, " ") {
		kr = "(" + k + ")"
	}
	switch {
	case s.Packed && s.TransB:
		return fmt.Sprintf("coopLoad<%s>(B, ((col0 + %d) * K + %s) / 8, K / 8, col_major)", m, j*s.IN, k)
	case s.Packed:
		return fmt.Sprintf("coopLoad<%s>(B, (%s * N + col0 + %d) / 8, N / 8, row_major)", m, kr, j*s.IN)
	case s.TransB:
		return fmt.Sprintf("coopLoad<%s>(B, (col0 + %d) * K + %s, K, col_major)", m, j*s.IN, k)
	}
	return fmt.Sprintf("coopLoad<%s>(B, %s * N + col0 + %d, N, row_major)", m, kr, j*s.IN)
}

// reduce sums the subgroups' accumulators through shared memory and
// writes the rows below M and columns below N.
func (s skinnyShape) reduce(w *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(w, "\t"+format+"\n", args...) }
	for j := 0; j < s.TN; j++ {
		p("coopStore(c%d, Red, (sg * %d + %d) * %d, %d, row_major)", j, s.TN, j, s.cTile(), s.IN)
	}
	p("workgroupBarrier()")
	bn := s.TN * s.IN
	p("let cbase = workgroup_id.z * M * N")
	p("for e := t; e < %d; e += %d {", s.IM*bn, s.S*s.Sub)
	p("\tlet r = e / %d", bn)
	p("\tlet c = e %% %d", bn)
	p("\tlet o = (c / %d) * %d + r * %d + c %% %d", s.IN, s.cTile(), s.IN, s.IN)
	p("\tvar v f32")
	for g := 0; g < s.S; g++ {
		p("\tv += Red[%d + o]", g*s.TN*s.cTile())
	}
	p("\tif r < M && col0 + c < N {")
	v := "v * scale"
	if s.Out != "f32" {
		v = fmt.Sprintf("%s(%s)", s.Out, v)
	}
	p("\t\tC[cbase + r * N + col0 + c] = %s", v)
	p("\t}")
	p("}")
}

// buildSkinny generates and checks the plan's skinny tensor-core kernel.
func buildSkinny(p Plan) (*ir.Module, string, error) {
	s, err := p.skinnyShape()
	if err != nil {
		return nil, "", err
	}
	return loadGenerated(s.name(), p.Tile, skinnySource(s))
}

// skinnyLayouts are the candidate (subgroups, tiles of C per subgroup, k
// per workgroup) of the skinny tensor-core kernel, the best on the H200
// first (docs/PERF.md, "Decode products", "prefetch" and "staged"). First,
// for A·Bᵀ only (the only form it takes), the staged form at 4
// subgroups, one tile of 16 columns, all of k a workgroup in chunks of 512
// (2026-12-01, two calls, ~21:39 and ~21:43 UTC, 1 to 16 rows times
// 4096x4096 f16, f32 / f16 A, two passes each: 1886-2045 / 2033-2146
// GB/s over B against 1092-1127 for the layout below in the same calls;
// 8x1x512 staged 1548-1642 / 2101-2279, 8x1x256 1787-1896, 4x2x256
// 1597-1708, 4x1x256 1708-1878). For A·B, then, 8
// subgroups, one tile of 16 columns, all of k a workgroup in chunks of
// 512, prefetching 4 steps (2026-12-01, two calls, 8 and 16 rows times
// 4096x4096 f16: 1068-1121 GB/s over B for A·Bᵀ, 1302-1468 then, with A's
// staging hoisted, 1684-1736 for A·B, against 909-981 and 1134-1264 for
// 4x4x512 in the same calls); at 4096 columns that is 256 workgroups, and
// skinnyCandidates moves it after the split-k layouts where the columns
// make fewer. Then 4x4x512, the best until then (915-930 GB/s for 16
// rows, A·Bᵀ; the others 700-900, none above 970): BN 64 and KS 512 make
// 64 x 8 = 512 workgroups at 4096 columns, each streaming 64 KiB of B.
var skinnyLayouts = []struct {
	S, TN, KS int
	Whole     bool      // one workgroup takes all of k, in chunks of KS: no split-k
	Packed    bool      // B read as 16-byte words (only where rows are 16-byte aligned)
	Prefetch  int       // k-steps of B loaded ahead, from before A is staged (Plan.Prefetch; 0 none)
	Stage     stageForm // B's block staged in shared memory with 16-byte loads (Plan.StageB), for one form of B
}{
	{4, 1, 512, true, false, 0, stageNT},
	{8, 1, 512, true, false, 4, 0},
	{4, 4, 512, false, false, 0, 0}, {4, 4, 256, false, false, 0, 0}, {4, 2, 256, false, false, 0, 0}, {4, 2, 512, false, false, 0, 0}, {8, 2, 512, false, false, 0, 0},
	// Slices of 1,024 (4 at k = 4096, the f32 partials of 16 rows 1 MiB
	// against 4 MiB in slices of 256), one tile of 16 columns a subgroup
	// so that 4096 columns still make 1,024 workgroups; A's slice is then
	// 33 KiB of the 48.
	{4, 1, 1024, false, false, 0, 0}, {8, 1, 1024, false, false, 0, 0}, {4, 1, 512, false, false, 0, 0},
	// No split-k (one dispatch: no partial sums, no reduction, no barrier
	// between two dispatches): 4096 columns in tiles of 16 make 256
	// workgroups, each walking k in chunks.
	{8, 1, 512, true, false, 0, 0}, {4, 1, 512, true, false, 0, 0}, {8, 2, 512, true, false, 0, 0}, {8, 1, 1024, true, false, 0, 0},
	// B bound as 16-byte words, read by coopLoad as such (Plan.Packed):
	// the best four above on the H200 at 16 rows (2026-12-01: 915, 874,
	// 870, 865 GB/s; copy 4159) in case the driver's loads of f16 elements
	// were narrower than of words. They were not, by much: 872-967 GB/s
	// packed against 908-923 for the first layout in the same call.
	{4, 4, 512, false, true, 0, 0}, {8, 1, 1024, true, true, 0, 0}, {8, 1, 512, true, true, 0, 0}, {4, 2, 512, false, true, 0, 0},
	// Prefetch: B's loads of the first steps of a subgroup's share issued
	// before A is staged, the rest running that far ahead of the
	// multiply-adds, and A's slice staged with every load first. All of
	// the share first (a subgroup holds ksub/16 x TN matrices of 4
	// registers a lane: 16 at 4x2x512 and 4x4x256; 8 at 8x2x512 and
	// 4x2x256; 32 at 4x4x512; 8 and 2 a chunk without split-k), or 4
	// steps ahead (4x4x512). On the H200 (2026-12-01, 8 and 16 rows times
	// 4096x4096 f16) the split-k ones 831-998 GB/s for A·Bᵀ and 1004-1337
	// for A·B, about as 4x4x512 without; without split-k 16x1x512 as
	// 8x1x512 (1100-1127, 1666-1765), 8x1x1024 less (802-946, 902-1212).
	// 4x1x256 (4,096 workgroups, 4 matrices) and 2x8x256 (128 columns a
	// workgroup, 2 steps ahead), 700-978, were dropped.
	{4, 2, 512, false, false, 8, 0}, {4, 4, 256, false, false, 4, 0}, {8, 2, 512, false, false, 4, 0}, {4, 2, 256, false, false, 4, 0},
	{4, 4, 512, false, false, 8, 0}, {4, 4, 512, false, false, 4, 0},
	{8, 1, 1024, true, false, 8, 0}, {16, 1, 512, true, false, 2, 0},
	// Staged (A·Bᵀ only): each chunk's block of B [n,k] copied into shared
	// memory with 16-byte loads, the next chunk's loads in flight while a
	// chunk multiplies, the B matrices loaded from shared memory
	// (skinnystage.go). Without split-k; at 8x2x256 and 16 subgroups the
	// block and A's chunk pass 48 KiB of shared memory.
	{8, 1, 512, true, false, 0, stageNT}, {8, 1, 256, true, false, 0, stageNT}, {4, 2, 256, true, false, 0, stageNT}, {4, 1, 256, true, false, 0, stageNT},
	// Staged for A·B: each chunk's KS rows of B [k,n], 16 columns (32
	// bytes) each, copied into shared memory with 16-byte loads, a chunk
	// ahead, the B matrices loaded row_major from there (no skew at one
	// tile: stagedLDW). Without split-k; at one tile of 16 columns the
	// 16 KiB block of 512 rows and A's chunk fit 48 KiB at 8 subgroups too.
	// On the H200 every one ran slower than the A·B default (8x1x512 four
	// steps ahead) at 4, 8 and 16 rows (docs/PERF.md, "The skinny kernel's
	// staged form for x·W, measured"), so they stay after it.
	{4, 1, 512, true, false, 0, stageAB}, {8, 1, 512, true, false, 0, stageAB}, {4, 1, 256, true, false, 0, stageAB}, {8, 1, 256, true, false, 0, stageAB},
}

// stageForm is the form of B a staged layout of the skinny kernel takes
// (Plan.StageB): the layouts were measured for one form each.
type stageForm int

const (
	stageNT stageForm = 1 + iota // A·Bᵀ
	stageAB                      // A·B
)

// skinnyCandidates lists the skinny tensor-core plans for o: f16/bf16 with
// M no more than the instruction shape's rows, either form of B; none
// without a suitable cooperative matrix. Plans whose split-k the device
// cannot hold are left out (the kernel's slice is fixed by its tile).
func skinnyCandidates(info backend.AdapterInfo, o Options) []Plan {
	shape, ok := CoopShape(info, o.dtype())
	if !ok || o.dtype() == "f32" || o.M > shape.M || o.M > 16 {
		return nil
	}
	sub := info.SubgroupSize
	if sub == 0 {
		sub = 32
	}
	var out, few []Plan
	seen := map[string]bool{}
	for _, l := range skinnyLayouts {
		if (l.Stage == stageNT && !o.TransB) || (l.Stage == stageAB && o.TransB) {
			continue
		}
		t := Tile{BM: shape.M, BN: l.TN * shape.N, BK: l.KS, TM: 1, TN: l.TN}
		p := Plan{Options: o, Generator: "skinny", Tile: t, Shape: &shape, Threads: l.S * sub, Subgroups: [2]int{l.S, 1},
			KS: l.KS, Splits: ceilDiv(o.K, l.KS), Packed: l.Packed, Prefetch: l.Prefetch, StageB: l.Stage != 0}
		if l.Whole {
			p.KS, p.Splits = ceilDiv(o.K, l.KS)*l.KS, 1
		}
		q, ok := sized(p, info, Plan.skinnyShape)
		switch {
		case !ok || seen[q.String()]: // a whole-k plan is its split one when k fits one chunk
		case l.Whole && int(q.Groups()[0]) < workgroupTarget:
			// one workgroup a BN columns: too few to fill the device
			// (the whole-k layouts were measured at 4096 columns, 256)
			seen[q.String()] = true
			few = append(few, q)
		default:
			seen[q.String()] = true
			out = append(out, q)
		}
	}
	return append(out, few...)
}
