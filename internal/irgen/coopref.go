package irgen

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kcgo/kc/ir"
)

// coopElemSize is the byte size of each element type.
var coopElemSize = map[string]int{"f32": 4, "f16": 2, "bf16": 2, "i8": 1, "u8": 1, "i32": 4, "u32": 4}

// coopBufElem is the element type of each buffer and shared array.
var coopBufElem = map[string]string{
	"in_f": "f32", "in_h": "f16", "in_b": "bf16", "in_i8": "i8", "in_u8": "u8",
	"out_f": "f32", "out_h": "f16", "out_b": "bf16", "out_i": "i32", "out_u": "u32",
	"sh_f": "f32", "sh_h": "f16",
}

// Inputs returns the parameter pf and fresh buffers for a run of k,
// derived from its seed: in_f and in_b in [-2, 2), in_h normal halves of
// magnitude [2^-6, 4), in_i8 and in_u8 any bytes; the outputs start
// random, so an element a target fails to write, or writes where it
// should not, shows.
func (k *CoopKernel) Inputs() (map[string]ir.Value, map[string][]byte) {
	r := rand.New(rand.NewPCG(k.Seed, 0x1f83d9abfb41bd6b))
	pf := float64(r.Float32()*4 - 2)
	params := map[string]ir.Value{"pf": ir.FloatVal(pf)}
	bufs := map[string][]byte{
		"in_f": words(CoopInLen, func() uint32 { return math.Float32bits(r.Float32()*4 - 2) }),
		"in_h": halves(CoopInLen, r),
	}
	if k.Config.BF16 {
		bufs["in_b"] = encodeElems("bf16", CoopInLen, func() float64 { return roundElem(float64(r.Float32()*4-2), "bf16") })
	}
	if k.Config.Int8 {
		bufs["in_i8"] = encodeElems("i8", CoopInLen, func() float64 { return float64(int8(r.Uint32())) })
		bufs["in_u8"] = encodeElems("u8", CoopInLen, func() float64 { return float64(uint8(r.Uint32())) })
	}
	for name, n := range k.OutLen {
		e := coopBufElem[name]
		bufs[name] = encodeElems(e, n, func() float64 {
			if e == "i32" || e == "u32" {
				return roundElem(float64(r.Uint32()), e)
			}
			return roundElem(float64(r.Float32()*8-4), e)
		})
	}
	return params, bufs
}

// refMat is a matrix of the reference evaluation: row-major values and a
// bound on |any conforming evaluation's element - value|.
type refMat struct {
	v   []float64
	err float64
}

// maxAbs is the largest |element|.
func (m refMat) maxAbs() float64 {
	a := 0.0
	for _, x := range m.v {
		a = max(a, math.Abs(x))
	}
	return a
}

// refMem is a buffer or shared array: values and per-element error bounds.
type refMem struct {
	elem string
	v    []float64
	err  []float64
}

// Reference runs the program on params and bufs (Inputs' maps, which it
// does not modify) in float64, and returns the output buffers' expected
// bytes and, for each output element, its error bound (0: exact).
func (k *CoopKernel) Reference(params map[string]ir.Value, bufs map[string][]byte) (map[string][]byte, map[string][]float64) {
	return k.reference(params, bufs, false)
}

// DeviceReference is Reference with the bounds a cooperative-matrix
// device's multiply-adds need besides: tensor cores sum a dot product's
// products in the accumulator's precision, in an order of their own,
// fused or not and not necessarily rounding to nearest, so each of the
// K+1 additions (and, for a 16-bit accumulator, each product) may be off
// by a unit in the last place of the accumulator at the magnitude of a
// sum of |terms|; that 2(K+1)·ulp(acc, max Σ|a·b|+|c|), computed in
// float64 per multiply-add, joins the propagated bound, and so does one
// ulp of each element-wise product, which the driver may fuse into a
// later addition (contracted).
func (k *CoopKernel) DeviceReference(params map[string]ir.Value, bufs map[string][]byte) (map[string][]byte, map[string][]float64) {
	return k.reference(params, bufs, true)
}

