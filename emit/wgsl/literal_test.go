package wgsl

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

func TestIntLit(t *testing.T) {
	for _, c := range []struct {
		v    int64
		want wx
	}{
		{0, wx{"0i", cPrimary}},
		{5, wx{"5i", cPrimary}},
		{-5, wx{"-5i", cUnary}},
		{math.MaxInt32, wx{"2147483647i", cPrimary}},
		{math.MinInt32 + 1, wx{"-2147483647i", cUnary}},
		{math.MinInt32, wx{"i32(-2147483648)", cPrimary}},
	} {
		if got := intLit(c.v); got != c.want {
			t.Errorf("intLit(%d) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestFloatLitFixed(t *testing.T) {
	for _, c := range []struct {
		v    float64
		s    ir.Scalar
		want string
	}{
		{1, ir.F32, "1.0f"},
		{0.1, ir.F32, "0.1f"},
		{float64(float32(0.1)), ir.F32, "0.1f"},
		{math.Copysign(0, -1), ir.F32, "-0.0f"},
		{1e-5, ir.F32, "1e-05f"},
		{math.MaxFloat32, ir.F32, "3.4028234663852886e+38f"}, // the shortest f32 text lies beyond the maximum
		{0x1p-149, ir.F32, "1e-45f"},
		{16777216, ir.F32, "1.6777216e+07f"},
		{0.5, ir.F16, "0.5h"},
		{65504, ir.F16, "6.55e+04h"},
		{0.0999755859375, ir.F16, "0.1h"},
		{0x1p-24, ir.F16, "6e-08h"},
	} {
		if got := floatLit(c.v, c.s).s; got != c.want {
			t.Errorf("floatLit(%g, %s) = %s, want %s", c.v, c.s, got, c.want)
		}
	}
}

// TestFloatLitRoundTrip spells random f32 and f16 values (fresh each run)
// and reads them back: the value must be the same, bit for bit, and the
// text must lie within the type's finite range (WGSL rejects it otherwise).
func TestFloatLitRoundTrip(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed>>1))
	for i := 0; i < 20000; i++ {
		f := math.Float32frombits(r.Uint32())
		if math.IsInf(float64(f), 0) || math.IsNaN(float64(f)) {
			continue
		}
		text := floatLit(float64(f), ir.F32).s
		back, err := strconv.ParseFloat(strings.TrimSuffix(text, "f"), 64)
		if err != nil || !strings.HasSuffix(text, "f") {
			t.Fatalf("f32 %g spelled %q: %v", f, text, err)
		}
		if math.Float32bits(float32(back)) != math.Float32bits(f) || math.Abs(back) > math.MaxFloat32 {
			t.Fatalf("f32 bits %#08x spelled %q reads back as %g", math.Float32bits(f), text, back)
		}
	}
	for i := 0; i < 1<<16; i++ {
		h := f16Value(uint16(i))
		if math.IsInf(h, 0) || math.IsNaN(h) {
			continue
		}
		text := floatLit(h, ir.F16).s
		back, err := strconv.ParseFloat(strings.TrimSuffix(text, "h"), 64)
		if err != nil || ir.ConvertValue(ir.FloatVal(back), ir.F16).Float != h || math.Signbit(back) != math.Signbit(h) || math.Abs(back) > maxF16 {
			t.Fatalf("f16 bits %#04x (%g) spelled %q reads back as %g (%v)", i, h, text, back, err)
		}
	}
}

// f16Value decodes binary16 bits.
func f16Value(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	exp := int(b>>10) & 0x1f
	frac := float64(b & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

func TestNonFinite(t *testing.T) {
	e := newEmitter(&ir.Module{}, nil, Options{})
	f := &fn{e: e}
	for _, c := range []struct {
		v    float64
		s    ir.Scalar
		want string
	}{
		{math.Inf(1), ir.F32, "kc_f32_bits(0x7f800000u)"},
		{math.Inf(-1), ir.F32, "kc_f32_bits(0xff800000u)"},
		{math.Inf(1), ir.F16, "kc_f16_bits(0x7c00u)"},
		{math.Inf(-1), ir.F16, "kc_f16_bits(0xfc00u)"},
		{math.NaN(), ir.F16, "kc_f16_bits(0x7e00u)"},
	} {
		if got := f.scalarLit(ir.FloatVal(c.v), c.s).s; got != c.want {
			t.Errorf("%g as %s = %s, want %s", c.v, c.s, got, c.want)
		}
	}
	if len(e.helpers) != 2 {
		t.Errorf("%d helpers declared, want 2 (each once)", len(e.helpers))
	}
}

func TestLegalNames(t *testing.T) {
	for in, want := range map[string]string{
		"x": "x", "loop": "loop_", "fn": "fn_", "array": "array_", "select": "select_",
		"read_write": "read_write_", "_": "x_", "__a": "x__a", "kc_t": "xkc_t", "NULL": "NULL_",
	} {
		if got := words.Legal(in); got != want {
			t.Errorf("legal(%q) = %q, want %q", in, got, want)
		}
	}
	n := emit.NewNamer(words)
	inner := n.Scope()
	got := []string{n.Name("a"), n.Name("a"), inner.Name("a"), inner.Name("loop"), inner.Name("loop_"), inner.Name("a_1")}
	want := []string{"a", "a_1", "a_2", "loop_", "loop__1", "a_1_1"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("names %v, want %v", got, want)
			break
		}
	}
}
