package spirv

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// assemble reads Disassemble's text back into words, as spirv-as would:
// ids numbered in order of first appearance, operands read by the grammar
// of grammar.go. It exists for what spirv-as 2023.1 cannot assemble (the
// KHR cooperative-matrix and bf16 instructions): TestCoopMatRoundTrip
// checks that the disassembly of such a module assembles back to the same
// words, so the text is a faithful view of the binary. Only the text
// Disassemble writes is supported; the generator word is left 0.
func assemble(text string) ([]uint32, error) {
	a := &asm{ids: map[string]uint32{}, types: map[uint32]typeDesc{}, opByName: map[string]op{}}
	for o, info := range grammar {
		a.opByName[info.name] = o
	}
	var version uint32
	words := []uint32{magicNumber, 0, 0, 0, 0}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "; Version: "); ok {
			var major, minor uint32
			if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
			version = major<<16 | minor<<8
		}
		if line == "" || line[0] == ';' {
			continue
		}
		inst, err := a.inst(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v: %s", n+1, err, line)
		}
		words = append(words, inst...)
	}
	words[1], words[3] = version, a.next+1
	return words, nil
}

type asm struct {
	ids      map[string]uint32
	next     uint32
	types    map[uint32]typeDesc
	opByName map[string]op
}

func (a *asm) id(tok string) (uint32, error) {
	name, ok := strings.CutPrefix(tok, "%")
	if !ok {
		return 0, fmt.Errorf("want an id, have %q", tok)
	}
	if id, ok := a.ids[name]; ok {
		return id, nil
	}
	a.next++
	a.ids[name] = a.next
	return a.next, nil
}

// tokens splits an instruction line at blanks, keeping quoted strings whole.
func tokens(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			s, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			line = line[len(s):]
			continue
		}
		end := strings.IndexByte(line, ' ')
		if end < 0 {
			end = len(line)
		}
		out = append(out, line[:end])
		line = line[end:]
	}
	return out, nil
}

func (a *asm) inst(line string) ([]uint32, error) {
	toks, err := tokens(line)
	if err != nil {
		return nil, err
	}
	var result string
	if len(toks) > 2 && toks[1] == "=" {
		result, toks = toks[0], toks[2:]
	}
	o, ok := a.opByName[toks[0]]
	if !ok {
		return nil, fmt.Errorf("unknown instruction %s", toks[0])
	}
	info := grammar[o]
	toks = toks[1:]
	var out []uint32
	var resType uint32
	for _, opd := range info.operands {
		for first := true; ; first = false {
			if opd.kind == kResult {
				id, err := a.id(result)
				if err != nil {
					return nil, err
				}
				out = append(out, id)
				break
			}
			if len(toks) == 0 || (!first && opd.quant != many) {
				if first && opd.quant == one {
					return nil, fmt.Errorf("missing operand")
				}
				break
			}
			ws, rest, err := a.operand(opd.kind, toks, resType)
			if err != nil {
				return nil, err
			}
			if opd.kind == kResultType {
				resType = ws[0]
			}
			out, toks = append(out, ws...), rest
			if opd.quant == one {
				break
			}
		}
	}
	if len(toks) > 0 {
		return nil, fmt.Errorf("extra operands %v", toks)
	}
	a.noteType(o, out)
	return append([]uint32{uint32(len(out)+1)<<16 | uint32(o)}, out...), nil
}

// noteType records the scalar types OpConstant's literal depends on.
func (a *asm) noteType(o op, w []uint32) {
	switch o {
	case opTypeInt:
		a.types[w[0]] = typeDesc{kind: o, width: w[1], signed: w[2] == 1}
	case opTypeFloat:
		a.types[w[0]] = typeDesc{kind: o, width: w[1]}
	}
}

// operand reads one logical operand of kind k from toks.
func (a *asm) operand(k operandKind, toks []string, resType uint32) ([]uint32, []string, error) {
	tok := toks[0]
	switch k {
	case kResultType, kID:
		id, err := a.id(tok)
		return []uint32{id}, toks[1:], err
	case kPairIDID:
		x, err := a.id(tok)
		if err != nil || len(toks) < 2 {
			return nil, nil, fmt.Errorf("bad id pair")
		}
		y, err := a.id(toks[1])
		return []uint32{x, y}, toks[2:], err
	case kPairLitID: // OpSwitch: a 32-bit literal (signed or not) and a label
		v, err := strconv.ParseInt(tok, 0, 64)
		if err != nil || len(toks) < 2 {
			return nil, nil, fmt.Errorf("bad literal/label pair at %q", tok)
		}
		y, err := a.id(toks[1])
		return []uint32{uint32(v), y}, toks[2:], err
	case kStr:
		s, err := strconv.Unquote(tok)
		return appendString(nil, s), toks[1:], err
	case kNumber:
		w, err := a.number(tok, a.types[resType])
		return []uint32{w}, toks[1:], err
	case kExtInst:
		for n, name := range glslNames {
			if name == tok {
				return []uint32{n}, toks[1:], nil
			}
		}
	case kDecoration, kExecMode:
		v, err := enumValue(k, tok)
		if err != nil {
			return nil, nil, err
		}
		n, pk := decorationParams(v)
		if k == kExecMode {
			n, pk = execModeParams(v)
		}
		out := []uint32{v}
		rest := toks[1:]
		for i := 0; i < n; i++ {
			if len(rest) == 0 {
				return nil, nil, fmt.Errorf("missing parameter of %s", tok)
			}
			ws, r, err := a.operand(pk, rest, 0)
			if err != nil {
				return nil, nil, err
			}
			out, rest = append(out, ws...), r
		}
		return out, rest, nil
	}
	v, err := enumValue(k, tok)
	return []uint32{v}, toks[1:], err
}

// enumValue reads an enumerant by name, or a plain number.
func enumValue(k operandKind, tok string) (uint32, error) {
	for v, name := range enumNames[k] {
		if name == tok {
			return v, nil
		}
	}
	v, err := strconv.ParseUint(tok, 0, 32)
	return uint32(v), err
}

// number reads an OpConstant literal of type t.
func (a *asm) number(tok string, t typeDesc) (uint32, error) {
	if t.kind == opTypeFloat {
		f, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return 0, err
		}
		if t.width == 16 {
			return uint32(f16bits(f)), nil
		}
		return math.Float32bits(float32(f)), nil
	}
	if t.signed {
		v, err := strconv.ParseInt(tok, 0, 32)
		return uint32(v), err
	}
	v, err := strconv.ParseUint(tok, 0, 32)
	return uint32(v), err
}
