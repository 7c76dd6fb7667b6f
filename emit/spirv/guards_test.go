package spirv

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// Reference semantics of ir/doc.go, written out independently.

func refDivI(x, y int32) int32 {
	switch {
	case y == 0:
		return x
	case x == math.MinInt32 && y == -1:
		return x
	}
	return x / y
}

func refRemI(x, y int32) int32 {
	if y == 0 || x == math.MinInt32 && y == -1 {
		return 0
	}
	return x % y
}

func refDivU(x, y uint32) uint32 {
	if y == 0 {
		return x
	}
	return x / y
}

func refRemU(x, y uint32) uint32 {
	if y == 0 {
		return 0
	}
	return x % y
}

func refF2I(f float64) int32 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 2147483647:
		return math.MaxInt32
	case f <= -2147483648:
		return math.MinInt32
	}
	return int32(f)
}

func refF2U(f float64) uint32 {
	switch {
	case math.IsNaN(f), f <= 0:
		return 0
	case f >= 4294967295:
		return math.MaxUint32
	}
	return uint32(f)
}

// guardInputs draws fresh random operands mixed with every edge case.
func guardInputs(n int) (xi, yi []int32, xu, yu []uint32, xf []float32) {
	edgeI := []int32{0, 1, -1, 2, -2, 7, -7, math.MinInt32, math.MaxInt32, math.MinInt32 + 1}
	edgeU := []uint32{0, 1, 2, 31, 32, 33, 63, 64, 0x80000000, math.MaxUint32}
	edgeF := []float32{0, float32(math.Copysign(0, -1)), 0.5, -0.5, 1.9, -1.9, 2147483520, 2147483648, -2147483648, -2147483904,
		4294967040, 4294967296, 1e20, -1e20, 65504, 65520, -65520, 1e5, -1e5,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	for i := 0; i < n; i++ {
		pickI := func() int32 {
			if r.IntN(3) == 0 {
				return edgeI[r.IntN(len(edgeI))]
			}
			return int32(r.Uint32()) >> r.IntN(31)
		}
		pickU := func() uint32 {
			if r.IntN(3) == 0 {
				return edgeU[r.IntN(len(edgeU))]
			}
			return r.Uint32() >> r.IntN(32)
		}
		xi, yi = append(xi, pickI()), append(yi, pickI())
		xu, yu = append(xu, pickU()), append(yu, pickU())
		if r.IntN(2) == 0 {
			xf = append(xf, edgeF[r.IntN(len(edgeF))])
		} else {
			xf = append(xf, float32(r.NormFloat64()*math.Pow(2, float64(r.IntN(40)))))
		}
	}
	return
}

// TestGuards runs the guard kernel's SPIR-V on random and edge operands
// and compares every result bit for bit with ir/doc.go's semantics and
// with the reference interpreter. SPIR-V's undefined cases (division by
// zero, MIN / -1, shifts of 32 or more, out-of-range conversions) make the
// evaluator fail or yield a poison value, so a missing guard shows.
func TestGuards(t *testing.T) {
	const groups = 4
	n := groups * 64
	xi, yi, xu, yu, xf := guardInputs(n)
	m := guardKernel()
	mod, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := newSpeval(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	vals := func(words []uint32) []*val {
		out := make([]*val, len(words))
		for i, w := range words {
			out[i] = &val{s: w}
		}
		return out
	}
	oi, ou := vals(make([]uint32, 8*n)), vals(make([]uint32, 4*n))
	for _, v := range oi {
		v.s = poison
	}
	bufs := map[uint32][]*val{
		1: vals(u32s(xi)), 2: vals(u32s(yi)), 3: vals(xu), 4: vals(yu), 5: vals(f32bits(xf)), 6: oi, 7: ou,
	}
	if err := ev.run("guards", [3]uint32{groups, 1, 1}, nil, bufs); err != nil {
		t.Fatalf("evaluating the SPIR-V: %v", err)
	}
	// The reference interpreter on the same module.
	args := &interp.Args{Buffers: map[string][]byte{
		"xi": interp.Encode(xi), "yi": interp.Encode(yi), "xu": interp.Encode(xu), "yu": interp.Encode(yu),
		"xf": interp.Encode(xf), "oi": make([]byte, 32*n), "ou": make([]byte, 16*n),
	}}
	if err := interp.Run(m, "guards", [3]int{groups, 1, 1}, args, interp.Options{}); err != nil {
		t.Fatalf("interp: %v", err)
	}
	for i := 0; i < n; i++ {
		x, y, u, v, f := xi[i], yi[i], xu[i], yu[i], float64(xf[i])
		h := float64(f16ToFloat32(f16bits(f)))
		wantI := []int32{refDivI(x, y), refRemI(x, y), x << (v & 31), x >> (v & 31), refF2I(f), int32(refF2U(f)), refF2I(h)}
		wantU := []uint32{refDivU(u, v), refRemU(u, v), u << (v & 31), u >> (v & 31)}
		what := []string{"i32 /", "i32 %", "i32 <<", "i32 >>", "i32(f32)", "u32(f32)", "i32(f16)"}
		for k, w := range wantI {
			got := int32(oi[8*i+k].s)
			ref := int32(binary.LittleEndian.Uint32(args.Buffers["oi"][4*(8*i+k):]))
			if got != w || ref != w {
				t.Errorf("%s with x=%d y=%d v=%d f=%v: spirv %d, interp %d, want %d", what[k], x, y, v, f, got, ref, w)
			}
		}
		whatU := []string{"u32 /", "u32 %", "u32 <<", "u32 >>"}
		for k, w := range wantU {
			got := ou[4*i+k].s
			ref := binary.LittleEndian.Uint32(args.Buffers["ou"][4*(4*i+k):])
			if got != w || ref != w {
				t.Errorf("%s with u=%d v=%d: spirv %d, interp %d, want %d", whatU[k], u, v, got, ref, w)
			}
		}
	}
}

func u32s(x []int32) []uint32 {
	out := make([]uint32, len(x))
	for i, v := range x {
		out[i] = uint32(v)
	}
	return out
}

func f32bits(x []float32) []uint32 {
	out := make([]uint32, len(x))
	for i, v := range x {
		out[i] = math.Float32bits(v)
	}
	return out
}

// TestGuardsAreNeeded checks that the evaluator catches a missing guard:
// the same kernel with the division guard removed (emitted as a bare
// OpSDiv) must fail on a zero divisor.
func TestGuardsAreNeeded(t *testing.T) {
	b := newKernel("bare", 1)
	x := b.buffer("x", ir.I32, ir.ReadWrite)
	b.add(assign(at(x, litI(0, ir.U32)), bin(ir.OpDiv, at(x, litI(1, ir.U32)), at(x, litI(2, ir.U32)))))
	mod, err := Emit(b.module(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Strip the guard: point the OpSDiv at the raw divisor.
	words := append([]uint32(nil), mod.Words...)
	off := findOp(words, opSDiv)
	sel := findOp(words, opSelect)
	if off < 0 || sel < 0 {
		t.Fatal("no guarded division emitted")
	}
	words[off+4] = words[sel+5] // OpSelect's "else" operand is the divisor
	ev, err := newSpeval(words)
	if err != nil {
		t.Fatal(err)
	}
	buf := []*val{{s: 5}, {s: 7}, {s: 0}}
	if err := ev.run("bare", [3]uint32{1, 1, 1}, nil, map[uint32][]*val{1: buf}); err == nil {
		t.Fatal("an unguarded division by zero went unnoticed")
	}
	ev, _ = newSpeval(mod.Words)
	buf = []*val{{s: 5}, {s: 7}, {s: 0}}
	if err := ev.run("bare", [3]uint32{1, 1, 1}, nil, map[uint32][]*val{1: buf}); err != nil || buf[0].s != 7 {
		t.Fatalf("guarded 7 / 0: got %d, %v; want 7", buf[0].s, err)
	}
}
