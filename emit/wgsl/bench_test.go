package wgsl_test

import (
	"testing"

	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir/parse"
)

// BenchmarkCompile measures the whole .kc to WGSL path per test kernel:
// parse, specialise, check and emit.
func BenchmarkCompile(b *testing.B) {
	for _, c := range kctest.Cases(b) {
		if !c.Wants("wgsl") {
			continue
		}
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.Src)))
			for b.Loop() {
				m, err := parse.Load(c.Path, c.Src, c.Defines)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := wgsl.Emit(m, wgsl.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEmit measures Emit alone on checked modules.
func BenchmarkEmit(b *testing.B) {
	for _, c := range kctest.Cases(b) {
		if !c.Wants("wgsl") {
			continue
		}
		m := c.Module(b)
		b.Run(c.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := wgsl.Emit(m, wgsl.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
