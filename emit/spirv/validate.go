package spirv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file runs the real validator, spirv-val from SPIRV-Tools, on a
// module and turns its complaint into an error that points at the
// offending instruction and, for modules from Emit, at the .kc line.

// ValidationError is spirv-val's rejection of a module.
type ValidationError struct {
	Env    string // the --target-env used
	Output string // what spirv-val printed
	// Inst is the 1-based index of the offending instruction, as spirv-val's
	// "line N" reports it (0 when it named none).
	Inst int
	// Pos is the .kc position of that instruction when known (Module.Validate).
	Pos ir.Pos
	// Context is the disassembly around the instruction, with a marker.
	Context string
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "spirv-val --target-env %s: %s", e.Env, strings.TrimSpace(e.Output))
	if e.Context != "" {
		b.WriteString("\n")
		b.WriteString(e.Context)
	}
	return b.String()
}

// failedInst finds spirv-val's "line N:", the 1-based index of the
// offending instruction, in its output.
func failedInst(out string) int {
	const key = "line "
	for s := out; ; {
		i := strings.Index(s, key)
		if i < 0 {
			return 0
		}
		s = s[i+len(key):]
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j > 0 && j < len(s) && s[j] == ':' {
			n, _ := strconv.Atoi(s[:j])
			return n
		}
	}
}

// Validate runs `spirv-val --target-env env` on words (env such as
// "vulkan1.1", "vulkan1.3" or "spv1.3"). It returns nil for a valid module,
// a *ValidationError carrying spirv-val's message and the disassembly
// around the offending instruction for an invalid one, and another error
// when spirv-val cannot be run (for example, not on PATH). Other packages
// (HLSL via glslang, the Vulkan driver's tests) use it for any SPIR-V.
func Validate(ctx context.Context, words []uint32, env string) error {
	tool, err := exec.LookPath("spirv-val")
	if err != nil {
		return fmt.Errorf("spirv: spirv-val not found: %w", err)
	}
	f, err := os.CreateTemp("", "kc-*.spv")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	buf := make([]byte, 4*len(words))
	for i, w := range words {
		binary.LittleEndian.PutUint32(buf[4*i:], w)
	}
	if _, err := f.Write(buf); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, tool, "--target-env", env, f.Name())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if err == nil {
		return nil
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || ctx.Err() != nil {
		return fmt.Errorf("spirv: running spirv-val: %v\n%s", err, out.String())
	}
	ve := &ValidationError{Env: env, Output: out.String()}
	if ve.Inst = failedInst(ve.Output); ve.Inst > 0 {
		ve.Context = contextAround(words, ve.Inst, 6)
	}
	return ve
}

// ValidateArtifact runs spirv-val on the SPIR-V module a with the Vulkan
// environment of its version (vulkan1.1 for SPIR-V 1.3, vulkan1.3 for
// 1.6); on failure the *ValidationError also carries the .kc position of
// the offending instruction.
func ValidateArtifact(ctx context.Context, a *emit.Artifact) error {
	err := Validate(ctx, a.Words, VersionOf(a.Words).VulkanEnv())
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Inst > 0 {
		ve.Pos, _ = InstPos(a, ve.Inst)
	}
	return err
}

// InstPos returns the .kc position of the n-th instruction of module a
// (1-based, the numbering of spirv-val's "line N").
func InstPos(a *emit.Artifact, n int) (ir.Pos, bool) {
	off, ok := instOffset(a.Words, n)
	if !ok {
		return ir.Pos{}, false
	}
	p := a.SourcePos(off)
	return p, p.IsValid()
}

// instOffset is the word offset of the n-th instruction (1-based).
func instOffset(words []uint32, n int) (int, bool) {
	i, k := 5, 1
	for i < len(words) {
		if k == n {
			return i, true
		}
		c := int(words[i] >> 16)
		if c == 0 {
			return 0, false
		}
		i += c
		k++
	}
	return 0, false
}

// contextAround disassembles words and returns the lines around the n-th
// instruction, marking it with ">>".
func contextAround(words []uint32, n, radius int) string {
	text, err := Disassemble(words)
	if err != nil {
		return "(no disassembly: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	// The disassembly starts with 5 header comment lines, then one line per
	// instruction.
	at := 5 + n - 1
	var b strings.Builder
	for i := at - radius; i <= at+radius; i++ {
		if i < 5 || i >= len(lines) {
			continue
		}
		mark := "   "
		if i == at {
			mark = ">> "
		}
		fmt.Fprintf(&b, "%s%5d %s\n", mark, i-4, lines[i])
	}
	return b.String()
}
