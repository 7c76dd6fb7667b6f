package spirv

import (
	"testing"
)

// TestPositions checks the position map against the OpLines in the module:
// every instruction after an OpLine (in the same block) maps to that line,
// and IDPos/InstPos agree with Pos.
func TestPositions(t *testing.T) {
	checked := 0
	for _, c := range corpus(t) {
		mod, err := Emit(c.Module(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := mod.Words
		line := uint32(0)
		inst := 0
		for i := 5; i < len(w); i += int(w[i] >> 16) {
			inst++
			switch op(w[i] & 0xffff) {
			case opLine:
				line = w[i+2]
				continue
			case opLabel, opFunctionEnd:
				line = 0
				continue
			}
			if line == 0 {
				continue
			}
			p := mod.SourcePos(i)
			ok := p.IsValid()
			if !ok || uint32(p.Line) != line {
				t.Fatalf("%s: word %d: Pos = %v, %v; the OpLine before it says line %d\n%s", c.Name, i, p, ok, line, contextAt(w, i))
			}
			if q, ok := InstPos(mod, inst); !ok || q != p {
				t.Fatalf("%s: instruction %d: InstPos = %v, Pos = %v", c.Name, inst, q, p)
			}
			if info, _ := lookup(op(w[i] & 0xffff)); len(info.operands) > 1 && info.operands[1].kind == kResult {
				if q, ok := IDPos(mod, w[i+2]); !ok || q != p {
					t.Fatalf("%s: IDPos(%d) = %v, Pos = %v", c.Name, w[i+2], q, p)
				}
			}
			checked++
		}
	}
	if checked < 1000 {
		t.Errorf("only %d instructions checked", checked)
	}
}
