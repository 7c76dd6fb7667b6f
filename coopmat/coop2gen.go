package coopmat

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/ir"
)

// The workgroup-scope kernel (VK_NV_cooperative_matrix2, generator
// "coop2"). One workgroup computes a BM x BN tile of C as a single
// workgroup-scope accumulator: the driver spreads the matrix over the
// workgroup's invocations and stages the operands through shared memory
// itself ("compiler-managed staging"), so the kernel is the textbook loop:
// each k-step loads a BM x BK tile of A and a BK x BN tile of B straight
// from global memory with coopLoad and multiplies them into the
// accumulator. Dimensions are multiples of the device's flexible-dimension
// granularity (backend.CoopMat2.Flexible) and the workgroup has exactly the
// invocations that entry names.
//
// Edges: a tile wholly inside C runs its full k-steps from global memory
// (a uniform test on workgroup_id). What is left — every k-step of an edge
// tile, and the last partial k-step of any tile when the slice's k is not
// a multiple of BK — is staged by hand through shared arrays As and Bs,
// zero outside the matrices, so that no load leaves its buffer. An edge
// tile stores its accumulator into a shared f32 tile Cs and copies the
// elements inside C with guarded scalar stores. A plan whose sizes are
// multiples of its tile gets a kernel without that code and without shared
// memory (which leaves the driver all of it for its staging) — except for
// a bf16 C, which every tile stores through Cs, converting each element
// with kc's scalar conversion (storeInside).
//
// Split-k (Plan.Splits > 1) is the subgroup kernel's: slice z of k goes to
// slice z of an f32 scratch that matmul_reduce sums.

// coop2Shape is the structural part of a workgroup-scope kernel.
type coop2Shape struct {
	In, Out    string // element types of A and B, and of C ("f32" for split-k partials)
	TransB     bool
	BM, BN, BK int
	Threads    int
	Edges      bool // some tile or k-step is partial: the staged path exists
	// Unaligned: rows of A, B or C in global memory are not a multiple of
	// 16 bytes (K or N elements), so coopLoad and coopStore straight from
	// and to them would break Vulkan's alignment rule (ir.CoopAlign):
	// every tile takes the staged path (Edges is set too).
	Unaligned bool
}

func (p Plan) coop2Shape() (coop2Shape, error) {
	if p.Shape == nil || p.Shape.Scope != "workgroup" {
		return coop2Shape{}, fmt.Errorf("coopmat: plan %s has no workgroup-scope shape", p)
	}
	t, g := p.Tile, p.Shape
	s := coop2Shape{In: p.dtype(), Out: p.ctype(), TransB: p.TransB, BM: t.BM, BN: t.BN, BK: t.BK, Threads: p.Threads}
	if p.Splits > 1 {
		s.Out = "f32"
	}
	if g.M < 1 || g.N < 1 || g.K < 1 || t.BM%g.M != 0 || t.BN%g.N != 0 || t.BK%g.K != 0 || p.Threads != g.Invocations || p.Threads < 1 {
		return coop2Shape{}, fmt.Errorf("coopmat: workgroup tile %s with %d invocations does not fit granularity %dx%dx%d at %d invocations", t, p.Threads, g.M, g.N, g.K, g.Invocations)
	}
	ks := p.KS
	if ks == 0 {
		ks = p.K
	}
	in, out := typeSize(s.In), typeSize(s.Out)
	s.Unaligned = int64(p.K)*in%16 != 0 || (!s.TransB && int64(p.N)*in%16 != 0) ||
		(s.Out != "bf16" && int64(p.N)*out%16 != 0)
	s.Edges = s.Unaligned || p.M%t.BM != 0 || p.N%t.BN != 0 || p.K%t.BK != 0 || ks%t.BK != 0
	return s, nil
}

func (s coop2Shape) name() string {
	n := fmt.Sprintf("matmul_wg_%s_%s_%dx%dx%d", s.In, s.Out, s.BM, s.BN, s.BK)
	if s.TransB {
		n += "_nt"
	}
	if s.Edges {
		n += "_edge"
	}
	if s.Unaligned {
		n += "_ua"
	}
	return n
}

