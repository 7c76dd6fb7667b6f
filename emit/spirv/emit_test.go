package spirv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/kcgo/kc/emit"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kcgo/kc/golden"
	"github.com/kcgo/kc/internal/kctest"
	"github.com/kcgo/kc/ir"
)

// corpus returns the test kernels that want the spirv target.
func corpus(t *testing.T) []kctest.Case {
	var out []kctest.Case
	for _, c := range kctest.Cases(t) {
		if c.Wants("spirv") {
			out = append(out, c)
		}
	}
	return out
}

// langCases reads this package's testdata/lang*.kc: further uses of issue
// 12's constructs, validated, round-tripped and run on the device.
func langCases(t *testing.T) []kctest.Case {
	var out []kctest.Case
	for _, f := range []string{"lang.kc", "lang_f16.kc"} {
		p := filepath.Join("testdata", f)
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kctest.Case{Name: strings.TrimSuffix(f, ".kc"), Path: p, Src: src})
	}
	return out
}

// TestGolden emits every corpus kernel and compares the disassembly with
// testdata/golden/NAME.spvasm (go test -update rewrites them).
func TestGolden(t *testing.T) {
	for _, c := range corpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			mod, err := Emit(c.Module(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			text, err := Disassemble(mod.Words)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, kctest.Golden(t, c.Name, "spvasm"), []byte(text))
			if usesCoopMat(c.Module(t)) { // and the NV flavour, which spirv-val checks
				mod, err := Emit(c.Module(t), Options{CoopMat: CoopMatNV})
				if err != nil {
					t.Fatal(err)
				}
				text, err := Disassemble(mod.Words)
				if err != nil {
					t.Fatal(err)
				}
				golden.Check(t, kctest.Golden(t, c.Name, "nv.spvasm"), []byte(text))
			}
		})
	}
}

// TestNoOrphanGoldens fails for a .spvasm golden without a corpus case.
func TestNoOrphanGoldens(t *testing.T) {
	want := map[string]bool{}
	for _, c := range corpus(t) {
		want[c.Name] = true
	}
	files, _ := filepath.Glob(filepath.Join(kctest.Root(t), "testdata", "golden", "*.spvasm"))
	for _, f := range files {
		name := filepath.Base(f)
		name = name[:len(name)-len(".spvasm")]
		name = strings.TrimSuffix(name, ".nv") // the NV flavour of a cooperative-matrix kernel
		if !want[name] {
			t.Errorf("%s has no test kernel wanting spirv", f)
		}
	}
}

// TestValidate runs spirv-val on every corpus module, as SPIR-V 1.3 for
// Vulkan 1.1 and as SPIR-V 1.6 for Vulkan 1.3, with and without debug info.
func TestValidate(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for _, c := range append(corpus(t), langCases(t)...) {
		t.Run(c.Name, func(t *testing.T) {
			m := c.Module(t)
			for _, opts := range allOptions(m) {
				mod, err := Emit(m, opts)
				if err != nil {
					t.Fatalf("%+v: %v", opts, err)
				}
				if err := ValidateArtifact(context.Background(), mod); err != nil {
					t.Errorf("%+v: %v", opts, err)
				}
			}
		})
	}
	for name, m := range handModules() {
		for _, opts := range allOptions(m) {
			mod, err := Emit(m, opts)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, opts, err)
			}
			if err := ValidateArtifact(context.Background(), mod); err != nil {
				t.Errorf("%s %+v: %v", name, opts, err)
			}
		}
	}
}

// allOptions lists the option sets every module is validated with: both
// versions, with and without debug info, all kernels together and each
// kernel alone.
func allOptions(m *ir.Module) []Options {
	var out []Options
	cm := toolFlavor(m)
	for _, v := range []Version{V1_3, V1_6} {
		out = append(out, Options{Version: v, CoopMat: cm}, Options{Version: v, NoDebugInfo: true, CoopMat: cm})
		if len(m.Kernels) > 1 {
			for _, k := range m.Kernels {
				out = append(out, Options{Version: v, Kernel: k.Name, CoopMat: cm})
			}
		}
	}
	return out
}

func handModules() map[string]*ir.Module {
	return map[string]*ir.Module{"guards": guardKernel(), "control": controlKernel()}
}

