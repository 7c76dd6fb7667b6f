package main

import (
	"context"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kcgo/kc/backend"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
)

// TestRefWiden checks the format-derived reference against the
// interpreter's conversion for all 65,536 halves (NaN for NaN).
func TestRefWiden(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		got, want := RefWiden(uint16(h)), math.Float32bits(interp.F16BitsToF32(uint16(h)))
		gf, wf := math.Float32frombits(got), math.Float32frombits(want)
		if got != want && !(gf != gf && wf != wf) {
			t.Fatalf("half %#04x: RefWiden %#08x, interpreter %#08x", h, got, want)
		}
	}
	// spot values that do not depend on either routine
	for h, want := range map[uint16]float64{0x3c00: 1, 0xc000: -2, 0x0001: math.Ldexp(1, -24), 0x03ff: math.Ldexp(1023, -24),
		0x0400: math.Ldexp(1, -14), 0x7bff: 65504, 0x7c00: math.Inf(1), 0xfc00: math.Inf(-1)} {
		if got := float64(math.Float32frombits(RefWiden(h))); got != want {
			t.Errorf("RefWiden(%#04x) = %g, want %g", h, got, want)
		}
	}
	if RefWiden(0x8000) != 0x80000000 || RefWiden(0x7e01) != 0x7fc02000 {
		t.Errorf("RefWiden: -0 %#x, NaN 0x7e01 %#x", RefWiden(0x8000), RefWiden(0x7e01))
	}
}

// checkModes fails unless every widening is exact for every half, the
// integer ones with NaN payloads and signs kept too.
func checkModes(t *testing.T, widen func(mode int) WidenResult) {
	for mode, name := range widenModes {
		r := widen(mode)
		t.Logf("%s: %s", name, r)
		if r.Bad > 0 || (name == "magic" || name == "exact") && r.NaNPayload > 0 {
			t.Errorf("%s: %s", name, r)
		}
	}
}

// TestWidenInterp widens all 65,536 halves (low and high half of a word)
// by every method on the interpreter.
func TestWidenInterp(t *testing.T) {
	checkModes(t, func(mode int) WidenResult {
		m, err := Load(map[string]string{"MODE": strconv.Itoa(mode)})
		if err != nil {
			t.Fatal(err)
		}
		o := interp.Poison(8 << 16)
		if err := interp.Run(m, "widen_all", [3]int{1 << 14 / 256, 1, 1}, &interp.Args{Buffers: map[string][]byte{"x": AllWords(), "o": o}}, interp.Options{}); err != nil {
			t.Fatal(err)
		}
		return CheckWiden(o)
	})
}

// lavapipe opens lavapipe through the Vulkan driver.
func lavapipe(t *testing.T) *backend.Device {
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		dir := t.TempDir()
		os.Chmod(dir, 0o700)
		t.Setenv("XDG_RUNTIME_DIR", dir)
	}
	as, err := backend.Adapters(context.Background())
	for _, a := range as {
		if a.Driver == "vulkan" && a.Type == backend.TypeCPU {
			d, err := backend.OpenAdapter(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			return d
		}
	}
	kctest.Missing(t, "no lavapipe adapter through the Vulkan driver (install mesa-vulkan-drivers): %v", err)
	return nil
}

// TestWidenDevice widens all halves by every method on lavapipe.
func TestWidenDevice(t *testing.T) {
	d := lavapipe(t)
	checkModes(t, func(mode int) WidenResult {
		r, err := WidenDevice(context.Background(), d, mode)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
}

// TestStreamInterp runs every stream kernel on the interpreter over a
// ragged number of fresh random words (not a multiple of the grid).
func TestStreamInterp(t *testing.T) {
	n, groups := 1001, 2
	data := StreamData(n, time.Now().UnixNano())
	refs := References(data)
	m, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range Variants {
		out := interp.Poison(16 * 256 * groups)
		args := &interp.Args{Params: map[string]ir.Value{"n": ir.IntVal(int64(n))}, Buffers: map[string][]byte{"x": append([]byte(nil), data...), "out": out}}
		if err := interp.Run(m, v.Kernel, [3]int{groups, 1, 1}, args, interp.Options{}); err != nil {
			t.Fatal(err)
		}
		if err := CheckSums(v, out, refs); err != nil {
			t.Error(err)
		}
	}
}

// TestStreamDevice runs every stream kernel on lavapipe over a ragged
// number of fresh random words, through the benchmark's own Stream.
func TestStreamDevice(t *testing.T) {
	d := lavapipe(t)
	data := StreamData(100003, time.Now().UnixNano())
	refs := References(data)
	s, err := NewStream(context.Background(), d, data, 7)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	for _, v := range Variants {
		if err := s.Check(context.Background(), v, refs); err != nil {
			t.Error(err)
		}
	}
}

// TestCheckSumsFails makes sure the sum check can fail: one word's
// values dropped from a correct result.
func TestCheckSumsFails(t *testing.T) {
	data := StreamData(64, 1)
	refs := References(data)
	for _, v := range Variants {
		if v.Kind == "f16" || v.Kind == "u32" {
			bad := References(data[16:])
			if v.Kind == "u32" && bad.U32 == refs.U32 || v.Kind == "f16" && bad.Sum["f16"] == refs.Sum["f16"] {
				t.Fatalf("%s: dropping a word changed no reference", v.Kernel)
			}
		}
	}
	out := make([]byte, 16)
	if err := CheckSums(Variant{"s_unpack", "f16"}, out, refs); err == nil {
		t.Error("CheckSums accepted zero sums for random data")
	}
}

// TestWidenMutants makes sure the exhaustive check catches a widening
// that loses the inf/NaN select or the sign.
func TestWidenMutants(t *testing.T) {
	for _, cut := range [][2]string{{"e | vec4<u32>(0x70000000), f)", "f, f)"}, {"return bitcast<vec4<f32>>(r | s)\n}\n\n// widenSel", "return bitcast<vec4<f32>>(r)\n}\n\n// widenSel"}} {
		src := strings.Replace(string(source), cut[0], cut[1], 1)
		if src == string(source) {
			t.Fatalf("mutation %q not applied", cut[0])
		}
		m, err := parse.Load("conv.kc", []byte(src), map[string]string{"MODE": "1"})
		if err != nil {
			t.Fatal(err)
		}
		o := interp.Poison(8 << 16)
		if err := interp.Run(m, "widen_all", [3]int{1 << 14 / 256, 1, 1}, &interp.Args{Buffers: map[string][]byte{"x": AllWords(), "o": o}}, interp.Options{}); err != nil {
			t.Fatal(err)
		}
		if r := CheckWiden(o); r.Bad == 0 {
			t.Errorf("mutant %q passed the check: %s", cut[1], r)
		}
	}
}
