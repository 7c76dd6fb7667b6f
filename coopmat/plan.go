package coopmat

import (
	"fmt"

	"github.com/kcgo/kc/backend"
)

// Options describe one matrix product: C (MxN) = Scale · A (MxK) · B, where
// B is KxN, or NxK when TransB is set (C = Scale·A·Bᵀ). All matrices are
// row-major and densely packed.
type Options struct {
	M, N, K int
	TransB  bool
	// Scale multiplies the product; the zero value means 1 (a product
	// scaled by zero needs no kernel).
	Scale float32
	// DType is the element type of A and B: "f32" (the default when empty),
	// or "f16"/"bf16", which need cooperative matrices. Accumulation is in
	// f32.
	DType string
	// CType is the element type of C: empty means DType. f16 and bf16
	// products may write f16, bf16 or f32; f32 products write f32.
	CType string `json:",omitempty"`
	// AType is the element type of A when it differs from B's: empty
	// means DType. Only "f32" with f16/bf16 B, and only the skinny
	// tensor-core kernel takes it (A rounded to DType, to nearest even,
	// as it is staged): a decode step's f32 activations times 16-bit
	// weights in one dispatch, without a cast of A before it.
	AType string `json:",omitempty"`
}

func (o Options) scale() float32 {
	if o.Scale == 0 {
		return 1
	}
	return o.Scale
}

func (o Options) dtype() string {
	if o.DType == "" {
		return "f32"
	}
	return o.DType
}

func (o Options) ctype() string {
	if o.CType == "" {
		return o.dtype()
	}
	return o.CType
}

func (o Options) atype() string {
	if o.AType == "" {
		return o.dtype()
	}
	return o.AType
}

// elemSize is the bytes of one element of B (and of A, unless AType
// differs).
func (o Options) elemSize() int64 { return typeSize(o.dtype()) }

// aSize is the bytes of one element of A.
func (o Options) aSize() int64 { return typeSize(o.atype()) }

// cSize is the bytes of one element of C.
func (o Options) cSize() int64 { return typeSize(o.ctype()) }

// operandBytes is the size in bytes of A, B and C.
func (o Options) operandBytes() [3]int64 {
	m, n, k := int64(o.M), int64(o.N), int64(o.K)
	return [3]int64{o.aSize() * m * k, o.elemSize() * k * n, o.cSize() * m * n}
}

func typeSize(t string) int64 {
	if t == "f32" {
		return 4
	}
	return 2
}

// Validate reports a product kc cannot run: non-positive sizes, an unknown
// element type, or matrices whose element counts overflow the kernels'
// 32-bit indices.
func (o Options) Validate() error {
	if o.M <= 0 || o.N <= 0 || o.K <= 0 {
		return fmt.Errorf("coopmat: matmul sizes must be positive (M=%d N=%d K=%d)", o.M, o.N, o.K)
	}
	switch o.dtype() {
	case "f32", "f16", "bf16":
	default:
		return fmt.Errorf("coopmat: unknown element type %q (want f32, f16 or bf16)", o.DType)
	}
	switch c := o.ctype(); {
	case c != "f32" && c != "f16" && c != "bf16":
		return fmt.Errorf("coopmat: unknown element type %q for C (want f32, f16 or bf16)", o.CType)
	case o.dtype() == "f32" && c != "f32":
		return fmt.Errorf("coopmat: an f32 product writes f32, not %s", c)
	}
	if a := o.atype(); a != o.dtype() && (a != "f32" || o.dtype() == "f32") {
		return fmt.Errorf("coopmat: A of type %q with B of %s (A may differ only as f32 times f16 or bf16)", o.AType, o.dtype())
	}
	for _, n := range []int64{int64(o.M) * int64(o.K), int64(o.K) * int64(o.N), int64(o.M) * int64(o.N)} {
		if n >= 1<<32 {
			return fmt.Errorf("coopmat: a %dx%dx%d product has more than 2^32 elements per matrix", o.M, o.N, o.K)
		}
	}
	return nil
}

// String names the problem: "f32 nn 8192x8192x8192" (nt for TransB;
// "f16>f32" when C's type differs from A's and B's).
func (o Options) String() string {
	t := "nn"
	if o.TransB {
		t = "nt"
	}
	ty := o.dtype()
	if o.atype() != ty {
		ty = o.atype() + "*" + ty
	}
	if o.ctype() != o.dtype() {
		ty += ">" + o.ctype()
	}
	return fmt.Sprintf("%s %s %dx%dx%d", ty, t, o.M, o.N, o.K)
}