func (k *CoopKernel) reference(params map[string]ir.Value, bufs map[string][]byte, dev bool) (map[string][]byte, map[string][]float64) {
	mem := map[string]*refMem{}
	for name, b := range bufs {
		e := coopBufElem[name]
		mem[name] = &refMem{elem: e, v: decodeElems(e, b), err: make([]float64, len(b)/coopElemSize[e])}
	}
	pf := params["pf"].Float
	spw := k.Workgroup / 32
	for wg := 0; wg < k.Groups; wg++ {
		for _, sh := range []string{"sh_f", "sh_h"} {
			src, mul := mem["in_f"], 37
			if sh == "sh_h" {
				src, mul = mem["in_h"], 53
			}
			m := &refMem{elem: coopBufElem[sh], v: make([]float64, spw*coopShSG), err: make([]float64, spw*coopShSG)}
			for e := range m.v {
				m.v[e] = src.v[(e+wg*mul)%CoopInLen]
			}
			mem[sh] = m
		}
		for lsg := 0; lsg < spw; lsg++ {
			k.refSubgroup(mem, pf, wg*spw+lsg, lsg, dev)
		}
	}
	want, tol := map[string][]byte{}, map[string][]float64{}
	for name := range k.OutLen {
		m := mem[name]
		want[name] = encodeElems(m.elem, len(m.v), func() func() float64 {
			i := -1
			return func() float64 { i++; return m.v[i] }
		}())
		tol[name] = m.err
	}
	return want, tol
}

// refSubgroup runs the program for global subgroup sg (lsg in its
// workgroup).
func (k *CoopKernel) refSubgroup(mem map[string]*refMem, pf float64, sg, lsg int, dev bool) {
	mats := make([]refMat, k.nvar)
	for _, o := range k.prog {
		switch o.kind {
		case copLoad:
			mats[o.dst] = refLoad(mem[o.mem], k.base(o, sg, lsg), o)
		case copFill:
			v := make([]float64, o.t.rows*o.t.cols)
			for i := range v {
				v[i] = roundElem(o.s, o.t.elem)
			}
			mats[o.dst] = refMat{v: v}
		case copMulAdd:
			c := mats[o.z]
			for i := 0; i < o.loop; i++ {
				c = refMulAdd(mats[o.x], mats[o.y], c, o, dev)
			}
			mats[o.dst] = c
		case copBin:
			mats[o.dst] = refBinary(mats[o.x], mats[o.y], o, dev)
		case copScale:
			s := o.s
			if o.pf {
				s = roundElem(pf, o.t.elem)
			}
			mats[o.dst] = refScale(mats[o.x], s, o, dev)
		case copNeg:
			x := mats[o.x]
			v := make([]float64, len(x.v))
			for i := range v {
				v[i] = roundElem(-x.v[i], o.t.elem) // integers wrap
			}
			mats[o.dst] = refMat{v: v, err: x.err}
		case copConv:
			x := mats[o.x]
			v := make([]float64, len(x.v))
			for i := range v {
				v[i] = roundElem(x.v[i], o.t.elem)
			}
			m := rounded(refMat{v: v}, x.err, o.t.elem)
			if dev && m.err == 0 && o.t.elem != "f32" {
				// A matrix conversion to f16 or bf16 rounds as the
				// driver does: either neighbour of an exact value
				// (NVIDIA truncates f32 to bf16; docs/semantics.md §7.2).
				m.err = ulpAt(o.t.elem, m.maxAbs())
			}
			mats[o.dst] = m
		case copIf:
			mats[o.dst] = mats[o.x]
			switch {
			case pf >= o.s:
			case o.loop > 0:
				mats[o.dst] = refMulAdd(mats[o.y], mats[o.z], mats[o.x], o, dev)
			default:
				mats[o.dst] = mats[o.y]
			}
		case copStore:
			refStore(mem[o.mem], k.base(o, sg, lsg), o, mats[o.x])
		}
	}
}

// base is the element offset of a load's or store's matrix (where's
// value).
func (k *CoopKernel) base(o cop, sg, lsg int) int {
	switch {
	case o.shared():
		return lsg*coopShSG + o.off
	case o.kind == copStore:
		return sg*coopSlot*k.outSlots(o.mem) + o.slot*coopSlot + o.off
	}
	return sg*16 + o.off
}

// at is the memory index of element (i, j).
func at(base int, o cop, i, j int) int {
	if o.colMaj {
		return base + j*o.stride + i
	}
	return base + i*o.stride + j
}

func refLoad(m *refMem, base int, o cop) refMat {
	r := refMat{v: make([]float64, o.t.rows*o.t.cols)}
	for i := 0; i < o.t.rows; i++ {
		for j := 0; j < o.t.cols; j++ {
			x := at(base, o, i, j)
			r.v[i*o.t.cols+j] = m.v[x]
			r.err = max(r.err, m.err[x])
		}
	}
	return r
}