// shared is the kernel's shared memory in bytes (the staged path's tiles).
func (s coop2Shape) shared() int {
	n := 0
	if s.Edges {
		n += 2 * (s.BM*s.BK + s.BK*s.BN)
	}
	if s.Edges || s.Out == "bf16" {
		n += 4 * s.BM * s.BN
	}
	return n
}

// coop2Source writes the kernel's .kc text.
func coop2Source(s coop2Shape) string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format+"\n", args...) }
	if s.In == "f16" || s.Out == "f16" {
		p("enable f16")
	}
	if s.In == "bf16" || s.Out == "bf16" {
		p("enable bf16")
	}
	p("enable cooperative_matrix")
	p("enable cooperative_matrix2")
	p("")
	mat := func(t string, r, c int, use string) string {
		return fmt.Sprintf("coopmat<%s, %d, %d, %s, workgroup>", t, r, c, use)
	}
	ta, tb := mat(s.In, s.BM, s.BK, "a"), mat(s.In, s.BK, s.BN, "b")
	p("kernel %s(M u32, N u32, K u32, KS u32, scale f32, A read []%s, B read []%s, C read_write []%s) workgroup(%d) {",
		s.name(), s.In, s.In, s.Out, s.Threads)
	if s.Edges {
		p("\tshared As [%d]%s", s.BM*s.BK, s.In)
		p("\tshared Bs [%d]%s", s.BK*s.BN, s.In)
	}
	if s.Edges || s.Out == "bf16" {
		p("\tshared Cs [%d]f32", s.BM*s.BN)
	}
	p("\tlet row0 = workgroup_id.y * %d", s.BM)
	p("\tlet col0 = workgroup_id.x * %d", s.BN)
	p("\tlet kbeg = workgroup_id.z * KS")
	p("\tlet kend = min(K, kbeg + KS)")
	p("\tlet cbase = workgroup_id.z * M * N")
	p("\tvar acc %s", mat("f32", s.BM, s.BN, "acc"))
	bLoad := func(k string) string {
		if s.TransB { // B is N x K: its k-slice read column-major
			return fmt.Sprintf("coopLoad<%s>(B, col0 * K + %s, K, col_major)", tb, k)
		}
		return fmt.Sprintf("coopLoad<%s>(B, %s * N + col0, N, row_major)", tb, k)
	}
	full := func(in string) {
		p(in+"for k := kbeg; k < kfull; k += %d {", s.BK)
		p(in+"\tlet ta = coopLoad<%s>(A, row0 * K + k, K, row_major)", ta)
		p(in+"\tlet tb = %s", bLoad("k"))
		p(in + "\tacc = coopMulAdd(ta, tb, acc)")
		p(in + "}")
	}
	p("\tlet kfull = kbeg + (kend - kbeg) / %d * %d", s.BK, s.BK)
	if !s.Edges {
		full("\t")
		s.storeInside(p, "\t")
		p("}")
		return w.String()
	}
	if s.Unaligned {
		p("\tvar k0 = kbeg")
		s.staged(p)
		s.storeScratch(p, "\t", true)
		p("}")
		return w.String()
	}
	p("\tlet inside = row0 + %d <= M && col0 + %d <= N", s.BM, s.BN)
	p("\tvar k0 = kbeg")
	p("\tif inside {")
	full("\t\t")
	p("\t\tk0 = kfull")
	p("\t}")
	s.staged(p)
	p("\tif inside {")
	s.storeInside(p, "\t\t")
	p("\t} else {")
	s.storeScratch(p, "\t\t", true)
	p("\t}")
	p("}")
	return w.String()
}

// storeInside stores the accumulator of a tile inside C: with coopStore,
// or for a bf16 C through Cs, converted element by element (a matrix
// conversion rounds as the driver likes, NVIDIA's toward zero; kc's scalar
// conversion to nearest even: docs/semantics.md §7.2).
func (s coop2Shape) storeInside(p func(string, ...any), in string) {
	if s.Out == "bf16" {
		s.storeScratch(p, in, false)
		return
	}
	p(in+"coopStore(%s, C, cbase + row0 * N + col0, N, row_major)", s.result())
}

