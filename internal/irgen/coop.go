package irgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// Cooperative-matrix kernels (GenerateCoop). A generated kernel is a
// straight-line program, at the top level and so in uniform control flow,
// over the matrices of one instruction shape M x N x K: fills, loads from
// the input buffers and from shared arrays (random offsets, strides and
// layouts, within bounds), multiply-adds (some accumulated in a `var` over
// a counted loop), element-wise + - *, negation, scaling by a constant or
// by the parameter pf, conversions between f16, f32 and bf16, a matrix
// chosen or multiply-added under a uniform condition (on pf: values merged
// from two branches), and stores to the output buffers and shared arrays. Its signature is
//
//	kernel coopgen(pf f32, in_f read []f32, in_h read []f16, [in_b read []bf16,]
//		[in_i8 read []i8, in_u8 read []u8,] out_f read_write []f32,
//		out_h read_write []f16, [out_b read_write []bf16,]
//		[out_i read_write []i32, out_u read_write []u32]) workgroup(W)
//
// with W 32 or 64: one or two subgroups of 32 invocations, subgroup sg
// (workgroup_id.x·W/32 + local_index/32) owning its region of every output
// buffer and, within the workgroup, of the shared arrays sh_f and sh_h.
// Every cooperative shared store is followed by a barrier.
//
// The generator keeps a static bound on every matrix's elements so that
// nothing overflows (f16 stays within 2^14), and divides only by nonzero
// constants. CoopKernel.Reference evaluates the program in float64,
// independently of ir/interp, with an error bound per output element: 0
// where the result is exact on every conforming evaluation (loads, fills,
// conversions and element-wise operations of exact operands round once
// as written), and otherwise the propagated difference that a
// multiply-add's summation order allows.

// CoopConfig selects what GenerateCoop's kernels use.
type CoopConfig struct {
	// BF16 adds bf16 buffers, matrices and conversions (the KHR flavour's
	// alone: ignored with NV).
	BF16 bool
	// Int8 adds i8 and u8 input matrices with i32 and u32 accumulators.
	Int8 bool
	// NV keeps to what SPV_NV_cooperative_matrix expresses: no bf16
	// matrices, no element-wise m * n, no scaling of integer matrices.
	NV bool
	// Ops is the number of matrix operations (0: 12).
	Ops int
	// Shapes, when not empty, restricts the kernel to what a device
	// offers: its instruction shape is one of these, and every matrix type
	// it declares is the A, B or accumulator matrix of one of them (a
	// cooperative-matrix type a device does not list is invalid there,
	// whether or not it reaches a multiply-add). BF16 and Int8 still
	// decide whether bf16 and 8-bit matrices may appear. With no shape
	// that fits, GenerateCoop returns an error.
	Shapes []CoopShape
}

// CoopShape is one instruction shape a device offers: D(MxN, C) =
// A(MxK, A) · B(KxN, A) + C(MxN, C), element types named as in kc (f16,
// bf16, f32, i8, u8, i32, u32).
type CoopShape struct {
	M, N, K int
	A, C    string
}

// Lengths of GenerateCoop's buffers and regions, in elements.
const (
	CoopInLen = 2048 // each input buffer
	coopSlot  = 1280 // one store's room: a stored matrix (at most 16x16 of 2- or 4-byte elements, padded rows) takes at most 512
	coopShSG  = 1280 // one subgroup's part of a shared array
)

// CoopKernel is a generated cooperative-matrix kernel and its launch.
type CoopKernel struct {
	Seed    uint64
	Config  CoopConfig
	Module  *ir.Module // checked
	Source  string     // the .kc text Module was parsed from
	Name    string     // "coopgen"
	M, N, K int        // the instruction shape
	// Workgroup is the invocations per workgroup (32 or 64), Groups the
	// workgroups (x); the interpreter must run with subgroups of 32.
	Workgroup, Groups int
	// OutLen is the element count of each output buffer.
	OutLen map[string]int

	prog []cop
	nvar int
}

// mtype is a matrix type: element type, rows, columns, use.
type mtype struct {
	elem       string // f32 f16 bf16 i8 u8 i32 u32
	rows, cols int
	use        string // a b acc
}

func (t mtype) String() string {
	return fmt.Sprintf("coopmat<%s, %d, %d, %s>", t.elem, t.rows, t.cols, t.use)
}

// copKind is the kind of one operation of a generated program.
type copKind uint8

