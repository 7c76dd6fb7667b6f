package spirv

import (
	"path/filepath"

	"github.com/kcgo/kc/ir"
)

// This file writes debug information: OpName for what the source names,
// OpString/OpSource for the file and OpLine before the instructions of each
// statement. Independently of DebugInfo it records, for every statement,
// the word offset where its instructions start, which Module.Pos and
// Module.IDPos use to report a validator's or driver's complaint against
// the .kc file.

// name gives id a debug name (unless debug info is off).
func (b *builder) name(id uint32, s string) {
	b.named.add(id)
	if b.opts.NoDebugInfo || s == "" {
		return
	}
	b.names.instStr(opName, []uint32{id}, s)
}

// file returns the OpString id of the source file, writing OpSource with it.
// The string is the file's base name, so that the module does not depend on
// the directory it was compiled in (reproducible builds, goldens); the full
// positions stay available through Module.Pos.
func (b *builder) file() uint32 {
	if b.fileID == 0 {
		b.fileID = b.id()
		name := filepath.Base(filepath.ToSlash(b.m.File))
		if b.m.File == "" {
			name = "kernel.kc"
		}
		b.debugSrc.instStr(opString, []uint32{b.fileID}, name)
		b.debugSrc.inst(opSource, sourceLangUnknown, 0, b.fileID)
	}
	return b.fileID
}

// debugLine notes that the instructions written next come from pos: it
// records the offset for Module.Pos and writes an OpLine when the line
// differs from the block's last one.
func (f *fn) debugLine(pos ir.Pos) {
	if !pos.IsValid() {
		return
	}
	off := len(f.body.w)
	if n := len(f.pending); n > 0 && f.pending[n-1].Off == off {
		f.pending[n-1].Pos = pos
	} else {
		f.pending = append(f.pending, lineRec{Off: off, Pos: pos})
	}
	if f.opts.NoDebugInfo || f.cur == 0 || (pos.Line == f.line.Line && pos.Col == f.line.Col) {
		return
	}
	f.writeLine(pos)
}

// writeLine writes OpLine pos, replacing an OpLine written just before
// (with nothing after it, it would describe no instruction).
func (f *fn) writeLine(pos ir.Pos) {
	if n := len(f.body.w); n >= 4 && f.lastLine == n-4 {
		f.body.w = f.body.w[:n-4]
	}
	f.lastLine = len(f.body.w)
	f.body.inst(opLine, f.file(), uint32(pos.Line), uint32(pos.Col))
	f.line = pos
}

// label starts block id. OpLine does not carry across blocks, so the
// current position is written again, except in a block that begins with
// OpPhi (phi true), where nothing may precede the phis.
func (f *fn) label(id uint32, phi bool) {
	f.body.inst(opLabel, id)
	f.cur = id
	last := f.line
	f.line = ir.Pos{}
	if !phi && last.IsValid() && !f.opts.NoDebugInfo {
		f.writeLine(last)
	}
}
