package interp

import (
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestCorpusRandomArguments runs every corpus kernel with random scalar
// parameters, buffer sizes (including empty buffers) and grids: each run
// must end without error or with an *Error (out of bounds, step budget),
// never with an internal error or a panic.
func TestCorpusRandomArguments(t *testing.T) {
	r := newRNG(t)
	runs, failed := 0, 0
	for _, c := range kctest.Cases(t) {
		m := c.Module(t)
		for _, k := range m.Kernels {
			for trial := 0; trial < 6; trial++ {
				a := &Args{Params: map[string]ir.Value{}, Buffers: map[string][]byte{}}
				for _, p := range k.Params {
					if p.Kind == ir.BufferParam {
						n := r.IntN(300)
						if r.IntN(5) == 0 {
							n = 0
						}
						a.Buffers[p.Name] = Poison(n * ir.ElemStride(p.Type))
						continue
					}
					switch p.Type {
					case ir.F32:
						a.Params[p.Name] = ir.FloatVal(r.Float64()*20 - 10)
					case ir.I32:
						a.Params[p.Name] = ir.IntVal(int64(r.IntN(600) - 300))
					default:
						a.Params[p.Name] = ir.IntVal(int64(r.IntN(400)))
					}
				}
				groups := [3]int{r.IntN(4), 1 + r.IntN(2), 1}
				err := Run(m, k.Name, groups, a, Options{MaxSteps: 2_000_000, SubgroupSize: 1 << r.IntN(8), Races: r.IntN(2) == 0})
				runs++
				if err == nil {
					continue
				}
				failed++
				if _, ok := err.(*Error); !ok {
					t.Errorf("%s/%s with %v: %v", c.Name, k.Name, groups, err)
				}
			}
		}
	}
	t.Logf("%d runs, %d stopped with an *Error", runs, failed)
}
