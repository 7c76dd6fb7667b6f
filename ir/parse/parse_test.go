package parse_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// ignorePos compares modules up to positions (NaN literals are equal to each other).
var ignorePos = cmp.Options{cmpopts.IgnoreTypes(ir.Pos{}), cmpopts.EquateNaNs()}

// TestRoundTrip: parse -> Print -> parse gives the same module, and Print is
// idempotent, for every test kernel.
func TestRoundTrip(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			m1, err := parse.File(c.Path, c.Src)
			if err != nil {
				t.Fatalf("parse:\n%v", err)
			}
			out1 := ir.Print(m1)
			m2, err := parse.File(c.Path, out1)
			if err != nil {
				t.Fatalf("parse of printed text:\n%v\n%s", err, out1)
			}
			if d := cmp.Diff(m1, m2, ignorePos); d != "" {
				t.Errorf("parse(print(m)) differs from m (-first +second):\n%s", d)
			}
			if out2 := ir.Print(m2); !bytes.Equal(out1, out2) {
				t.Errorf("Print is not idempotent:\n%s", cmp.Diff(string(out1), string(out2)))
			}
		})
	}
}

// TestKernelsKeepComments: every // line of a test kernel survives parse and
// print (as a Doc line or a Comment statement), except trailing ones (after
// the last declaration, where the corpus keeps its //kc:run directives).
func TestKernelsKeepComments(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		m, err := parse.File(c.Path, c.Src)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		out := string(ir.Print(m))
		for _, line := range strings.Split(string(withoutTrailer(c.Src)), "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "//") && !strings.Contains(out, line) {
				t.Errorf("%s: comment %q lost", c.Name, line)
			}
		}
	}
}

// withoutTrailer cuts src after the closing brace of its last declaration.
func withoutTrailer(src []byte) []byte {
	if i := bytes.LastIndex(src, []byte("\n}\n")); i >= 0 {
		return src[:i+3]
	}
	return src
}

// TestBuilderSaxpy: the Go builder and the parser produce the same saxpy.
func TestBuilderSaxpy(t *testing.T) {
	b := ir.NewKernel("saxpy", 64)
	a, n := b.Param("a", ir.F32), b.Param("n", ir.U32)
	x, y := b.Buffer("x", ir.F32, ir.Read), b.Buffer("y", ir.F32, ir.ReadWrite)
	i := b.Let("i", ir.X(ir.Builtin(ir.GlobalID)))
	b.If(ir.Ge(i, n), func() { b.Return() })
	b.Assign(ir.At(y, i), ir.Add(ir.Mul(a, ir.At(x, i)), ir.At(y, i)))
	built := &ir.Module{Kernels: []*ir.Kernel{b.Kernel()}}

	path := filepath.Join(kctest.Root(t), "testdata", "kernels", "saxpy.kc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := parse.File(path, src)
	if err != nil {
		t.Fatal(err)
	}
	// The parser keeps what the author wrote (literal spellings, the run
	// directives after the kernel); the builder has nothing of that.
	opts := cmp.Options{ignorePos, cmpopts.IgnoreFields(ir.Module{}, "File", "Trailer"), cmpopts.IgnoreFields(ir.Kernel{}, "Doc"), cmpopts.IgnoreFields(ir.Lit{}, "Text")}
	if d := cmp.Diff(built, parsed, opts); d != "" {
		t.Errorf("builder and parser disagree (-built +parsed):\n%s", d)
	}
	// The builder's module prints as the kernel's text, minus its doc line
	// and the trailing directives.
	want := string(withoutTrailer(src[bytes.IndexByte(src, '\n')+1:]))
	if got := string(ir.Print(built)); got != want {
		t.Errorf("Print(built):\n%s\nwant:\n%s", got, want)
	}
}

// TestKernelsCheck: every test kernel parses, specialises with its
// //kc:define values and passes ir.Check.
func TestKernelsCheck(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			m := c.Module(t)
			if !m.Checked {
				t.Errorf("Check returned nil but Checked is false")
			}
		})
	}
}

