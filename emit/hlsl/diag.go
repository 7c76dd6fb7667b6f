package hlsl

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// ToolError is a failure of an external tool (dxc, glslangValidator,
// spirv-val): missing, crashed, timed out or reporting errors. Diags holds
// the tool's messages with their positions mapped back to the .kc file.
type ToolError struct {
	Tool   string   // "dxc", "glslangValidator", "spirv-val"
	Args   []string // the arguments it ran with (nil when it did not run)
	Output string   // what it printed (stdout and stderr)
	Err    error    // what went wrong: not installed, exit status, crash, timeout
	Diags  []Diagnostic
}

// Diagnostic is one message of a tool, at a .kc position when it could be
// mapped (Pos.File is then the .kc file), else at the HLSL position.
type Diagnostic struct {
	Pos      ir.Pos
	Severity string // "error" or "warning"
	Msg      string
}

func (d Diagnostic) String() string {
	if d.Pos == (ir.Pos{}) {
		return d.Severity + ": " + d.Msg
	}
	return d.Pos.String() + ": " + d.Msg
}

// Positions returns the .kc positions of the tool's error messages, in
// order, without repeats.
func (e *ToolError) Positions() []ir.Pos {
	var out []ir.Pos
	seen := map[ir.Pos]bool{}
	for _, d := range e.Diags {
		if d.Severity == "error" && d.Pos.IsValid() && !seen[d.Pos] {
			seen[d.Pos] = true
			out = append(out, d.Pos)
		}
	}
	return out
}

func (e *ToolError) Error() string {
	var b strings.Builder
	b.WriteString(e.Tool)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	n := 0
	for _, d := range e.Diags {
		if d.Severity != "error" {
			continue
		}
		b.WriteString("\n")
		b.WriteString(d.String())
		n++
	}
	if n == 0 && strings.TrimSpace(e.Output) != "" {
		// Nothing parsed: quote the tool as it spoke.
		for _, l := range strings.Split(strings.TrimSpace(e.Output), "\n") {
			b.WriteString("\n\t")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *ToolError) Unwrap() error { return e.Err }

var (
	// glslang: "ERROR: file:12: 'x' : undeclared identifier"
	glslangDiag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(ERROR|WARNING): (.+?):(\d+): (.*)$`) })
	// dxc (clang): "file:12:5: error: use of undeclared identifier 'x'"
	dxcDiag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(.+?):(\d+):(\d+): (error|warning|fatal error): (.*)$`)
	})
)

// parseDiags reads a tool's output and maps its positions: a position in
// the .kc file (reported through the #line directives) keeps its line and
// takes the column of the statement on that line; a position in the HLSL
// file src maps through the artifact's line map.
func parseDiags(a *emit.Artifact, output, src string) []Diagnostic {
	var out []Diagnostic
	for _, l := range strings.Split(output, "\n") {
		l = strings.TrimRight(l, "\r")
		var file, sev, msg string
		var ln int
		if m := glslangDiag().FindStringSubmatch(l); m != nil {
			file, sev, msg = m[2], strings.ToLower(m[1]), strings.TrimSpace(m[4])
			ln, _ = strconv.Atoi(m[3])
		} else if m := dxcDiag().FindStringSubmatch(l); m != nil {
			file, sev, msg = m[1], m[4], strings.TrimSpace(m[5])
			ln, _ = strconv.Atoi(m[2])
			if sev == "fatal error" {
				sev = "error"
			}
		} else {
			continue
		}
		if strings.HasSuffix(msg, "compilation errors.  No code generated.") {
			continue
		}
		out = append(out, Diagnostic{Pos: mapPos(a, file, ln, src), Severity: sev, Msg: msg})
	}
	return out
}

// mapPos maps a tool's file:line to a .kc position.
func mapPos(a *emit.Artifact, file string, ln int, src string) ir.Pos {
	base := filepath.Base(file)
	kc := filepath.Base(a.File)
	if a.File == "" {
		kc = "kernel.kc"
	}
	switch {
	case base == kc:
		p := ir.Pos{File: a.File, Line: ln}
		for _, sp := range a.Lines {
			if q := sp.Pos; q.Line == ln && q.Col > 0 {
				p.Col = q.Col
				break
			}
		}
		return p
	case base == filepath.Base(src) || file == "0":
		if q := a.SourcePos(ln); q.IsValid() {
			return q
		}
	}
	return ir.Pos{File: base, Line: ln}
}
