package interp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
)

// BenchmarkRun runs every kernel of the corpus on the interpreter with the
// inputs its //kc:run directive draws (the sizes the corpus runner and
// kc run use). The seed is fixed so that runs compare: the same sizes and
// data every time. A module's first kernel is named after the case, any
// other kernel case.kernel.
func BenchmarkRun(b *testing.B) {
	for _, c := range kctest.Cases(b) {
		m := c.Module(b)
		for i, k := range m.Kernels {
			name := c.Name
			if i > 0 {
				name += "." + k.Name
			}
			b.Run(name, func(b *testing.B) { benchKernel(b, c, m, k) })
		}
	}
}

func benchKernel(b *testing.B, c kctest.Case, m *ir.Module, k *ir.Kernel) {
	plan, err := runspec.Draw(c.Run(b, m, k), m, k, rand.New(rand.NewPCG(1, 2)), runspec.Overrides{})
	if err != nil {
		b.Fatalf("%s/%s: %v", c.Name, k.Name, err)
	}
	bufs := ir.Buffers(k)
	args := &interp.Args{Params: plan.Params, Buffers: map[string][]byte{}}
	b.ResetTimer()
	for b.Loop() {
		// Fresh copies each time: a kernel that accumulates into its
		// buffers (histograms, atomics) must start from the drawn bytes.
		b.StopTimer()
		for i, p := range bufs {
			args.Buffers[p.Name] = append(args.Buffers[p.Name][:0], plan.Bufs[i]...)
		}
		b.StartTimer()
		if err := interp.Run(m, k.Name, plan.Grid, args, interp.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
