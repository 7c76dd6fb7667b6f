package spirv

import (
	"syscall"
	"testing"
	"time"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir/parse"
)

// BenchmarkEmit measures the whole compile of each corpus kernel to
// SPIR-V: parse, specialise, check and emit (with debug info), as
// `kc compile -target spirv` does it.
func BenchmarkEmit(b *testing.B) {
	for _, c := range kctest.Cases(b) {
		if !c.Wants("spirv") {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				m, err := parse.Load(c.Path, c.Src, c.Defines)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Emit(m, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmitOnly measures Emit alone on each checked corpus module.
func BenchmarkEmitOnly(b *testing.B) {
	for _, c := range kctest.Cases(b) {
		if !c.Wants("spirv") {
			continue
		}
		m := c.Module(b)
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				if _, err := Emit(m, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// reportCPU adds a cpu-ns/op metric: the process's user+system CPU time per
// iteration (GC included). On a loaded machine it is steadier than ns/op,
// which counts time spent waiting for a core.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
