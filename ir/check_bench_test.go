package ir_test

import (
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// BenchmarkCheckCorpus checks every corpus kernel once per iteration.
func BenchmarkCheckCorpus(b *testing.B) {
	var mods []*ir.Module
	for _, c := range kctest.Cases(b) {
		m, err := parse.File(c.Path, c.Src)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Defines) > 0 {
			if err := ir.Specialize(m, c.Defines); err != nil {
				b.Fatal(err)
			}
		}
		mods = append(mods, m)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, m := range mods {
			if err := ir.Check(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}
