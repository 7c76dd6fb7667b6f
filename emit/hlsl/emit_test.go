package hlsl

import (
	"bytes"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestDeterministic emits every corpus module several times, concurrently
// and from freshly parsed modules, and wants identical bytes.
func TestDeterministic(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		if !c.Wants("hlsl") {
			continue
		}
		m := c.Module(t)
		first, err := Emit(m, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		var wg sync.WaitGroup
		outs := make([][]byte, 4)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mod := m
				if i%2 == 1 {
					mod = c.Module(t)
				}
				a, err := Emit(mod, Options{})
				if err != nil {
					t.Error(err)
					return
				}
				outs[i] = a.Code
			}()
		}
		wg.Wait()
		for i, o := range outs {
			if !bytes.Equal(o, first.Code) {
				t.Errorf("%s: emission %d differs from the first", c.Name, i)
			}
		}
		if len(first.Lines) != bytes.Count(first.Code, []byte("\n")) {
			t.Errorf("%s: %d line positions for %d lines", c.Name, len(first.Lines), bytes.Count(first.Code, []byte("\n")))
		}
	}
}

// TestLinePositions checks that every positioned output line lies under a
// #line directive that names its .kc line exactly.
func TestLinePositions(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		if !c.Wants("hlsl") {
			continue
		}
		a, err := Emit(c.Module(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(a.Code), "\n")
		logical := 0
		directive := regexp.MustCompile(`^#line (\d+) "` + regexp.QuoteMeta(c.Name) + `\.kc"$`)
		for i, l := range lines[:len(lines)-1] {
			if m := directive.FindStringSubmatch(l); m != nil {
				logical, _ = strconv.Atoi(m[1])
				continue
			}
			if p := a.Lines[i].Pos; p.IsValid() && p.Line != logical {
				t.Errorf("%s: output line %d (%q) is .kc line %d but the compiler would call it %d", c.Name, i+1, l, p.Line, logical)
			}
			if logical > 0 {
				logical++
			}
		}
		plain, err := Emit(c.Module(t), Options{NoLineDirectives: true})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(plain.Code, []byte("#line")) {
			t.Errorf("%s: NoLineDirectives output has #line", c.Name)
		}
	}
}

// TestRefusesUnchecked: an unchecked module is an error, not a crash.
func TestRefusesUnchecked(t *testing.T) {
	b := ir.NewKernel("k", 1)
	m := &ir.Module{File: "k.kc", Kernels: []*ir.Kernel{b.Kernel()}}
	_, err := Emit(m, Options{})
	if err == nil || err.Error() != "hlsl: the module has not been checked (call ir.Check first)" {
		t.Fatalf("got %v", err)
	}
	if _, err := Emit(nil, Options{}); err == nil {
		t.Fatal("nil module: no error")
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	if _, err := Emit(m, Options{Kernel: "nope"}); err == nil || err.Error() != `hlsl: no kernel "nope" in k.kc` {
		t.Fatalf("got %v", err)
	}
}

func TestLegalize(t *testing.T) {
	for in, want := range map[string]string{
		"x": "x", "out": "out_", "in": "in_", "line": "line_", "float4": "float4_",
		"half": "half_", "lerp": "lerp_", "kc_t0": "u_kc_t0", "KC_x": "u_KC_x",
		"gl_Foo": "u_gl_Foo", "__x": "u___x", "SV_Target": "u_SV_Target",
		"main": "main", "sample": "sample_", "WaveActiveSum": "WaveActiveSum_",
		"uint2x3": "uint2x3_", "packoffset": "packoffset_", "π": "_u3c0_",
	} {
		if got := words.Legal(in); got != want {
			t.Errorf("Legal(%q) = %q, want %q", in, got, want)
		}
	}
	n := emit.NewNamer(words)
	got := []string{n.Name("x"), n.Name("x"), n.Name("out"), n.Name("out_"), n.Name("x_1")}
	want := []string{"x", "x_1", "out_", "out__1", "x_1_1"}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("namer: got %v, want %v", got, want)
			break
		}
	}
}