// Flops is the product's floating-point operation count (2·M·N·K).
func (o Options) Flops() float64 { return 2 * float64(o.M) * float64(o.N) * float64(o.K) }

// Tile is a workgroup's share of the work: a BM x BN block of C, staged
// through shared memory BK columns of A (rows of B) at a time. TM x TN is
// one thread's block of results (register-tiled kernels) or one subgroup's
// (cooperative-matrix kernels, in units of the instruction shape). Pad is
// the skew added to each shared row, in vec4s, against bank conflicts;
// Stages the number of shared buffers (2: double-buffered, loads of the
// next k-step overlap the arithmetic on this one).
type Tile struct {
	BM, BN, BK int
	TM, TN     int
	Pad        int
	Stages     int
}

// String writes BMxBNxBK/TMxTN, then +Pad and sStages when not 0 and 1.
func (t Tile) String() string {
	s := fmt.Sprintf("%dx%dx%d/%dx%d", t.BM, t.BN, t.BK, t.TM, t.TN)
	if t.Pad != 0 {
		s += fmt.Sprintf("+%d", t.Pad)
	}
	if t.Stages > 1 {
		s += fmt.Sprintf(" s%d", t.Stages)
	}
	return s
}

// Plan is a complete choice for one product on one device: everything a
// generator needs to build the kernels and Matmul needs to launch them.
type Plan struct {
	Options
	// Generator names the kernel family: "f32" (register-tiled),
	// "coopmat" (subgroup cooperative matrices), "coop2" (workgroup
	// scope), "gemv" and "skinny" (at most 16 rows of A).
	Generator string
	Tile      Tile
	// Shape is the cooperative-matrix instruction shape (coopmat plans).
	Shape *backend.CoopMatShape `json:",omitempty"`
	// Splits is the number of k slices (split-k; 1: none); KS the k extent
	// of each (a multiple of Tile.BK).
	Splits, KS int
	// Threads per workgroup and bytes of shared memory it uses.
	Threads, Shared int
	// Subgroups per workgroup, as rows x columns of subgroup blocks
	// (cooperative-matrix plans; zero for register-tiled ones). Skinny
	// plans split k among their Subgroups[0] subgroups instead.
	Subgroups [2]int
	// Packed stages 16-byte global loads into shared arrays of vec4<u32>
	// as they come, one store each, and reads the matrices from the
	// words (cooperative-matrix plans; coopgen.go).
	Packed bool `json:",omitempty"`
	// Interior fetches slices that lie inside A and B without a bounds
	// check per load (one uniform test a slice; cooperative-matrix plans).
	Interior bool `json:",omitempty"`
	// Direct stages each slice straight from global into shared memory
	// between the barriers (loads, then stores) instead of holding the
	// next slice in registers while the multiply-adds run: no staging
	// registers live across the multiply-adds, the load latency hidden by
	// the other workgroups on the multiprocessor (cooperative-matrix plans).
	Direct bool `json:",omitempty"`
	// Prefetch, when above 0, is the k-steps of B a subgroup's cooperative
	// loads run ahead of its multiply-adds: the first Prefetch steps'
	// loads issued before A is staged and the barrier, each later step's
	// as the step Prefetch before it multiplies, so that the loads' round
	// trips overlap one another and the staging instead of following each
	// other step by step (skinny plans whose B rows are 16-byte aligned;
	// skinny.go).
	Prefetch int `json:",omitempty"`
	// StageB copies an interior workgroup's block of Bᵀ (its columns'
	// rows of B [n,k], along k) into shared memory with 16-byte loads, all
	// issued before any is stored, the next chunk's loads (and A's) in
	// flight while a chunk multiplies, and loads the B matrices from
	// shared memory instead of from global memory (skinny plans of A·Bᵀ
	// whose B rows are 16-byte aligned; skinny.go).
	StageB bool `json:",omitempty"`
	// Swizzle, when above 1, hands out tiles in bands of Swizzle rows of
	// tiles, column by column within a band, so that the workgroups running
	// at once share rows of A and columns of B in L2 (cooperative-matrix
	// plans).
	Swizzle int `json:",omitempty"`
}

// mark is a piece of a name, present when on.
type mark struct {
	on   bool
	text string
}

