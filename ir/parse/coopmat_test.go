package parse_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// coopSyntaxErrors: malformed cooperative-matrix syntax, exact diagnostics.
var coopSyntaxErrors = []struct {
	name, body, want string
}{
	{"zero rows", "var m coopmat<f32, 0, 16, acc>", "e.kc:2:21: the rows of a cooperative matrix must be a positive integer literal, not 0"},
	{"bad use", "let m = coopmat<f32, 16, 16, c>(0.0)", "e.kc:2:31: c is not a matrix use: want a, b or acc"},
	{"too few args", "var m coopmat<f32, 16, acc>", "e.kc:2:8: coopmat takes 4 arguments (coopmat<T, rows, cols, a|b|acc>), not 3"},
	{"bad elem", "var m coopmat<vec4, 16, 16, a>", "e.kc:2:16: vec4 is not an element type: coopmat<T, rows, cols, a|b|acc> (T is f16, bf16, f32, i8, u8, i32 or u32)"},
	{"i16", "let m = coopmat<i16, 16, 16, a>(0)", "e.kc:2:18: i16 is not an element type: coopmat<T, rows, cols, a|b|acc> (T is f16, bf16, f32, i8, u8, i32 or u32)"},
	{"bad layout", "let m = coopLoad<coopmat<f32, 16, 16, a>>(x, 0, 16, rows)", "e.kc:2:10: the layout of coopLoad is row_major or col_major, not rows"},
	{"load needs a name", "let m = coopLoad<coopmat<f32, 16, 16, a>>(x[0], 0, 16, row_major)", "e.kc:2:10: coopLoad takes the name of a buffer or shared array, not x[0]"},
	{"store arity", "coopStore(m, y, 0, row_major)", "e.kc:2:2: coopStore takes 5 arguments (matrix, buffer or shared array, offset, stride, row_major or col_major), not 4"},
	{"store has no value", "let v = coopStore(m, y, 0, 16, row_major)", "e.kc:2:10: coopStore(...) is a statement and has no value"},
	{"type without value", "let m = coopmat<f32, 16, 16, acc>", `e.kc:2:35: unexpected newline (expected "(": coopmat<f32, 16, 16, acc> is a type, its values are built as coopmat<f32, 16, 16, acc>(x))`},
	{"muladd arity", "let m = coopMulAdd(a, b)", "e.kc:2:10: coopMulAdd takes 3 arguments (a, b, c), not 2"},
	{"reserved name", "let coopLoad = 1", "e.kc:2:2: cannot use the predeclared name coopLoad as a name"},
}

func TestCoopMatSyntaxErrors(t *testing.T) {
	for _, c := range coopSyntaxErrors {
		t.Run(c.name, func(t *testing.T) {
			src := "kernel k(x read []f32, y read_write []f32) workgroup(32) {\n\t" + c.body + "\n}\n"
			m, err := parse.File("e.kc", []byte(src))
			if err == nil {
				t.Fatalf("no error; parsed as:\n%s", ir.Print(m))
			}
			if got := err.Error(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

const coopSrc = `enable f16
enable bf16
enable cooperative_matrix

kernel k(a read []f16, b read []bf16, c read_write []f32, n u32) workgroup(32) {
	shared t [256]f16
	var acc coopmat<f32, 16, 16, acc>
	let x = coopLoad<coopmat<f16, 16, 16, a>>(a, workgroup_id.x * 256, 16, row_major)
	let y = coopLoad<coopmat<f16, 16, 16, b>>(t, 0, 16, col_major)
	acc = coopMulAdd(x, y, acc * 0.5) + coopmat<f32, 16, 16, acc>(1.0)
	let z = coopmat<bf16, 16, 16, acc>(-acc / 2.0)
	coopStore(coopmat<f32, 16, 16, acc>(z), c, n * 16, n, col_major)
	c[0] = f32(coopLength(z)) + f32(b[0])
}
`

// TestCoopMatRoundTrip: print(parse(src)) == src and parse(print(m)) == m.
func TestCoopMatRoundTrip(t *testing.T) {
	m, err := parse.File("r.kc", []byte(coopSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	text := string(ir.Print(m))
	if text != coopSrc {
		t.Errorf("print differs (-want +got):\n%s", cmp.Diff(coopSrc, text))
	}
	m2, err := parse.File("r.kc", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m2); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(m, m2, ignorePos); d != "" {
		t.Errorf("parse(print(m)) differs from m:\n%s", d)
	}
}
