package hlsl

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// Compiler selects the tool that turns HLSL into SPIR-V.
type Compiler uint8

const (
	// Auto uses dxc when it can be found, glslangValidator otherwise.
	Auto Compiler = iota
	// DXC is Microsoft's DirectX Shader Compiler (SPIR-V and DXIL).
	DXC
	// Glslang is glslangValidator's HLSL front end (SPIR-V only).
	Glslang
)

func (c Compiler) String() string {
	switch c {
	case DXC:
		return "dxc"
	case Glslang:
		return "glslang"
	}
	return "auto"
}

// ParseCompiler reads a -hlsl-compiler value: "", "auto", "dxc" or "glslang".
func ParseCompiler(s string) (Compiler, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return Auto, nil
	case "dxc":
		return DXC, nil
	case "glslang", "glslangvalidator":
		return Glslang, nil
	}
	return Auto, fmt.Errorf("unknown HLSL compiler %q (want dxc, glslang or auto)", s)
}

// SetCompiler applies a -hlsl-compiler value: "dxc", "glslang", "auto"
// (or empty), or the path of a compiler executable, taken as glslang when
// its name contains "glslang" and as dxc otherwise.
func (o *CompileOptions) SetCompiler(s string) error {
	if c, err := ParseCompiler(s); err == nil {
		o.Compiler = c
		return nil
	}
	if !strings.ContainsRune(s, os.PathSeparator) {
		_, err := ParseCompiler(s)
		return err
	}
	if strings.Contains(strings.ToLower(filepath.Base(s)), "glslang") {
		o.Compiler, o.Glslang = Glslang, s
	} else {
		o.Compiler, o.DXC = DXC, s
	}
	return nil
}

// Tool names looked up on PATH.
const (
	DXCTool      = "dxc"
	GlslangTool  = "glslangValidator"
	SpirvValTool = emit.SPIRVValTool
)

// DefaultTimeout bounds one tool run when CompileOptions.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// CompileOptions configures CompileSPIRV and CompileDXIL.
type CompileOptions struct {
	Compiler Compiler
	// DXC, Glslang and SpirvVal are the tools' paths; empty looks the
	// default names up on PATH.
	DXC, Glslang, SpirvVal string
	// TargetEnv is the Vulkan environment of the SPIR-V ("vulkan1.1" when
	// empty; "vulkan1.2", "vulkan1.3" raise it). dxc writes for it;
	// glslang always writes SPIR-V 1.3 (see CompileSPIRV), which is then
	// validated for TargetEnv.
	TargetEnv string
	// Timeout bounds each tool run (DefaultTimeout when zero).
	Timeout time.Duration
	// NoValidate skips spirv-val (not recommended: glslang can exit 0
	// with an invalid module).
	NoValidate bool
}

func (o CompileOptions) env() string {
	if o.TargetEnv == "" {
		return "vulkan1.1"
	}
	return o.TargetEnv
}

func (o CompileOptions) timeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// lookTool resolves a tool: the explicit path when given, else name on PATH.
func lookTool(explicit, name string) (string, error) {
	p := explicit
	if p == "" {
		p = name
	}
	path, err := exec.LookPath(p)
	if err != nil {
		where := "not found on PATH"
		if explicit != "" {
			where = "not found at " + explicit
		}
		return "", &ToolError{Tool: name, Err: fmt.Errorf("%s is not installed (%s)", name, where)}
	}
	return path, nil
}

// Resolve returns the compiler Auto stands for under opts: DXC when dxc can
// be found, Glslang otherwise. Other values are returned as they are.
func (o CompileOptions) Resolve() Compiler {
	if o.Compiler != Auto {
		return o.Compiler
	}
	if _, err := lookTool(o.DXC, DXCTool); err == nil {
		return DXC
	}
	return Glslang
}