// TestRoundTrip assembles the disassembly with spirv-as and expects the
// very same words (the header's generator word aside): the text is a
// faithful view of the binary.
func TestRoundTrip(t *testing.T) {
	tool := kctest.Tool(t, "spirv-as")
	dir := t.TempDir()
	check := func(name string, mod *emit.Artifact) {
		t.Helper()
		text, err := Disassemble(mod.Words)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		in := filepath.Join(dir, name+".spvasm")
		out := filepath.Join(dir, name+".spv")
		if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		env := "spv" + VersionOf(mod.Words).String()
		if msg, err := exec.Command(tool, "--target-env", env, in, "-o", out).CombinedOutput(); err != nil {
			t.Fatalf("%s: spirv-as: %v\n%s", name, err, msg)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, len(b)/4)
		for i := range got {
			got[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		want := mod.Words
		if len(got) != len(want) || got[1] != want[1] || got[3] != want[3] {
			t.Fatalf("%s: spirv-as gave %d words (version %#x, bound %d), want %d (version %#x, bound %d)",
				name, len(got), got[1], got[3], len(want), want[1], want[3])
		}
		for i := 5; i < len(want); i++ {
			if got[i] != want[i] {
				t.Fatalf("%s: word %d: spirv-as %#x, emitted %#x\n%s", name, i, got[i], want[i], contextAt(want, i))
			}
		}
	}
	for _, c := range append(corpus(t), langCases(t)...) {
		m := c.Module(t)
		for _, v := range []Version{V1_3, V1_6} {
			mod, err := Emit(m, Options{Version: v, CoopMat: toolFlavor(m)})
			if err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("%s-%s", c.Name, v), mod)
		}
	}
	for name, m := range handModules() {
		mod, err := Emit(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		check(name, mod)
	}
}

// contextAt shows the disassembly around the instruction holding word i.
func contextAt(words []uint32, i int) string {
	n, k := 1, 5
	for k < len(words) {
		next := k + int(words[k]>>16)
		if i < next || words[k]>>16 == 0 {
			break
		}
		k = next
		n++
	}
	return contextAround(words, n, 4)
}

// TestDeterministic emits each module twice in a row and eight times
// concurrently; all outputs must be identical.
func TestDeterministic(t *testing.T) {
	mods := handModules()
	for _, c := range corpus(t) {
		mods[c.Name] = c.Module(t)
	}
	for name, m := range mods {
		first, err := Emit(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		outs := make([][]byte, 8)
		errs := make([]error, 8)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				mod, err := Emit(m, Options{})
				if err == nil {
					outs[i] = mod.Bytes()
				}
				errs[i] = err
			}()
		}
		again, _ := Emit(m, Options{})
		wg.Wait()
		for i, b := range outs {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			if !bytes.Equal(b, first.Bytes()) {
				t.Errorf("%s: concurrent emission %d differs", name, i)
			}
		}
		if !bytes.Equal(again.Bytes(), first.Bytes()) {
			t.Errorf("%s: second emission differs", name)
		}
	}
}

// TestValidatorCanFail feeds spirv-val a corrupted module: the integer
// division of a corpus kernel turned into a float division. Validation
// must fail, name the instruction, show the disassembly around it and map
// it back to the .kc line of the division.
func TestValidatorCanFail(t *testing.T) {
	kctest.Tool(t, "spirv-val")
	for _, c := range corpus(t) {
		m := c.Module(t)
		mod, err := Emit(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		off := findOp(mod.Words, opUDiv, opSDiv)
		if off < 0 {
			continue
		}
		bad := *mod
		bad.Words = append([]uint32(nil), mod.Words...)
		bad.Words[off] = bad.Words[off]&0xffff0000 | uint32(opFDiv)
		err = ValidateArtifact(context.Background(), &bad)
		var ve *ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: corrupted module: got %v, want a *ValidationError", c.Name, err)
		}
		if ve.Inst == 0 || !bytes.Contains([]byte(ve.Context), []byte(">> ")) || !bytes.Contains([]byte(ve.Context), []byte("OpFDiv")) {
			t.Errorf("%s: error lacks the offending instruction:\n%v", c.Name, err)
		}
		if !ve.Pos.IsValid() {
			t.Fatalf("%s: no .kc position in %v", c.Name, err)
		}
		line := sourceLine(c.Src, ve.Pos.Line)
		if !bytes.ContainsAny([]byte(line), "/%") {
			t.Errorf("%s: mapped to %s, line %q, which has no division", c.Name, ve.Pos, line)
		}
		t.Logf("%s: %v", c.Name, err)
		return
	}
	t.Fatal("no corpus kernel has an integer division")
}

func findOp(words []uint32, ops ...op) int {
	for i := 5; i < len(words); {
		for _, o := range ops {
			if op(words[i]&0xffff) == o {
				return i
			}
		}
		n := int(words[i] >> 16)
		if n == 0 {
			return -1
		}
		i += n
	}
	return -1
}

func sourceLine(src []byte, n int) string {
	lines := bytes.Split(src, []byte("\n"))
	if n < 1 || n > len(lines) {
		return ""
	}
	return string(lines[n-1])
}

func TestRefusals(t *testing.T) {
	m := guardKernel()
	m.Checked = false
	if _, err := Emit(m, Options{}); err == nil || err.Error() != "spirv: module has not been checked (run ir.Check first)" {
		t.Errorf("unchecked module: got %v", err)
	}
	m = guardKernel()
	if _, err := Emit(m, Options{Kernel: "nope"}); err == nil || err.Error() != `spirv: no kernel "nope" in hand.kc` {
		t.Errorf("missing kernel: got %v", err)
	}
	if _, err := Emit(m, Options{Version: 0x00010500}); err == nil {
		t.Error("SPIR-V 1.5 accepted")
	}
	// Cooperative matrices are lowered (coopmat_test.go); what a flavour
	// cannot express is refused there (TestCoopMatNVRefusesBF16).
}
