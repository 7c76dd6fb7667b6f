//go:build linux && cgo

package hlsl_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/kcgo/kc/emit/hlsl"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// gen builds random integer expressions over three input buffers: a []i32,
// b []u32, f []f32 (floats only through conversions, so that results are
// exact on any device).
type gen struct {
	r *rand.Rand
}

var edgeInts = []int64{0, 1, -1, 2, 31, 32, 33, 255, math.MaxInt32, math.MinInt32, -7, 1000}

func (g *gen) idx() ir.Expr { return ir.Ref("i") }

func (g *gen) lit(t ir.Scalar) ir.Expr {
	v := edgeInts[g.r.IntN(len(edgeInts))]
	if g.r.IntN(3) == 0 {
		v = int64(int32(g.r.Uint32()))
	}
	if t == ir.U32 {
		v = int64(uint32(v))
	}
	return ir.Conv(t, ir.Int(v))
}

// load is a non-constant leaf of type t.
func (g *gen) load(t ir.Scalar) ir.Expr {
	switch t {
	case ir.I32:
		return ir.At(ir.Ref("a"), g.idx())
	case ir.U32:
		if g.r.IntN(4) == 0 {
			return ir.Builtin(ir.LocalIndex)
		}
		return ir.At(ir.Ref("b"), g.idx())
	}
	return ir.At(ir.Ref("f"), g.idx())
}

var intOps = []ir.BinaryOp{ir.OpAdd, ir.OpSub, ir.OpMul, ir.OpDiv, ir.OpRem, ir.OpAnd, ir.OpOr, ir.OpXor, ir.OpShl, ir.OpShr}

// expr returns a random expression of integer type t that is never a
// compile-time constant (it contains a load).
func (g *gen) expr(t ir.Scalar, depth int) ir.Expr {
	if depth <= 0 {
		return g.load(t)
	}
	other := ir.U32
	if t == ir.U32 {
		other = ir.I32
	}
	switch g.r.IntN(13) {
	case 0, 1, 2, 3:
		op := intOps[g.r.IntN(len(intOps))]
		x := g.expr(t, depth-1)
		switch {
		case op.IsShift():
			return ir.Bin(op, x, g.expr(ir.U32, depth-1))
		case op == ir.OpDiv || op == ir.OpRem:
			return ir.Bin(op, x, g.expr(t, depth-1))
		case g.r.IntN(2) == 0:
			return ir.Bin(op, x, g.lit(t))
		}
		return ir.Bin(op, x, g.expr(t, depth-1))
	case 4:
		switch g.r.IntN(3) {
		case 0:
			if t == ir.I32 {
				return ir.Neg(g.expr(t, depth-1))
			}
			return &ir.Unary{Op: ir.OpBitNot, X: g.expr(t, depth-1)}
		case 1:
			return &ir.Unary{Op: ir.OpBitNot, X: g.expr(t, depth-1)}
		}
		return ir.CallOf(ir.Abs, g.expr(t, depth-1))
	case 5:
		fns := []ir.Intrinsic{ir.Min, ir.Max}
		return ir.CallOf(fns[g.r.IntN(2)], g.expr(t, depth-1), g.expr(t, depth-1))
	case 6:
		fns := []ir.Intrinsic{ir.CountOneBits, ir.ReverseBits, ir.FirstLeadingBit, ir.FirstTrailingBit}
		return ir.CallOf(fns[g.r.IntN(len(fns))], g.expr(t, depth-1))
	case 7:
		cmps := []ir.BinaryOp{ir.OpLt, ir.OpLe, ir.OpEq, ir.OpNe, ir.OpGt, ir.OpGe}
		c := ir.Bin(cmps[g.r.IntN(len(cmps))], g.expr(t, depth-1), g.expr(t, depth-1))
		if g.r.IntN(2) == 0 {
			c = ir.Bin(ir.OpLogAnd, c, ir.Bin(ir.OpNe, g.expr(other, depth-1), g.lit(other)))
		}
		return ir.CallOf(ir.Select, c, g.expr(t, depth-1), g.expr(t, depth-1))
	case 8:
		return &ir.Bitcast{To: t, X: g.expr(other, depth-1)}
	case 9:
		return ir.Conv(t, g.expr(other, depth-1))
	case 10:
		// float -> int: truncation, saturation, NaN
		if g.r.IntN(2) == 0 {
			return ir.Conv(t, g.load(ir.F32))
		}
		return ir.Conv(t, ir.Mul(g.load(ir.F32), ir.Conv(ir.F32, g.expr(other, depth-1))))
	case 12:
		vt := ir.Vec(t, 2+g.r.IntN(3))
		return g.fold(g.vexpr(vt, depth-1), vt)
	case 11:
		if t == ir.I32 {
			return ir.CallOf(ir.Clamp, g.expr(t, depth-1), g.lit(t), g.lit(t))
		}
		return ir.Conv(t, ir.Conv(ir.F32, g.expr(other, depth-1)))
	}
	return g.load(t)
}