// CompileSPIRV compiles the entry point entry (a kernel name; empty for the
// only one) of a to SPIR-V with dxc or glslang, and checks the result with
// spirv-val. It returns a SPIR-V artifact holding that one kernel, under the
// entry point name the HLSL declares (the compilers keep it), with no line
// map. Tool failures are *ToolError values with .kc positions; an entry the
// chosen compiler cannot express is an *ir.UnsupportedError.
func CompileSPIRV(ctx context.Context, a *emit.Artifact, entry string, opts CompileOptions) (*emit.Artifact, error) {
	ent, err := a.Entry(entry)
	if err != nil {
		return nil, err
	}
	comp := opts.Resolve()
	var tool string
	var args []string
	dir, err := os.MkdirTemp("", "kc-hlsl-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, out := filepath.Join(dir, srcName(a, ent)), filepath.Join(dir, ent.Name+".spv")
	if err := os.WriteFile(src, a.Code, 0o644); err != nil {
		return nil, err
	}
	switch comp {
	case DXC:
		if tool, err = lookTool(opts.DXC, DXCTool); err != nil {
			return nil, err
		}
		args = dxcArgs(ent, src, out)
		args = append(args[:0:0], append([]string{"-spirv", "-fspv-target-env=" + dxcEnv(ent, opts)}, args...)...)
	case Glslang:
		if ent.Restricted != "" {
			return nil, &ir.UnsupportedError{Pos: ent.RestrictedPos, Target: "hlsl via glslang", Feature: ent.Restricted + glslangLacks(ent)}
		}
		if tool, err = lookTool(opts.Glslang, GlslangTool); err != nil {
			return nil, err
		}
		// glslang's HLSL front end decorates storage buffers with
		// BufferBlock, which SPIR-V 1.4 and later forbid: it always
		// writes SPIR-V 1.3 (vulkan1.1), which every later Vulkan takes;
		// spirv-val still checks it for the requested environment.
		args = []string{"-D", "-V", "-S", "comp", "-e", ent.Name, "--target-env", "vulkan1.1"}
		if usesF16(ent) {
			args = append(args, "--hlsl-enable-16bit-types")
		}
		args = append(args, "-o", out, src)
	default:
		return nil, fmt.Errorf("hlsl: unknown compiler %d", comp)
	}
	if err := run(ctx, a, tool, args, src, opts.timeout()); err != nil {
		return nil, err
	}
	spv, err := os.ReadFile(out)
	if err != nil {
		return nil, &ToolError{Tool: filepath.Base(tool), Args: args, Err: fmt.Errorf("wrote no SPIR-V: %v", err)}
	}
	words, err := spirvWords(spv)
	if err != nil {
		return nil, &ToolError{Tool: filepath.Base(tool), Args: args, Err: err}
	}
	if !opts.NoValidate {
		if err := ValidateSPIRV(ctx, out, opts); err != nil {
			return nil, err
		}
	}
	return &emit.Artifact{Target: emit.SPIRV, File: a.File, Words: words, Entries: []emit.Entry{*ent}}, nil
}

// CompileDXIL compiles the entry point entry of a to a DXIL container with
// dxc, which is required: without it the error says so plainly.
func CompileDXIL(ctx context.Context, a *emit.Artifact, entry string, opts CompileOptions) ([]byte, error) {
	ent, err := a.Entry(entry)
	if err != nil {
		return nil, err
	}
	if opts.Compiler == Glslang {
		return nil, errors.New("dxil needs dxc; glslang cannot write DXIL")
	}
	if usesCoopMat(ent) {
		// DXC's vk::khr templates exist for -spirv only; DXIL's own
		// matrices (SM 6.10 linalg) are not lowered by kc.
		return nil, &ir.UnsupportedError{Pos: ent.RestrictedPos, Target: "dxil", Feature: "cooperative matrices (kc's HLSL uses DXC's vk::khr::CooperativeMatrix, which is SPIR-V only)"}
	}
	tool, err := lookTool(opts.DXC, DXCTool)
	if err != nil {
		where := "not found on PATH"
		if opts.DXC != "" {
			where = "not found at " + opts.DXC
		}
		return nil, &ToolError{Tool: DXCTool, Err: fmt.Errorf("dxil needs dxc, which is not installed (%s; install the DirectX Shader Compiler or pass its path)", where)}
	}
	dir, err := os.MkdirTemp("", "kc-hlsl-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src, out := filepath.Join(dir, srcName(a, ent)), filepath.Join(dir, ent.Name+".dxil")
	if err := os.WriteFile(src, a.Code, 0o644); err != nil {
		return nil, err
	}
	args := dxcArgs(ent, src, out)
	if err := run(ctx, a, tool, args, src, opts.timeout()); err != nil {
		return nil, err
	}
	return os.ReadFile(out)
}

// dxcArgs are the arguments common to dxc's SPIR-V and DXIL runs.
func dxcArgs(ent *emit.Entry, src, out string) []string {
	args := []string{"-T", Profile(ent), "-E", ent.Name, "-HV", "2021"}
	if usesF16(ent) || usesCoopMat(ent) {
		args = append(args, "-enable-16bit-types")
	}
	return append(args, "-Fo", out, src)
}

// dxcEnv is the SPIR-V environment dxc writes for: opts', raised to
// vulkan1.3 for cooperative matrices (DXC: "CooperativeMatrix requires a
// minimum of SPIR-V 1.6").
func dxcEnv(ent *emit.Entry, opts CompileOptions) string {
	env := opts.env()
	if usesCoopMat(ent) && (env == "vulkan1.1" || env == "vulkan1.2") {
		return "vulkan1.3"
	}
	return env
}

// glslangLacks says why glslang cannot compile an entry's Restricted
// feature and what can.
func glslangLacks(ent *emit.Entry) string {
	if usesCoopMat(ent) {
		return " (glslang cannot write SPV_KHR_cooperative_matrix from HLSL; dxc can: -spirv -fspv-target-env=vulkan1.3 -enable-16bit-types -HV 2021)"
	}
	return " (HLSL's dot4add_* needs shader model 6.4, which glslang lacks; dxc has it)"
}

// srcName is the temporary HLSL file's name: the .kc base name with .hlsl.
func srcName(a *emit.Artifact, ent *emit.Entry) string {
	base := strings.TrimSuffix(filepath.Base(a.File), filepath.Ext(a.File))
	if base == "" || base == "." || base == string(filepath.Separator) {
		base = ent.Name
	}
	return base + ".hlsl"
}

// run runs a tool under a timeout and turns any failure into a *ToolError
// with its messages mapped to .kc positions.
func run(ctx context.Context, a *emit.Artifact, tool string, args []string, src string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, args...)
	cmd.Dir = filepath.Dir(src)
	cmd.WaitDelay = time.Second
	var outBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	err := cmd.Run()
	if err == nil {
		return nil
	}
	te := &ToolError{Tool: filepath.Base(tool), Args: args, Output: outBuf.String()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		te.Err = fmt.Errorf("timed out after %v", timeout)
	case ctx.Err() != nil:
		te.Err = ctx.Err()
	case errors.As(err, &ee) && !ee.Exited():
		te.Err = fmt.Errorf("crashed (%v)", ee.ProcessState)
	case errors.As(err, &ee):
		te.Err = fmt.Errorf("failed (exit status %d)", ee.ExitCode())
	default:
		te.Err = err
	}
	if a != nil {
		te.Diags = parseDiags(a, te.Output, src)
	}
	return te
}

// spirvWords turns a SPIR-V binary into words, checking the magic number.
func spirvWords(b []byte) ([]uint32, error) {
	if len(b) < 20 || len(b)%4 != 0 {
		return nil, fmt.Errorf("wrote %d bytes, not a SPIR-V module", len(b))
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if order.Uint32(b) != 0x07230203 {
		order = binary.BigEndian
		if order.Uint32(b) != 0x07230203 {
			return nil, errors.New("output lacks the SPIR-V magic number")
		}
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = order.Uint32(b[4*i:])
	}
	return w, nil
}

// ValidateSPIRV runs spirv-val (emit.ValidateSPIRV, kc's one runner) on
// the SPIR-V file at path for opts' target environment. A rejection is a
// *ToolError whose Err is the *emit.ValidationError.
func ValidateSPIRV(ctx context.Context, path string, opts CompileOptions) error {
	tool, err := lookTool(opts.SpirvVal, SpirvValTool)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	words, err := spirvWords(b)
	if err != nil {
		return &ToolError{Tool: SpirvValTool, Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, opts.timeout())
	defer cancel()
	args := []string{"--target-env", opts.env(), path}
	err = emit.ValidateSPIRV(ctx, tool, opts.env(), words)
	var ve *emit.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return &ToolError{Tool: SpirvValTool, Args: args, Output: ve.Output, Err: ve}
	case ctx.Err() == context.DeadlineExceeded:
		return &ToolError{Tool: SpirvValTool, Args: args, Err: fmt.Errorf("timed out after %v", opts.timeout())}
	}
	return &ToolError{Tool: SpirvValTool, Args: args, Err: err}
}
