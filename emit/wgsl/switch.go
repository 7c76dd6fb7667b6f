package wgsl

import (
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file writes switch statements (docs/lowering-12.md, "switch").
// kc's switch is WGSL's: constant selectors of the tag's type, no
// fallthrough, break leaves the switch, continue the enclosing loop. WGSL
// requires a default clause: an empty one is added when kc has none.

func (f *fn) switchStmt(s *ir.Switch) {
	f.line(s.Pos, "switch ", f.expr(s.Tag).s, " {")
	f.e.w.indent++
	t := s.Tag.Type()
	hasDefault := false
	for _, c := range s.Cases {
		var sel []string
		for _, v := range c.Vals {
			sel = append(sel, f.lit(v, t).s)
		}
		if c.Default {
			hasDefault = true
			sel = append(sel, "default")
		}
		head := "case " + strings.Join(sel, ", ") + ": {"
		if c.Default && len(c.Vals) == 0 {
			head = "default: {"
		}
		f.line(c.Pos, head)
		f.block(c.Body)
		f.line(ir.Pos{}, "}")
	}
	if !hasDefault {
		f.line(ir.Pos{}, "default: {}")
	}
	f.e.w.indent--
	f.line(ir.Pos{}, "}")
}
