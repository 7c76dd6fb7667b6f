package spirv

import (
	"fmt"
)

// This file holds the word-level machinery shared by the emitter and the
// disassembler: a section buffer with one constructor per instruction shape,
// string packing, operand decoding driven by the grammar, and the pass that
// renumbers ids in order of first textual appearance.

// section is one word buffer of the module (capabilities, debug names,
// annotations, types, a function body, ...).
type section struct{ w []uint32 }

// inst appends one instruction: the opcode word then operands.
func (s *section) inst(o op, operands ...uint32) {
	s.w = append(s.w, uint32(len(operands)+1)<<16|uint32(o))
	s.w = append(s.w, operands...)
}

// instStr appends an instruction whose operands are head, a literal string,
// then tail.
func (s *section) instStr(o op, head []uint32, str string, tail ...uint32) {
	n := 1 + len(head) + stringWords(str) + len(tail)
	s.w = append(s.w, uint32(n)<<16|uint32(o))
	s.w = append(s.w, head...)
	s.w = appendString(s.w, str)
	s.w = append(s.w, tail...)
}

// stringWords is the number of words a literal string takes (with its nul).
func stringWords(s string) int { return len(s)/4 + 1 }

// appendString packs s little-endian, nul-terminated and zero-padded.
func appendString(w []uint32, s string) []uint32 {
	n := stringWords(s)
	for i := 0; i < n; i++ {
		var word uint32
		for j := 0; j < 4; j++ {
			k := i*4 + j
			if k < len(s) {
				word |= uint32(s[k]) << (8 * j)
			}
		}
		w = append(w, word)
	}
	return w
}

// decodeString reads a literal string starting at w[0]; it returns the
// string and the number of words used.
func decodeString(w []uint32) (string, int, error) {
	var b []byte
	for i, word := range w {
		for j := 0; j < 4; j++ {
			c := byte(word >> (8 * j))
			if c == 0 {
				return string(b), i + 1, nil
			}
			b = append(b, c)
		}
	}
	return "", 0, fmt.Errorf("unterminated string")
}

// field is one decoded logical operand: its kind and its words.
type field struct {
	kind  operandKind
	words []uint32
}

// decodeOperands splits the operand words of one instruction (without the
// opcode word) by its grammar. Decoration and execution-mode parameters come
// back as their own fields, so every id operand is a kResult, kResultType or
// kID field (or a kPairIDID pair).
func decodeOperands(info opInfo, w []uint32, buf []field) ([]field, error) {
	out := buf[:0]
	i := 0
	take := func(k operandKind, n int) error {
		if i+n > len(w) {
			return fmt.Errorf("%s: missing operand", info.name)
		}
		out = append(out, field{k, w[i : i+n]})
		i += n
		return nil
	}
	takeOne := func(k operandKind) error {
		switch k {
		case kStr:
			_, n, err := decodeString(w[i:])
			if err != nil {
				return fmt.Errorf("%s: %v", info.name, err)
			}
			return take(k, n)
		case kNumber:
			if len(w)-i < 1 {
				return fmt.Errorf("%s: missing literal", info.name)
			}
			return take(k, len(w)-i)
		case kPairIDID:
			return take(k, 2)
		case kDecoration, kExecMode:
			if err := take(k, 1); err != nil {
				return err
			}
			v := out[len(out)-1].words[0]
			var n int
			var pk operandKind
			if k == kDecoration {
				n, pk = decorationParams(v)
			} else {
				n, pk = execModeParams(v)
			}
			for j := 0; j < n; j++ {
				if err := take(pk, 1); err != nil {
					return err
				}
			}
			return nil
		}
		return take(k, 1)
	}
	for _, o := range info.operands {
		switch o.quant {
		case one:
			if err := takeOne(o.kind); err != nil {
				return nil, err
			}
		case opt:
			if i < len(w) {
				if err := takeOne(o.kind); err != nil {
					return nil, err
				}
			}
		case many:
			for i < len(w) {
				if err := takeOne(o.kind); err != nil {
					return nil, err
				}
			}
		}
	}
	if i != len(w) {
		return nil, fmt.Errorf("%s: %d extra operand words", info.name, len(w)-i)
	}
	return out, nil
}

// forEachInst calls f with the offset, opcode and operand words of each
// instruction of a module's instruction stream (the words after the header).
func forEachInst(w []uint32, base int, f func(off int, o op, operands []uint32) error) error {
	for i := 0; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 || i+n > len(w) {
			return fmt.Errorf("word %d: bad instruction word count %d", base+i, n)
		}
		if err := f(base+i, op(w[i]&0xffff), w[i+1:i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// renumber rewrites the ids of the instruction stream w in place so that
// ids are numbered 1, 2, ... in order of first appearance in the text form
// (result id first, then operands in order), which is the order in which
// spirv-as assigns ids to names. It returns the new id bound.
func renumber(w []uint32, bound uint32) (uint32, error) {
	m := make([]uint32, bound)
	next := uint32(1)
	var fbuf [16]field
	mapID := func(p *uint32) error {
		old := *p
		if old == 0 || old >= bound {
			return fmt.Errorf("id %d out of range (bound %d)", old, bound)
		}
		if m[old] == 0 {
			m[old] = next
			next++
		}
		*p = m[old]
		return nil
	}
	err := forEachInst(w, 0, func(off int, o op, operands []uint32) error {
		info, ok := lookup(o)
		if !ok {
			return fmt.Errorf("word %d: opcode %d not in the grammar", off, o)
		}
		fs, err := decodeOperands(info, operands, fbuf[:])
		if err != nil {
			return err
		}
		// Result id first, as the text puts it first.
		for _, f := range fs {
			if f.kind == kResult {
				if err := mapID(&f.words[0]); err != nil {
					return err
				}
			}
		}
		for _, f := range fs {
			switch f.kind {
			case kResultType, kID:
				if err := mapID(&f.words[0]); err != nil {
					return err
				}
			case kPairIDID:
				if err := mapID(&f.words[0]); err != nil {
					return err
				}
				if err := mapID(&f.words[1]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return next, err
}
