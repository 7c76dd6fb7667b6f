package spirv

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file is the disassembler. Its text follows spirv-dis: one
// instruction per line, `%name = OpX operands`, enumerants by name,
// GLSL.std.450 instructions by name. Ids are named from OpName where the
// module has one, types and constants get spirv-dis's friendly names
// (%uint, %v3uint, %_ptr_StorageBuffer_float, %uint_16), everything else
// is %N. Names are made unique, so spirv-as reads the text back; because
// Emit numbers ids in order of first appearance in this text, the words
// spirv-as produces equal Emit's (the round-trip test checks this).

type typeDesc struct {
	kind   op // opTypeInt, opTypeFloat, opTypeBool, ...
	width  uint32
	signed bool
}

// Disassemble returns the text form of a SPIR-V module.
func Disassemble(words []uint32) (string, error) {
	if len(words) < 5 || words[0] != magicNumber {
		return "", fmt.Errorf("spirv: not a SPIR-V module (bad magic number)")
	}
	d := &disasm{
		names:    map[uint32]string{},
		used:     map[string]bool{},
		types:    map[uint32]typeDesc{},
		opNames:  map[uint32]string{},
		valTypes: map[uint32]uint32{},
	}
	if err := d.scan(words); err != nil {
		return "", err
	}
	ver := words[1]
	fmt.Fprintf(&d.out, "; SPIR-V\n; Version: %d.%d\n; Generator: %#08x\n; Bound: %d\n; Schema: %d\n",
		ver>>16&0xff, ver>>8&0xff, words[2], words[3], words[4])
	var fbuf [16]field
	err := forEachInst(words[5:], 5, func(off int, o op, operands []uint32) error {
		info, _ := lookup(o)
		fs, err := decodeOperands(info, operands, fbuf[:])
		if err != nil {
			return fmt.Errorf("spirv: word %d: %v", off, err)
		}
		d.inst(info, fs)
		return nil
	})
	if err != nil {
		return "", err
	}
	return d.out.String(), nil
}

type disasm struct {
	out     strings.Builder
	names   map[uint32]string   // the printed name of each id, without %
	used    map[string]bool     // names taken
	types   map[uint32]typeDesc // scalar types, for printing constants
	opNames map[uint32]string   // OpName strings
	// valTypes is the result type of each value id (for OpSwitch literals).
	valTypes map[uint32]uint32
	glsl     uint32 // the GLSL.std.450 import
}

// scan collects OpName strings, scalar types and the GLSL import, then
// names every id in order of definition.
func (d *disasm) scan(words []uint32) error {
	var fbuf [16]field
	var defs []func()
	err := forEachInst(words[5:], 5, func(off int, o op, operands []uint32) error {
		info, ok := lookup(o)
		if !ok {
			return fmt.Errorf("spirv: word %d: unknown opcode %d", off, o)
		}
		fs, err := decodeOperands(info, operands, fbuf[:])
		if err != nil {
			return fmt.Errorf("spirv: word %d: %v", off, err)
		}
		switch o {
		case opName:
			s, _, _ := decodeString(fs[1].words)
			if _, dup := d.opNames[fs[0].words[0]]; !dup {
				d.opNames[fs[0].words[0]] = s
			}
		case opExtInstImport:
			s, _, _ := decodeString(fs[1].words)
			if s == "GLSL.std.450" {
				d.glsl = fs[0].words[0]
			}
		case opTypeInt:
			d.types[fs[0].words[0]] = typeDesc{kind: o, width: fs[1].words[0], signed: fs[2].words[0] == 1}
		case opTypeFloat:
			d.types[fs[0].words[0]] = typeDesc{kind: o, width: fs[1].words[0]}
		case opTypeBool:
			d.types[fs[0].words[0]] = typeDesc{kind: o}
		}
		if len(fs) >= 2 && fs[0].kind == kResultType && fs[1].kind == kResult {
			d.valTypes[fs[1].words[0]] = fs[0].words[0]
		}
		// Friendly names depend on operands' names: decide them in order.
		ops := append([]uint32(nil), operands...)
		defs = append(defs, func() { d.define(o, ops) })
		return nil
	})
	if err != nil {
		return err
	}
	for _, def := range defs {
		def()
	}
	return nil
}

// define names the result of one instruction, if it has one.
func (d *disasm) define(o op, operands []uint32) {
	var fbuf [16]field
	fs, _ := decodeOperands(mustLookup(o), operands, fbuf[:])
	var res uint32
	for _, f := range fs {
		if f.kind == kResult {
			res = f.words[0]
		}
	}
	if res == 0 {
		return
	}
	if s, ok := d.opNames[res]; ok {
		d.assign(res, sanitize(s))
		return
	}
	if s := d.friendly(o, fs); s != "" {
		d.assign(res, s)
	}
}

func (d *disasm) assign(id uint32, base string) {
	name := base
	for i := 0; d.used[name] || isNumeric(name); i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	d.used[name] = true
	d.names[id] = name
}

