package spirv

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file runs the real validator, spirv-val from SPIRV-Tools, on a
// module and turns its complaint into an error that points at the
// offending instruction and, for modules from Emit, at the .kc line.

// ValidationError is spirv-val's rejection of a module (emit's, which runs
// it for every package).
type ValidationError = emit.ValidationError

// Validate runs `spirv-val --target-env env` on words (env such as
// "vulkan1.1", "vulkan1.3" or "spv1.3") through emit.ValidateSPIRV. It
// returns nil for a valid module, a *ValidationError carrying spirv-val's
// message and the disassembly around the offending instruction for an
// invalid one, and another error when spirv-val cannot be run (for
// example, not on PATH).
func Validate(ctx context.Context, words []uint32, env string) error {
	err := emit.ValidateSPIRV(ctx, "", env, words)
	var ve *ValidationError
	if errors.As(err, &ve) && ve.Inst > 0 {
		ve.Context = contextAround(words, ve.Inst, 6)
	} else if err != nil && ve == nil {
		return fmt.Errorf("spirv: %w", err)
	}
	return err
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
