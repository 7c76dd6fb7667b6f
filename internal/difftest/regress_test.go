package difftest

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// regressions are seeds that once made a path disagree with the
// interpreter through a bug of kc, replayed on every run. A seed names a
// kernel only for the generator version that found it: when internal/irgen
// changes what a seed generates, move the case's kernel text to a test
// like TestReassociation instead.
//
// Past findings, none a bug of an emitter (docs/difftest.md, Findings):
// seed 10717868924794383753 on hlsl-glslang-vulkan at commit 772b6b7
// (lavapipe reassociates float +/-: TestReassociation keeps its kernel).
var regressions = []struct {
	seed  uint64
	path  string // a name in paths
	stmts int    // -stmts it was found with (0: default)
	depth int    // -depth it was found with (0: default)
	what  string // the bug and where it was fixed
}{}

// TestRegressions replays the regression seeds.
func TestRegressions(t *testing.T) {
	for _, r := range regressions {
		for _, p := range paths {
			if p.name != r.path {
				continue
			}
			d := device(t, p.driver)
			cfg := p.config(d.Info())
			cfg.Stmts, cfg.Depth = r.stmts, r.depth
			if msg := runSeed(d, p, r.seed, cfg); msg != "" {
				t.Errorf("regression (%s): %s", r.what, msg)
			}
		}
	}
}

// reassocSrc is the reduced kernel of finding 1: with x = 0x3fc909fe and
// t = 3, IEEE order rounds x*0.5 - 3 first.
const reassocSrc = `kernel k(x read []f32, c read []u32, y read_write []f32) workgroup(1) {
	var t f32
	if c[0] >= 2 {
		t = 3.0
	}
	y[0] = x[0] * 0.5 - t + t
}
`

// TestReassociation runs finding 1's kernel on every path: the
// interpreter must give the IEEE result and a device either that or the
// reassociated x*0.5 (lavapipe does the latter on every path, which
// docs/semantics.md does not allow yet); anything else fails.
func TestReassociation(t *testing.T) {
	const ieee, reassoc = 0x3f490a00, 0x3f4909fe
	m, err := parse.File("reassoc.kc", []byte(reassocSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	x := interp.Encode([]float32{math.Float32frombits(0x3fc909fe)})
	c := interp.Encode([]uint32{5})
	y := interp.Encode([]float32{-1, -1, -1, -1})
	want := append([]byte(nil), y...)
	if err := interp.Run(m, "k", [3]int{1, 1, 1}, &interp.Args{Buffers: map[string][]byte{"x": x, "c": c, "y": want}}, interp.Options{Races: true}); err != nil {
		t.Fatal(err)
	}
	if w := binary.LittleEndian.Uint32(want); w != ieee {
		t.Fatalf("interpreter: %#x, want %#x", w, ieee)
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			d, out := dispatchOn(t, p, m, map[string][]byte{"x": x, "c": c, "y": y}, 1)
			got := out["y"]
			switch g := binary.LittleEndian.Uint32(got); g {
			case ieee:
				t.Logf("%s: IEEE order (%#x)", d.Info().Name, g)
			case reassoc:
				t.Logf("%s: reassociated (%#x, IEEE gives %#x)", d.Info().Name, g, ieee)
			default:
				t.Errorf("got %#x, want %#x (IEEE) or %#x (reassociated)", g, ieee, reassoc)
			}
		})
	}
}

// packFoldSrc is the reduced kernel of finding 4: the round trip of a
// value the compiler can prove constant (t is 0, so the operand is
// 0x3bff3bff, two finite halves) is exactly that value.
const packFoldSrc = `kernel k(y read_write []u32) workgroup(1) {
	var t u32
	y[0] = pack2x16float(unpack2x16float(^t & 0x3bff3bff))
}
`

// TestPackFold runs finding 4's kernel on every path: the interpreter
// must give the exact round trip, a device either that or what lavapipe
// (Mesa 22.3.6) folds it to, the low half alone, on every path; anything
// else fails. The generator keeps its round trips unfoldable (irgen's
// packRoundTrip).
func TestPackFold(t *testing.T) {
	const exact, lowHalf = 0x3bff3bff, 0x3bff
	m, err := parse.File("packfold.kc", []byte(packFoldSrc))
	if err != nil {
		t.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		t.Fatal(err)
	}
	want := interp.Encode([]uint32{0xdeadbeef})
	if err := interp.Run(m, "k", [3]int{1, 1, 1}, &interp.Args{Buffers: map[string][]byte{"y": want}}, interp.Options{Races: true}); err != nil {
		t.Fatal(err)
	}
	if w := binary.LittleEndian.Uint32(want); w != exact {
		t.Fatalf("interpreter: %#x, want %#x", w, exact)
	}
	for _, p := range paths {
		t.Run(p.name, func(t *testing.T) {
			d, out := dispatchOn(t, p, m, map[string][]byte{"y": interp.Encode([]uint32{0xdeadbeef})}, 1)
			switch g := binary.LittleEndian.Uint32(out["y"]); g {
			case exact:
				t.Logf("%s: exact (%#x)", d.Info().Name, g)
			case lowHalf:
				t.Logf("%s: folded to the low half (%#x, exact is %#x)", d.Info().Name, g, exact)
			default:
				t.Errorf("got %#x, want %#x (exact) or %#x (lavapipe's fold)", g, exact, lowHalf)
			}
		})
	}
}
