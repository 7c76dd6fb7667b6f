package kctest_test

import (
	"testing"

	"github.com/kcgo/kc/internal/kctest"
)

// TestOpTable: every row of ir's op tables gets at least one checked case
// (OpTable fails t otherwise), most at several types.
func TestOpTable(t *testing.T) {
	cs := kctest.OpTable(t)
	rows := map[string]int{}
	for _, c := range cs {
		if c.Module == nil || !c.Module.Checked {
			t.Fatalf("%s: not a checked module", c)
		}
		rows[c.Row]++
	}
	if len(rows) < 90 || len(cs) < 300 {
		t.Errorf("%d rows, %d cases: the table shrank", len(rows), len(cs))
	}
}
