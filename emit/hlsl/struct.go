package hlsl

import (
	"fmt"
	"strings"

	"github.com/kcgo/kc/emit"
	"github.com/kcgo/kc/ir"
)

// This file lowers structs: their definitions, field access and struct
// literals.
//
// A kc struct has WGSL's storage layout (ir.FieldOffsets, ir.SizeOf) on
// every target, so that the bytes of a []Particle mean the same
// everywhere. HLSL compilers disagree on the layout of a struct: DXIL's
// structured buffers pack fields at 4-byte alignment (a float3 may start at
// offset 4), glslang's HLSL front end uses relaxed std430 (a float3 need
// only stay inside a 16-byte line) and dxc -spirv std430. Each lays a field
// at the end of the previous one or later, never earlier than WGSL, so the
// definition makes every offset explicit: padding members (kc_padN) fill
// each gap that FieldOffsets leaves and the tail up to SizeOf. The same
// definition serves values, locals and workgroup memory (the padding is
// never read). An array field whose element stride exceeds its element
// size ([N]vec3<T>, stride 16 against DXIL's 12) has no such fix inside a
// plain array and is refused.

// structName spells a struct type. Emit reserves every struct's name in the
// global namespace before anything else is named, so the legal spelling of
// the .kc name is free.
func structName(s *ir.Struct) string { return words.Legal(s.Name) }

// fieldNames spells the fields of s: legal, distinct, and never kc_pad*.
func fieldNames(s *ir.Struct) []string {
	n := emit.NewNamer(words)
	out := make([]string, len(s.Fields))
	for i, fl := range s.Fields {
		out[i] = n.Name(fl.Name)
	}
	return out
}

// structDef returns the definition of s with explicit padding, or an error
// for a field HLSL cannot lay out as WGSL does.
func structDef(s *ir.Struct) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "// %s\n", ir.StructLayoutString(s))
	for _, d := range s.Doc {
		b.WriteString(comment(d) + "\n")
	}
	fmt.Fprintf(&b, "struct %s {\n", structName(s))
	names := fieldNames(s)
	offs := ir.FieldOffsets(s)
	end, pads := 0, 0
	pad := func(to int) {
		if end%4 != 0 && end < to {
			// Only f16 fields leave a 2-byte gap; half is then enabled.
			fmt.Fprintf(&b, "\thalf kc_pad%d; // offset %d\n", pads, end)
			pads++
			end += 2
		}
		if n := (to - end) / 4; n > 0 {
			decl := fmt.Sprintf("uint kc_pad%d", pads)
			if n > 1 {
				decl += fmt.Sprintf("[%d]", n)
			}
			fmt.Fprintf(&b, "\t%s; // offset %d\n", decl, end)
			pads++
			end += 4 * n
		}
	}
	for i, fl := range s.Fields {
		if err := layoutExpressible(s, fl); err != nil {
			return "", err
		}
		pad(offs[i])
		fmt.Fprintf(&b, "\t%s; // offset %d\n", decl(fl.Type, names[i]), offs[i])
		end = offs[i] + ir.SizeOf(fl.Type)
	}
	pad(ir.SizeOf(s))
	b.WriteString("};")
	return b.String(), nil
}

// layoutExpressible refuses an array field whose element stride differs
// from the element's size (arrays of 3-component vectors): DXIL packs such
// an array at the element size, std430 at 16 bytes.
func layoutExpressible(s *ir.Struct, fl *ir.StructField) error {
	_, elem := arrayShape(fl.Type)
	if _, ok := fl.Type.(*ir.Array); ok && ir.ElemStride(elem) != ir.SizeOf(elem) {
		return unsupported(fl.Pos, fmt.Sprintf("struct field %s.%s of type %s (an array of 3-component vectors has no layout that every HLSL compiler reads as WGSL's stride of %d)",
			s.Name, fl.Name, fl.Type, ir.ElemStride(elem)))
	}
	return nil
}

// useType records the structs t is or contains, so that their definitions
// are emitted.
func (e *emitter) useType(t ir.Type) {
	switch t := t.(type) {
	case *ir.Array:
		e.useType(t.Elem)
	case *ir.Struct:
		if e.used[t] {
			return
		}
		e.used[t] = true
		for _, fl := range t.Fields {
			e.useType(fl.Type)
		}
	}
}

// structDefs returns the definitions of the used structs, each after the
// structs its fields contain (module order otherwise).
func (e *emitter) structDefs() ([]string, error) {
	var out []string
	done := map[*ir.Struct]bool{}
	var visit func(s *ir.Struct) error
	visit = func(s *ir.Struct) error {
		if done[s] {
			return nil
		}
		done[s] = true
		for _, fl := range s.Fields {
			_, elem := arrayShape(fl.Type)
			if inner, ok := elem.(*ir.Struct); ok {
				if err := visit(inner); err != nil {
					return err
				}
			}
		}
		def, err := structDef(s)
		if err != nil {
			return err
		}
		out = append(out, def)
		return nil
	}
	for _, s := range e.m.Structs {
		if e.used[s] {
			if err := visit(s); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// field emits x.name.
func (f *fn) field(x *ir.Field) hx {
	if _, isResult := x.X.Type().(ir.CompareExchangeResult); isResult {
		// the kc_compare_exchange_result_* struct (atomic.go)
		return primary(f.ex(x.X).at(precPrimary) + "." + x.Name)
	}
	st, ok := x.X.Type().(*ir.Struct)
	if !ok || x.Index < 0 || x.Index >= len(st.Fields) {
		f.fail(fmt.Errorf("%s: hlsl: field %s of a non-struct value", x.Pos, x.Name))
		return primary("0")
	}
	return primary(f.ex(x.X).at(precPrimary) + "." + fieldNames(st)[x.Index])
}

// structLit builds a struct literal in a temporary: HLSL has no struct
// constructor, and (S)0 zeroes the fields the literal leaves out.
func (f *fn) structLit(x *ir.StructLit) hx {
	vals := x.Values()
	zero := true
	for _, v := range vals {
		zero = zero && v == nil
	}
	if zero {
		return hx{zeroValue(x.Struct), precUnary}
	}
	var exprs []ir.Expr
	var idx []int
	for i, v := range vals {
		if v != nil {
			exprs = append(exprs, v)
			idx = append(idx, i)
		}
	}
	hs := f.seq(exprs, false)
	name := f.local.Fresh(fmt.Sprintf("kc_t%d", f.tmp))
	f.tmp++
	f.pre = append(f.pre, f.declPrefix(x.Struct)+structName(x.Struct)+" "+name+" = "+zeroValue(x.Struct)+";")
	names := fieldNames(x.Struct)
	for j, h := range hs {
		f.pre = append(f.pre, name+"."+names[idx[j]]+" = "+h.s+";")
	}
	return primary(name)
}