const (
	copLoad copKind = iota
	copFill
	copMulAdd // dst = A·B + C, Loop times (a var and a loop when Loop > 1)
	copBin    // dst = X op Y
	copScale  // dst = X * s, s * X or X / s
	copNeg
	copConv
	copStore
	// copIf: dst = X, then, when pf < s (uniform: a parameter), dst = Y,
	// or dst = A·B + dst with A and B in y and z (loop 1)
	copIf
)

// cop is one operation. Matrices are numbered in order of definition
// (v0, v1, ...); dst is the new one.
type cop struct {
	kind    copKind
	t       mtype // the result's type (the stored matrix's for a store)
	dst     int
	x, y, z int     // operands: X, Y; for a multiply-add A, B, C
	op      byte    // '+', '-', '*' (copBin); '*', '/' (copScale)
	left    bool    // s * X
	s       float64 // fill value, scale constant
	pf      bool    // scale by pf instead of s
	loop    int     // multiply-add repetitions
	mem     string  // buffer or shared array of a load or store
	slot    int     // a store's slot in its buffer
	off     int     // offset within the region
	stride  int
	colMaj  bool
}

// shared reports whether the op's memory is a shared array.
func (o *cop) shared() bool { return strings.HasPrefix(o.mem, "sh_") }

// coopGen is the state of one generation.
type coopGen struct {
	r *rand.Rand
	// allowed are the matrix types a restricted kernel may declare (nil:
	// any), combos the (input, accumulator) element pairs of its
	// multiply-adds, with their k.
	allowed []mtype
	combos  []combo
	cfg     CoopConfig
	k       *CoopKernel
	vars    []mtype
	bound   []float64 // static bound of each matrix's elements
	shB     map[string]float64
	stores  map[string]int
}

// GenerateCoop builds the cooperative-matrix kernel for seed under cfg
// and checks it. An error is a bug of the generator (or of the checker).
func GenerateCoop(seed uint64, cfg CoopConfig) (*CoopKernel, error) {
	if cfg.Ops <= 0 {
		cfg.Ops = 12
	}
	if cfg.NV {
		cfg.BF16 = false
	}
	g := &coopGen{r: rand.New(rand.NewPCG(seed, seed^0x510e527fade682d1)), cfg: cfg,
		shB: map[string]float64{"sh_f": 2, "sh_h": 4}, stores: map[string]int{}}
	k := &CoopKernel{Seed: seed, Config: cfg, Name: "coopgen", OutLen: map[string]int{}}
	g.k = k
	k.Workgroup = 32 * (1 + g.r.IntN(2))
	k.Groups = 1 + g.r.IntN(2)
	shapes := [][3]int{{16, 16, 16}, {16, 8, 16}, {16, 8, 8}, {8, 8, 8}, {32, 16, 8}}
	if len(cfg.Shapes) > 0 {
		if shapes = g.floatShapes(); len(shapes) == 0 {
			return k, fmt.Errorf("irgen: no float16 cooperative-matrix shape among %v (BF16 %v)", cfg.Shapes, cfg.BF16)
		}
	}
	s := shapes[g.r.IntN(len(shapes))]
	k.M, k.N, k.K = s[0], s[1], s[2]
	g.allowTypes()
	for i := 0; i < cfg.Ops; i++ {
		g.step()
	}
	// every result nothing used or stored is stored now
	used := make([]bool, len(g.vars))
	for _, o := range k.prog {
		switch o.kind {
		case copMulAdd:
			used[o.x], used[o.y], used[o.z] = true, true, true
		case copBin:
			used[o.x], used[o.y] = true, true
		case copScale, copNeg, copConv, copStore:
			used[o.x] = true
		case copIf:
			used[o.x], used[o.y] = true, true
			if o.loop > 0 {
				used[o.z] = true
			}
		}
	}
	for v := range g.vars {
		if !used[v] {
			g.store(v, false)
		}
	}
	sgs := k.Groups * k.Workgroup / 32
	for _, b := range g.outBufs() {
		k.OutLen[b] = sgs * coopSlot * max(1, g.stores[b])
	}
	k.Source = k.render()
	m, err := parse.File("coopgen.kc", []byte(k.Source))
	if err != nil {
		return k, err
	}
	k.Module = m
	return k, ir.Check(m)
}

