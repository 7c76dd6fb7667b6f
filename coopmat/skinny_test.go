package coopmat

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// withShape returns p rebuilt for another instruction shape of the
// device (the H200 also offers 16x8x16: B tiles narrower than deep).
func withShape(t *testing.T, p Plan, m, n, k int) Plan {
	t.Helper()
	for _, s := range h200().CoopMat {
		if s.Flavor == "khr" && s.M == m && s.N == n && s.K == k && s.A == p.dtype() && s.C == "f32" && s.Result == "f32" {
			q := p
			q.Shape = &s
			q.Tile.BN = q.Tile.TN * n
			sh, err := q.skinnyShape()
			if err != nil {
				t.Fatal(err)
			}
			q.Shared = sh.shared()
			return q
		}
	}
	t.Fatalf("no %dx%dx%d shape", m, n, k)
	return p
}

// TestSkinny runs the skinny tensor-core kernel on the interpreter (race
// detector on): rows 1, 3, 5 and 16, ragged N and K (the staged edge path,
// and K or N not a multiple of 8: staged everywhere), one slice of k (C
// written directly) and several (split-k partials and matmul_reduce), both
// forms of B, f16 and bf16 in, f32/f16/bf16 out, every H200 skinny plan
// (every other f16 one with the 16x8x16 instruction shape), against
// float64. 9x100x1032 and 16x64x1024 walk k in several interior chunks (the
// staged form's loads a chunk ahead), the first with a ragged last chunk
// and ragged columns. 9x104x1032 and 16x48x1280 run the staged plans
// only (B's rows 16-byte aligned, where 9x100x1032's are not for A·B):
// interior chunks, then a ragged one (8 or 256 of k), and at 104 columns a
// last workgroup 8 columns past N in every chunk.
func TestSkinny(t *testing.T) {
	rng := kctest.NewRand(t)
	n := 0
	for _, sz := range [][3]int{{1, 64, 256}, {3, 48, 520}, {16, 33, 65}, {5, 100, 260}, {16, 256, 512}, {9, 100, 1032}, {16, 64, 1024}, {9, 104, 1032}, {16, 48, 1280}} {
		stagedOnly := sz[1] == 104 || sz[2] == 1280
		for _, dt := range []string{"f16", "bf16"} {
			for _, tb := range []bool{false, true} {
				o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, TransB: tb, CType: []string{"f32", "f16", "bf16"}[n%3], Scale: 0.5 + rng.Float32()}
				if o.K > 1000 && o.CType == "bf16" {
					// runCoop's bound on the f32 sum grows with k: past 1,000
					// too few bf16 elements of C tell the roundings apart
					o.CType = "f16"
				}
				cs := skinnyCandidates(h200(), o)
				if len(cs) == 0 || len(cs) > len(skinnyLayouts) {
					t.Fatalf("%s: %d skinny plans, want 1 to %d", o, len(cs), len(skinnyLayouts))
				}
				n++
				for i, p := range cs {
					if stagedOnly && !p.StageB {
						continue
					}
					if i%2 == 1 && dt == "f16" { // the H200 lists 16x8x16 for f16 only
						p = withShape(t, p, 16, 8, 16)
					}
					t.Run(fmt.Sprintf("%s/%s/%dx%dx%d", o, p, p.Shape.M, p.Shape.N, p.Shape.K), func(t *testing.T) {
						e := runCoop(t, rng, coopCase{o: o, plan: p})
						t.Logf("max relative error %.3g (%d slices)", e, p.Splits)
						if !(e < 1e-2) {
							t.Errorf("relative error %.3g, want < 1e-2", e)
						}
					})
				}
			}
		}
	}
}

