package wgsl_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// exprGen writes random, mostly well-typed .kc expressions over a fixed
// set of variables. Modules the checker rejects (a constant overflow, a
// constant zero divisor) are skipped by the caller.
type exprGen struct {
	r *rand.Rand
}

func (g *exprGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *exprGen) expr(t string, depth int) string {
	if depth <= 0 || g.r.IntN(4) == 0 {
		return g.leaf(t)
	}
	d := depth - 1
	switch t {
	case "i32":
		switch g.r.IntN(9) {
		case 0, 1:
			return "(" + g.expr("i32", d) + " " + g.pick("+", "-", "*", "/", "%", "&", "|", "^") + " " + g.expr("i32", d) + ")"
		case 2:
			return "(" + g.expr("i32", d) + " " + g.pick("<<", ">>") + " " + g.expr("u32", d) + ")"
		case 3:
			return g.pick("-", "^") + "(" + g.leaf("i32") + ")"
		case 4:
			return g.pick("abs", "sign", "countOneBits", "reverseBits", "firstLeadingBit", "firstTrailingBit") + "(" + g.expr("i32", d) + ")"
		case 5:
			return g.pick("min", "max") + "(" + g.expr("i32", d) + ", " + g.expr("i32", d) + ")"
		case 6:
			return "select(" + g.expr("bool", d) + ", " + g.expr("i32", d) + ", " + g.expr("i32", d) + ")"
		case 7:
			return g.pick("i32(", "bitcast<i32>(") + g.expr(g.pick("u32", "f32"), d) + ")"
		}
		return "clamp(" + g.expr("i32", d) + ", -5, 5)"
	case "u32":
		switch g.r.IntN(7) {
		case 0, 1:
			return "(" + g.expr("u32", d) + " " + g.pick("+", "-", "*", "/", "%", "&", "|", "^") + " " + g.expr("u32", d) + ")"
		case 2:
			return "(" + g.expr("u32", d) + " " + g.pick("<<", ">>") + " " + g.expr("u32", d) + ")"
		case 3:
			return "^(" + g.leaf("u32") + ")"
		case 4:
			return g.pick("u32(", "bitcast<u32>(") + g.expr(g.pick("i32", "f32"), d) + ")"
		case 5:
			return "select(" + g.expr("bool", d) + ", " + g.expr("u32", d) + ", " + g.expr("u32", d) + ")"
		}
		return g.pick("min", "max") + "(" + g.expr("u32", d) + ", " + g.expr("u32", d) + ")"
	case "f32":
		switch g.r.IntN(8) {
		case 0, 1:
			return "(" + g.expr("f32", d) + " " + g.pick("+", "-", "*", "/") + " " + g.expr("f32", d) + ")"
		case 2:
			return "-(" + g.leaf("f32") + ")"
		case 3:
			return g.pick("exp", "log", "sqrt", "inverseSqrt", "sin", "cos", "tanh", "floor", "ceil", "round", "trunc", "fract", "abs", "sign") + "(" + g.expr("f32", d) + ")"
		case 4:
			return g.pick("pow", "min", "max") + "(" + g.expr("f32", d) + ", " + g.expr("f32", d) + ")"
		case 5:
			return g.pick("fma", "mix", "clamp") + "(" + g.expr("f32", d) + ", " + g.expr("f32", d) + ", " + g.expr("f32", d) + ")"
		case 6:
			return "f32(" + g.expr(g.pick("i32", "u32"), d) + ")"
		}
		return g.pick("dot(", "length_sq(") + g.expr("vec4", d) + ", " + g.expr("vec4", d) + ")"
	case "bool":
		switch g.r.IntN(4) {
		case 0:
			return "(" + g.expr("bool", d) + " " + g.pick("&&", "||", "==", "!=") + " " + g.expr("bool", d) + ")"
		case 1:
			return "!(" + g.leaf("bool") + ")"
		}
		s := g.pick("i32", "u32", "f32")
		return "(" + g.expr(s, d) + " " + g.pick("<", "<=", ">", ">=", "==", "!=") + " " + g.expr(s, d) + ")"
	case "vec4":
		switch g.r.IntN(4) {
		case 0:
			return "(" + g.expr("vec4", d) + " " + g.pick("+", "-", "*") + " " + g.expr("vec4", d) + ")"
		case 1:
			return "(" + g.expr("vec4", d) + " * " + g.expr("f32", d) + ")"
		case 2:
			return "vec4<f32>(" + g.expr("f32", d) + ", " + g.expr("f32", d) + ", " + g.expr("f32", d) + ", " + g.expr("f32", d) + ")"
		}
		return "(" + g.expr("vec4", d) + ")." + g.pick("wzyx", "xxyy", "xyzw")
	}
	panic("type " + t)
}