// outBufs are the kernel's output buffers in signature order.
func (g *coopGen) outBufs() []string {
	out := []string{"out_f", "out_h"}
	if g.cfg.BF16 {
		out = append(out, "out_b")
	}
	if g.cfg.Int8 {
		out = append(out, "out_i", "out_u")
	}
	return out
}

// maxBound is the largest element bound a matrix of elem may have.
func maxBound(elem string) float64 {
	switch elem {
	case "f16":
		return 0x1p14
	case "f32", "bf16":
		return 0x1p60
	}
	return math.Inf(1) // integers wrap
}

// def adds a matrix of type t with bound b.
func (g *coopGen) def(t mtype, b float64) int {
	g.vars = append(g.vars, t)
	g.bound = append(g.bound, b)
	g.k.nvar++
	return len(g.vars) - 1
}

func (g *coopGen) emit(o cop) { g.k.prog = append(g.k.prog, o) }

// shapeOf is the rows and columns of a matrix of use u.
func (g *coopGen) shapeOf(u string, k int) (int, int) {
	switch u {
	case "a":
		return g.k.M, k
	case "b":
		return k, g.k.N
	}
	return g.k.M, g.k.N
}

// floatElems are the float element types in play.
func (g *coopGen) floatElems() []string {
	if g.cfg.BF16 {
		return []string{"f32", "f16", "bf16"}
	}
	return []string{"f32", "f16"}
}

// pick returns a random matrix satisfying ok, or -1.
func (g *coopGen) pick(ok func(mtype) bool) int {
	var c []int
	for i, t := range g.vars {
		if ok(t) {
			c = append(c, i)
		}
	}
	if len(c) == 0 {
		return -1
	}
	return c[g.r.IntN(len(c))]
}

// step adds one operation.
func (g *coopGen) step() {
	switch n := g.r.IntN(17); {
	case n < 3:
		g.load(g.randomType())
	case n < 4:
		g.fill(g.randomType())
	case n < 8:
		g.mulAdd()
	case n < 10:
		g.binary()
	case n < 11:
		g.scale()
	case n < 12:
		g.neg()
	case n < 14:
		g.conv()
	case n < 15:
		g.cond()
	default:
		if v := g.pick(func(mtype) bool { return true }); v >= 0 {
			g.store(v, true)
		}
	}
}

// randomType is a matrix type of the kernel's shape.
func (g *coopGen) randomType() mtype {
	if g.allowed != nil {
		return g.allowed[g.r.IntN(len(g.allowed))]
	}
	use := []string{"a", "b", "acc"}[g.r.IntN(3)]
	elems := g.floatElems()
	if g.cfg.Int8 && g.r.IntN(3) == 0 {
		elems = []string{"i8", "u8"}
		if use == "acc" {
			elems = []string{"i32", "u32"}
		}
	}
	e := elems[g.r.IntN(len(elems))]
	k := g.k.K
	if e == "i8" || e == "u8" {
		k = 2 * g.k.K // 8-bit shapes have twice the k (16x16x32 on the H200)
	}
	r, c := g.shapeOf(use, k)
	return mtype{e, r, c, use}
}

// source names the memory a matrix of elem loads from, or "".
func (g *coopGen) source(elem string) string {
	switch elem {
	case "f32":
		return []string{"in_f", "sh_f"}[g.r.IntN(2)]
	case "f16":
		return []string{"in_h", "sh_h"}[g.r.IntN(2)]
	case "bf16":
		return "in_b"
	case "i8":
		return "in_i8"
	case "u8":
		return "in_u8"
	}
	return ""
}

// place chooses a layout, stride and offset for an r x c matrix of o.t
// within room elements. Offset and stride are multiples of the alignment
// Vulkan requires (ir.CoopAlign, counted in elements of the memory, which
// holds o.t's element type; every region starts 16-byte aligned): the
// stride pads a row (column) by 0 to 2 such units, the offset is any
// aligned place where the matrix fits.
func (g *coopGen) place(o *cop, r, c, room int) {
	o.colMaj = g.r.IntN(2) == 0
	along, across := c, r // row-major: rows of c elements, r of them
	if o.colMaj {
		along, across = r, c
	}
	q := coopAlignElems(o.t, o.colMaj)
	base := (along + q - 1) / q * q
	for pad := g.r.IntN(3); ; pad-- {
		o.stride = base + pad*q
		if (across-1)*o.stride+along <= room || pad == 0 {
			break
		}
	}
	foot := (across-1)*o.stride + along
	o.off = q * g.r.IntN((room-foot)/q+1)
}