// TestSkinnyStagedTiles runs the staged form with two 16-column tiles a
// subgroup (no listed layout has more than one, so the second tile's
// offsets into the staged block are checked here), both forms of B, on
// the interpreter against float64, with several interior chunks and a
// ragged last one.
func TestSkinnyStagedTiles(t *testing.T) {
	rng := kctest.NewRand(t)
	for _, tb := range []bool{false, true} {
		o := Options{M: 7, N: 96, K: 1032, DType: "f16", TransB: tb, CType: "f32", Scale: 0.5 + rng.Float32()}
		// the first staged plan in chunks of 256 that still fits 48 KiB
		// with twice its tiles
		var p Plan
		for _, c := range skinnyCandidates(h200(), o) {
			if !c.StageB || c.Tile.BK != 256 {
				continue
			}
			c.Tile.TN *= 2
			c.Tile.BN = c.Tile.TN * c.Shape.N
			sh, err := c.skinnyShape()
			if err != nil {
				t.Fatal(err)
			}
			if c.Shared = sh.shared(); c.Shared <= h200().Limits.MaxSharedMemory {
				p = c
				break
			}
		}
		if p.Tile.TN != 2 {
			t.Fatalf("%s: no staged plan of one tile in chunks of 256 fits twice the tiles", o)
		}
		t.Run(fmt.Sprintf("%s/%s", o, p), func(t *testing.T) {
			if e := runCoop(t, rng, coopCase{o: o, plan: p}); !(e < 1e-2) {
				t.Errorf("relative error %.3g, want < 1e-2", e)
			}
		})
	}
}

// TestSkinnyCandidates: Candidates lists the skinny tensor-core plans for
// at most 16 rows of f16/bf16, both forms of B, after the gemv plans and
// before the tiled ones; none for more rows or f32; the untuned choice is
// the gemv kernel up to 8 rows of A·B, else the first skinny plan (the
// H200's best at 4096 columns: for A·B 8x1x512 without split-k,
// prefetching 4 steps, for A·Bᵀ 4x1x512 without split-k, staged; at 1,024
// columns, too few workgroups for either, the split-k 4x4x512).
func TestSkinnyCandidates(t *testing.T) {
	for _, o := range []Options{{M: 16, N: 4096, K: 4096, DType: "f16"}, {M: 16, N: 4096, K: 4096, DType: "bf16", TransB: true},
		{M: 1, N: 4096, K: 4096, DType: "f16", TransB: true}, {M: 8, N: 4096, K: 4096, DType: "f16"}, {M: 12, N: 4096, K: 4096, DType: "f16"}} {
		cs, err := Candidates(h200(), o)
		if err != nil {
			t.Fatal(err)
		}
		gens := ""
		for _, p := range cs {
			if g := p.Generator[:1]; len(gens) == 0 || gens[len(gens)-1:] != g {
				gens += g
			}
		}
		want := "gsc" // gemv, skinny, coopmat
		if o.TransB {
			want = "sc"
		}
		if gens != want {
			t.Errorf("%s: candidate generators in order %q, want %q", o, gens, want)
		}
		wantGen := "skinny"
		if !o.TransB && o.M <= gemvDefaultRows {
			wantGen = "gemv"
		}
		first := ""
		for _, p := range cs {
			if p.Generator == wantGen {
				first = p.String()
				break
			}
		}
		if p, err := Choose(h200(), o); err != nil || p.String() != first {
			t.Errorf("%s: Choose = %s, %v; want the first %s plan untuned", o, p, err, wantGen)
		}
		if p := firstSkinny(cs); o.TransB && (p.Splits != 1 || !p.StageB || p.Subgroups[0] != 4 || p.Tile.TN != 1 || p.Tile.BK != 512) {
			t.Errorf("%s: first skinny plan %s, want 4x1x512 without split-k, staged", o, p)
		} else if !o.TransB && (p.Splits != 1 || p.Prefetch != 4 || p.Subgroups[0] != 8 || p.StageB) {
			t.Errorf("%s: first skinny plan %s, want 8x1x512 without split-k, prefetch 4", o, p)
		}
		seen := map[string]bool{}
		for _, p := range cs {
			if seen[p.String()] {
				t.Errorf("%s: two candidates named %s", o, p)
			}
			seen[p.String()] = true
		}
	}
	o := Options{M: 16, N: 1024, K: 4096, DType: "f16", TransB: true}
	if p := firstSkinny(skinnyCandidates(h200(), o)); p.Splits != 8 || p.Prefetch != 0 || p.Tile.TN != 4 || p.StageB {
		t.Errorf("%s: first skinny plan %s, want 4x4x512 in 8 slices of k", o, p)
	}
	for _, o := range []Options{{M: 17, N: 64, K: 64, DType: "f16"}, {M: 1, N: 64, K: 64}} {
		if cs := skinnyCandidates(h200(), o); len(cs) != 0 {
			t.Errorf("%s: skinny plans %v, want none", o, cs)
		}
	}
	if cs := skinnyCandidates(lavapipe(), Options{M: 1, N: 64, K: 64, DType: "f16"}); len(cs) != 0 {
		t.Errorf("lavapipe (no cooperative matrices): skinny plans %v, want none", cs)
	}
}

