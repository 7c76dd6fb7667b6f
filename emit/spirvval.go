package emit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// This file is kc's one spirv-val runner (SPIRV-Tools' validator), shared
// by emit/spirv (its own modules) and emit/hlsl (dxc's and glslang's).

// SPIRVValTool is the validator's command name.
const SPIRVValTool = "spirv-val"

// ValidationError is spirv-val's rejection of a module.
type ValidationError struct {
	Env    string // the --target-env used
	Output string // what spirv-val printed
	// Inst is the 1-based index of the offending instruction, as spirv-val's
	// "line N" reports it (0 when it named none).
	Inst int
	// Pos is the .kc position of that instruction when known.
	Pos ir.Pos
	// Context is the disassembly around the instruction, with a marker,
	// when the caller can disassemble (emit/spirv).
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

// ValidateSPIRV runs `spirv-val --target-env env` (tool: its path, or ""
// to look spirv-val up on PATH) on words (env such as "vulkan1.1",
// "vulkan1.3" or "spv1.3"). It returns nil for a valid module, a
// *ValidationError for an invalid one, and another error when spirv-val
// cannot be run (not installed, ctx done).
func ValidateSPIRV(ctx context.Context, tool, env string, words []uint32) error {
	if tool == "" {
		p, err := exec.LookPath(SPIRVValTool)
		if err != nil {
			return fmt.Errorf("spirv-val not found: %w", err)
		}
		tool = p
	}
	f, err := os.CreateTemp("", "kc-*.spv")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(WordBytes(words)); err != nil {
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
	if !errors.As(err, &exit) || ctx.Err() != nil || !exit.Exited() {
		return fmt.Errorf("running spirv-val: %v\n%s", err, out.String())
	}
	return &ValidationError{Env: env, Output: out.String(), Inst: failedInst(out.String())}
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