// coopAlignElems is ir.CoopAlign of matrix type t in elements of t's
// element type.
func coopAlignElems(t mtype, colMaj bool) int {
	size := map[string]int{"f32": 4, "i32": 4, "u32": 4, "f16": 2, "bf16": 2, "i8": 1, "u8": 1}[t.elem]
	n := t.cols
	if colMaj {
		n = t.rows
	}
	return max(1, min(16, n*size)/size)
}

// load adds a load of a matrix of type t (a fill where t has no source).
func (g *coopGen) load(t mtype) int {
	mem := g.source(t.elem)
	if mem == "" {
		return g.fill(t)
	}
	o := cop{kind: copLoad, t: t, mem: mem}
	room := CoopInLen - (g.k.Groups*g.k.Workgroup/32-1)*16
	if o.shared() {
		room = coopShSG
	}
	g.place(&o, t.rows, t.cols, room)
	b := map[string]float64{"in_f": 2, "in_h": 4, "in_b": 2, "in_i8": 128, "in_u8": 255}[mem]
	if o.shared() {
		b = g.shB[mem]
	}
	o.dst = g.def(t, b)
	g.emit(o)
	return o.dst
}

// fillValues are the fill and scale constants: exact in every type.
var fillValues = []float64{0, 1, -1, 0.5, 2, -0.25, 3, 0.125}

// fill adds a matrix of type t with every element one constant.
func (g *coopGen) fill(t mtype) int {
	s := fillValues[g.r.IntN(len(fillValues))]
	if t.elem == "u8" || t.elem == "u32" || t.elem == "i8" || t.elem == "i32" {
		s = float64(g.r.IntN(7))
	}
	o := cop{kind: copFill, t: t, s: s}
	o.dst = g.def(t, math.Abs(s))
	g.emit(o)
	return o.dst
}

// operand returns a matrix of type t: an existing one or a new load.
func (g *coopGen) operand(t mtype) int {
	if v := g.pick(func(u mtype) bool { return u == t }); v >= 0 && g.r.IntN(4) != 0 {
		return v
	}
	return g.load(t)
}

// mulAdd adds D = A·B + C (repeated in a loop sometimes).
func (g *coopGen) mulAdd() {
	in := g.floatElems()
	if g.cfg.Int8 && g.r.IntN(3) == 0 {
		in = []string{"i8", "u8"}
	}
	e := in[g.r.IntN(len(in))]
	acc, k := "f32", g.k.K
	switch {
	case e == "f16" && g.r.IntN(3) == 0:
		acc = "f16"
	case e == "i8":
		acc, k = []string{"i32", "u32"}[g.r.IntN(2)], 2*g.k.K
	case e == "u8":
		acc, k = []string{"u32", "i32"}[g.r.IntN(2)], 2*g.k.K
	}
	if g.allowed != nil {
		if len(g.combos) == 0 {
			return // the shapes offer no multiply-add kc expresses
		}
		c := g.combos[g.r.IntN(len(g.combos))]
		e, acc, k = c.in, c.acc, c.k
	}
	ta := mtype{e, g.k.M, k, "a"}
	tb := mtype{e, k, g.k.N, "b"}
	tc := mtype{acc, g.k.M, g.k.N, "acc"}
	a, b, c := g.operand(ta), g.operand(tb), g.operand(tc)
	loop := 1
	if g.r.IntN(3) == 0 {
		loop = 2 + g.r.IntN(2)
	}
	bound := g.bound[c]
	for i := 0; i < loop; i++ {
		bound += float64(k) * g.bound[a] * g.bound[b]
	}
	if bound > maxBound(acc) {
		return
	}
	o := cop{kind: copMulAdd, t: tc, x: a, y: b, z: c, loop: loop}
	o.dst = g.def(tc, bound)
	g.emit(o)
}

// arithmetic reports whether element-wise arithmetic applies to t.
func arithmetic(t mtype) bool {
	return t.elem != "bf16" && t.elem != "i8" && t.elem != "u8"
}

