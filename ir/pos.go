package ir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Pos is a source position. Line and Col are 1-based; the zero Pos means
// "no position" (for example, a node built through the Go API).
type Pos struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether p carries a line number.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats p as file:line:col, omitting the parts that are unknown.
func (p Pos) String() string {
	switch {
	case !p.IsValid() && p.File == "":
		return "-"
	case !p.IsValid():
		return p.File
	}
	// By hand rather than with fmt: reflection records hold one per
	// parameter, and every emitter builds them.
	var b strings.Builder
	b.Grow(len(p.File) + 12)
	if p.File != "" {
		b.WriteString(p.File)
		b.WriteByte(':')
	}
	var num [20]byte
	b.Write(strconv.AppendInt(num[:0], int64(p.Line), 10))
	b.WriteByte(':')
	b.Write(strconv.AppendInt(num[:0], int64(p.Col), 10))
	return b.String()
}

// Error is one diagnostic about the input, printed as file:line:col: message.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	if e.Pos == (Pos{}) {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Errorf builds an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList is every diagnostic found in one pass, in source order.
// A nil or empty ErrorList is not an error; use Err to convert.
type ErrorList []*Error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Sort orders the list by file, line and column, keeping insertion order
// among errors at the same position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns l as an error, or nil when l is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// UnsupportedError says that a target cannot express a feature the input uses.
type UnsupportedError struct {
	Pos     Pos
	Target  string // "wgsl", "spirv", "hlsl", "wgsl (naga v0.23)", ...
	Feature string // "f16", "subgroups", "cooperative matrix", ...
}

func (e *UnsupportedError) Error() string {
	msg := fmt.Sprintf("%s is not supported by target %s", e.Feature, e.Target)
	if e.Pos == (Pos{}) {
		return msg
	}
	return e.Pos.String() + ": " + msg
}
