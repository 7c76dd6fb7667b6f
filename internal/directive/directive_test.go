package directive_test

import (
	"testing"

	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/ir/parse"
)

const saxpy = `kernel saxpy(a f32, n u32, x read []f32, y read_write []f32) workgroup(64) {
	let i = global_id.x
	if i < n {
		y[i] = a * x[i] + y[i]
	}
}
`

// TestParseErrors: every bad directive is an error at its field.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ dir, want string }{
		{"//kc:frobnicate x", "k.kc:8:1: unknown directive //kc:frobnicate (known: define, run, skip-naga, targets)"},
		{"//kc:run", "k.kc:8:1: //kc:run says nothing (want KEY=VALUE fields)"},
		{"//kc:run n", `k.kc:8:10: //kc:run field "n" is not KEY=VALUE`},
		{"//kc:run n=1 n=2", "k.kc:8:14: n given twice (first at k.kc:8:10)"},
		{"//kc:run grid=ceil(n/64", `k.kc:8:24: want ")" in expression "ceil(n/64"`},
		{"//kc:run grid=1,2,3,4", "k.kc:8:15: grid has 4 dimensions, at most 3"},
		{"//kc:run n=1 grid=sqrt(n)", "k.kc:8:19: unknown function sqrt (known: ceil, floor, min, max, len)"},
		{"//kc:run len(x)=n+", `k.kc:8:19: expression ends early: "n+"`},
		{"//kc:run fill(x)=lots", `k.kc:8:18: unknown fill "lots" (want random, poison, zero, edge, wide or LO..HI)`},
		{"//kc:run fill(x)=2..1", `k.kc:8:18: fill range 2..1 is empty`},
		{"//kc:run tol(y)=ulp:x", `k.kc:8:17: bad tolerance "ulp:x" (want exact, or ulp:N and/or abs:X joined by ",")`},
		{"//kc:run f32bits(y)=1,9/8", `k.kc:8:21: bad slot "9" in "1,9/8" (want 0 <= slot < 8)`},
		{"//kc:run size(x)=3", "k.kc:8:10: unknown //kc:run key size(...) (known: len, fill, tol, f32bits)"},
		{"//kc:define N", `k.kc:8:13: //kc:define wants NAME=VALUE, not "N"`},
	} {
		_, err := directive.Parse("k.kc", []byte(saxpy+"\n"+c.dir+"\n"))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.dir, err, c.want)
		}
	}
}

// TestCheckErrors: directives that do not fit the kernel are errors at
// their field, or at the kernel's first //kc:run line for what is missing.
func TestCheckErrors(t *testing.T) {
	for _, c := range []struct{ dir, want string }{
		{"//kc:run a=1 n=4 len(x)=n len(y)=n grid=1 m=3", "k.kc:8:45: kernel saxpy has no scalar parameter m"},
		{"//kc:run a=1 n=4 x=4 len(x)=n len(y)=n grid=1", "k.kc:8:20: kernel saxpy has no scalar parameter x (x is a buffer: use len(x)=N)"},
		{"//kc:run a=1 n=4 len(x)=n len(y)=n len(z)=1 grid=1", "k.kc:8:36: kernel saxpy has no buffer z"},
		{"//kc:run a=1 n=4 len(x)=n grid=1", "k.kc:8:1: //kc:run for kernel saxpy gives no len(y)"},
		{"//kc:run a=1 len(x)=4 len(y)=4 grid=1", "k.kc:8:1: //kc:run for kernel saxpy gives no value for parameter n"},
		{"//kc:run a=1 n=4 len(x)=n len(y)=n", "k.kc:8:1: //kc:run for kernel saxpy gives no grid"},
		{"//kc:run kernel=other a=1", "k.kc:8:1: //kc:run names kernel other, which the file lacks"},
		{"//kc:run a=1 n=4 len(x)=n len(y)=m grid=1", "k.kc:8:34: unknown name m (not a scalar param of kernel saxpy or a constant)"},
		{"//kc:run a=1 n=len(x) len(x)=4 len(y)=4 grid=1", "k.kc:8:16: len(x) is known only in the grid"},
		{"//kc:run a=1 n=4 len(x)=4 len(y)=4 grid=ceil(len(z)/64)", "k.kc:8:50: kernel saxpy has no buffer z"},
		{"//kc:run a=1 n=4 len(x)=n len(y)=n grid=1 f32bits(y)=0/2", "k.kc:8:43: f32bits(y): y already holds floats"},
	} {
		src := []byte(saxpy + "\n" + c.dir + "\n")
		f, err := directive.Parse("k.kc", src)
		if err != nil {
			t.Fatalf("%s: %v", c.dir, err)
		}
		m, err := parse.Load("k.kc", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Check(m); err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.dir, err, c.want)
		}
	}
}

// TestParse: a file's directives, CRLF line ends included.
func TestParse(t *testing.T) {
	src := "//kc:define A=1 B=2\r\n//kc:targets wgsl spirv\r\n//kc:skip-naga old naga\r\n" + saxpy +
		"//kc:run a=-1..1 n=4 len(x)=n\r\n//kc:run len(y)=2*n grid=ceil(n/64),1 tol(y)=ulp:2,abs:1e-6 fill(x)=edge\r\n"
	f, err := directive.Parse("k.kc", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r := f.Runs[""]
	if f.Defines["A"] != "1" || f.Defines["B"] != "2" || len(f.Targets) != 2 || f.SkipNaga != "old naga" || r == nil ||
		len(r.Grid) != 2 || r.Params["a"].Lo == nil || r.Lens["y"].Expr.Text != "2*n" ||
		r.Tols["y"] != (directive.Tol{ULP: 2, Abs: 1e-6}) || r.Fills["x"].Mode != "edge" || r.Pos.Line != 10 {
		t.Errorf("parsed %+v, run %+v", f, r)
	}
}