// binary adds X + Y, X - Y or X * Y of one type.
func (g *coopGen) binary() {
	x := g.pick(arithmetic)
	if x < 0 {
		return
	}
	t := g.vars[x]
	y := g.operand(t)
	ops := "+-*"
	if g.cfg.NV {
		ops = "+-"
	}
	o := cop{kind: copBin, t: t, x: x, y: y, op: ops[g.r.IntN(len(ops))]}
	b := g.bound[x] + g.bound[y]
	if o.op == '*' {
		b = g.bound[x] * g.bound[y]
	}
	if b > maxBound(t.elem) {
		return
	}
	o.dst = g.def(t, b)
	g.emit(o)
}

// scale adds X * s, s * X or X / s.
func (g *coopGen) scale() {
	x := g.pick(func(t mtype) bool {
		return arithmetic(t) && (!g.cfg.NV || t.elem == "f32" || t.elem == "f16")
	})
	if x < 0 {
		return
	}
	t := g.vars[x]
	o := cop{kind: copScale, t: t, x: x, op: '*', left: g.r.IntN(2) == 0}
	float := t.elem == "f32" || t.elem == "f16"
	switch {
	case float && g.r.IntN(3) == 0:
		o.pf = true // |pf| < 2
		o.s = 2
	case float && g.r.IntN(2) == 0:
		o.op, o.left = '/', false
		o.s = []float64{2, -4, 0.5, 3}[g.r.IntN(4)]
	case float:
		o.s = []float64{0.5, -2, 0.25, 1.5}[g.r.IntN(4)]
	case t.elem == "u32":
		o.s = float64(g.r.IntN(5))
	default:
		o.s = float64(g.r.IntN(5)) - 1
	}
	b := g.bound[x] * math.Abs(o.s)
	if o.op == '/' {
		b = g.bound[x] / math.Abs(o.s) * 2 // rounding of the quotient
	}
	if b > maxBound(t.elem) {
		return
	}
	o.dst = g.def(t, b)
	g.emit(o)
}

// neg adds -X.
func (g *coopGen) neg() {
	x := g.pick(arithmetic)
	if x < 0 {
		return
	}
	o := cop{kind: copNeg, t: g.vars[x], x: x}
	o.dst = g.def(o.t, g.bound[x])
	g.emit(o)
}