func refStore(m *refMem, base int, o cop, x refMat) {
	for i := 0; i < o.t.rows; i++ {
		for j := 0; j < o.t.cols; j++ {
			a := at(base, o, i, j)
			m.v[a], m.err[a] = x.v[i*o.t.cols+j], x.err
		}
	}
}

// refMulAdd is A·B + C, summed in float64 from the last product to the
// first and C last (another order than the interpreter's), rounded once.
func refMulAdd(a, b, c refMat, o cop, dev bool) refMat {
	M, N := o.t.rows, o.t.cols
	K := len(a.v) / M
	r := refMat{v: make([]float64, M*N)}
	sumAbs := 0.0
	for i := 0; i < M; i++ {
		for j := 0; j < N; j++ {
			s, sa := 0.0, 0.0
			for k := K - 1; k >= 0; k-- {
				p := a.v[i*K+k] * b.v[k*N+j]
				s += p
				sa += math.Abs(p)
			}
			s += c.v[i*N+j]
			sa += math.Abs(c.v[i*N+j])
			sumAbs = max(sumAbs, sa)
			r.v[i*N+j] = roundElem(s, o.t.elem)
		}
	}
	if isInt(o.t.elem) {
		return r // exact, wrapping
	}
	ma, mb := a.maxAbs(), b.maxAbs()
	pre := float64(K)*(a.err*mb+b.err*ma+a.err*b.err) + c.err + 2*float64(K+1)*0x1p-53*sumAbs
	if dev {
		pre += 2 * float64(K+1) * ulpAt(o.t.elem, sumAbs)
	}
	return rounded(r, pre, o.t.elem)
}

func refBinary(x, y refMat, o cop, dev bool) refMat {
	r := refMat{v: make([]float64, len(x.v))}
	if isInt(o.t.elem) {
		for i := range r.v {
			r.v[i] = intArith(o.op, x.v[i], y.v[i], o.t.elem)
		}
		return r
	}
	for i := range r.v {
		var v float64
		switch o.op {
		case '+':
			v = x.v[i] + y.v[i]
		case '-':
			v = x.v[i] - y.v[i]
		case '*':
			v = x.v[i] * y.v[i]
		}
		r.v[i] = roundElem(v, o.t.elem)
	}
	pre := x.err + y.err
	if o.op == '*' {
		pre = x.err*y.maxAbs() + y.err*x.maxAbs() + x.err*y.err + contracted(r, o, dev)
	}
	return rounded(r, pre, o.t.elem)
}

func refScale(x refMat, s float64, o cop, dev bool) refMat {
	r := refMat{v: make([]float64, len(x.v))}
	if isInt(o.t.elem) {
		for i := range r.v {
			r.v[i] = intArith('*', x.v[i], s, o.t.elem)
		}
		return r
	}
	for i := range r.v {
		v := x.v[i] * s
		if o.op == '/' {
			v = x.v[i] / s
		}
		r.v[i] = roundElem(v, o.t.elem)
	}
	pre := x.err*math.Abs(s) + contracted(r, o, dev)
	if o.op == '/' {
		pre = x.err / math.Abs(s)
	}
	return rounded(r, pre, o.t.elem)
}

// contracted bounds, on a device, how far a product's value may be from
// its rounded r: outside precise code a driver may fuse it into a later
// addition (an fma, docs/semantics.md's Contraction), skipping its
// rounding, one ulp at most. 0 for the interpreter, which rounds as
// written.
func contracted(r refMat, o cop, dev bool) float64 {
	if !dev {
		return 0
	}
	return ulpAt(o.t.elem, r.maxAbs())
}

// rounded gives r, a result rounded to elem from values pre away from
// another evaluation's, its bound: pre plus one rounding at its
// magnitude (two values within pre round at most that far apart). A
// result of exact operands (pre 0) rounds the same everywhere.
func rounded(r refMat, pre float64, elem string) refMat {
	if pre == 0 {
		return r
	}
	r.err = pre + ulpAt(elem, r.maxAbs()+pre)
	return r
}

// intArith is x op y in 32-bit two's complement (values of elem, i32 or
// u32), wrapping.
func intArith(op byte, x, y float64, elem string) float64 {
	a, b := uint32(int64(x)), uint32(int64(y))
	var r uint32
	switch op {
	case '+':
		r = a + b
	case '-':
		r = a - b
	case '*':
		r = a * b
	}
	if elem == "i32" {
		return float64(int32(r))
	}
	return float64(r)
}

func isInt(elem string) bool {
	return elem == "i8" || elem == "u8" || elem == "i32" || elem == "u32"
}

