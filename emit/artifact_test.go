package emit

import (
	"testing"

	"github.com/kcgo/kc/ir"
)

func pos(line int) ir.Pos { return ir.Pos{File: "k.kc", Line: line, Col: 1} }

func TestEntryAndOnly(t *testing.T) {
	a := &Artifact{Target: WGSL, Code: []byte("x"), Entries: []Entry{
		{Kernel: "sampler", Name: "sampler_"}, {Kernel: "sampler_", Name: "sampler__"},
	}}
	if _, err := a.Entry(""); err == nil || err.Error() != "wgsl: the artifact has 2 entry points; name one" {
		t.Errorf("Entry(\"\") = %v", err)
	}
	// A .kc name wins over an emitted one: "sampler_" is the second kernel,
	// not the first kernel's entry point.
	if e, err := a.Entry("sampler_"); err != nil || e.Name != "sampler__" {
		t.Errorf("Entry(sampler_) = %+v, %v", e, err)
	}
	if e, err := a.Entry("sampler__"); err != nil || e.Kernel != "sampler_" {
		t.Errorf("Entry(sampler__) = %+v, %v", e, err)
	}
	if _, err := a.Entry("nosuch"); err == nil || err.Error() != `wgsl: no kernel "nosuch" in the artifact` {
		t.Errorf("Entry(nosuch) = %v", err)
	}
	b, err := a.Only("sampler")
	if err != nil || len(b.Entries) != 1 || b.Entries[0].Name != "sampler_" || &b.Code[0] != &a.Code[0] || len(a.Entries) != 2 {
		t.Errorf("Only(sampler) = %+v, %v", b, err)
	}
}

func TestSourcePos(t *testing.T) {
	text := &Artifact{Target: HLSL, Lines: []Span{{1, ir.Pos{}}, {2, pos(3)}, {3, pos(4)}}}
	for loc, want := range map[int]ir.Pos{0: {}, 1: {}, 2: pos(3), 3: pos(4), 4: {}} {
		if got := text.SourcePos(loc); got != want {
			t.Errorf("text line %d: %v, want %v", loc, got, want)
		}
	}
	words := &Artifact{Target: SPIRV, Words: make([]uint32, 20), Lines: []Span{{Off: 5, Pos: pos(2)}, {Off: 9, Pos: ir.Pos{}}, {Off: 12, Pos: pos(7)}}}
	for loc, want := range map[int]ir.Pos{4: {}, 5: pos(2), 8: pos(2), 9: {}, 12: pos(7), 19: pos(7), 20: {}} {
		if got := words.SourcePos(loc); got != want {
			t.Errorf("word %d: %v, want %v", loc, got, want)
		}
	}
	if got := (*Artifact)(nil).SourcePos(1); got.IsValid() {
		t.Errorf("nil: %v", got)
	}
}

func TestBytes(t *testing.T) {
	a := &Artifact{Target: SPIRV, Words: []uint32{0x07230203, 0x00010300}}
	if got := a.Bytes(); string(got) != "\x03\x02\x23\x07\x00\x03\x01\x00" {
		t.Errorf("Bytes = % x", got)
	}
	if got := (&Artifact{Target: WGSL, Code: []byte("fn")}).Bytes(); string(got) != "fn" {
		t.Errorf("text Bytes = %q", got)
	}
}