// TestReservedNames builds a kernel whose parameters and locals take HLSL's
// reserved words and kc's prefixes, and checks that none is declared under
// its own spelling.
func TestReservedNames(t *testing.T) {
	b := ir.NewKernel("line", 8)
	out := b.Buffer("out", ir.I32, ir.ReadWrite)
	in := b.Buffer("in", ir.I32, ir.Read)
	s := b.Param("sample", ir.I32)
	i := b.Let("float4", ir.X(ir.Builtin(ir.GlobalID)))
	v := b.Var("kc_t0", ir.I32, ir.Add(ir.At(in, i), s))
	w := b.Let("main", ir.Mul(v, ir.Int(3)))
	b.Assign(ir.At(out, i), ir.Div(w, ir.At(in, ir.Int(0))))
	m := &ir.Module{File: "names.kc", Kernels: []*ir.Kernel{b.Kernel()}}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	a, err := Emit(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	code := string(a.Code)
	for _, bad := range []string{` out :`, ` in :`, `int sample;`, `uint float4 =`, `int kc_t0 =`, `void line(`} {
		if strings.Contains(code, bad) {
			t.Errorf("output declares a reserved name: %q in\n%s", bad, code)
		}
	}
	for _, good := range []string{` out_ :`, ` in_ :`, `int sample_;`, `uint float4_ =`, `int u_kc_t0 =`, `int main =`, `void line_(`} {
		if !strings.Contains(code, good) {
			t.Errorf("output lacks %q:\n%s", good, code)
		}
	}
	if a.Entries[0].Name != "line_" || a.Entries[0].Kernel != "line" {
		t.Errorf("entry = %+v", a.Entries[0])
	}
	compileAll(t, a)
}

// TestFloatLiterals: every spelled f32 reads back as the same float when
// parsed as a double and rounded to float (what dxc and glslang do).
func TestFloatLiterals(t *testing.T) {
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	check := func(f float32) {
		s := floatLit(f)
		if strings.HasPrefix(s, "asfloat(") {
			if !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) {
				t.Errorf("floatLit(%g) = %s", f, s)
			}
			return
		}
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "f"), 64)
		if err != nil || math.Float32bits(float32(p)) != math.Float32bits(f) {
			t.Errorf("floatLit(%g) = %s reads back as %g", f, s, float32(p))
		}
		if !strings.ContainsAny(s, ".e") {
			t.Errorf("floatLit(%g) = %s is not a float literal", f, s)
		}
	}
	for i := 0; i < 20000; i++ {
		check(math.Float32frombits(r.Uint32()))
	}
	for _, f := range []float32{0, 1, -1, 0.1, 1e-45, 3.4028235e38, -0.0, float32(math.Inf(1))} {
		check(f)
	}
	if got := scalarLit(ir.IntVal(math.MinInt32), ir.I32); got != "int(0x80000000u)" {
		t.Errorf("i32 MIN = %s", got)
	}
	if got := scalarLit(ir.IntVal(4294967295), ir.U32); got != "4294967295u" {
		t.Errorf("u32 MAX = %s", got)
	}
	if got := scalarLit(ir.FloatVal(math.Inf(-1)), ir.F32); got != "asfloat(0xff800000u)" {
		t.Errorf("-inf = %s", got)
	}
}

// halves returns every finite non-negative binary16 value, ascending.
func halves() []float64 {
	var out []float64
	for b := 0; b < 0x7c00; b++ {
		e, m := b>>10, b&0x3ff
		if e == 0 {
			out = append(out, math.Ldexp(float64(m), -24))
		} else {
			out = append(out, math.Ldexp(float64(m|0x400), e-25))
		}
	}
	return out
}

// TestRoundF16 compares roundF16 with a search over every half: nearest,
// ties to the even bit pattern, overflow to infinity past 65520.
func TestRoundF16(t *testing.T) {
	hs := halves()
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	ref := func(x float64) float64 {
		a := math.Abs(x)
		if a >= 65520 {
			return math.Copysign(math.Inf(1), x)
		}
		i := sort.SearchFloat64s(hs, a) // hs[i] >= a
		if i == len(hs) {
			return math.Copysign(hs[len(hs)-1], x)
		}
		best := i
		if i > 0 {
			lo, hi := a-hs[i-1], hs[i]-a
			if lo < hi || lo == hi && (i-1)%2 == 0 {
				best = i - 1
			}
		}
		return math.Copysign(hs[best], x)
	}
	try := func(x float64) {
		if got, want := roundF16(x), ref(x); got != want && !(got == 0 && want == 0) {
			t.Errorf("roundF16(%g) = %g, want %g", x, got, want)
		}
	}
	for i := 0; i < 20000; i++ {
		switch i % 3 {
		case 0:
			try((r.Float64()*2 - 1) * 70000)
		case 1:
			try(math.Ldexp(r.Float64(), -r.IntN(30)))
		default: // exact midpoints between neighbours
			j := r.IntN(len(hs) - 1)
			try((hs[j] + hs[j+1]) / 2)
		}
	}
	for _, x := range []float64{65504, 65519.99, 65520, 1e-8, 2.9802322387695312e-08, -0.0} {
		try(x)
	}
}

// BenchmarkEmit emits the whole corpus (every kernel wanting hlsl) once per
// iteration, in process.
func BenchmarkEmit(b *testing.B) {
	var mods []*ir.Module
	for _, c := range kctest.Cases(b) {
		if c.Wants("hlsl") {
			mods = append(mods, c.Module(b))
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, m := range mods {
			if _, err := Emit(m, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCommentBackslash: a .kc comment ending in a backslash must not splice
// the next HLSL line into the comment.
func TestCommentBackslash(t *testing.T) {
	src := "kernel k(y read_write []u32) workgroup(1) {\n\t// a Windows path C:\\temp\\\n\ty[0] = 7\n}\n"
	a, err := Emit(loadSrc(t, "c.kc", src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(a.Code), "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " \t"), "\\") {
			t.Errorf("line ends in a backslash: %q", l)
		}
	}
	if !strings.Contains(string(a.Code), "// a Windows path C:\\temp\n\ty[0] = 7u;") {
		t.Errorf("output:\n%s", a.Code)
	}
}

// TestSharedComments: the comments written with a shared declaration
// (ir.Shared.Doc above it, Comment after it on its line) are printed with
// the groupshared declaration, not lost and not left in the body; a
// trailing backslash cannot splice the next line into them.
func TestSharedComments(t *testing.T) {
	src := `kernel k(y read_write []f32) workgroup(64) {
	let i = local_index
	// tile holds a row
	/* of y \ */
	shared tile [64]f32 /* after tile */
	tile[i] = y[i]
	workgroupBarrier()
	y[i] = tile[63 - i]
}
`
	a, err := Emit(loadSrc(t, "sc.kc", src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "\n// tile holds a row\n// of y\ngroupshared float tile[64]; // after tile\n"
	if got := string(a.Code); !strings.Contains(got, want) || strings.Count(got, "tile holds") != 1 {
		t.Errorf("want the shared declaration as\n%s\nin\n%s", want, got)
	}
}