// ulpAt bounds one unit in the last place of elem at magnitude a.
func ulpAt(elem string, a float64) float64 {
	switch elem {
	case "f16":
		return a*0x1p-10 + 0x1p-24
	case "bf16":
		return a*0x1p-7 + 0x1p-133
	}
	return a*0x1p-23 + 0x1p-149
}

// roundElem rounds v to elem: to nearest even for floats (to infinity
// past the largest finite value), wrapping for integers.
func roundElem(v float64, elem string) float64 {
	switch elem {
	case "f32":
		return float64(float32(v))
	case "f16":
		return roundFloat(v, 11, -14, 65520)
	case "bf16":
		return roundFloat(v, 8, -126, 0x1.ffp127)
	case "i8":
		return float64(int8(int64(v)))
	case "u8":
		return float64(uint8(int64(v)))
	case "i32":
		return float64(int32(int64(v)))
	case "u32":
		return float64(uint32(int64(v)))
	}
	panic("irgen: element type " + elem)
}

// roundFloat rounds v to a binary format with p significand bits, least
// normal exponent emin, and values of magnitude inf or more overflowing.
func roundFloat(v float64, p, emin int, inf float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	e := max(math.Ilogb(v), emin)
	q := math.Ldexp(1, e-(p-1))
	r := math.RoundToEven(v/q) * q
	if math.Abs(r) >= inf {
		return math.Copysign(math.Inf(1), v)
	}
	return r
}

// encodeElems encodes n values of elem (exact in it) as little-endian bytes.
func encodeElems(elem string, n int, next func() float64) []byte {
	size := coopElemSize[elem]
	b := make([]byte, size*n)
	for i := 0; i < n; i++ {
		v := next()
		var w uint32
		switch elem {
		case "f32":
			w = math.Float32bits(float32(v))
		case "f16":
			w = uint32(f16Bits(v))
		case "bf16":
			w = math.Float32bits(float32(v)) >> 16
		case "i8", "i32":
			w = uint32(int32(v))
		default:
			w = uint32(v)
		}
		switch size {
		case 1:
			b[i] = byte(w)
		case 2:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(w))
		default:
			binary.LittleEndian.PutUint32(b[4*i:], w)
		}
	}
	return b
}

// decodeElems decodes little-endian elements of elem.
func decodeElems(elem string, b []byte) []float64 {
	size := coopElemSize[elem]
	v := make([]float64, len(b)/size)
	for i := range v {
		switch elem {
		case "f32":
			v[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		case "f16":
			v[i] = f16Value(binary.LittleEndian.Uint16(b[2*i:]))
		case "bf16":
			v[i] = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16))
		case "i8":
			v[i] = float64(int8(b[i]))
		case "u8":
			v[i] = float64(b[i])
		case "i32":
			v[i] = float64(int32(binary.LittleEndian.Uint32(b[4*i:])))
		case "u32":
			v[i] = float64(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return v
}

// f16Value is the value of half bits h.
func f16Value(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1024+m, e-25)
}

// f16Bits encodes v, exact in f16 (or infinite), as half bits.
func f16Bits(v float64) uint16 {
	var sign uint16
	if math.Signbit(v) {
		sign, v = 0x8000, -v
	}
	switch {
	case math.IsInf(v, 0):
		return sign | 0x7c00
	case math.IsNaN(v):
		return 0x7e00
	case v < 0x1p-14:
		return sign | uint16(v*0x1p24)
	}
	e := math.Ilogb(v)
	return sign | uint16(e+15)<<10 | uint16(math.Ldexp(v, 10-e)-1024)
}

// CompareCoop checks a run's output buffers got against Reference's want
// and tol: each element within its bound (as values: -0 == +0; NaN equals
// NaN), exactly where the bound is 0. It reports the first difference of
// each buffer.
func CompareCoop(got, want map[string][]byte, tol map[string][]float64) error {
	var errs []error
	for name, w := range want {
		e := coopBufElem[name]
		gv, wv := decodeElems(e, got[name]), decodeElems(e, w)
		if len(gv) != len(wv) {
			errs = append(errs, fmt.Errorf("%s: %d elements, want %d", name, len(gv), len(wv)))
			continue
		}
		for i := range wv {
			g, x := gv[i], wv[i]
			if g == x || (math.IsNaN(g) && math.IsNaN(x)) || math.Abs(g-x) <= tol[name][i] {
				continue
			}
			errs = append(errs, fmt.Errorf("%s[%d] = %v, want %v (bound %g)", name, i, g, x, tol[name][i]))
			break
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%v", errs)
}
