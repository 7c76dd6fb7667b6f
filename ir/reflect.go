package ir

// Reflection is what a host program needs to bind and launch the kernels of
// a checked module: binding numbers, element types and access, the params
// block layout, workgroup sizes and required features. `kc reflect` prints
// it as JSON; the field order here is the JSON order.
type Reflection struct {
	File    string             `json:"file"`
	Kernels []KernelReflection `json:"kernels"`
	Structs []StructReflection `json:"structs,omitempty"`
}

// StructReflection is the memory layout of a struct type, as buffer
// elements and shared variables hold it (WGSL's storage layout rules; see
// SizeOf). A host writes Size bytes per element, each field at Offset.
type StructReflection struct {
	Name   string                  `json:"name"`
	Size   int                     `json:"size"`
	Align  int                     `json:"align"`
	Fields []StructFieldReflection `json:"fields"`
	Pos    string                  `json:"pos"`
}

// StructFieldReflection is one field of a struct.
type StructFieldReflection struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Size   int    `json:"size"`
	Align  int    `json:"align"`
}

// KernelReflection describes one kernel.
type KernelReflection struct {
	Name      string             `json:"name"`
	Pos       string             `json:"pos"`
	Workgroup [3]int             `json:"workgroup_size"`
	Features  []string           `json:"features"`
	Params    *ParamsReflection  `json:"params,omitempty"`
	Buffers   []BufferReflection `json:"buffers"`
	Shared    []SharedReflection `json:"shared,omitempty"`
	// CoopMats are the cooperative-matrix types the kernel uses (a device
	// offers some element types and shapes only), in order of first use.
	CoopMats []CoopMatReflection `json:"coop_matrices,omitempty"`
}

// CoopMatReflection is one cooperative-matrix type: coopmat<Elem, Rows,
// Cols, Use> at Scope.
type CoopMatReflection struct {
	Elem  string `json:"elem"`  // "f16", "bf16", "f32", "i8", "u8", "i32", "u32"
	Rows  int    `json:"rows"`  // M for a and acc, K for b
	Cols  int    `json:"cols"`  // K for a, N for b and acc
	Use   string `json:"use"`   // "a", "b" or "acc"
	Scope string `json:"scope"` // "subgroup" or "workgroup"
}

// ParamsReflection is the uniform block at group 0, binding 0.
type ParamsReflection struct {
	Group   int               `json:"group"`
	Binding int               `json:"binding"`
	Size    int               `json:"size"`
	Fields  []FieldReflection `json:"fields"`
	// NumWorkgroups is the byte offset of the hidden vec3<u32> holding the
	// dispatch's workgroup counts, which the host fills at every dispatch
	// (NumWorkgroupsOffset); absent when the kernel does not read
	// num_workgroups.
	NumWorkgroups *int `json:"num_workgroups,omitempty"`
}

// FieldReflection is one scalar parameter inside the params block.
type FieldReflection struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Offset int    `json:"offset"`
	Size   int    `json:"size"`
	Pos    string `json:"pos"`
}

// BufferReflection is one storage buffer. Its byte size must be a positive
// multiple of Stride; the element count is size / Stride.
type BufferReflection struct {
	Group   int    `json:"group"`
	Binding int    `json:"binding"`
	Name    string `json:"name"`
	Elem    string `json:"elem"`
	Stride  int    `json:"stride"`
	Access  string `json:"access"`
	Pos     string `json:"pos"`
}

// SharedReflection is one workgroup-shared variable.
type SharedReflection struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Size int    `json:"size"`
	Pos  string `json:"pos"`
}

// Reflect describes the kernels of a checked module, in declaration order.
func Reflect(m *Module) *Reflection {
	r := &Reflection{File: m.File, Kernels: []KernelReflection{}}
	for _, k := range m.Kernels {
		r.Kernels = append(r.Kernels, ReflectKernel(k))
	}
	for _, s := range m.Structs {
		r.Structs = append(r.Structs, ReflectStruct(s))
	}
	return r
}

