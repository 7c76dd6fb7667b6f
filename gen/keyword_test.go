package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// keywordProgram runs every launcher of testdata/kernels/keyword_names.kc
// on the device its first argument selects and compares each output, bit
// for bit, with the reference interpreter on the same fresh random input
// (outputs poisoned first).
const keywordProgram = `package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/kcgo/kc/backend"
	_ "github.com/kcgo/kc/backend/vulkan"
	_ "github.com/kcgo/kc/backend/wgpu"
	"github.com/kcgo/kc/ir"
	"github.com/kcgo/kc/ir/interp"
	"github.com/kcgo/kc/ir/parse"
	"github.com/kcgo/kc/precompiled"
)

//go:embed keyword_names.kc
var src []byte

type launcher func(context.Context, *backend.Device, [3]uint32, uint32, backend.View, backend.View) error

var kernels = []struct {
	k   *precompiled.Kernel
	run launcher
}{
	{SamplerKernel, Sampler}, {TextureKernel, Texture}, {FloatKernel, Float}, {BufferKernel, Buffer}, {MainKernel, Main},
}

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "keywords:", err)
		os.Exit(1)
	}
}

func run(sel string) error {
	ctx := context.Background()
	dev, err := backend.Open(ctx, sel)
	if err != nil {
		return err
	}
	defer dev.Close()
	m, err := parse.Load("keyword_names.kc", src, nil)
	if err != nil {
		return err
	}
	n := 200 + rand.IntN(1000)
	groups := (n + 63) / 64
	for _, kl := range kernels {
		x := make([]uint32, n)
		for i := range x {
			x[i] = rand.Uint32()
		}
		xb, err := dev.Upload(interp.Encode(x))
		if err != nil {
			return err
		}
		yb, err := dev.Upload(interp.Poison(4 * n))
		if err != nil {
			return err
		}
		if err := kl.run(ctx, dev, backend.Groups(uint32(groups)), uint32(n), xb.View(), yb.View()); err != nil {
			return err
		}
		got, err := dev.Read(ctx, yb.View())
		if err != nil {
			return err
		}
		want := interp.Poison(4 * n)
		args := &interp.Args{Params: map[string]ir.Value{"n": ir.IntVal(int64(n))}, Buffers: map[string][]byte{"x": interp.Encode(x), "y": want}}
		if err := interp.Run(m, kl.k.Name, [3]int{groups, 1, 1}, args, interp.Options{}); err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("kernel %s on %s: output differs from the interpreter's (n=%d)", kl.k.Name, dev.Info().Driver, n)
		}
		p, err := kl.k.Pipeline(ctx, dev)
		if err != nil {
			return err
		}
		fmt.Printf("%s %s %s ok\n", dev.Info().Driver, p.Target(), kl.k.Name)
	}
	return nil
}
`

// TestKeywordLaunchers generates launchers for kernels named with words the
// targets reserve (sampler becomes sampler_ in WGSL, float float_ in HLSL)
// and runs them from a user's module on both drivers: each loads the entry
// point under the name its target's code declares.
func TestKeywordLaunchers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module (-short)")
	}
	src := corpusFile(t, "keyword_names.kc")
	code, err := Generate([]Input{{Path: "keyword_names.kc", Src: src}}, Options{Package: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`WGSLEntry: "sampler_"`, `HLSLEntry: "float_"`, `HLSLEntry: "Buffer_"`} {
		if !strings.Contains(string(code), want) {
			t.Errorf("generated code lacks %s", want)
		}
	}
	dir := tempModule(t, "example.com/keywords")
	for name, data := range map[string][]byte{"kernels_kc.go": code, "main.go": []byte(keywordProgram), "keyword_names.kc": src} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildProgram(t, dir, "keywords")
	for _, driver := range []string{"vulkan", "wgpu"} {
		t.Run(driver, func(t *testing.T) {
			fiveOK := func(out string) bool { return strings.Count(out, " ok\n") == 5 }
			runProgram(t, bin, "launchers on "+driver, "no adapter matches", fiveOK, driver)
		})
	}
}
