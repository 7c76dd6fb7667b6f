package parse_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// FuzzParse: the parser never panics; anything it accepts prints to text
// that parses back to the same module, and printing is idempotent.
func FuzzParse(f *testing.F) {
	for _, p := range corpusPaths() {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(langSrc))
	for _, c := range syntaxErrors {
		f.Add([]byte(c.src))
	}
	f.Add([]byte(posSrc))
	f.Add([]byte(commentsSrc))
	f.Add([]byte(parensSrc))
	f.Add([]byte(blockDocsSrc))
	f.Add([]byte(coopSrc))
	for _, c := range coopSyntaxErrors {
		f.Add([]byte("kernel k(x read []f32, y read_write []f32) workgroup(32) {\n\t" + c.body + "\n}\n"))
	}
	f.Fuzz(checkParse)
}

// checkParse is the fuzz property: no panic, an ir.ErrorList on failure,
// and a stable round trip on success.
func checkParse(t *testing.T, src []byte) {
	m, err := parse.File("f.kc", src)
	if err != nil {
		if _, ok := err.(ir.ErrorList); !ok {
			t.Fatalf("error %T is not an ir.ErrorList: %v", err, err)
		}
		return
	}
	out := ir.Print(m)
	m2, err := parse.File("f.kc", out)
	if err != nil {
		t.Fatalf("printed text does not parse: %v\n--- input\n%s\n--- printed\n%s", err, src, out)
	}
	if d := cmp.Diff(m, m2, ignorePos); d != "" {
		t.Fatalf("parse(print(m)) != m:\n%s\n--- printed\n%s", d, out)
	}
	if out2 := ir.Print(m2); !bytes.Equal(out, out2) {
		t.Fatalf("Print not idempotent:\n%s", cmp.Diff(string(out), string(out2)))
	}
}

// TestMutations applies the fuzz property to systematic damage of every
// test kernel: each prefix, each line removed, each line doubled.
func TestMutations(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: thousands of parses")
	}
	for _, p := range append(corpusPaths(), "") {
		src := []byte(langSrc)
		if p != "" {
			var err error
			if src, err = os.ReadFile(p); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < len(src); i += 17 {
			checkParse(t, src[:i])
		}
		lines := bytes.SplitAfter(src, []byte("\n"))
		for i := range lines {
			var drop, dup []byte
			for j, l := range lines {
				if j != i {
					drop = append(drop, l...)
				}
				dup = append(dup, l...)
				if j == i {
					dup = append(dup, l...)
				}
			}
			checkParse(t, drop)
			checkParse(t, dup)
		}
	}
}

// corpusPaths lists the test kernels.
func corpusPaths() []string {
	var out []string
	for _, dir := range []string{"kernels"} {
		paths, _ := filepath.Glob(filepath.Join("..", "..", "testdata", dir, "*.kc"))
		out = append(out, paths...)
	}
	return out
}
