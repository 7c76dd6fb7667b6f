package spirv

import (
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
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
			for b.Loop() {
				m, err := parse.File(c.Path, c.Src)
				if err != nil {
					b.Fatal(err)
				}
				if len(c.Defines) > 0 {
					if err := ir.Specialize(m, c.Defines); err != nil {
						b.Fatal(err)
					}
				}
				if err := ir.Check(m); err != nil {
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
			for b.Loop() {
				if _, err := Emit(m, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