// storeScratch stores the accumulator into Cs and copies its elements to C
// (those inside C when guarded), converted one by one to C's type.
func (s coop2Shape) storeScratch(p func(string, ...any), in string, guarded bool) {
	p(in+"coopStore(acc * scale, Cs, 0, %d, row_major)", s.BN)
	p(in + "workgroupBarrier()")
	p(in+"for e := local_index; e < %d; e += %d {", s.BM*s.BN, s.Threads)
	p(in+"\tlet r = row0 + e / %d", s.BN)
	p(in+"\tlet c = col0 + e %% %d", s.BN)
	x := "Cs[e]"
	if s.Out != "f32" {
		x = fmt.Sprintf("%s(Cs[e])", s.Out)
	}
	if guarded {
		p(in + "\tif r < M && c < N {")
		p(in+"\t\tC[cbase + r * N + c] = %s", x)
		p(in + "\t}")
	} else {
		p(in+"\tC[cbase + r * N + c] = %s", x)
	}
	p(in + "}")
}

// result is the accumulator scaled and converted to C's element type.
func (s coop2Shape) result() string {
	if s.Out == "f32" {
		return "acc * scale"
	}
	return fmt.Sprintf("coopmat<%s, %d, %d, acc, workgroup>(acc * scale)", s.Out, s.BM, s.BN)
}

// staged writes the k-steps from k0 to kend through shared memory, with
// zeros outside A and B.
func (s coop2Shape) staged(p func(string, ...any)) {
	p("\tfor k := k0; k < kend; k += %d {", s.BK)
	s.stage(p, "As", "A", s.BM*s.BK, s.BK, "row0", "k", "M", "kend", "K")
	if s.TransB { // Bs holds the slice n-major: BN rows of BK
		s.stage(p, "Bs", "B", s.BK*s.BN, s.BK, "col0", "k", "N", "kend", "K")
	} else {
		s.stage(p, "Bs", "B", s.BK*s.BN, s.BN, "k", "col0", "kend", "N", "N")
	}
	p("\t\tworkgroupBarrier()")
	p("\t\tlet ta = coopLoad<coopmat<%s, %d, %d, a, workgroup>>(As, 0, %d, row_major)", s.In, s.BM, s.BK, s.BK)
	if s.TransB {
		p("\t\tlet tb = coopLoad<coopmat<%s, %d, %d, b, workgroup>>(Bs, 0, %d, col_major)", s.In, s.BK, s.BN, s.BK)
	} else {
		p("\t\tlet tb = coopLoad<coopmat<%s, %d, %d, b, workgroup>>(Bs, 0, %d, row_major)", s.In, s.BK, s.BN, s.BN)
	}
	p("\t\tacc = coopMulAdd(ta, tb, acc)")
	p("\t\tworkgroupBarrier()")
	p("\t}")
}

// stage writes a loop that copies n elements into shared dst: element e
// is src[r * ld + c] at r = r0 + e / w, c = c0 + e % w, or zero where r
// reaches rows or c reaches cols.
func (s coop2Shape) stage(p func(string, ...any), dst, src string, n, w int, r0, c0, rows, cols, ld string) {
	p("\t\tfor e := local_index; e < %d; e += %d {", n, s.Threads)
	p("\t\t\tlet r = %s + e / %d", r0, w)
	p("\t\t\tlet c = %s + e %% %d", c0, w)
	p("\t\t\tvar v %s", s.In)
	p("\t\t\tif r < %s && c < %s {", rows, cols)
	p("\t\t\t\tv = %s[r * %s + c]", src, ld)
	p("\t\t\t}")
	p("\t\t\t%s[e] = v", dst)
	p("\t\t}")
}