// marks joins the texts of the marks that are on, in order.
func marks(ms ...mark) string {
	s := ""
	for _, m := range ms {
		if m.on {
			s += m.text
		}
	}
	return s
}

func (p Plan) String() string {
	s := fmt.Sprintf("%s %s", p.Generator, p.Tile)
	if p.Generator == "coop2" || p.Generator == "skinny" { // the flexible entry's workgroup size; the skinny kernel's subgroups
		s += fmt.Sprintf(" @%d", p.Threads)
	}
	if sh := p.Shape; sh != nil && p.Generator == "coopmat" && (sh.N != sh.M || sh.K != sh.M) {
		s += fmt.Sprintf(" mma %dx%dx%d", sh.M, sh.N, sh.K) // not the square 16x16x16 of most plans
	}
	if p.Generator == "skinny" && p.KS > p.Tile.BK { // k walked in chunks of BK
		s += fmt.Sprintf(" k%d", p.KS)
	}
	s += marks(mark{p.Packed, " packed"}, mark{p.Interior, " interior"}, mark{p.Direct, " direct"})
	if p.Prefetch > 0 {
		s += fmt.Sprintf(" prefetch %d", p.Prefetch)
	}
	s += marks(mark{p.StageB, " staged"})
	if p.Swizzle > 1 {
		s += fmt.Sprintf(" swizzle %d", p.Swizzle)
	}
	if p.Splits > 1 {
		s += fmt.Sprintf(" split-k %d", p.Splits)
	}
	return s
}

// Groups is the launch grid of the main kernel.
func (p Plan) Groups() [3]uint32 {
	return backend.Groups(uint32(ceilDiv(p.N, p.Tile.BN)), uint32(ceilDiv(p.M, p.Tile.BM)), uint32(p.Splits))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// sized completes a candidate plan with the shared memory its generator's
// shape needs and reports whether the device can run it (check); a plan
// whose shape cannot be built is not a candidate.
func sized[S interface{ shared() int }](p Plan, info backend.AdapterInfo, shape func(Plan) (S, error)) (Plan, bool) {
	s, err := shape(p)
	if err != nil {
		return p, false
	}
	p.Shared = s.shared()
	return p, p.check(info) == nil
}

// check verifies a plan against the device's limits.
func (p Plan) check(info backend.AdapterInfo) error {
	l := info.Limits
	if l.MaxSharedMemory > 0 && p.Shared > l.MaxSharedMemory {
		return fmt.Errorf("coopmat: plan %s needs %d bytes of shared memory; %s has %d", p, p.Shared, info.Name, l.MaxSharedMemory)
	}
	if l.MaxInvocationsPerWorkgroup > 0 && p.Threads > l.MaxInvocationsPerWorkgroup {
		return fmt.Errorf("coopmat: plan %s needs %d invocations per workgroup; %s has %d", p, p.Threads, info.Name, l.MaxInvocationsPerWorkgroup)
	}
	if p.Generator == "coop2" {
		if err := p.checkCoop2(info); err != nil {
			return err
		}
	}
	if err := p.checkSplits(info); err != nil {
		return err
	}
	g := p.Groups()
	for _, n := range g {
		if l.MaxWorkgroupsPerDimension > 0 && n > l.MaxWorkgroupsPerDimension {
			return fmt.Errorf("coopmat: plan %s launches %v workgroups; %s allows %d per dimension", p, g, info.Name, l.MaxWorkgroupsPerDimension)
		}
	}
	return nil
}

// splitK chooses the number of k slices for a product that has tiles
// workgroups: enough slices that the device has about target workgroups,
// while each slice keeps at least minK of k (so the partial sums stay
// worth a workgroup and the reduction stays cheap next to the product).
func splitK(tiles, k, bk, target, minK int) (splits, ks int) {
	splits = 1
	if tiles < target {
		splits = min(ceilDiv(target, tiles), k/minK, 64)
		splits = max(splits, 1)
	}
	ks = ceilDiv(ceilDiv(k, splits), bk) * bk
	return ceilDiv(k, ks), ks
}

// workgroupTarget is the number of workgroups below which a product splits
// k: about twice the multiprocessors of a large GPU (132 on an H200), so
// small devices never split and large ones fill up.
const workgroupTarget = 256

// minSplitK is the least k one slice of a split-k product covers.
const minSplitK = 256