// ReflectStruct describes the layout of s.
func ReflectStruct(s *Struct) StructReflection {
	sr := StructReflection{Name: s.Name, Size: SizeOf(s), Align: AlignOf(s), Fields: []StructFieldReflection{}, Pos: s.Pos.String()}
	for i, off := range FieldOffsets(s) {
		f := s.Fields[i]
		sr.Fields = append(sr.Fields, StructFieldReflection{
			Name: f.Name, Type: TypeString(f.Type), Offset: off, Size: SizeOf(f.Type), Align: AlignOf(f.Type),
		})
	}
	return sr
}

// ParamsSize is the byte size of the params uniform block (a multiple of
// 16), 0 when the kernel has no scalar parameters.
func (r *KernelReflection) ParamsSize() int {
	if r.Params == nil {
		return 0
	}
	return r.Params.Size
}

// NumParams is the number of scalar parameters.
func (r *KernelReflection) NumParams() int {
	if r.Params == nil {
		return 0
	}
	return len(r.Params.Fields)
}

// ParamNames lists the scalar parameters in block order, 4 bytes each.
func (r *KernelReflection) ParamNames() []string {
	if r.Params == nil {
		return nil
	}
	names := make([]string, len(r.Params.Fields))
	for i, f := range r.Params.Fields {
		names[i] = f.Name
	}
	return names
}

// FeatureSet is Features as a set; names it does not know are left out.
func (r *KernelReflection) FeatureSet() Features {
	var fs Features
	for _, name := range r.Features {
		for _, f := range featureOrder {
			if f.Name() == name {
				fs |= f
			}
		}
	}
	return fs
}

// SharedBytes is the workgroup memory the kernel declares, each variable
// rounded up to 16 bytes as the checker counts it (KernelSharedBytes).
func (r *KernelReflection) SharedBytes() int {
	n := 0
	for _, s := range r.Shared {
		n += roundUp(s.Size, 16)
	}
	return n
}

// ReadOnly reports whether the buffer is declared `read`.
func (b *BufferReflection) ReadOnly() bool { return b.Access == Read.String() }

// ReflectKernel describes kernel k of a checked module.
func ReflectKernel(k *Kernel) KernelReflection {
	kr := KernelReflection{
		Name:      k.Name,
		Pos:       k.Pos.String(),
		Workgroup: k.Size,
		Features:  []string{},
		Buffers:   []BufferReflection{},
	}
	for _, f := range []Feature{FeatureF16, FeatureSubgroups, FeatureCoopMat, FeatureDot4Packed, FeatureBF16, FeatureInt8, FeatureCoopMat2} {
		if k.Features&f != 0 {
			kr.Features = append(kr.Features, f.Name())
		}
	}
	for _, t := range k.Coops {
		kr.CoopMats = append(kr.CoopMats, CoopMatReflection{Elem: t.Elem.String(), Rows: t.Rows, Cols: t.Cols, Use: t.Use.String(), Scope: t.Scope.String()})
	}
	fields, _ := ParamsLayout(k)
	if size, off := paramsBlock(k); size > 0 {
		pr := &ParamsReflection{Group: 0, Binding: ParamsBinding, Size: size, Fields: make([]FieldReflection, 0, len(fields))}
		if off >= 0 {
			pr.NumWorkgroups = &off
		}
		for _, f := range fields {
			pr.Fields = append(pr.Fields, FieldReflection{
				Name: f.Param.Name, Type: TypeString(f.Param.Type),
				Offset: f.Offset, Size: f.Size, Pos: f.Param.Pos.String(),
			})
		}
		kr.Params = pr
	}
	bufs := Buffers(k)
	kr.Buffers = make([]BufferReflection, 0, len(bufs))
	for _, b := range bufs {
		kr.Buffers = append(kr.Buffers, BufferReflection{
			Group: 0, Binding: BufferBinding(k, b), Name: b.Name,
			Elem: TypeString(b.Type), Stride: ElemStride(b.Type),
			Access: b.Access.String(), Pos: b.Pos.String(),
		})
	}
	for _, s := range k.Shared {
		kr.Shared = append(kr.Shared, SharedReflection{
			Name: s.Name, Type: TypeString(s.Type), Size: ElemStride(s.Type), Pos: s.Pos.String(),
		})
	}
	return kr
}