// firstSkinny is the first skinny plan of cs (zero: none).
func firstSkinny(cs []Plan) Plan {
	for _, p := range cs {
		if p.Generator == "skinny" {
			return p
		}
	}
	return Plan{}
}

// TestSkinnySPIRV: every skinny tensor-core variant (input and output
// types, f32 A, both forms of B, direct and staged loads of B, split-k partials)
// emits SPIR-V declaring the plan's shared memory; the KHR flavour
// disassembles, and the NV flavour passes spirv-val where it has no bf16.
func TestSkinnySPIRV(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	ctx := context.Background()
	n := 0
	for _, dt := range []string{"f16", "bf16"} {
		for _, ct := range []string{"f32", "f16", "bf16"} {
			for _, tb := range []bool{false, true} {
				for i, sz := range [][3]int{{16, 4096, 4096}, {1, 4096, 256}, {5, 100, 260}, {16, 33, 65}, {16, 4096, 4096}, {3, 40, 66}} {
					o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: ct, TransB: tb}
					if i >= 4 {
						o.AType = "f32" // f32 A staged as dt: 16-byte and element loads
					}
					for _, p := range skinnyCandidates(h200(), o) {
						m, name, a := emitPlan(t, p)
						if _, err := spirv.Disassemble(a.Words); err != nil {
							t.Errorf("%s %s: KHR disassembly: %v", o, p, err)
						}
						n++
						if dt == "bf16" || ct == "bf16" {
							continue // SPIRV-Tools 2023.1 predates SPV_KHR_bfloat16
						}
						nv, err := spirv.Emit(m, spirv.Options{Kernel: name, CoopMat: spirv.CoopMatNV})
						if err != nil {
							t.Fatalf("%s %s: NV: %v", o, p, err)
						}
						if err := spirv.ValidateArtifact(ctx, nv); err != nil {
							t.Errorf("%s %s: NV: %v", o, p, err)
						}
					}
				}
			}
		}
	}
	t.Logf("%d kernels", n)
}

// TestSkinnyA32 runs the skinny tensor-core kernel with f32 A (rounded to
// B's type as it is staged) on the interpreter: K a multiple of 4 (16-byte
// loads of A) and not, one slice and split-k, both forms of B, f16 and
// bf16, each plan's C checked twice against float64: within the f32
// accumulation's bound of the product of A rounded to nearest even (a
// kernel that rounded A otherwise, or not at all, fails this), and within
// 1e-2 of the product of A unrounded.
func TestSkinnyA32(t *testing.T) {
	rng := kctest.NewRand(t)
	n := 0
	for _, sz := range [][3]int{{1, 64, 256}, {3, 48, 522}, {16, 33, 65}, {5, 100, 1100}, {16, 64, 2048}, {7, 104, 1032}} {
		for _, dt := range []string{"f16", "bf16"} {
			for _, tb := range []bool{false, true} {
				o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, AType: "f32", TransB: tb, CType: []string{"f32", "f16"}[n%2], Scale: 0.5 + rng.Float32()}
				cs, err := Candidates(h200(), o)
				if err != nil {
					t.Fatal(err)
				}
				if len(cs) == 0 || len(cs) > len(skinnyLayouts) {
					t.Fatalf("%s: %d plans, want 1 to %d skinny ones", o, len(cs), len(skinnyLayouts))
				}
				p := cs[n%len(cs)]
				n++
				t.Run(fmt.Sprintf("%s/%s", o, p), func(t *testing.T) { runSkinnyA32(t, rng, p) })
				for _, q := range cs { // and every staged plan (f32 A staged from registers)
					if q.StageB && q.String() != p.String() {
						t.Run(fmt.Sprintf("%s/%s", o, q), func(t *testing.T) { runSkinnyA32(t, rng, q) })
					}
				}
			}
		}
	}
}