// vexpr returns a random expression of integer vector type t.
func (g *gen) vexpr(t ir.Vector, depth int) ir.Expr {
	other := ir.Vec(ir.U32, t.N)
	if t.Elem == ir.U32 {
		other = ir.Vec(ir.I32, t.N)
	}
	if depth <= 0 {
		if g.r.IntN(3) == 0 {
			return ir.VecOf(t, g.expr(t.Elem, 0)) // splat
		}
		args := make([]ir.Expr, t.N)
		for i := range args {
			args[i] = g.expr(t.Elem, g.r.IntN(2))
		}
		return ir.VecOf(t, args...)
	}
	switch g.r.IntN(9) {
	case 0, 1, 2:
		op := intOps[g.r.IntN(len(intOps))]
		x := g.vexpr(t, depth-1)
		arith := op == ir.OpAdd || op == ir.OpSub || op == ir.OpMul || op == ir.OpDiv || op == ir.OpRem
		switch {
		case op.IsShift():
			return ir.Bin(op, x, g.vexpr(ir.Vec(ir.U32, t.N), depth-1))
		case arith && g.r.IntN(3) == 0:
			return ir.Bin(op, x, g.expr(t.Elem, depth-1)) // vector op scalar
		}
		return ir.Bin(op, x, g.vexpr(t, depth-1))
	case 3:
		fns := []ir.Intrinsic{ir.Min, ir.Max}
		return ir.CallOf(fns[g.r.IntN(2)], g.vexpr(t, depth-1), g.vexpr(t, depth-1))
	case 4:
		fns := []ir.Intrinsic{ir.CountOneBits, ir.ReverseBits, ir.FirstLeadingBit, ir.FirstTrailingBit, ir.Abs}
		return ir.CallOf(fns[g.r.IntN(len(fns))], g.vexpr(t, depth-1))
	case 5:
		return ir.CallOf(ir.Select, ir.Bin(ir.OpLt, g.expr(t.Elem, depth-1), g.expr(t.Elem, depth-1)), g.vexpr(t, depth-1), g.vexpr(t, depth-1))
	case 6:
		return &ir.Bitcast{To: t, X: g.vexpr(other, depth-1)}
	case 7:
		return ir.VecOf(t, g.vexpr(other, depth-1)) // componentwise conversion
	case 8:
		// through floats: saturating conversion of each component
		fv := ir.Vec(ir.F32, t.N)
		return ir.VecOf(t, ir.Mul(ir.VecOf(fv, g.vexpr(other, depth-1)), ir.VecOf(fv, g.load(ir.F32))))
	}
	return g.vexpr(t, 0)
}

// fold reduces a vector to a scalar of its element type: a dot product or
// a component.
func (g *gen) fold(v ir.Expr, t ir.Vector) ir.Expr {
	if g.r.IntN(2) == 0 {
		return ir.CallOf(ir.Dot, v, g.vexpr(t, 0))
	}
	return ir.Swz(v, string("xyzw"[g.r.IntN(t.N)]))
}

const fuzzOuts = 8

// kernel builds one random kernel: out[i*8+j] = bitcast<u32>(expr_j).
func (g *gen) kernel() *ir.Module {
	b := ir.NewKernel("fuzz", 64)
	b.Buffer("a", ir.I32, ir.Read)
	b.Buffer("b", ir.U32, ir.Read)
	b.Buffer("f", ir.F32, ir.Read)
	out := b.Buffer("out", ir.U32, ir.ReadWrite)
	b.Let("i", ir.X(ir.Builtin(ir.GlobalID)))
	for j := 0; j < fuzzOuts; j++ {
		t := []ir.Scalar{ir.I32, ir.U32}[g.r.IntN(2)]
		var v ir.Expr = g.expr(t, 1+g.r.IntN(4))
		if t == ir.I32 {
			v = &ir.Bitcast{To: ir.U32, X: v}
		}
		b.Assign(ir.At(out, ir.Add(ir.Mul(ir.Ref("i"), ir.Conv(ir.U32, ir.Int(fuzzOuts))), ir.Conv(ir.U32, ir.Int(int64(j))))), v)
	}
	return &ir.Module{File: "fuzz.kc", Kernels: []*ir.Kernel{b.Kernel()}}
}