func (g *exprGen) leaf(t string) string {
	switch t {
	case "i32":
		return g.pick("a", "b", "k", "a", "b", "i32(local_index)", "i32("+fmt.Sprint(g.r.IntN(2001)-1000)+")", "i32(MIN)", "i32(-1)", "i32(0)")
	case "u32":
		return g.pick("c", "d", "n", "c", "d", "global_id.x", "len(out)", "u32("+fmt.Sprint(g.r.IntN(100))+")", "u32(4000000000)", "u32(31)", "u32(0)")
	case "f32":
		return g.pick("x", "y", "s", "v.x", "x", "y", "f32(0.5)", "f32(1e-07)", "f32(-2.25)", "f32(0.1)", "f32(3.4028234663852886e+38)")
	case "bool":
		return g.pick("p", "true", "false", "(a < b)")
	case "vec4":
		return g.pick("v", "vec4<f32>(x)")
	}
	panic("type " + t)
}

// kernel writes one random kernel of n statements.
func (g *exprGen) kernel(n int) string {
	var b strings.Builder
	b.WriteString("const MIN = -2147483648\n\n")
	b.WriteString("kernel rnd(n u32, k i32, s f32, ib read_write []i32, fb read_write []f32, out read_write []u32, vb read_write []vec4<f32>) workgroup(64) {\n")
	b.WriteString("\tlet i = global_id.x\n\tvar a = ib[i]\n\tvar b = ib[i + 1]\n\tvar c = bitcast<u32>(a)\n\tvar d = out[i]\n")
	b.WriteString("\tvar x = fb[i]\n\tvar y = fb[i + 1]\n\tvar p = x < y\n\tvar v = vb[i]\n")
	vars := map[string]string{"i32": "a", "u32": "c", "f32": "x", "bool": "p", "vec4": "v"}
	for j := 0; j < n; j++ {
		t := g.pick("i32", "u32", "f32", "bool", "vec4")
		e := g.expr(t, 4)
		switch g.r.IntN(4) {
		case 0:
			fmt.Fprintf(&b, "\tlet t%d %s = %s\n\t%s = t%d\n", j, strings.Replace(t, "vec4", "vec4<f32>", 1), e, vars[t], j)
		case 1:
			if t == "i32" || t == "u32" {
				fmt.Fprintf(&b, "\t%s %s= %s\n", vars[t], g.pick("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"), e)
				continue
			}
			fmt.Fprintf(&b, "\t%s = %s\n", vars[t], e)
		case 2:
			fmt.Fprintf(&b, "\tfor j%d := 0; j%d < 3; j%d++ {\n\t\tvar w%d %s\n\t\tw%d = %s\n\t\t%s = w%d\n\t}\n", j, j, j, j, strings.Replace(t, "vec4", "vec4<f32>", 1), j, e, vars[t], j)
		default:
			fmt.Fprintf(&b, "\tif %s {\n\t\t%s = %s\n\t}\n", g.expr("bool", 2), vars[t], e)
		}
	}
	b.WriteString("\tib[i] = a + b\n\tout[i] = c + d + select(p, u32(1), u32(0))\n\tfb[i] = x + y\n\tvb[i] = v\n}\n")
	return strings.ReplaceAll(b.String(), "length_sq(", "dot(")
}

// TestRandomKernelsTint emits random kernels (fresh each run; the seed is
// logged) and has Tint and naga validate them all: every module the
// checker accepts must be valid WGSL.
func TestRandomKernelsTint(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if testing.Short() {
		t.Skip("random kernels: not in -short")
	}
	t.Logf("seed %d", seed)
	g := &exprGen{r: rand.New(rand.NewPCG(seed, 7))}
	dir := t.TempDir()
	if keep := os.Getenv("KC_RANDOM_KEEP"); keep != "" {
		dir = keep // keep the files for a look with tools/tint/check.mjs
	}
	var paths []string
	arts := map[string]*emit.Artifact{}
	srcs := map[string]string{}
	rejected := 0
	for i := 0; len(paths) < 60 && i < 400; i++ {
		src := g.kernel(12)
		name := fmt.Sprintf("rnd%03d.kc", i)
		m, err := parse.File(name, []byte(src))
		if err != nil {
			t.Fatalf("generator wrote unparsable .kc (%v):\n%s", err, src)
		}
		if err := ir.Check(m); err != nil {
			rejected++
			if os.Getenv("KC_RANDOM_DEBUG") != "" {
				t.Logf("%s rejected: %v", name, err)
			}
			continue
		}
		a, err := wgsl.Emit(m, wgsl.Options{})
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, src)
		}
		p := filepath.Join(dir, strings.TrimSuffix(name, ".kc")+".wgsl")
		if err := os.WriteFile(p, a.Code, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
		arts[p] = a
		srcs[p] = src
	}
	t.Logf("%d kernels emitted, %d rejected by the checker", len(paths), rejected)
	if len(paths) < 30 {
		t.Fatalf("only %d of the random kernels checked", len(paths))
	}
	msgs, _ := runCheck(t, paths...)
	bad := map[string]bool{}
	for _, m := range msgs {
		if m.kind != "error" || bad[m.file] {
			continue
		}
		bad[m.file] = true
		a := arts[m.file]
		t.Errorf("%s:%d:%d (from %s): %s: %s\n%s\n.kc:\n%s", filepath.Base(m.file), m.line, m.col, a.SourcePos(m.line), m.who, m.text, lineOf(a.Code, m.line), srcs[m.file])
	}
}