// TestConcurrent: File is safe for concurrent use (run with -race).
func TestConcurrent(t *testing.T) {
	cases := kctest.Cases(t)
	want := make([][]byte, len(cases))
	for i, c := range cases {
		m, err := parse.File(c.Path, c.Src)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = ir.Print(m)
	}
	errc := make(chan error, 16)
	for g := 0; g < 16; g++ {
		go func() {
			for i, c := range cases {
				m, err := parse.File(c.Path, c.Src)
				if err != nil {
					errc <- err
					return
				}
				if !bytes.Equal(ir.Print(m), want[i]) {
					errc <- fmt.Errorf("%s: different result under concurrency", c.Name)
					return
				}
				// An erroneous parse must not leave state behind in a pooled parser.
				if _, err := parse.File("bad.kc", []byte("kernel k() workgroup(1) {\n\tx = foo(1\n}\n")); err == nil {
					errc <- fmt.Errorf("no error for an unclosed call")
					return
				}
			}
			errc <- nil
		}()
	}
	for g := 0; g < 16; g++ {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// TestByteOrderMark: a UTF-8 BOM at the start of a file is ignored (as Go
// does): the file means what it means without it, positions included.
func TestByteOrderMark(t *testing.T) {
	src := "kernel k(y read_write []u32) workgroup(1) {\n\ty[0] = 1\n}\n"
	plain, err := parse.File("a.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	bom, err := parse.File("a.kc", append([]byte("\uFEFF"), src...))
	if err != nil {
		t.Fatalf("file with a byte-order mark: %v", err)
	}
	if d := cmp.Diff(plain, bom, cmpopts.EquateNaNs()); d != "" {
		t.Errorf("the byte-order mark changed the module (-plain +bom):\n%s", d)
	}
	if err := ir.Check(bom); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestForWithoutInit: `for ; cond; post {}` is a loop whose post statement
// updates a variable declared before it (docs/language.md §4: any part of
// the clause may be empty). It checks, prints as written and round-trips.
func TestForWithoutInit(t *testing.T) {
	src := "kernel k(y read_write []u32) workgroup(1) {\n\tvar i u32\n\tfor ; i < 4; i++ {\n\t\ty[i] = i\n\t}\n\tfor ;; i += 2 {\n\t\tbreak\n\t}\n}\n"
	m, out := reprint(t, "a.kc", src)
	if out != src {
		t.Errorf("print:\n%s\nwant:\n%s", out, src)
	}
	if err := ir.Check(m); err != nil {
		t.Fatalf("check: %v", err)
	}
}

// TestFmtKeepsParens: kc fmt keeps the parentheses the author wrote around
// binary expressions, needed or not (as gofmt does), and round-trips.
func TestFmtKeepsParens(t *testing.T) {
	src := "kernel k(a u32, y read_write []u32) workgroup(1) {\n" +
		"\ty[0] = a + (a >> 8) & 255\n" +
		"\ty[1] = u32((a & 3) == 3 && (a > 1))\n" +
		"\ty[2] = (a - 1) - (a - 2) * 2\n" +
		"\ty[3] = (a + 1) * (a | 1)\n" +
		"\ty[4] = min((a + 1), 7)\n" +
		"\tlet b = -(a + 1) + (a + 1).x\n" +
		"}\n"
	if _, out := reprint(t, "p.kc", src); out != src {
		t.Errorf("print changed the parentheses (-source +printed):\n%s", cmp.Diff(src, out))
	}
}

// TestFmtKeepsAllParens: parentheses around any expression (a name, a
// literal, a call, an index, a unary, a conversion, a field, a literal
// of a struct or an array, several pairs) are kept, as gofmt keeps them;
// the text prints as itself, round-trips (go-cmp) and checks.
func TestFmtKeepsAllParens(t *testing.T) {
	src := parensSrc
	m, out := reprint(t, "p.kc", src)
	if d := cmp.Diff(src, out); d != "" {
		t.Errorf("print changed the parentheses (-source +printed):\n%s", d)
	}
	if err := ir.Check(m); err != nil {
		t.Errorf("check: %v", err)
	}
	// Single expressions: the author's pairs beyond the needed one stay.
	for _, c := range []struct{ in, want string }{
		{"-(5)", "-(5)"},
		{"-((5))", "-((5))"},
		{"-(-a)", "-(-a)"},
		{"((-a))", "((-a))"},
		{"(a + 1) * 2", "(a + 1) * 2"},
		{"((a + 1)) * 2", "((a + 1)) * 2"},
		{"(((a)))", "(((a)))"},
		{"a - -1", "a - -1"},
		{"a - (-1)", "a - (-1)"},
		{"-(a)", "-(a)"},
		{"x[0]", "x[0]"},
		{"(x)[(0)]", "(x)[(0)]"},
	} {
		m, err := parse.File("e.kc", []byte("kernel k(a i32, x read []i32, y read_write []i32) workgroup(1) {\n\ty[0] = "+c.in+"\n}\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		e := m.Kernels[0].Body.Stmts[0].(*ir.Assign).RHS
		if got := ir.ExprString(e); got != c.want {
			t.Errorf("%s prints as %s, want %s", c.in, got, c.want)
		}
	}
}

// parensSrc is TestFmtKeepsAllParens' input (also a fuzz seed).
const parensSrc = `struct P {
	v vec2<f32>
	w [2]i32
}

kernel k(a i32, x read []i32, y read_write []i32) workgroup(1) {
	let b = (a)
	let c = (x[0]) + (x[(1)])
	let d = -(b) + ^(c)
	let e = (-d) * ((2))
	let f = (i32(f32(a))) + (min(a, 1)) + i32((len(x)))
	let p = (P{v: (vec2<f32>(1.0)), w: ([2]i32{1, (2)})})
	let g = (p).w[1] + (p.w)[0] + i32((p.v).x) + i32((p.v.y))
	let h = !(b > 0) || (true)
	y[(0)] = (b + c) * (d) + (e) + f + g + select(h, (1), 0)
	let q = (bitcast<u32>(a)) >> (u32(1))
	y[1] = i32((q)) + (-(5)) + (-(-a)) + i32(len((x)))
	var r = 0
	r += (1)
	r++
	r -= ((1))
	y[2] = r
}
`

// TestFmtComments: kc fmt keeps end-of-line comments on their line, /* */
// comments (one line or several) among statements, and comments in the
// parameter list; the canonical text prints as itself, round-trips
// (go-cmp) and printing is idempotent.
func TestFmtComments(t *testing.T) {
	src := commentsSrc
	want := `// header
const N = 4 /* four */
const M = 2 // two

/* kernel doc
   over two lines */
kernel k(
	// the scale
	a f32, // trailing a
	/* the output */
	y read_write []f32, /* after y */
) workgroup(64) { // on the brace
	shared s [64]f32 // shared, moved to the top
	let i = local_index // the index
	/* a block
	   comment over lines */
	s[i] = a /* scaled */
	workgroupBarrier()
	if i < N { // guard
		y[i] = s[i] // store
	} // after the if
	for j := 0; j < M; j++ { /* loop */
		y[i] += 1.0
	}
	// last
}
`
	m, out := reprint(t, "c.kc", src)
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("print (-want +got):\n%s", d)
	}
	// The block comment's lines are still the kernel's Doc, for emitters.
	if d := cmp.Diff([]string{" kernel doc", " over two lines"}, m.Kernels[0].Doc); d != "" {
		t.Errorf("kernel Doc (-want +got):\n%s", d)
	}
	if err := ir.Check(m); err != nil {
		t.Errorf("check: %v", err)
	}
}

// commentsSrc is TestFmtComments' input (also a fuzz seed).
const commentsSrc = `// header
const N = 4 /* four */
const M = 2 // two

/* kernel doc
   over two lines */
kernel k(
	// the scale
	a f32, // trailing a
	/* the output */
	y read_write []f32, /* after y */
) workgroup(64) { // on the brace
	shared s [64]f32 // shared, moved to the top
	let i = local_index // the index
	/* a block
	   comment over lines */
	s[i] = a /* scaled */
	workgroupBarrier()
	if i < N { // guard
		y[i] = s[i] // store
	} // after the if
	for j := 0; j < M; j++ { /* loop */
		y[i] += 1.0
	}
	// last
}
`

// TestFmtSharedComments: kc fmt hoists shared declarations to the top of
// the kernel body with the comments on the lines above each and the one
// after it on its line (// or /* */); the other comments, that of the
// statement before on its line too, stay put. The canonical text prints
// as itself, round-trips and checks.
func TestFmtSharedComments(t *testing.T) {
	src := `kernel k(y read_write []f32) workgroup(64) {
	let i = local_index // the index
	// tile holds a row
	/* of y */
	shared tile [64]f32 /* after tile */
	y[i] = 1.0
	// between
	var j = 0
	shared other [4]f32; // other's

	// sums
	shared sums [2]u32
	tile[i] = y[i] + other[0] + f32(sums[j])
	shared last [1]f32 // at the end
}
`
	want := `kernel k(y read_write []f32) workgroup(64) {
	// tile holds a row
	/* of y */
	shared tile [64]f32 /* after tile */
	shared other [4]f32 // other's
	// sums
	shared sums [2]u32
	shared last [1]f32 // at the end
	let i = local_index // the index
	y[i] = 1.0
	// between
	var j = 0
	tile[i] = y[i] + other[0] + f32(sums[j])
}
`
	m, out := reprint(t, "s.kc", src)
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("print (-want +got):\n%s", d)
	}
	if _, again := reprint(t, "s2.kc", out); again != out {
		t.Errorf("canonical text reprints differently:\n%s", cmp.Diff(out, again))
	}
	sh := m.Kernels[0].Shared
	if len(sh) != 4 {
		t.Fatalf("%d shared, want 4", len(sh))
	}
	if d := cmp.Diff([]string{"// tile holds a row", "/* of y */"}, sh[0].Doc); d != "" || sh[0].Comment != "/* after tile */" {
		t.Errorf("tile: Doc %q (diff %s), Comment %q", sh[0].Doc, d, sh[0].Comment)
	}
	if len(sh[1].Doc) != 0 || sh[1].Comment != "// other's" || len(sh[3].Doc) != 0 || sh[3].Comment != "// at the end" {
		t.Errorf("other, last: %q %q, %q %q", sh[1].Doc, sh[1].Comment, sh[3].Doc, sh[3].Comment)
	}
	if err := ir.Check(m); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestFmtBlockDocs: a /* */ comment above a declaration (the file header
// above enable, a const, a struct, a function, a kernel) stays a block
// comment, beside // lines above the same declaration; a declaration
// documented with // lines only has no DocComments; the text prints as
// itself, round-trips and checks.
func TestFmtBlockDocs(t *testing.T) {
	src := blockDocsSrc
	m, out := reprint(t, "b.kc", src)
	if d := cmp.Diff(src, out); d != "" {
		t.Errorf("print (-source +printed):\n%s", d)
	}
	if err := ir.Check(m); err != nil {
		t.Errorf("check: %v", err)
	}
	if d := cmp.Diff([]string{" the header", " line two"}, m.Doc); d != "" {
		t.Errorf("module Doc (-want +got):\n%s", d)
	}
	if m.Consts[1].DocComments != nil || len(m.Consts[1].Doc) != 1 {
		t.Errorf("const M: Doc %q, DocComments %q; want one line and none", m.Consts[1].Doc, m.Consts[1].DocComments)
	}
	if d := cmp.Diff([]string{"/* a pair */", "// of floats"}, m.Structs[0].DocComments); d != "" {
		t.Errorf("struct DocComments (-want +got):\n%s", d)
	}
}

// blockDocsSrc is TestFmtBlockDocs' input (also a fuzz seed).
const blockDocsSrc = `/* the header
   line two */

enable f16

/* four */
const N = 4
// two
const M = 2

/* a pair */
// of floats
struct P {
	a f32
	b f32
}

// twice
/*
 * doubles x
 */
fn twice(x f32) f32 {
	return 2.0 * x
}

/** the kernel */
kernel k(y read_write []f32) workgroup(64) {
	y[local_index] = twice(f32(N + M))
}
`

// TestFmtKeepsParensCoop: the buffer, offset and stride arguments of
// coopLoad and coopStore keep their parentheses too.
func TestFmtKeepsParensCoop(t *testing.T) {
	src := strings.NewReplacer(
		"(a, workgroup_id.x * 256,", "((a), (workgroup_id.x * 256),",
		"(z), c, n * 16,", "(z), (c), ((n * 16)),",
	).Replace(coopSrc)
	if src == coopSrc || !strings.Contains(src, "((n * 16))") {
		t.Fatal("coopSrc changed: this test's replacements need updating")
	}
	if _, out := reprint(t, "c.kc", src); !strings.Contains(out, "((a), (workgroup_id.x * 256),") || !strings.Contains(out, "(z), (c), ((n * 16)),") {
		t.Errorf("parentheses dropped:\n%s", out)
	}
}

// TestFmtKeepsLiteralsAndTrailer: kc fmt prints literals as written (hex,
// float spellings, a folded minus) and keeps the comments after the last
// declaration, where run directives live, with the blank line before them.
func TestFmtKeepsLiteralsAndTrailer(t *testing.T) {
	const src = `kernel k(x read []u32, y read_write []u32, f read_write []f32) workgroup(1) {
	y[0] = x[0] ^ 0x5a5a5a5a
	y[1] = x[1] & 0XFF
	f[0] = f32(y[0] >> 8) / 16777216.0
	f[1] = 1e-5 + 2.50 + -0x10
}

// How it runs:
//kc:run len(x)=4 len(y)=4 len(f)=2 grid=1
/* and a block */
`
	m, out := reprint(t, "l.kc", src)
	if d := cmp.Diff(src, out); d != "" {
		t.Errorf("print changed the source (-source +printed):\n%s", d)
	}
	if err := ir.Check(m); err != nil {
		t.Errorf("check: %v", err)
	}
}

// TestFmtKeepsRunDirectives: formatting any corpus kernel keeps every one
// of its //kc: directive lines, in order.
func TestFmtKeepsRunDirectives(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		m, err := parse.File(c.Path, c.Src)
		if err != nil {
			t.Fatal(err)
		}
		var want, got []string
		for _, l := range strings.Split(string(c.Src), "\n") {
			if strings.HasPrefix(l, "//kc:") {
				want = append(want, l)
			}
		}
		for _, l := range strings.Split(string(ir.Print(m)), "\n") {
			if strings.HasPrefix(l, "//kc:") {
				got = append(got, l)
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: kc fmt changed the directives (-source +printed):\n%s", c.Name, d)
		}
	}
}

// reprint parses src and prints it, and checks that the printed text
// parses to the same module (go-cmp, positions aside) and prints as itself
// again. It returns the first module and its printed text.
func reprint(t *testing.T, name, src string) (*ir.Module, string) {
	t.Helper()
	m, err := parse.File(name, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	out := string(ir.Print(m))
	m2, err := parse.File(name, []byte(out))
	if err != nil {
		t.Fatalf("printed text: %v\n%s", err, out)
	}
	if d := cmp.Diff(m, m2, ignorePos); d != "" {
		t.Errorf("round trip (-first +second):\n%s", d)
	}
	if out2 := string(ir.Print(m2)); out2 != out {
		t.Errorf("not idempotent (-first +second):\n%s", cmp.Diff(out, out2))
	}
	return m, out
}
