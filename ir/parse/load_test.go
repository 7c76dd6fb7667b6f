package parse_test

import (
	"strings"
	"testing"

	"github.com/kcgo/kc/ir/parse"
)

func TestLoad(t *testing.T) {
	src := []byte("const N = 4\n\nkernel k(y read_write []u32) workgroup(N) {\n\ty[0] = u32(N)\n}\n")
	m, err := parse.Load("l.kc", src, map[string]string{"N": "8"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Checked || m.Kernels[0].Size != [3]int{8, 1, 1} {
		t.Errorf("Load: checked %v, size %v; want a checked module specialised to 8", m.Checked, m.Kernels[0].Size)
	}
	for _, c := range []struct {
		src  string
		defs map[string]string
		want string
	}{
		{"kernel k() workgroup(64) {\n\tlet x =\n}\n", nil, "l.kc:2:8: missing expression after let x ="},
		{string(src), map[string]string{"M": "1"}, "no constant M to define"},
		{"kernel k() workgroup(64) {\n\tlet x = q\n}\n", nil, "l.kc:2:10: undefined: q"},
	} {
		if _, err := parse.Load("l.kc", []byte(c.src), c.defs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%q): error %v, want one containing %q", c.src, err, c.want)
		}
	}
}
