package coopmat_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/coopmat"
	"github.com/kcgo/kc/internal/backendtest"
	"github.com/kcgo/kc/internal/directive"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
)

// problem is one product's inputs and float64 reference.
type problem struct {
	o    coopmat.Options
	a, b []float32
}

func newProblem(rng *rand.Rand, o coopmat.Options) problem {
	unit := directive.Fill{Mode: "range", Lo: -1, Hi: 1}
	return problem{o: o,
		a: backend.BytesF32(runspec.FillBuffer(rng, unit, ir.F32, o.M*o.K)),
		b: backend.BytesF32(runspec.FillBuffer(rng, unit, ir.F32, o.K*o.N)),
	}
}

func (p problem) bAt(k, j int) float32 {
	if p.o.TransB {
		return p.b[j*p.o.K+k]
	}
	return p.b[k*p.o.N+j]
}

// check compares got with the float64 product. The tolerance is the
// classic bound for a sum of K products in f32, in any order and with
// fused multiply-adds: |got - exact| <= 2·K·u·Σ|a·b|·|scale| (u = 2^-24),
// plus a split-k reduction's few extra additions, covered by the factor 2.
func (p problem) check(t *testing.T, got []float32) {
	t.Helper()
	o := p.o
	scale := float64(o.Scale)
	if scale == 0 {
		scale = 1
	}
	bad := 0
	for i := 0; i < o.M; i++ {
		for j := 0; j < o.N; j++ {
			var s, sa float64
			for k := 0; k < o.K; k++ {
				x := float64(p.a[i*o.K+k]) * float64(p.bAt(k, j))
				s += x
				sa += math.Abs(x)
			}
			want := s * scale
			tol := 2*float64(o.K)*0x1p-24*sa*math.Abs(scale) + 1e-30
			g := float64(got[i*o.N+j])
			if !(math.Abs(g-want) <= tol) {
				if bad < 5 {
					t.Errorf("%s: C[%d][%d] = %g, want %g (tol %g)", o, i, j, g, want, tol)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements wrong", o, bad, o.M*o.N)
	}
}

// run computes the product on the device with plan p (or the default plan
// when p is nil), C poisoned with NaN first.
func (pr problem) run(t *testing.T, d *backend.Device, p *coopmat.Plan) []float32 {
	t.Helper()
	ctx := context.Background()
	var mm *coopmat.Matmul
	var err error
	if p != nil {
		mm, err = coopmat.NewPlan(ctx, d, *p)
	} else {
		mm, err = coopmat.New(ctx, d, pr.o)
	}
	if err != nil {
		t.Fatalf("%s: %v", pr.o, err)
	}
	defer mm.Close()
	a, err := d.UploadF32(pr.a)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := d.UploadF32(pr.b)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	poison := make([]float32, pr.o.M*pr.o.N)
	for i := range poison {
		poison[i] = float32(math.NaN())
	}
	c, err := d.UploadF32(poison)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if err := mm.Run(a.View(), b.View(), c.View()); err != nil {
		t.Fatalf("%s %s: %v", pr.o, mm.Plan(), err)
	}
	got, err := d.ReadF32(ctx, c.View())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func seed(t *testing.T) *rand.Rand {
	s := rand.Uint64()
	t.Logf("seed %d", s)
	return rand.New(rand.NewPCG(s, 0))
}

// TestF32 runs the default plans on sizes that are not multiples of any
// tile (1, 3, 17, ~1000) and on 4-aligned ones (the vec4 paths), for both
// products, through both drivers.
func TestF32(t *testing.T) {
	t.Setenv(coopmat.EnvCacheDir, t.TempDir()) // defaults, not a tuned plan
	for _, driver := range []string{"vulkan", "wgpu"} {
		t.Run(driver, func(t *testing.T) {
			d := backendtest.Open(t, driver)
			rng := seed(t)
			big := coopmat.Options{M: 1000, N: 1004, K: 996} // vec4 loads and stores
			if driver == "wgpu" {
				big = coopmat.Options{M: 997, N: 1001, K: 999} // scalar edges everywhere
			}
			sizes := []coopmat.Options{{M: 1, N: 1, K: 1}, {M: 3, N: 3, K: 3}, {M: 17, N: 17, K: 17}, {M: 17, N: 33, K: 65}, {M: 64, N: 36, K: 20}, big}
			for _, transB := range []bool{false, true} {
				for _, o := range sizes {
					o.TransB = transB
					if transB {
						o.Scale = 0.125
					}
					pr := newProblem(rng, o)
					pr.check(t, pr.run(t, d, nil))
				}
			}
		})
	}
}

// TestF32Plans runs every candidate tile, and forced split-k, on ragged
// sizes with and without aligned rows.
func TestF32Plans(t *testing.T) {
	d := backendtest.Open(t, "vulkan")
	rng := seed(t)
	for _, o := range []coopmat.Options{{M: 131, N: 67, K: 45}, {M: 70, N: 132, K: 44, TransB: true, Scale: -3}} {
		cands, err := coopmat.Candidates(d.Info(), o)
		if err != nil {
			t.Fatal(err)
		}
		if len(cands) < 3 {
			t.Fatalf("%s: only %d candidates on %s", o, len(cands), d.Info().Name)
		}
		pr := newProblem(rng, o)
		for _, p := range cands {
			t.Run(o.String()+" "+p.String(), func(t *testing.T) { pr.check(t, pr.run(t, d, &p)) })
		}
	}
	// Skinny products split k; the planner must choose it, and it must be right.
	for _, o := range []coopmat.Options{{M: 1, N: 130, K: 3001}, {M: 5, N: 64, K: 2052, TransB: true, Scale: 2}} {
		p, err := coopmat.Choose(d.Info(), o)
		if err != nil {
			t.Fatal(err)
		}
		if p.Splits < 2 {
			t.Fatalf("%s: plan %s does not split k", o, p)
		}
		pr := newProblem(rng, o)
		pr.check(t, pr.run(t, d, &p))
	}
}