// conv adds X converted to another float element type.
func (g *coopGen) conv() {
	x := g.pick(func(t mtype) bool { return t.elem == "f32" || t.elem == "f16" || t.elem == "bf16" })
	if x < 0 {
		return
	}
	t := g.vars[x]
	var es []string
	for _, e := range g.floatElems() {
		if u := t; e != t.elem && g.allows(func() mtype { u.elem = e; return u }()) {
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		return
	}
	t.elem = es[g.r.IntN(len(es))]
	b := g.bound[x] * (1 + 0x1p-7)
	if b > maxBound(t.elem) {
		return
	}
	o := cop{kind: copConv, t: t, x: x}
	o.dst = g.def(t, b)
	g.emit(o)
}

// cond adds a matrix chosen, or multiply-added, under a uniform condition
// (on pf): cooperative values merged from two branches, and a cooperative
// operation inside one.
func (g *coopGen) cond() {
	x := g.pick(func(mtype) bool { return true })
	if x < 0 {
		return
	}
	t := g.vars[x]
	o := cop{kind: copIf, t: t, x: x, s: []float64{-1, 0, 0.5, 1}[g.r.IntN(4)]}
	b := g.bound[x]
	if t.use == "acc" && (t.elem == "f32" || t.elem == "i32" || t.elem == "u32") && g.r.IntN(2) == 0 {
		in, k := "f16", g.k.K
		if t.elem != "f32" {
			in, k = "i8", 2*g.k.K
		}
		if !g.allows(mtype{in, g.k.M, k, "a"}) || !g.hasCombo(in, t.elem) {
			return
		}
		o.y, o.z, o.loop = g.operand(mtype{in, g.k.M, k, "a"}), g.operand(mtype{in, k, g.k.N, "b"}), 1
		b += float64(k) * g.bound[o.y] * g.bound[o.z]
		if b > maxBound(t.elem) {
			return
		}
	} else {
		o.y = g.operand(t)
		b = max(b, g.bound[o.y])
	}
	o.dst = g.def(t, b)
	g.emit(o)
}

// store adds a store of matrix v to an output buffer or, with shared, sometimes a
// shared array.
func (g *coopGen) store(v int, shared bool) {
	t := g.vars[v]
	mem := map[string]string{"f32": "out_f", "f16": "out_h", "bf16": "out_b", "i32": "out_i", "u32": "out_u"}[t.elem]
	if mem == "" {
		return // i8 and u8 matrices are inputs only: no 8-bit output buffers
	}
	o := cop{kind: copStore, t: t, x: v, mem: mem}
	if shared && (t.elem == "f32" || t.elem == "f16") && g.r.IntN(3) == 0 {
		o.mem = map[string]string{"f32": "sh_f", "f16": "sh_h"}[t.elem]
		g.shB[o.mem] = max(g.shB[o.mem], g.bound[v])
		g.place(&o, t.rows, t.cols, coopShSG)
	} else {
		o.slot = g.stores[mem]
		g.stores[mem]++
		g.place(&o, t.rows, t.cols, coopSlot)
	}
	g.emit(o)
}

// render writes the program as .kc text.
func (k *CoopKernel) render() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("// coopgen seed %#x: %dx%dx%d, %d workgroups of %d", k.Seed, k.M, k.N, k.K, k.Groups, k.Workgroup)
	p("enable f16")
	if k.Config.BF16 {
		p("enable bf16")
	}
	if k.Config.Int8 {
		p("enable int8")
	}
	p("enable cooperative_matrix\n")
	params := []string{"pf f32", "in_f read []f32", "in_h read []f16"}
	if k.Config.BF16 {
		params = append(params, "in_b read []bf16")
	}
	if k.Config.Int8 {
		params = append(params, "in_i8 read []i8", "in_u8 read []u8")
	}
	elems := map[string]string{"out_f": "f32", "out_h": "f16", "out_b": "bf16", "out_i": "i32", "out_u": "u32"}
	for _, o := range []string{"out_f", "out_h", "out_b", "out_i", "out_u"} {
		if _, ok := k.OutLen[o]; ok {
			params = append(params, o+" read_write []"+elems[o])
		}
	}
	spw := k.Workgroup / 32
	p("kernel %s(%s) workgroup(%d) {", k.Name, strings.Join(params, ", "), k.Workgroup)
	p("\tshared sh_f [%d]f32", spw*coopShSG)
	p("\tshared sh_h [%d]f16", spw*coopShSG)
	p("\tlet lsg = local_index / 32")
	p("\tlet sg = workgroup_id.x * %d + lsg", spw)
	p("\tfor e := local_index; e < %d; e += %d {", spw*coopShSG, k.Workgroup)
	p("\t\tsh_f[e] = in_f[(e + workgroup_id.x * 37) %% %d]", CoopInLen)
	p("\t\tsh_h[e] = in_h[(e + workgroup_id.x * 53) %% %d]", CoopInLen)
	p("\t}")
	p("\tworkgroupBarrier()")
	for _, o := range k.prog {
		k.renderOp(p, o)
	}
	p("}")
	return b.String()
}

// layout spells a layout operand.
func layout(col bool) string {
	if col {
		return "col_major"
	}
	return "row_major"
}

// where spells a load's or store's offset: the subgroup's region plus off.
func (k *CoopKernel) where(o cop) string {
	switch {
	case o.shared():
		return fmt.Sprintf("lsg * %d + %d", coopShSG, o.off)
	case o.kind == copStore:
		return fmt.Sprintf("sg * %d + %d", coopSlot*k.outSlots(o.mem), o.slot*coopSlot+o.off)
	}
	return fmt.Sprintf("sg * 16 + %d", o.off)
}

// outSlots is the number of store slots of output buffer mem per subgroup.
func (k *CoopKernel) outSlots(mem string) int {
	return k.OutLen[mem] / (coopSlot * k.Groups * k.Workgroup / 32)
}

// lit spells a constant for an element type.
func lit(s float64, elem string) string {
	if elem == "i32" || elem == "u32" || elem == "i8" || elem == "u8" {
		return strconv.Itoa(int(s))
	}
	t := strconv.FormatFloat(s, 'g', -1, 64)
	if !strings.ContainsAny(t, ".e") {
		t += ".0"
	}
	return t
}

