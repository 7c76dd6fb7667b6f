package interp_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/internal/runspec"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
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

// BenchmarkLoopPasses runs a tight loop (a counter and one add a pass) in
// 256 invocations: the interpreter's per-pass bookkeeping (step budget,
// Stats.MaxLoopIterations' count) is a large share of such a loop's
// cost, so changes to it show here first.
func BenchmarkLoopPasses(b *testing.B) {
	src := `kernel spin(n u32, y read_write []u32) workgroup(256) {
	var s u32
	for i := u32(0); i < n + local_index % 3; i++ {
		s += i
	}
	y[global_id.x] = s
}
`
	m, err := parse.File("spin.kc", []byte(src))
	if err != nil {
		b.Fatal(err)
	}
	if err := ir.Check(m); err != nil {
		b.Fatal(err)
	}
	args := &interp.Args{Params: map[string]ir.Value{"n": ir.IntVal(2000)}, Buffers: map[string][]byte{"y": interp.Poison(4 * 256)}}
	for b.Loop() {
		if err := interp.Run(m, "spin", [3]int{1, 1, 1}, args, interp.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
