package ir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/parse"
)

// FuzzCheck: Check never panics on anything the parser accepts; its errors
// are an ir.ErrorList in position order; a second Check gives the same
// answer and leaves the module as the first left it; and a module that
// checks has every annotation Check promises.
func FuzzCheck(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "testdata", "kernels", "*.kc"))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, c := range checkCases {
		f.Add([]byte(moduleSrc(c.src)))
	}
	for _, c := range langCases {
		f.Add([]byte(moduleSrc(c.src)))
	}
	for _, c := range coopCases {
		f.Add([]byte(coopModuleSrc(c.body)))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := parse.File("f.kc", src)
		if err != nil {
			return
		}
		err = ir.Check(m)
		first := string(ir.Print(m))
		if err != nil {
			checkErrorList(t, err, src)
		} else {
			if !m.Checked {
				t.Fatal("Check succeeded but Checked is false")
			}
			if p := annotationProblems(m); len(p) > 0 {
				t.Fatalf("missing annotations: %v\n--- input\n%s", p, src)
			}
		}
		if err2 := ir.Check(m); errText(err2) != errText(err) {
			t.Fatalf("second Check differs:\n%v\n---\n%v\n--- input\n%s", err, err2, src)
		}
		if again := string(ir.Print(m)); again != first {
			t.Fatalf("second Check changed the printed module:\n%s\n---\n%s", first, again)
		}
	})
}

func checkErrorList(t *testing.T, err error, src []byte) {
	t.Helper()
	var list ir.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("Check returned %T %v, want a non-empty ir.ErrorList", err, err)
	}
	for i, e := range list {
		if strings.Contains(e.Msg, "internal error") {
			t.Fatalf("checker panicked: %v\n--- input\n%s", e, src)
		}
		if i > 0 && posLess(e.Pos, list[i-1].Pos) {
			t.Fatalf("errors out of order: %v before %v", list[i-1], e)
		}
	}
}

func posLess(a, b ir.Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
}
