package spirv

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// bf16RoundSrc converts f32 to bf16 and back, giving the bits as u32.
const bf16RoundSrc = `enable bf16
kernel tobf(x read []f32, y read_write []u32) workgroup(64) {
	let i = global_id.x
	y[i] = bitcast<u32>(f32(bf16(x[i])))
}
`

// refBF16 rounds f to the nearest bfloat16, ties to even, from the two
// bf16 neighbours of f in float64 (not the bit trick the emitter and the
// interpreter use), returned as the f32 bits of the result.
func refBF16(f float32) uint32 {
	b := math.Float32bits(f)
	lo := b &^ 0xffff // toward zero
	if f != f || lo == b {
		return b
	}
	hi := lo + 0x10000 // away from zero: the next binade, or Inf on a carry
	l, h := float64(math.Float32frombits(lo)), float64(math.Float32frombits(hi))
	if math.IsInf(h, 0) {
		h = math.Copysign(math.Ldexp(1, 128), h) // Inf rounds as 2^128 would
	}
	dl, dh := math.Abs(float64(f)-l), math.Abs(h-float64(f))
	if dl < dh || dl == dh && lo&0x10000 == 0 {
		return lo
	}
	return hi
}

// TestBF16ConversionRoundsToNearestEven: f32 -> bf16 in the emitted SPIR-V
// rounds to nearest even even where OpFConvert rounds toward zero (the
// test evaluator's OpFConvert to bf16 truncates, as NVIDIA's driver does),
// bit for bit against a float64 reference and the interpreter, on exact
// ties (both parities), the largest finite values, Inf, NaN, subnormals and
// fresh random values of every magnitude.
func TestBF16ConversionRoundsToNearestEven(t *testing.T) {
	m, err := parse.File("tobf.kc", []byte(bf16RoundSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	k := m.Kernels[0]
	mod, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	edge := []uint32{0, 0x80000000, 0x3f808000, 0x3f818000, 0xbf808000, 0xbf818000, 0x3f808001, 0x3f807fff,
		0x7f7fffff, 0xff7fffff, 0x7f7f8000, 0x7f7e8000, 0x7f7f7fff, 0x7f800000, 0xff800000, 0x7fc00000,
		0x7f800001, 0xffffffff, 0x00000001, 0x00008000, 0x00018000, 0x0000ffff, 0x007fffff, 0x807fffff}
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	const n = 64 * 64
	xs := make([]uint32, n)
	for i := range xs {
		switch {
		case i < len(edge):
			xs[i] = edge[i]
		case i%4 == 0: // an exact tie at a random value
			xs[i] = r.Uint32()&^0xffff | 0x8000
		default:
			xs[i] = r.Uint32()
		}
	}
	in, out := make([]*val, n), make([]*val, n)
	for i, x := range xs {
		in[i], out[i] = &val{s: x}, &val{s: poison}
	}
	ev, err := newSpeval(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	if err := ev.run("tobf", [3]uint32{n / 64, 1, 1}, nil, map[uint32][]*val{uint32(ir.BufferBinding(k, ir.Buffers(k)[0])): in, uint32(ir.BufferBinding(k, ir.Buffers(k)[1])): out}); err != nil {
		t.Fatalf("evaluating the SPIR-V: %v", err)
	}
	fs := make([]float32, n)
	for i, x := range xs {
		fs[i] = math.Float32frombits(x)
	}
	args := &interp.Args{Buffers: map[string][]byte{"x": interp.Encode(fs), "y": interp.Poison(4 * n)}}
	if err := interp.Run(m, "tobf", [3]int{n / 64, 1, 1}, args, interp.Options{}); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, x := range xs {
		got := out[i].s
		want := refBF16(fs[i])
		it := uint32(args.Buffers["y"][4*i]) | uint32(args.Buffers["y"][4*i+1])<<8 | uint32(args.Buffers["y"][4*i+2])<<16 | uint32(args.Buffers["y"][4*i+3])<<24
		if isNaN32(x) {
			if !isNaN32(got) || !isNaN32(it) || got>>31 != x>>31 {
				t.Errorf("bf16(%#08x) (NaN): spirv %#08x, interp %#08x, want a NaN of the same sign", x, got, it)
			}
			continue
		}
		if got != want || it != want {
			if bad++; bad <= 10 {
				t.Errorf("bf16(%#08x = %g): spirv %#08x, interp %#08x, want %#08x", x, fs[i], got, it, want)
			}
		}
	}
}

// TestBF16ZeroMatrix: a bf16 matrix variable without an initializer (the
// zero matrix) lowers with a constant of the bfloat16 type instead of
// failing with an internal error (constants round by ir.BF16Bits:
// TestBF16Bits).
func TestBF16ZeroMatrix(t *testing.T) {
	m := coopModule(t, `enable bf16
enable cooperative_matrix

kernel z(h read []bf16, c read_write []f32, n u32) workgroup(32) {
	var a coopmat<bf16, 16, 16, a>
	if n > 0 {
		a = coopLoad<coopmat<bf16, 16, 16, a>>(h, 0, 16, row_major)
	}
	let b = coopmat<bf16, 16, 16, b>(1.5)
	coopStore(coopMulAdd(a, b, coopmat<f32, 16, 16, acc>(0.0)), c, 0, 16, row_major)
}
`)
	mod, err := Emit(m, Options{Version: V1_6, CoopMat: CoopMatKHR})
	if err != nil {
		t.Fatal(err)
	}
	text, err := Disassemble(mod.Words)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "OpConstant %bfloat16 0") {
		t.Errorf("no bf16 constant 0 in\n%s", text)
	}
}
