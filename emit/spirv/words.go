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

// literalWords returns the number of words of the literal string starting
// at w[0] (decodeString without building the string): the terminating nul
// is in the first word holding a zero byte.
func literalWords(w []uint32) (int, error) {
	for i, word := range w {
		if word&0xff == 0 || word&0xff00 == 0 || word&0xff0000 == 0 || word&0xff000000 == 0 {
			return i + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string")
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
	d := decoder{w: w, out: buf[:0]}
	for _, o := range info.operands {
		switch o.quant {
		case one:
			d.one(o.kind)
		case opt:
			if d.i < len(w) {
				d.one(o.kind)
			}
		case many:
			for d.i < len(w) && d.err == "" {
				d.one(o.kind)
			}
		}
		if d.err != "" {
			return nil, fmt.Errorf("%s: %s", info.name, d.err)
		}
	}
	if d.i != len(w) {
		return nil, fmt.Errorf("%s: %d extra operand words", info.name, len(w)-d.i)
	}
	return d.out, nil
}

// decoder is decodeOperands' cursor.
type decoder struct {
	w   []uint32
	i   int
	out []field
	err string
}

func (d *decoder) take(k operandKind, n int) {
	if d.i+n > len(d.w) {
		d.err = "missing operand"
		return
	}
	d.out = append(d.out, field{k, d.w[d.i : d.i+n]})
	d.i += n
}

func (d *decoder) one(k operandKind) {
	switch k {
	case kStr:
		n, err := literalWords(d.w[d.i:])
		if err != nil {
			d.err = err.Error()
			return
		}
		d.take(k, n)
	case kNumber:
		if len(d.w)-d.i < 1 {
			d.err = "missing literal"
			return
		}
		d.take(k, len(d.w)-d.i)
	case kPairIDID, kPairLitID:
		d.take(k, 2)
	case kDecoration, kExecMode:
		d.take(k, 1)
		if d.err != "" {
			return
		}
		v := d.out[len(d.out)-1].words[0]
		var n int
		var pk operandKind
		if k == kDecoration {
			n, pk = decorationParams(v)
		} else {
			n, pk = execModeParams(v)
		}
		for j := 0; j < n; j++ {
			d.take(pk, 1)
		}
	default:
		d.take(k, 1)
	}
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
	r := renumberer{m: make([]uint32, bound), next: 1}
	var fbuf [32]field
	for i := 0; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 || i+n > len(w) {
			return 0, fmt.Errorf("word %d: bad instruction word count %d", i, n)
		}
		o := op(w[i] & 0xffff)
		info := lookupEntry(o)
		if info == nil {
			return 0, fmt.Errorf("word %d: opcode %d not in the grammar", i, o)
		}
		if info.fast {
			ops := w[i+1 : i+n]
			if info.result >= 0 && info.result < len(ops) {
				r.mapID(&ops[info.result])
			}
			for j := range ops {
				k := info.tail
				if j < len(info.fixed) {
					k = info.fixed[j]
				}
				if k == kID || k == kResultType {
					r.mapID(&ops[j])
				}
			}
			if r.bad != 0 {
				return 0, fmt.Errorf("word %d: id %d out of range (bound %d)", i, r.bad, bound)
			}
			i += n
			continue
		}
		fs, err := decodeOperands(info.opInfo, w[i+1:i+n], fbuf[:])
		if err != nil {
			return 0, err
		}
		// The result id first, as the text puts it first.
		for _, f := range fs {
			if f.kind == kResult {
				r.mapID(&f.words[0])
			}
		}
		for _, f := range fs {
			switch f.kind {
			case kResultType, kID:
				r.mapID(&f.words[0])
			case kPairIDID:
				r.mapID(&f.words[0])
				r.mapID(&f.words[1])
			case kPairLitID:
				r.mapID(&f.words[1])
			}
		}
		if r.bad != 0 {
			return 0, fmt.Errorf("word %d: id %d out of range (bound %d)", i, r.bad, bound)
		}
		i += n
	}
	return r.next, nil
}

type renumberer struct {
	m    []uint32
	next uint32
	bad  uint32
}

func (r *renumberer) mapID(p *uint32) {
	old := *p
	if old == 0 || int(old) >= len(r.m) {
		r.bad = old
		return
	}
	if r.m[old] == 0 {
		r.m[old] = r.next
		r.next++
	}
	*p = r.m[old]
}
