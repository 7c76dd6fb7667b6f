package wgsl_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kcgo/kc/emit/wgsl"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// TestOpTable emits every row of ir's op tables at every type it applies
// to (kctest.OpTable) and validates the output with Tint and naga: an
// operator, builtin, conversion or intrinsic the emitter does not handle,
// or spells wrongly, fails here rather than in a user's kernel. The cases
// are emitted one by one (an emitter error names its case), then joined
// into modules of up to perFile kernels, with and without subgroups, for
// the validators (check.mjs takes about half a second per file; Dawn
// crashes on one module holding them all).
func TestOpTable(t *testing.T) {
	cases := kctest.OpTable(t)
	for _, c := range cases {
		if _, err := wgsl.Emit(c.Module, wgsl.Options{}); err != nil {
			t.Errorf("%s: %v\n%s", c, err, c.Src)
		}
	}
	if t.Failed() {
		return
	}
	dir := t.TempDir()
	var paths []string
	type joined struct {
		subg   bool
		starts []int // .kc line where each case's kernel starts
		cases  []kctest.OpCase
		code   []byte
		pos    func(line int) ir.Pos
	}
	files := map[string]*joined{}
	const perFile = 24
	var groups [][]int // case indices per file
	// Cases are joined with others that enable the same features (f16
	// aside, which every file enables).
	header := func(c kctest.OpCase) string {
		h := c.Src[:strings.Index(c.Src, "kernel k(")]
		return strings.Replace(h, "enable f16\n", "", 1)
	}
	var headers []string
	for _, c := range cases {
		if h := header(c); !slices.Contains(headers, h) {
			headers = append(headers, h)
		}
	}
	for _, h := range headers {
		var g []int
		for i, c := range cases {
			if header(c) == h {
				g = append(g, i)
			}
			if len(g) == perFile {
				groups, g = append(groups, g), nil
			}
		}
		if len(g) > 0 {
			groups = append(groups, g)
		}
	}
	for fi, g := range groups {
		subg := strings.Contains(cases[g[0]].Src, "enable subgroups")
		j := &joined{subg: subg}
		var src strings.Builder
		src.WriteString("enable f16\n" + header(cases[g[0]]))
		line := strings.Count(src.String(), "\n") + 1
		for _, i := range g {
			c := cases[i]
			body := c.Src[strings.Index(c.Src, "kernel k("):]
			body = strings.Replace(body, "kernel k(", fmt.Sprintf("kernel k%d(", i), 1)
			j.starts = append(j.starts, line)
			j.cases = append(j.cases, c)
			src.WriteString(body)
			line += strings.Count(body, "\n")
		}
		name := fmt.Sprintf("optable%02d.kc", fi)
		m, err := parse.Load(name, []byte(src.String()), nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := wgsl.Emit(m, wgsl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, strings.TrimSuffix(name, ".kc")+".wgsl")
		if err := os.WriteFile(p, a.Code, 0o644); err != nil {
			t.Fatal(err)
		}
		j.code, j.pos = a.Code, a.SourcePos
		files[p] = j
		paths = append(paths, p)
	}
	msgs, failed := runCheck(t, paths...)
	errors := 0
	for _, m := range msgs {
		j := files[m.file]
		if m.kind == "error" {
			errors++
		}
		if m.kind != "error" || m.who == "naga" && j.subg {
			// naga-wasm 30 rejects `enable subgroups;` (TestTint).
			continue
		}
		what := "(no case)"
		if pos := j.pos(m.line); pos.IsValid() {
			i := sort.SearchInts(j.starts, pos.Line+1) - 1
			if i >= 0 {
				what = j.cases[i].String() + "\n" + j.cases[i].Src
			}
		}
		t.Errorf("%s rejects the WGSL at %d:%d: %s\n%s\n%s", m.who, m.line, m.col, m.text, lineOf(j.code, m.line), what)
	}
	if failed && errors == 0 {
		t.Errorf("check.mjs failed without an error message: %v", msgs)
	}
}