// runSkinnyA32 runs p (f32 A) and its reduction on the interpreter and
// checks C as TestSkinnyA32 says.
func runSkinnyA32(t *testing.T, rng *rand.Rand, p Plan) {
	o := p.Options
	a32, a, aExact := make([]byte, 4*o.M*o.K), make([]float64, o.M*o.K), make([]float64, o.M*o.K)
	for i := range a {
		v := rng.Float32()*4 - 2
		binary.LittleEndian.PutUint32(a32[4*i:], math.Float32bits(v))
		_, a[i] = halfBits(o.dtype(), v)
		aExact[i] = float64(v)
	}
	bBits, b := make([]byte, 2*o.K*o.N), make([]float64, o.K*o.N)
	for i := range b {
		h, x := halfBits(o.dtype(), rng.Float32()*4-2)
		binary.LittleEndian.PutUint16(bBits[2*i:], h)
		b[i] = x
	}
	scale := float64(o.scale())
	cBuf := runPlan(t, o, p, a32, bBits)
	bad, worst := 0, 0.0
	for i := 0; i < o.M; i++ {
		for j := 0; j < o.N; j++ {
			var sum, exact, abs float64
			for k := 0; k < o.K; k++ {
				bk := b[k*o.N+j]
				if o.TransB {
					bk = b[j*o.K+k]
				}
				sum += a[i*o.K+k] * bk
				exact += aExact[i*o.K+k] * bk
				abs += math.Abs(a[i*o.K+k] * bk)
			}
			got := decode(o.ctype(), cBuf, i*o.N+j)
			ref := scale * sum
			tol := float64(o.K+p.Splits+2) * math.Ldexp(scale*abs, -24)
			if o.ctype() != "f32" {
				tol += ulpIn(o.ctype(), math.Abs(ref)+tol) / 2
			}
			worst = max(worst, math.Abs(got-scale*exact)/(scale*abs+1e-30))
			if !(math.Abs(got-ref) <= tol) {
				if bad++; bad <= 5 {
					t.Errorf("C[%d][%d] = %g, want %g ± %.3g (A rounded to nearest even)", i, j, got, ref, tol)
				}
			}
		}
	}
	if !(worst < 1e-2) {
		t.Errorf("relative error %.3g against unrounded A, want < 1e-2", worst)
	}
	t.Logf("%d slices, relative error %.3g against unrounded A", p.Splits, worst)
}

// TestSkinnyAType: A of another type than B is only f32 times f16 or
// bf16; such a product lists only skinny plans (and Choose takes one),
// and a device without cooperative matrices has none: a checked
// *ir.UnsupportedError naming the problem.
func TestSkinnyAType(t *testing.T) {
	for _, o := range []Options{{M: 1, N: 8, K: 8, DType: "f16", AType: "bf16"}, {M: 1, N: 8, K: 8, AType: "f16"}, {M: 1, N: 8, K: 8, DType: "bf16", AType: "i8"}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: Validate accepted it", o)
		}
	}
	o := Options{M: 16, N: 4096, K: 4096, DType: "bf16", AType: "f32", TransB: true}
	cs, err := Candidates(h200(), o)
	if err != nil || len(cs) == 0 {
		t.Fatalf("%s: %d candidates, %v", o, len(cs), err)
	}
	for _, p := range cs {
		if p.Generator != "skinny" {
			t.Errorf("%s: candidate %s", o, p)
		}
	}
	if p, err := Choose(h200(), o); err != nil || p.String() != cs[0].String() {
		t.Errorf("%s: Choose = %s, %v; want %s", o, p, err, cs[0])
	}
	for _, o := range []Options{o, {M: 17, N: 64, K: 64, DType: "f16", AType: "f32"}} {
		info := lavapipe()
		if o.M > 16 {
			info = h200()
		}
		_, err := Candidates(info, o)
		var u *ir.UnsupportedError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), o.String()) {
			t.Errorf("%s on %s: %v, want an UnsupportedError naming the problem", o, info.Name, err)
		}
	}
}

