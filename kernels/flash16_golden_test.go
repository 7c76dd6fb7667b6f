package kernels

import (
	"path/filepath"
	"testing"

	"github.com/kcgo/kc/golden"
)

// TestFlash16Golden keeps the generated text of each flash16 layout at
// DH 128, 4 subgroups and blocks of 32 keys, of the packed and lean
// layouts' query passes (8 subgroups: 128 query rows, 64 rows of kv), and
// of the lean layout's options (Near; Pipe; Single with blocks of 64, the
// default on the H200), in testdata/golden: a change to the templates
// shows as a diff of the kernels they write (go test ./kernels -update to
// accept it).
func TestFlash16Golden(t *testing.T) {
	for name, f := range map[string]flash16Config{
		"flash16_direct":        {DH: 128, NSG: 4, SUB: 32, BK: 32, Direct: true},
		"flash16_staged":        {DH: 128, NSG: 4, SUB: 32, BK: 32},
		"flash16_packed":        {DH: 128, NSG: 4, SUB: 32, BK: 32, Packed: true},
		"flash16_packed_passes": {DH: 64, NSG: 8, SUB: 32, BK: 32, Packed: true},
		"flash16_lean":          {DH: 128, NSG: 4, SUB: 32, BK: 32, Packed: true, Lean: true},
		"flash16_lean_passes":   {DH: 128, NSG: 8, SUB: 32, BK: 32, Packed: true, Lean: true, Bcast0: true},
		"flash16_lean_near":     {DH: 128, NSG: 4, SUB: 32, BK: 32, Packed: true, Lean: true, Bcast0: true, Near: true},
		"flash16_lean_pipe":     {DH: 128, NSG: 4, SUB: 32, BK: 32, Packed: true, Lean: true, Bcast0: true, Unmask: true, Near: true, Pipe: true},
		"flash16_lean_single":   {DH: 128, NSG: 4, SUB: 32, BK: 64, Packed: true, Lean: true, Bcast0: true, Unmask: true, Near: true, Single: true},
	} {
		src, err := f.source()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden.Check(t, filepath.Join("testdata", "golden", name+".kc"), []byte(src))
	}
}
