package goldenkc_test

import (
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/golden/goldenkc"
	"github.com/kcgo/kc/internal/kctest"
)

// TestCorpus is kc's own cross-target golden test through the public
// helper: every test kernel against testdata/golden, for the targets its
// //kc:targets directive names.
func TestCorpus(t *testing.T) {
	dir := filepath.Join(kctest.Root(t), "testdata", "golden")
	for _, c := range kctest.Cases(t) {
		var targets []goldenkc.Target
		for _, tgt := range goldenkc.AllTargets {
			name := string(tgt)
			if tgt == goldenkc.SPVASM {
				name = "spirv"
			}
			if c.Wants(name) {
				targets = append(targets, tgt)
			}
		}
		t.Run(c.Name, func(t *testing.T) {
			goldenkc.Check(t, c.Path, goldenkc.Options{Dir: dir, Targets: targets, Defines: c.Defines})
		})
	}
}
