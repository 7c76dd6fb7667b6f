package ir_test

import (
	"testing"

	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// TestCorpusChecks checks every test kernel (with its //kc:define values).
func TestCorpusChecks(t *testing.T) {
	for _, c := range kctest.Cases(t) {
		t.Run(c.Name, func(t *testing.T) {
			m := c.Module(t)
			if !m.Checked {
				t.Fatal("Checked not set")
			}
			for _, p := range annotationProblems(m) {
				t.Error(p)
			}
			// Idempotent: a second Check succeeds and changes nothing printed.
			before := string(ir.Print(m))
			if err := ir.Check(m); err != nil {
				t.Fatalf("second Check: %v", err)
			}
			if after := string(ir.Print(m)); after != before {
				t.Errorf("second Check changed the module")
			}
			for _, p := range annotationProblems(m) {
				t.Error("after second Check:", p)
			}
		})
	}
}