// renderOp writes one operation.
func (k *CoopKernel) renderOp(p func(string, ...any), o cop) {
	v := func(i int) string { return fmt.Sprintf("v%d", i) }
	switch o.kind {
	case copLoad:
		p("\tlet %s = coopLoad<%s>(%s, %s, %d, %s)", v(o.dst), o.t, o.mem, k.where(o), o.stride, layout(o.colMaj))
	case copFill:
		p("\tlet %s = %s(%s)", v(o.dst), o.t, lit(o.s, o.t.elem))
	case copMulAdd:
		if o.loop == 1 {
			p("\tlet %s = coopMulAdd(%s, %s, %s)", v(o.dst), v(o.x), v(o.y), v(o.z))
			return
		}
		p("\tvar %s = %s", v(o.dst), v(o.z))
		p("\tfor i := 0; i < %d; i++ {", o.loop)
		p("\t\t%s = coopMulAdd(%s, %s, %s)", v(o.dst), v(o.x), v(o.y), v(o.dst))
		p("\t}")
	case copBin:
		p("\tlet %s = %s %c %s", v(o.dst), v(o.x), o.op, v(o.y))
	case copScale:
		s := lit(o.s, o.t.elem)
		if o.pf {
			s = "pf"
			if o.t.elem == "f16" {
				s = "f16(pf)"
			}
		}
		if o.left {
			p("\tlet %s = %s %c %s", v(o.dst), s, o.op, v(o.x))
		} else {
			p("\tlet %s = %s %c %s", v(o.dst), v(o.x), o.op, s)
		}
	case copNeg:
		p("\tlet %s = -%s", v(o.dst), v(o.x))
	case copConv:
		p("\tlet %s = %s(%s)", v(o.dst), o.t, v(o.x))
	case copIf:
		p("\tvar %s = %s", v(o.dst), v(o.x))
		p("\tif pf < %s {", lit(o.s, "f32"))
		if o.loop > 0 {
			p("\t\t%s = coopMulAdd(%s, %s, %s)", v(o.dst), v(o.y), v(o.z), v(o.dst))
		} else {
			p("\t\t%s = %s", v(o.dst), v(o.y))
		}
		p("\t}")
	case copStore:
		p("\tcoopStore(%s, %s, %s, %d, %s)", v(o.x), o.mem, k.where(o), o.stride, layout(o.colMaj))
		if o.shared() {
			p("\tworkgroupBarrier()")
		}
	}
}

// combo is a multiply-add a restricted kernel may do: in·in + acc over k.
type combo struct {
	in, acc string
	k       int
}

// usable reports whether matrices of elem may appear under g's config.
func (g *coopGen) usable(elem string) bool {
	switch elem {
	case "f16", "f32":
		return true
	case "bf16":
		return g.cfg.BF16
	case "i8", "u8", "i32", "u32":
		return g.cfg.Int8
	}
	return false
}

// floatShapes are the distinct M x N x K of the configured shapes with
// 16-bit float inputs and an accumulator the config allows: the kernel's
// instruction shape is one of them (8-bit shapes go with the one of half
// their k).
func (g *coopGen) floatShapes() [][3]int {
	var out [][3]int
	for _, s := range g.cfg.Shapes {
		mnk := [3]int{s.M, s.N, s.K}
		if (s.A == "f16" || s.A == "bf16") && g.usable(s.A) && g.usable(s.C) && !slices.Contains(out, mnk) {
			out = append(out, mnk)
		}
	}
	return out
}

// allowTypes fills g.allowed and g.combos from the configured shapes that
// fit the kernel's M x N x K (nothing when the config has none).
func (g *coopGen) allowTypes() {
	for _, s := range g.cfg.Shapes {
		k := g.k.K
		if s.A == "i8" || s.A == "u8" {
			k = 2 * g.k.K
		}
		if s.M != g.k.M || s.N != g.k.N || s.K != k || !g.usable(s.A) || !g.usable(s.C) {
			continue
		}
		if s.C != "bf16" { // kc accumulates bf16 products in f32 only
			g.combos = append(g.combos, combo{s.A, s.C, k})
		}
		for _, t := range []mtype{{s.A, s.M, k, "a"}, {s.A, k, s.N, "b"}, {s.C, s.M, s.N, "acc"}} {
			if !slices.Contains(g.allowed, t) {
				g.allowed = append(g.allowed, t)
			}
		}
	}
}

// allows reports whether the kernel may declare matrices of type t.
func (g *coopGen) allows(t mtype) bool {
	return g.allowed == nil || slices.Contains(g.allowed, t)
}

// hasCombo reports whether the kernel may multiply in matrices into an
// acc accumulator.
func (g *coopGen) hasCombo(in, acc string) bool {
	if g.combos == nil {
		return true
	}
	return slices.ContainsFunc(g.combos, func(c combo) bool { return c.in == in && c.acc == acc })
}
