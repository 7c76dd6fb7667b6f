package ir

// Builder support for helper functions, structs, switch and literals. A
// function is built like a kernel:
//
//	f := ir.NewFunc("sq", ir.F32)
//	x := f.Param("x", ir.F32)
//	f.ReturnValue(ir.Mul(x, x))
//	m.Funcs = append(m.Funcs, f.Func())
//
// and called with ir.CallFn("sq", arg) or, as a statement, b.CallStmt.

// FuncBuilder builds a helper function; the statement methods of
// KernelBuilder add to its body. Param, Buffer and Shared add the
// function's parameters.
type FuncBuilder struct {
	*KernelBuilder
	f *Func
}

// NewFunc starts a function with the given result type (nil for none).
func NewFunc(name string, result Type) *FuncBuilder {
	f := &Func{Name: name, Result: result, Body: &Block{}}
	kb := &KernelBuilder{k: &Kernel{Name: name, Body: f.Body}, blocks: []*Block{f.Body}}
	return &FuncBuilder{KernelBuilder: kb, f: f}
}

// Func returns the function built so far.
func (b *FuncBuilder) Func() *Func { return b.f }

// SetPrecise marks the function precise.
func (b *FuncBuilder) SetPrecise() { b.f.Precise = true }

// Param adds a value parameter of any value type.
func (b *FuncBuilder) Param(name string, t Type) *Ident {
	b.f.Params = append(b.f.Params, &Param{Name: name, Kind: ValueParam, Type: t})
	return Ref(name)
}

// Buffer adds a buffer parameter: a call passes one of the caller's buffers.
func (b *FuncBuilder) Buffer(name string, elem Type, access Access) *Ident {
	b.f.Params = append(b.f.Params, &Param{Name: name, Kind: BufferParam, Type: elem, Access: access})
	return Ref(name)
}

// Shared adds a shared-variable parameter: a call passes one of the
// caller's shared variables.
func (b *FuncBuilder) Shared(name string, t Type) *Ident {
	b.f.Params = append(b.f.Params, &Param{Name: name, Kind: SharedParam, Type: t})
	return Ref(name)
}

// ReturnValue adds `return e`.
func (b *KernelBuilder) ReturnValue(e Expr) { b.add(&Return{Value: e}) }

// CallStmt adds a call of a helper function evaluated for its effect.
func (b *KernelBuilder) CallStmt(name string, args ...Expr) {
	b.add(&CallStmt{Call: CallFn(name, args...)})
}

// SwitchCase is one clause for KernelBuilder.Switch: Values nil for the
// default.
type SwitchCase struct {
	Values []Expr
	Body   func()
}

// Switch adds `switch tag { case ...: ... }`.
func (b *KernelBuilder) Switch(tag Expr, cases ...SwitchCase) {
	s := &Switch{Tag: tag}
	for _, c := range cases {
		s.Cases = append(s.Cases, &Case{Default: c.Values == nil, Values: c.Values, Body: b.block(c.Body)})
	}
	b.add(s)
}

// SetPrecise marks the kernel precise.
func (b *KernelBuilder) SetPrecise() { b.k.Precise = true }

// CallFn calls a helper function by name.
func CallFn(name string, args ...Expr) *FnCall { return &FnCall{Name: name, Args: args} }

// Sel selects a struct field: x.name.
func Sel(x Expr, name string) *Field { return &Field{X: x, Name: name} }

// NewStruct makes a struct type from name, type pairs in order.
func NewStruct(name string, fields ...any) *Struct {
	s := &Struct{Name: name}
	for i := 0; i+1 < len(fields); i += 2 {
		s.Fields = append(s.Fields, &StructField{Name: fields[i].(string), Type: fields[i+1].(Type)})
	}
	return s
}

// StructOf is a struct literal from field name, value pairs.
func StructOf(s *Struct, kv ...any) *StructLit {
	lit := &StructLit{Struct: s}
	for i := 0; i+1 < len(kv); i += 2 {
		lit.Keys = append(lit.Keys, kv[i].(string))
		lit.Vals = append(lit.Vals, kv[i+1].(Expr))
	}
	return lit
}

// ArrayLitOf is [len(elems)]elem{elems...}.
func ArrayLitOf(elem Type, elems ...Expr) *ArrayLit {
	return &ArrayLit{Array: ArrayOf(elem, len(elems)), Elems: elems}
}