func isNumeric(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

var storageNames = enumNames[kStorage]

// friendly is spirv-dis's name for a type or constant, or "".
func (d *disasm) friendly(o op, fs []field) string {
	n := func(i int) string { return d.name(fs[i].words[0]) }
	switch o {
	case opTypeVoid:
		return "void"
	case opTypeBool:
		return "bool"
	case opTypeInt:
		if fs[2].words[0] == 1 {
			return "int" + widthSuffix(fs[1].words[0])
		}
		return "uint" + widthSuffix(fs[1].words[0])
	case opTypeFloat:
		if len(fs) > 2 && fs[2].words[0] == fpEncodingBFloat16 {
			return "bfloat16"
		}
		if fs[1].words[0] == 16 {
			return "half"
		}
		return "float" + widthSuffix(fs[1].words[0])
	case opTypeVector:
		return "v" + strconv.Itoa(int(fs[2].words[0])) + n(1)
	case opTypeArray:
		return "_arr_" + n(1) + "_" + n(2)
	case opTypeRuntimeArray:
		return "_runtimearr_" + n(1)
	case opTypePointer:
		return "_ptr_" + storageNames[fs[1].words[0]] + "_" + n(2)
	case opConstantTrue:
		return "true"
	case opConstantFalse:
		return "false"
	case opConstant:
		return n(0) + "_" + sanitize(strings.ReplaceAll(d.number(fs[0].words[0], fs[2].words), "-", "n"))
	}
	return ""
}

func widthSuffix(w uint32) string {
	if w == 32 {
		return ""
	}
	return strconv.Itoa(int(w))
}

// name is the printed name of id, without the %.
func (d *disasm) name(id uint32) string {
	if s, ok := d.names[id]; ok {
		return s
	}
	return strconv.FormatUint(uint64(id), 10)
}

// number prints a literal of the scalar type typ.
func (d *disasm) number(typ uint32, w []uint32) string {
	t := d.types[typ]
	switch {
	case t.kind == opTypeFloat && t.width == 16 && len(w) == 1:
		return formatFloat(float64(f16ToFloat32(uint16(w[0]))), 32)
	case t.kind == opTypeFloat && t.width == 32 && len(w) == 1:
		return formatFloat(float64(math.Float32frombits(w[0])), 32)
	case t.kind == opTypeInt && t.signed && len(w) == 1:
		return strconv.FormatInt(int64(int32(w[0])), 10)
	case len(w) == 1:
		return strconv.FormatUint(uint64(w[0]), 10)
	}
	parts := make([]string, len(w))
	for i, x := range w {
		parts[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(parts, " ")
}

// formatFloat prints the shortest decimal that reads back as the same
// value; infinities and NaNs (which spirv-as reads as hex floats) in hex.
func formatFloat(v float64, bits int) string {
	switch {
	case math.IsInf(v, 1):
		return "0x1p+128"
	case math.IsInf(v, -1):
		return "-0x1p+128"
	case math.IsNaN(v):
		return "0x1.8p+128"
	}
	return strconv.FormatFloat(v, 'g', -1, bits)
}

func f16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		v := float32(mant) / 1024 / 16384
		if sign != 0 {
			v = -v
		}
		return v
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

func (d *disasm) inst(info opInfo, fs []field) {
	var res, resType uint32
	var rest []string
	for i, f := range fs {
		switch f.kind {
		case kResult:
			res = f.words[0]
		case kResultType:
			resType = f.words[0]
			rest = append(rest, "%"+d.name(f.words[0]))
		case kID:
			rest = append(rest, "%"+d.name(f.words[0]))
		case kPairIDID:
			rest = append(rest, "%"+d.name(f.words[0]), "%"+d.name(f.words[1]))
		case kPairLitID: // OpSwitch: the literal has the selector's signedness
			lit := strconv.FormatUint(uint64(f.words[0]), 10)
			if d.types[d.valTypes[fs[0].words[0]]].signed {
				lit = strconv.FormatInt(int64(int32(f.words[0])), 10)
			}
			rest = append(rest, lit, "%"+d.name(f.words[1]))
		case kLit:
			rest = append(rest, strconv.FormatUint(uint64(f.words[0]), 10))
		case kStr:
			s, _, _ := decodeString(f.words)
			rest = append(rest, strconv.Quote(s))
		case kNumber:
			rest = append(rest, d.number(resType, f.words))
		case kExtInst:
			set := fs[i-1].words[0]
			if name, ok := glslNames[f.words[0]]; ok && set == d.glsl {
				rest = append(rest, name)
			} else {
				rest = append(rest, strconv.FormatUint(uint64(f.words[0]), 10))
			}
		default:
			if name, ok := enumNames[f.kind][f.words[0]]; ok {
				rest = append(rest, name)
			} else {
				rest = append(rest, strconv.FormatUint(uint64(f.words[0]), 10))
			}
		}
	}
	if res != 0 {
		lhs := "%" + d.name(res)
		if len(lhs) < 12 {
			d.out.WriteString(strings.Repeat(" ", 12-len(lhs)))
		}
		d.out.WriteString(lhs)
		d.out.WriteString(" = ")
	} else {
		d.out.WriteString(strings.Repeat(" ", 15))
	}
	d.out.WriteString(info.name)
	for _, r := range rest {
		d.out.WriteByte(' ')
		d.out.WriteString(r)
	}
	d.out.WriteByte('\n')
}
