package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/kcgo/kc/ir"
)

// Go types for the structs that buffers hold.
//
// A buffer of structs ([]Particle in .kc) holds its elements in WGSL's
// storage layout on every target (ir.FieldOffsets, ir.SizeOf). Generate
// writes an exported Go struct for every struct a kernel's buffer holds,
// directly or inside another struct, with the same field offsets and
// size: Go aligns its fields to at most 4 bytes here, WGSL to up to 16,
// so blank padding fields (_ [n]byte) fill every gap WGSL leaves, and the
// tail up to the struct's size. A []Particle in Go then has the bytes the
// kernel reads (upload it with unsafe.Slice or encoding/binary).
//
// Field types: f32 float32, i32 int32, u32 and atomic<u32> uint32,
// atomic<i32> int32, f16 uint16 (its bits: Go has no 16-bit float),
// vecN<T> [N]T, [N]E [N]E, except that an array whose element's stride
// exceeds its size (vec3: stride 16, size 12) holds padded elements,
// struct{ V E; _ [k]byte }.

// structOut is one struct to write as a Go type.
type structOut struct {
	file   string
	s      *ir.Struct
	goName string
	fields []string // Go field names
}

// bufferStructs lists the structs of m that kernel buffers hold, with the
// structs inside them, in declaration order.
func bufferStructs(m *ir.Module, file string) ([]structOut, error) {
	used := map[*ir.Struct]bool{}
	var add func(t ir.Type)
	add = func(t ir.Type) {
		switch t := t.(type) {
		case *ir.Struct:
			if !used[t] {
				used[t] = true
				for _, f := range t.Fields {
					add(f.Type)
				}
			}
		case *ir.Array:
			add(t.Elem)
		}
	}
	for _, k := range m.Kernels {
		for _, b := range ir.Buffers(k) {
			add(b.Type)
		}
	}
	var out []structOut
	var errs ir.ErrorList
	for _, s := range m.Structs {
		if !used[s] {
			continue
		}
		so := structOut{file: file, s: s, goName: exportedName(s.Name)}
		seen := map[string]string{}
		for _, f := range s.Fields {
			n := exportedName(f.Name)
			if prev, ok := seen[n]; ok {
				errs = append(errs, ir.Errorf(f.Pos, "struct %s: field %s has the Go name %s, as field %s has", s.Name, f.Name, n, prev))
			}
			seen[n] = f.Name
			so.fields = append(so.fields, n)
		}
		out = append(out, so)
	}
	return out, errs.Err()
}

// mergeStructs rejects a struct whose Go name is taken by a kernel's
// launcher or Kernel variable, or by another struct with other fields;
// a struct declared alike in several files (.kc files share no
// declarations) is written once.
func mergeStructs(ks []kernelOut, ss []structOut) ([]structOut, error) {
	taken := map[string]string{}
	for _, k := range ks {
		where := "kernel " + k.k.Name + " at " + posString(k.file, k.k.Pos)
		taken[k.goName] = where
		taken[k.goName+"Kernel"] = where
	}
	names := goNames(ss)
	bodies := map[string]string{}
	var out []structOut
	var errs ir.ErrorList
	for _, s := range ss {
		body := structBody(s, names)
		if prev, ok := taken[s.goName]; ok {
			if b, isStruct := bodies[s.goName]; isStruct && b == body {
				continue
			}
			errs = append(errs, &ir.Error{Pos: posIn(s.file, s.s.Pos), Msg: fmt.Sprintf("struct %s: its Go name %s is taken by %s", s.s.Name, s.goName, prev)})
			continue
		}
		taken[s.goName] = "struct " + s.s.Name + " at " + posString(s.file, s.s.Pos)
		bodies[s.goName] = body
		out = append(out, s)
	}
	return out, errs.Err()
}

func goNames(ss []structOut) map[*ir.Struct]string {
	names := map[*ir.Struct]string{}
	for _, s := range ss {
		names[s.s] = s.goName
	}
	return names
}

// posIn is p with its file set to file when it has none.
func posIn(file string, p ir.Pos) ir.Pos {
	if p.File == "" {
		p.File = file
	}
	return p
}

// renderStructs writes the Go types of ss.
func renderStructs(b *bytes.Buffer, ss []structOut) {
	names := goNames(ss)
	for _, so := range ss {
		s := so.s
		fmt.Fprintf(b, "\n// %s is struct %s (%s) in WGSL's storage layout,\n", so.goName, s.Name, posString(so.file, s.Pos))
		fmt.Fprintf(b, "// as kernel buffers hold it: size %d, alignment %d on the GPU; blank fields are padding.\n", ir.SizeOf(s), ir.AlignOf(s))
		fmt.Fprintf(b, "type %s struct {\n%s}\n", so.goName, structBody(so, names))
	}
}

// structBody is the fields of so's Go type, padding included.
func structBody(so structOut, names map[*ir.Struct]string) string {
	var b strings.Builder
	s := so.s
	end := 0
	for i, off := range ir.FieldOffsets(s) {
		if off > end {
			fmt.Fprintf(&b, "_ [%d]byte\n", off-end)
		}
		f := s.Fields[i]
		fmt.Fprintf(&b, "%s %s // offset %d: %s %s\n", so.fields[i], goType(f.Type, names), off, f.Name, ir.TypeString(f.Type))
		end = off + ir.SizeOf(f.Type)
	}
	if size := ir.SizeOf(s); size > end {
		fmt.Fprintf(&b, "_ [%d]byte\n", size-end)
	}
	return b.String()
}

// goType spells t as a Go type of the same size, and of the same layout
// inside, as WGSL's storage layout gives it.
func goType(t ir.Type, structs map[*ir.Struct]string) string {
	switch t := t.(type) {
	case ir.Scalar:
		if t == ir.F16 {
			return "uint16"
		}
		return goScalar[t]
	case ir.Atomic:
		return goType(t.Elem, structs)
	case ir.Vector:
		return "[" + strconv.Itoa(t.N) + "]" + goType(t.Elem, structs)
	case *ir.Array:
		elem := goType(t.Elem, structs)
		if pad := ir.ElemStride(t.Elem) - ir.SizeOf(t.Elem); pad > 0 {
			elem = "struct {\nV " + elem + "\n_ [" + strconv.Itoa(pad) + "]byte\n}"
		}
		return "[" + strconv.Itoa(t.Len) + "]" + elem
	case *ir.Struct:
		return structs[t]
	}
	return "invalid_" + strings.ReplaceAll(ir.TypeString(t), " ", "_")
}
