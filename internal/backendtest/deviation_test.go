package backendtest

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
)

// TestDeviation checks that the SwiftShader deviation accepts exactly a
// one-ulp difference in slot 5 of conversions' out, on SwiftShader only.
func TestDeviation(t *testing.T) {
	p := filepath.Join(kctest.Root(t), "testdata", "kernels", "conversions.kc")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	c := kctest.NewCase(t, p, src)
	m := c.Module(t)
	k := m.Kernels[0]
	run := c.Run(t, m, k)
	out := Outputs(k)[0]
	r := rand.New(rand.NewPCG(rand.Uint64(), 1))
	want := make([]byte, 4*8*40)
	for i := 0; i < len(want); i += 4 { // normal, positive floats: ±1 stays finite
		binary.LittleEndian.PutUint32(want[i:], 0x3f800000+r.Uint32N(1<<22))
	}
	nudge := func(elem int, by uint32) []byte {
		got := append([]byte(nil), want...)
		w := binary.LittleEndian.Uint32(got[4*elem:])
		binary.LittleEndian.PutUint32(got[4*elem:], w+by)
		return got
	}
	swift := backend.AdapterInfo{Name: "Google SwiftShader"}
	other := backend.AdapterInfo{Name: "llvmpipe (LLVM 15.0.6, 256 bits)"}
	for _, c2 := range []struct {
		what   string
		info   backend.AdapterInfo
		got    []byte
		accept bool
	}{
		{"equal", other, want, true},
		{"slot 5, one ulp, swiftshader", swift, nudge(8*3+5, 1), true},
		{"slot 5, one ulp down, swiftshader", swift, nudge(8*7+5, ^uint32(0)), true},
		{"slot 5, one ulp, another adapter", other, nudge(8*3+5, 1), false},
		{"slot 5, two ulps, swiftshader", swift, nudge(8*3+5, 2), false},
		{"slot 4, one ulp, swiftshader", swift, nudge(8*3+4, 1), false},
		{"slot 7, one ulp (the directive's tol)", other, nudge(8*2+7, 1), true},
		{"slot 7, two ulps", swift, nudge(8*2+7, 2), false},
	} {
		msg := check(t, c2.info, c, k, run, out, c2.got, want)
		if (msg == "") != c2.accept {
			t.Errorf("%s: accepted %v, want %v (%s)", c2.what, msg == "", c2.accept, msg)
		}
		if !c2.accept && !strings.Contains(msg, "1 of 320 elements differ") {
			t.Errorf("%s: %q, want one element named", c2.what, msg)
		}
	}
}
