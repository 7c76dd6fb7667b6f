package parse_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// langSrc uses every construct of issue 12 in its text form.
const langSrc = `// Header.

enable f16

const W = [3]f32{0.25, 0.5, 0.25}
const M = [2][2]i32{[2]i32{1, 2}, [2]i32{3, 4}}

// A particle.
struct Particle {
	pos vec3<f32>
	vel vec3<f32>
	flags u32
}

struct Local {
	alive bool
	p Particle
	h [2]f16
}

fn sq(x f32) f32 {
	return x * x
}

precise fn advance(p Particle, dt f32) Particle {
	var q = p
	q.pos += q.vel * dt
	q.pos.x = sq(q.pos.x)
	return q
}

fn touch(y read_write []f32, t shared [4]u32, i u32) {
	y[i] = f32(t[i % 4])
	t[0] = u32(1)
}

precise kernel k(n u32, ps read_write []Particle, y read_write []f32) workgroup(64) {
	shared t [4]u32
	let i = global_id.x
	var l = Local{alive: true, p: ps[i], h: [2]f16{f16(1.0), f16(2.0)}}
	l.p = advance(l.p, 0.5)
	switch i % 4 {
	case 0, 1:
		y[i] = W[i % 3] + f32(M[1][0])
	case 2:
		break
	default:
		// nothing
		touch(y, t, i)
	}
	ps[i] = Particle{pos: l.p.pos, flags: u32(select(l.alive, 1, 0))}
	return
}
`

// TestLangRoundTrip: the new syntax parses, checks, prints canonically and
// reads back as the same module.
func TestLangRoundTrip(t *testing.T) {
	srcs := map[string][]byte{"lang": []byte(langSrc)}
	var paths []string
	for _, name := range []string{"blur_const", "boids_struct", "helpers", "precise_diff", "switch_ops"} {
		paths = append(paths, filepath.Join("..", "..", "testdata", "kernels", name+".kc"))
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs[strings.TrimSuffix(filepath.Base(p), ".kc")] = src
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			m1, err := parse.File(name+".kc", src)
			if err != nil {
				t.Fatalf("parse:\n%v", err)
			}
			out1 := ir.Print(m1)
			m2, err := parse.File(name+".kc", out1)
			if err != nil {
				t.Fatalf("parse of printed text:\n%v\n%s", err, out1)
			}
			if d := cmp.Diff(m1, m2, ignorePos); d != "" {
				t.Errorf("parse(print(m)) differs from m (-first +second):\n%s", d)
			}
			if out2 := ir.Print(m2); !bytes.Equal(out1, out2) {
				t.Errorf("Print is not idempotent:\n%s", cmp.Diff(string(out1), string(out2)))
			}
			if err := ir.Check(m1); err != nil {
				t.Fatalf("check:\n%v", err)
			}
			// Checking does not change the printed text (a struct field
			// parsed as a swizzle becomes a Field, printed the same).
			if out3 := ir.Print(m1); !bytes.Equal(out1, out3) {
				t.Errorf("Check changed the text:\n%s", cmp.Diff(string(out1), string(out3)))
			}
		})
	}
	if want := "precise kernel k(n u32, ps read_write []Particle, y read_write []f32) workgroup(64) {\n"; !strings.Contains(langSrc, want) {
		t.Fatal("langSrc lost its kernel line")
	}
}

// TestLangSyntaxErrors: misuse of the new syntax that the parser reports.
func TestLangSyntaxErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"struct literal without keys", "struct P {\n\ta f32\n}\n\nkernel k() workgroup(1) {\n\tlet p = P{1.0}\n}\n",
			`e.kc:6:12: unexpected number 1.0 (expected a field name or "}" in a P literal)`},
		{"struct as a call", "struct P {\n\ta f32\n}\n\nkernel k() workgroup(1) {\n\tlet p = P(1.0)\n}\n",
			`e.kc:6:11: unexpected "(" (expected "{": P is a struct type, its values are written P{field: value, ...})`},
		{"array literal without length", "kernel k() workgroup(1) {\n\tlet a = []f32{1.0}\n}\n",
			`e.kc:2:10: array literals need a length, as in [4]f32{...}`},
		{"shared kernel parameter", "kernel k(t shared [4]f32) workgroup(1) {\n}\n",
			`e.kc:1:19: kernel parameters cannot be shared: declare shared t in the kernel body`},
		{"struct redeclared", "struct P {\n\ta f32\n}\n\nstruct P {\n\tb f32\n}\n\nkernel k() workgroup(1) {\n}\n",
			`e.kc:5:1: struct P redeclared (previous declaration at e.kc:1:1)`},
		{"case outside switch", "kernel k() workgroup(1) {\n\tcase 1:\n}\n",
			`e.kc:2:2: unexpected keyword case (expected a statement or "}")`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parse.File("e.kc", []byte(c.src))
			if err == nil {
				t.Fatalf("no error")
			}
			if err.Error() != c.want {
				t.Errorf("got  %s\nwant %s", err, c.want)
			}
		})
	}
}