// TestSkinnyStagedBanks: in every staged H200 plan (Plan.StageB) the
// 16-byte stores of a subgroup into Bw and the matrix loads' rows of 16
// bytes (8 a phase: the [n][k] rows n..n+7 of one k half of a step) fall in
// 8 distinct 16-byte bank groups a phase; rows of KS/8 words, without the
// skew word, would put a load phase's 8 rows in one group.
func TestSkinnyStagedBanks(t *testing.T) {
	n := 0
	for _, dt := range []string{"f16", "bf16"} {
		for _, at := range []string{"", "f32"} {
			o := Options{M: 16, N: 4096, K: 4096, DType: dt, AType: at, TransB: true}
			for _, p := range skinnyCandidates(h200(), o) {
				if !p.StageB {
					continue
				}
				s, err := p.skinnyShape()
				if err != nil {
					t.Fatal(err)
				}
				n++
				threads, wd := s.S*s.Sub, s.KS/8
				for i := 0; i < s.bLoads(); i++ {
					for ph := 0; ph < threads/8; ph++ {
						groups := map[int]bool{}
						for l := 0; l < 8; l++ {
							e := ph*8 + l + i*threads
							groups[(e/wd*s.LDW+e%wd)%8] = true
						}
						if len(groups) != 8 {
							t.Errorf("%s: store %d, phase %d: %d bank groups, want 8", p, i, ph, len(groups))
						}
					}
				}
				for j := 0; j < s.TN; j++ {
					for w := 0; w < wd; w++ { // every word of k a subgroup's step may start at
						for half := 0; half < 2; half++ {
							groups := map[int]bool{}
							for r := 0; r < 8; r++ {
								groups[((j*s.IN+half*8+r)*s.LDW+w)%8] = true
							}
							if len(groups) != 8 {
								t.Errorf("%s: load of tile %d at word %d: %d bank groups, want 8", p, j, w, len(groups))
							}
						}
					}
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no staged plans")
	}
	t.Logf("%d staged plans", n)
}

// TestSkinnyStagedABBanks: in every staged H200 plan of A·B (Plan.StageB;
// 16x16x16 and 16x8x16 instructions) the 16-byte stores of a subgroup into
// Bw (8 consecutive invocations a phase) and a matrix load's 16-byte
// pieces (row by row, 8 a phase) fall in 8 distinct 16-byte bank groups a
// phase; at one tile of 16 columns with no skew, which rows one word
// longer would break (the check can fail).
func TestSkinnyStagedABBanks(t *testing.T) {
	n := 0
	for _, dt := range []string{"f16", "bf16"} {
		for _, at := range []string{"", "f32"} {
			o := Options{M: 16, N: 4096, K: 4096, DType: dt, AType: at}
			for i, p := range skinnyCandidates(h200(), o) {
				if !p.StageB {
					continue
				}
				if i%2 == 1 && dt == "f16" {
					p = withShape(t, p, 16, 8, 16)
				}
				s, err := p.skinnyShape()
				if err != nil {
					t.Fatal(err)
				}
				n++
				wd := s.TN * s.IN / 8
				if s.LDW < wd || 16*s.KS*s.LDW > s.shared() {
					t.Fatalf("%s: rows of %d words for %d words of B", p, s.LDW, wd)
				}
				if bad := abBankPhases(s, s.LDW); bad != 0 {
					t.Errorf("%s: rows of %d words: %d phases with a repeated bank group, want 0", p, s.LDW, bad)
				}
				if s.IN == 16 && s.TN == 1 && (s.LDW != 2 || abBankPhases(s, 3) == 0) {
					t.Errorf("%s: rows of %d words, want 2 (3 conflicting)", p, s.LDW)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no staged plans of A·B")
	}
	t.Logf("%d staged plans", n)
}

// abBankPhases counts the phases of 8 16-byte accesses to Bw (staged A·B,
// rows of ldw words) that touch a bank group twice: every store
// instruction of every subgroup, every matrix load of tile j.
func abBankPhases(s skinnyShape, ldw int) int {
	threads, wd, bad := s.S*s.Sub, s.TN*s.IN/8, 0
	distinct := func(word func(l int) int) bool {
		g := map[int]bool{}
		for l := 0; l < 8; l++ {
			g[word(l)%8] = true
		}
		return len(g) == 8
	}
	for i := 0; i < s.KS*wd/threads; i++ {
		for ph := 0; ph < threads/8; ph++ {
			if !distinct(func(l int) int { e := i*threads + ph*8 + l; return e/wd*ldw + e%wd }) {
				bad++
			}
		}
	}
	rw := s.IN / 8 // words of a matrix row
	for j := 0; j < s.TN; j++ {
		for row0 := 0; row0 < s.KS; row0 += s.IK {
			for ph := 0; ph < s.IK*rw/8; ph++ {
				if !distinct(func(l int) int { e := ph*8 + l; return (row0+e/rw)*ldw + j*rw + e%rw }) {
					bad++
				}
			}
		}
	}
	return bad
}