// TestFuzzIntegerSemantics runs random integer kernels (division and
// remainder by zero and MIN/-1, shifts past 31, bit intrinsics, saturating
// float conversions with NaN and infinities, select, bitcasts; scalars and
// vec2-vec4 with their componentwise helpers, splats and dot products) through
// HLSL -> glslang -> SPIR-V on Vulkan and wants every output bit-identical
// to the reference interpreter. KC_FUZZ_KERNELS sets the number of kernels
// (default 6).
func TestFuzzIntegerSemantics(t *testing.T) {
	kctest.Tool(t, hlsl.GlslangTool)
	kctest.Tool(t, hlsl.SpirvValTool)
	d := backendtest.Open(t, "vulkan")
	seed := rand.Uint64()
	if s := os.Getenv("KC_FUZZ_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("seed %d (KC_FUZZ_SEED reruns it)", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	g := &gen{r: r}
	kernels := 6
	if s := os.Getenv("KC_FUZZ_KERNELS"); s != "" {
		if _, err := fmt.Sscan(s, &kernels); err != nil {
			t.Fatal(err)
		}
	}
	const n = 128
	rejected := 0
	for run := 0; run < kernels; run++ {
		m := g.kernel()
		if err := ir.Check(m); err != nil {
			rejected++
			if rejected == 1 {
				t.Logf("first kernel the checker rejects (regenerated): %v", err)
			}
			if rejected > 50 {
				t.Fatalf("the checker rejects the generator's kernels: %v\n%s", err, ir.Print(m))
			}
			run--
			continue
		}
		k := m.Kernels[0]
		if run == 0 && testing.Verbose() {
			t.Logf("first kernel:\n%s", ir.Print(m))
		}
		bufs := map[string][]byte{
			"a":   randWords(r, n, func() uint32 { return uint32(int32(edgeInts[r.IntN(len(edgeInts))])) }),
			"b":   randWords(r, n, func() uint32 { return uint32(edgeInts[r.IntN(len(edgeInts))]) }),
			"f":   randWords(r, n, randFloatBits(r)),
			"out": interp.Poison(n * fuzzOuts * 4),
		}
		want := map[string][]byte{}
		for k, v := range bufs {
			want[k] = append([]byte(nil), v...)
		}
		if err := interp.Run(m, "fuzz", [3]int{n / 64, 1, 1}, &interp.Args{Buffers: want}, interp.Options{}); err != nil {
			t.Fatalf("interp: %v\n%s", err, ir.Print(m))
		}
		got := dispatch(t, d, m, k, nil, bufs, [3]int{n / 64, 1, 1})["out"]
		bad := 0
		for w := 0; w < n*fuzzOuts; w++ {
			gw, ew := binary.LittleEndian.Uint32(got[4*w:]), binary.LittleEndian.Uint32(want["out"][4*w:])
			if gw != ew {
				if bad < 4 {
					j := w % fuzzOuts
					t.Errorf("kernel %d, invocation %d, output %d: got %#08x, want %#08x (a=%#x b=%#x f=%#x)", run, w/fuzzOuts, j, gw, ew,
						binary.LittleEndian.Uint32(bufs["a"][4*(w/fuzzOuts):]), binary.LittleEndian.Uint32(bufs["b"][4*(w/fuzzOuts):]),
						binary.LittleEndian.Uint32(bufs["f"][4*(w/fuzzOuts):]))
				}
				bad++
			}
		}
		if bad > 0 {
			a, _ := hlsl.Emit(m, hlsl.Options{Kernel: k.Name}) // dispatch compiled this
			t.Fatalf("kernel %d: %d words differ\n%s\n%s", run, bad, ir.Print(m), a.Code)
		}
	}
	t.Logf("%d kernels agree (%d generated kernels rejected by the checker)", kernels, rejected)
}

func randWords(r *rand.Rand, n int, next func() uint32) []byte {
	b := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := next()
		if r.IntN(3) == 0 {
			v = r.Uint32()
		}
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

// randFloatBits returns floats around the integer ranges' edges, NaN and
// infinities.
func randFloatBits(r *rand.Rand) func() uint32 {
	special := []float32{0, -0.5, 0.5, -1.5, 2147483520, 2147483648, -2147483648, -2147483904, 4294967040, 4294967296,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e20, -1e20, 3.99, -3.99}
	return func() uint32 {
		if r.IntN(2) == 0 {
			return math.Float32bits(special[r.IntN(len(special))])
		}
		return math.Float32bits((r.Float32()*2 - 1) * float32(math.Pow(10, float64(r.IntN(11)))))
	}
}
