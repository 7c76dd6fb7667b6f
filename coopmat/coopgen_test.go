package coopmat

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/emit/spirv"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// The cooperative-matrix kernels run on the interpreter (no driver here has
// cooperative matrices): random inputs rounded to f16/bf16, outputs
// poisoned, results against a float64 product of the rounded inputs.

// coopCase is one generated product run on the interpreter.
type coopCase struct {
	o     Options
	plan  Plan
	split bool // force a split of k into two slices
}

// halfBits rounds v to the element type's bits and returns them with their
// exact values.
func halfBits(dt string, v float32) (uint16, float64) {
	if dt == "bf16" {
		h := interp.F32ToBF16Bits(v)
		return h, float64(interp.BF16BitsToF32(h))
	}
	h := interp.F32ToF16Bits(v)
	return h, float64(interp.F16BitsToF32(h))
}

func decode(ct string, b []byte, i int) float64 {
	switch ct {
	case "f16":
		return float64(interp.F16BitsToF32(binary.LittleEndian.Uint16(b[2*i:])))
	case "bf16":
		return float64(interp.BF16BitsToF32(binary.LittleEndian.Uint16(b[2*i:])))
	}
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
}

// runPlan runs p's kernel for o on the interpreter (race detector on)
// over the A and B buffers as p takes them, then, with split-k, the
// reduction of its partial products, and returns C as p writes it
// (poisoned first).
func runPlan(t *testing.T, o Options, p Plan, aBuf, bBuf []byte) []byte {
	t.Helper()
	m, kernel, err := generators[p.Generator](p)
	if err != nil {
		t.Fatal(err)
	}
	mainC, mainScale := o.cSize(), o.scale()
	if p.Splits > 1 {
		mainC, mainScale = 4, 1
	}
	cBuf := interp.Poison(int(mainC) * p.Splits * o.M * o.N)
	params := map[string]ir.Value{"M": ir.IntVal(int64(o.M)), "N": ir.IntVal(int64(o.N)), "K": ir.IntVal(int64(o.K)),
		"KS": ir.IntVal(int64(p.KS)), "scale": ir.FloatVal(float64(mainScale))}
	g := p.Groups()
	err = interp.Run(m, kernel, [3]int{int(g[0]), int(g[1]), int(g[2])},
		&interp.Args{Params: params, Buffers: map[string][]byte{"A": aBuf, "B": bBuf, "C": cBuf}}, interp.Options{SubgroupSize: 32, Races: true})
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if p.Splits <= 1 {
		return cBuf
	}
	rm, rk, err := buildReduce(o.ctype())
	if err != nil {
		t.Fatal(err)
	}
	out, mn := interp.Poison(int(o.cSize())*o.M*o.N), o.M*o.N
	err = interp.Run(rm, rk, [3]int{ceilDiv(mn, 256), 1, 1}, &interp.Args{
		Params:  map[string]ir.Value{"MN": ir.IntVal(int64(mn)), "S": ir.IntVal(int64(p.Splits)), "scale": ir.FloatVal(float64(o.scale()))},
		Buffers: map[string][]byte{"P": cBuf, "C": out}}, interp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runCoop runs c's kernels on the interpreter and returns the largest error
// |C - ref| / (|scale|·Σ|a·b|) over C.
func runCoop(t *testing.T, rng *rand.Rand, c coopCase) float64 {
	t.Helper()
	o, p := c.o, c.plan
	if c.split {
		p.KS = ceilDiv(ceilDiv(o.K, 2), p.Tile.BK) * p.Tile.BK
		p.Splits = ceilDiv(o.K, p.KS)
	}
	nb := o.K * o.N
	rnd := func(n int) ([]byte, []float64) {
		bits, exact := make([]byte, 2*n), make([]float64, n)
		for i := range exact {
			h, x := halfBits(o.dtype(), rng.Float32()*4-2)
			binary.LittleEndian.PutUint16(bits[2*i:], h)
			exact[i] = x
		}
		return bits, exact
	}
	aBits, a := rnd(o.M * o.K)
	bBits, b := rnd(nb)
	scale := o.scale()
	cBuf := runPlan(t, o, p, aBits, bBits)
	worst := 0.0
	ct := o.ctype()
	tight, sensitive, total := 0, 0, 0
	for i := 0; i < o.M; i++ {
		for j := 0; j < o.N; j++ {
			var sum, abs float64
			for k := 0; k < o.K; k++ {
				bk := b[k*o.N+j]
				if o.TransB {
					bk = b[j*o.K+k]
				}
				sum += a[i*o.K+k] * bk
				abs += math.Abs(a[i*o.K+k] * bk)
			}
			ref := float64(scale) * sum
			got := decode(o.ctype(), cBuf, i*o.N+j)
			e := math.Abs(got-ref) / (math.Abs(float64(scale))*abs + 1e-30)
			if math.IsNaN(e) {
				e = math.Inf(1)
			}
			worst = max(worst, e)
			if ct == "f32" {
				continue
			}
			// The f32 accumulator is within tol of ref (2^-24·Σ|a·b| per
			// rounding, at most one per k, split-k slice, scale); rounding
			// to nearest even is monotone, so C must lie between the
			// roundings of ref ± tol (bit for bit once tol is below the
			// gap to the nearest tie).
			tol := float64(o.K+p.Splits+2) * math.Ldexp(math.Abs(float64(scale))*abs, -24)
			lo, hi := roundNearestEven(ct, ref-tol), roundNearestEven(ct, ref+tol)
			total++
			if !(lo <= got && got <= hi) {
				if tight++; tight <= 5 {
					t.Errorf("%s: C[%d][%d] = %g, want the %s rounding to nearest even of [%g, %g]: %g..%g", p, i, j, got, ct, ref-tol, ref+tol, lo, hi)
				}
			}
			if z := roundTowardZero(ct, ref); lo == hi && z != lo {
				sensitive++ // a kernel rounding toward zero would fail here
			}
		}
	}
	if ct == "bf16" && total >= 64 && sensitive < total/8 { // f16's ulp is 8 times finer: the bound may cover it
		t.Errorf("%s: only %d of %d elements of C would tell rounding toward zero from nearest", p, sensitive, total)
	}
	return worst
}

// ulpIn is one ulp of the 16-bit float type ct at x (subnormals included).
func ulpIn(ct string, x float64) float64 {
	mant, minExp := 7, -133 // bf16: f32's exponent range
	if ct == "f16" {
		mant, minExp = 10, -24
	}
	_, e := math.Frexp(x)
	return math.Ldexp(1, max(e-1-mant, minExp))
}

// roundNearestEven rounds x to ct (f16 or bf16), ties to even, from
// float64 (no overflow: the tests' products are small).
func roundNearestEven(ct string, x float64) float64 {
	u := ulpIn(ct, x)
	return math.RoundToEven(x/u) * u
}

// roundTowardZero rounds x to ct toward zero.
func roundTowardZero(ct string, x float64) float64 {
	u := ulpIn(ct, x)
	return math.Trunc(x/u) * u
}

// TestCoopKernels runs every input type, output type and transposition on
// ragged and exact sizes (64x64x64 stores through the interior path on
// tiles of 64 and less, the rest through the edge path), rotating over the
// H200's plans, some with a forced split-k.
func TestCoopKernels(t *testing.T) {
	coopRotation(t, [][3]int{{17, 33, 65}, {64, 64, 64}, {1, 64, 48}}, func(o Options) []Plan {
		cs := CoopCandidates(h200(), o)
		if len(cs) == 0 {
			t.Fatalf("%s: no cooperative plan on the H200", o)
		}
		return cs
	})
}

// coopRotation runs matmuls on the interpreter against float64 for every
// input and output type and transposition at the given sizes, taking the
// plans for each case from plans.
func coopRotation(t *testing.T, sizes [][3]int, plans func(Options) []Plan) {
	rng := kctest.NewRand(t)
	n := 0
	for _, dt := range []string{"f16", "bf16"} {
		for _, ct := range []string{"f32", "f16", "bf16"} {
			for _, tb := range []bool{false, true} {
				for si, sz := range sizes {
					o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: ct, TransB: tb}
					if tb {
						o.Scale = 0.5 + rng.Float32()
					}
					cs := plans(o)
					// Rotate plans and the split over the cases so that each
					// combination of types is run a few ways without running all.
					plan := cs[n%len(cs)]
					c := coopCase{o: o, plan: plan, split: si == 0 && n%2 == 0}
					n++
					name := fmt.Sprintf("%s/%s", o, plan)
					if c.split {
						name += "/split"
					}
					t.Run(name, func(t *testing.T) {
						e := runCoop(t, rng, c)
						t.Logf("max relative error %.3g", e)
						if !(e < 1e-2) {
							t.Errorf("relative error %.3g, want < 1e-2", e)
						}
					})
				}
			}
		}
	}
}

// TestCoopSPIRV emits every candidate plan's kernel in each structural
// variant (types, transposition, 16-byte or scalar loads, split-k) as
// SPIR-V: the KHR flavour must emit and disassemble, the NV flavour (no
// bf16 matrices in SPV_NV_cooperative_matrix) must pass spirv-val, and
// the shared memory the kernel declares must be the plan's.
func TestCoopSPIRV(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	ctx := context.Background()
	n := 0
	for _, dt := range []string{"f16", "bf16"} {
		for _, ct := range []string{"f32", "f16", "bf16"} {
			for _, tb := range []bool{false, true} {
				for _, sz := range [][3]int{{4096, 4096, 1024}, {17, 33, 65}, {1, 4096, 4096}} {
					o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: ct, TransB: tb}
					for _, p := range CoopCandidates(h200(), o) {
						m, name, a := emitPlan(t, p)
						if _, err := spirv.Disassemble(a.Words); err != nil {
							t.Errorf("%s %s: KHR disassembly: %v", o, p, err)
						}
						n++
						if dt == "bf16" || ct == "bf16" {
							continue
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

// emitPlan generates p's kernel (by its generator) and emits it as
// SPIR-V (the KHR flavour of cooperative matrices), failing t when either
// fails or when the kernel declares other shared memory than the plan.
func emitPlan(t *testing.T, p Plan) (*ir.Module, string, *emit.Artifact) {
	t.Helper()
	m, name, err := generators[p.Generator](p)
	if err != nil {
		t.Fatalf("%s %s: %v", p.Options, p, err)
	}
	a, err := spirv.Emit(m, spirv.Options{Kernel: name})
	if err != nil {
		t.Fatalf("%s %s: SPIR-V: %v", p.Options, p, err)
	}
	if got := a.Entries[0].Reflection.SharedBytes(); got != p.Shared {
		t.Errorf("%s %s: kernel declares %d bytes of shared memory, plan says %d", p.Options, p, got, p.Shared)
	}
	return m, name, a
}

// TestStagingBanks: the rotated staging stores of every H200 plan cost one
// shared-memory wavefront per store instruction (the model of banks.go),
// where storing every invocation's words in the same order costs four.
func TestStagingBanks(t *testing.T) {
	for _, tb := range []bool{false, true} {
		o := Options{M: 8192, N: 8192, K: 8192, DType: "bf16", TransB: tb}
		for _, p := range CoopCandidates(h200(), o) {
			s, err := p.coopShape()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range s.loads() {
				if s.packed(l) {
					continue // TestPackedStagingBanks
				}
				ideal := l.per(s.Threads) * (s.Threads / s.Sub) * 8
				if c := stageCost(l, s.Threads, s.Sub, rotation{}); c != 4*ideal {
					t.Errorf("%s %s: unrotated stores cost %d wavefronts, want 4x%d", p, l.Name, c, ideal)
				}
				if r, c := bestRotation(l, s.Threads, s.Sub); c != ideal {
					t.Errorf("%s %s: rotation %q costs %d wavefronts, want %d", p, l.Name, r.text(), c, ideal)
				}
			}
		}
	}
}

// TestPackedStagingBanks: the 16-byte staging stores of every packed H200
// plan cost one shared-memory wavefront per phase of 8 invocations (the
// model of banks.go), and the row order they take is a permutation of the
// slice; rows of 4 vec4s (slices of 32 along k) in order would cost more.
func TestPackedStagingBanks(t *testing.T) {
	for _, tb := range []bool{false, true} {
		o := Options{M: 8192, N: 8192, K: 8192, DType: "f16", TransB: tb}
		for _, p := range CoopCandidates(h200(), o) {
			if !p.Packed {
				continue
			}
			s, err := p.coopShape()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range s.loads() {
				ideal := l.per(s.Threads) * (s.Threads / s.Sub) * (s.Sub / 8)
				st, c := bestSpread(l, s.Threads, s.Sub)
				if c != ideal {
					t.Errorf("%s %s: row step %d costs %d wavefronts, want %d", p, l.Name, st, c, ideal)
				}
				if vecs := l.Cols / l.Vec; vecs == 4 {
					if c1 := packedCost(l, s.Threads, s.Sub, 1); c1 <= ideal {
						t.Errorf("%s %s: rows in order cost %d wavefronts, expected more than %d", p, l.Name, c1, ideal)
					}
				}
				checkSpreadText(t, l, st)
				seen := map[[2]int]bool{}
				n := l.Rows * l.Cols / l.Vec
				for e := 0; e < n; e++ {
					r, c := spreadRow(l, st, e)
					if r < 0 || r >= l.Rows || seen[[2]int{r, c}] {
						t.Fatalf("%s %s: row step %d sends vector %d to (%d, %d): not a permutation", p, l.Name, st, e, r, c)
					}
					seen[[2]int{r, c}] = true
				}
			}
		}
	}
}

// TestCoopPackedPlans runs every packed plan of the H200 on the
// interpreter once, at a size with one full tile (stored straight from the
// accumulators), a ragged row of tiles below it (stored through the edge
// path) and three slices along k (an odd count: the two-stage loop's last
// half-iteration), f16 A·B and bf16 scale·A·Bᵀ in turn.
func TestCoopPackedPlans(t *testing.T) {
	rng := kctest.NewRand(t)
	n := 0
	for _, p := range CoopCandidates(h200(), Options{M: 8192, N: 8192, K: 8192, DType: "f16"}) {
		if !p.Packed {
			continue
		}
		o := Options{M: p.Tile.BM + 16, N: p.Tile.BN, K: 3 * p.Tile.BK, DType: "f16"}
		if n%2 == 1 {
			o.DType, o.TransB, o.Scale = "bf16", true, 0.5+rng.Float32()
		}
		n++
		var plan Plan
		for _, q := range CoopCandidates(h200(), o) {
			if q.Packed && q.Tile == p.Tile && q.Subgroups == p.Subgroups && q.Interior == p.Interior &&
				q.Direct == p.Direct && q.Swizzle == p.Swizzle && q.Tile.Stages == p.Tile.Stages &&
				q.Shape.M == p.Shape.M && q.Shape.N == p.Shape.N && q.Shape.K == p.Shape.K {
				plan = q
			}
		}
		if !plan.Packed {
			t.Fatalf("%s: no packed plan %s", o, p)
		}
		plan.Splits, plan.KS = 1, o.K
		t.Run(fmt.Sprintf("%s/%s", o, plan), func(t *testing.T) {
			e := runCoop(t, rng, coopCase{o: o, plan: plan})
			t.Logf("max relative error %.3g", e)
			if !(e < 1e-2) {
				t.Errorf("relative error %.3g, want < 1e-2", e)
			}
		})
	}
	if n < 10 {
		t.Errorf("%d packed plans, want the H200's 14", n)
	}
}

// TestCoopVariants runs direct staging (one and two stages) and swizzled
// tile orders on the interpreter on grids of several bands of tiles, the
// last band short and the last row and column of tiles ragged, with 16-byte
// and scalar loads: every tile must be computed once, in the right place.
func TestCoopVariants(t *testing.T) {
	rng := kctest.NewRand(t)
	n := 0
	for _, sz := range [][3]int{{32*7 + 5, 32*4 + 3, 96}, {32*5 + 1, 32*3 + 8, 65}} {
		for _, v := range []struct {
			direct  bool
			stages  int
			swizzle int
		}{{true, 1, 0}, {true, 2, 0}, {false, 1, 3}, {true, 2, 3}, {true, 1, 2}, {false, 2, 4}} {
			o := Options{M: sz[0], N: sz[1], K: sz[2], DType: "f16", CType: "f32"}
			if n%2 == 1 {
				o.DType, o.CType, o.TransB, o.Scale = "bf16", "bf16", true, 0.5+rng.Float32()
			}
			n++
			var plan Plan
			for _, q := range CoopCandidates(h200(), o) {
				if q.Tile.BM == 32 && q.Tile.BN == 32 {
					plan = q
				}
			}
			if plan.Tile.BM != 32 {
				t.Fatalf("%s: no 32x32 plan", o)
			}
			plan.Direct, plan.Tile.Stages, plan.Swizzle = v.direct, v.stages, v.swizzle
			plan.Splits, plan.KS = 1, ceilDiv(o.K, plan.Tile.BK)*plan.Tile.BK
			t.Run(fmt.Sprintf("%s/%s", o, plan), func(t *testing.T) {
				e := runCoop(t, rng, coopCase{o: o, plan: plan})
				t.Logf("max relative error %.3g", e)
				if !(e < 1e-2) {
					t.Errorf("relative error %.3g, want < 1e-2", e)
				}
			})
		}
	}
}

// checkSpreadText runs the .kc text of row step st (what the kernels
// compute) on the interpreter for every vector of l's slice and compares
// it with spreadRow (what the bank model counts).
func checkSpreadText(t *testing.T, l stageLoad, st int) {
	t.Helper()
	n := l.Rows * l.Cols / l.Vec
	row, col := spreadText(l, st)
	src := fmt.Sprintf("kernel k(out read_write []u32) workgroup(1) {\n\tfor e := u32(0); e < %d; e++ {\n\t\tout[2 * e] = %s\n\t\tout[2 * e + 1] = %s\n\t}\n}\n", n, row, col)
	m, err := parse.Load("spread.kc", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := interp.Poison(8 * n)
	if err := interp.Run(m, "k", [3]int{1, 1, 1}, &interp.Args{Buffers: map[string][]byte{"out": out}}, interp.Options{}); err != nil {
		t.Fatal(err)
	}
	for e := 0; e < n; e++ {
		r, c := spreadRow(l, st, e)
		gr, gc := binary.LittleEndian.Uint32(out[8*e:]), binary.LittleEndian.Uint32(out[8*e+4:])
		if int(gr) != r || int(gc) != c {
			t.Fatalf("row step %d, vector %d: the kernel's text gives (%d, %d), the model (%d, %d)", st, e, gr, gc, r, c)
		}
	}
}

// TestGemv runs every skinny plan on the interpreter: rows 1, 3, 8 and 16
// (8 and 4 columns a lane), ragged N and K, one block of k (C written
// directly) and several (split-k partials and matmul_reduce), against
// float64.
func TestGemv(t *testing.T) {
	rng := kctest.NewRand(t)
	n := 0
	for _, sz := range [][3]int{{1, 264, 300}, {3, 64, 96}, {8, 520, 130}, {16, 132, 1100}} {
		for _, dt := range []string{"f16", "bf16"} {
			o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: []string{"f32", "f16", "bf16"}[n%3], Scale: 0.5 + rng.Float32()}
			n++
			cs := gemvCandidates(h200(), o)
			// 16 rows of A in 512-row blocks need 64 KiB: left out
			if want := len(gemvBlocks) - sz[0]/16; len(cs) != want {
				t.Fatalf("%s: %d skinny plans, want %d", o, len(cs), want)
			}
			if p, err := Choose(h200(), o); err != nil || (p.Generator == "gemv") != (o.M <= gemvDefaultRows) {
				t.Errorf("%s: Choose = %s, %v; want a skinny plan for at most %d rows", o, p, err, gemvDefaultRows)
			}
			for _, p := range cs {
				t.Run(fmt.Sprintf("%s/%s", o, p), func(t *testing.T) {
					e := runCoop(t, rng, coopCase{o: o, plan: p})
					t.Logf("max relative error %.3g", e)
					if !(e < 1e-2) {
						t.Errorf("relative error %.3g, want < 1e-2", e)
					}
				})
			}
		}
	}
	for _, o := range []Options{{M: 17, N: 64, K: 64, DType: "f16"}, {M: 1, N: 64, K: 64, DType: "f16", TransB: true}, {M: 1, N: 66, K: 64, DType: "f16"}, {M: 1, N: 64, K: 64}} {
		if cs := gemvCandidates(h200(), o); len(cs) != 0 {
			t.Errorf("%s: skinny plans %v, want none", o, cs)
		}
	}
}

// TestGemvSPIRV: every skinny kernel variant (input and output types,
// rows, 4 or 8 columns a lane, split-k partials) emits SPIR-V declaring
// the plan's shared memory, which passes spirv-val where it has no bf16.
func TestGemvSPIRV(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	ctx := context.Background()
	for _, dt := range []string{"f16", "bf16"} {
		for _, ct := range []string{"f32", "f16", "bf16"} {
			for _, sz := range [][3]int{{1, 4096, 4096}, {16, 4096, 4096}, {5, 4100, 256}} {
				o := Options{M: sz[0], N: sz[1], K: sz[2], DType: dt, CType: ct}
				for _, p := range gemvCandidates(h200(), o) {
					_, _, a := emitPlan(t, p)
					if dt == "bf16" || ct == "bf16" {
						// SPIRV-Tools 2023.1 predates SPV_KHR_bfloat16
						if _, err := spirv.Disassemble(a.Words); err != nil {
							t.Errorf("%s %s: disassembly: %v", o, p, err)
						}
					} else if err := spirv.ValidateArtifact(ctx, a); err != nil {
						t.Errorf("%s %s: %v", o, p, err)
					}
				}
			}
		}
	}
}