// checkCoop2 verifies a workgroup-scope plan against the device: its
// flexible entry must be one the device offers, and its shared memory must
// leave the driver's reserve.
func (p Plan) checkCoop2(info backend.AdapterInfo) error {
	if p.Shape == nil {
		return fmt.Errorf("coopmat: plan %s has no workgroup-scope shape", p)
	}
	ok := false
	for _, s := range info.CoopMat2.WorkgroupShapes(p.dtype(), "f32") {
		ok = ok || s == *p.Shape
	}
	if !ok {
		return fmt.Errorf("coopmat: plan %s needs workgroup-scope cooperative matrices %s with %d invocations, which %s does not offer", p, p.Shape, p.Threads, info.Name)
	}
	if room := info.Limits.MaxSharedMemory - info.CoopMat2.ReservedShared; p.Shared > 0 && info.Limits.MaxSharedMemory > 0 && p.Shared > room {
		return fmt.Errorf("coopmat: plan %s needs %d bytes of shared memory; %s leaves %d beside workgroup-scope matrices", p, p.Shared, info.Name, room)
	}
	return nil
}

// buildCoop2 generates and checks the plan's workgroup-scope kernel.
func buildCoop2(p Plan) (*ir.Module, string, error) {
	s, err := p.coop2Shape()
	if err != nil {
		return nil, "", err
	}
	return loadGenerated(s.name(), p.Tile, coop2Source(s))
}

// coop2Tiles are the candidate workgroup tiles (BM, BN, BK), best guess
// first; each must be a multiple of the device's granularity, within its
// largest dimension, and (with edges) leave the staged path's shared
// tiles room beside the driver's reserve.
var coop2Tiles = [][3]int{
	{128, 128, 32},
	{128, 256, 32},
	{256, 128, 32},
	{128, 128, 64},
	{128, 128, 16},
	{64, 128, 32},
	{128, 64, 32},
	{64, 64, 32},
	{64, 64, 16},
	{32, 64, 32},
}

// coop2MaxPerInvocation bounds the accumulator elements each invocation
// holds (BM·BN / invocations). Measured on the H200 (2026-12-01,
// docs/PERF.md): 64x64 accumulators in workgroups of 32 invocations (128
// each) ran at the instruction ceiling, 128x128 ones (512 each) at a
// twentieth of it, and 128x256 ones failed to compile.
const coop2MaxPerInvocation = 128

// Coop2Candidates lists the workgroup-scope plans for o on the device,
// best guess first: for each flexible workgroup-scope entry of o's input
// type with f32 accumulate, most invocations first, the tiles of
// coop2Tiles that fit it. None when the device lacks
// VK_NV_cooperative_matrix2's workgroup scope. Candidates does not list
// them (the subgroup kernel is not yet known to be slower; see
// docs/PERF.md): the tuner and callers take them from here.
func Coop2Candidates(info backend.AdapterInfo, o Options) []Plan {
	var out []Plan
	for _, shape := range info.CoopMat2.WorkgroupShapes(o.dtype(), "f32") {
		out = append(out, coop2Plans(info, o, shape)...)
	}
	return out
}

// coop2Plans lists the plans of one flexible entry.
func coop2Plans(info backend.AdapterInfo, o Options, shape backend.CoopMatShape) []Plan {
	maxDim := info.CoopMat2.MaxDimension
	var out []Plan
	for _, d := range coop2Tiles {
		if d[0]%shape.M != 0 || d[1]%shape.N != 0 || d[2]%shape.K != 0 || (maxDim > 0 && max(d[0], d[1], d[2]) > maxDim) ||
			d[0]*d[1] > coop2MaxPerInvocation*shape.Invocations {
			continue
		}
		t := Tile{BM: d[0], BN: d[1], BK: d[2], TM: 1, TN: 1, Stages: 1}
		p := Plan{Options: o, Generator: "coop2", Tile: t, Shape: &shape, Threads: shape.Invocations}
		tiles := ceilDiv(o.M, t.BM) * ceilDiv(o.N, t.BN)
		p.Splits, p.KS = splitK(tiles, o.K, t.BK, workgroupTarget, minSplitK)
		p.fitSplits(info)
		if q, ok := sized(p, info, Plan.coop2Shape); ok {
			out = append(out, q)
		}
	}
	return out
}
