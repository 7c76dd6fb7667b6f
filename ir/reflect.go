package ir

// Reflection is what a host program needs to bind and launch the kernels of
// a checked module: binding numbers, element types and access, the params
// block layout, workgroup sizes and required features. `kc reflect` prints
// it as JSON; the field order here is the JSON order.
type Reflection struct {
	File    string             `json:"file"`
	Kernels []KernelReflection `json:"kernels"`
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
		r.Kernels = append(r.Kernels, reflectKernel(k))
	}
	return r
}

func reflectKernel(k *Kernel) KernelReflection {
	kr := KernelReflection{
		Name:      k.Name,
		Pos:       k.Pos.String(),
		Workgroup: k.Size,
		Features:  []string{},
		Buffers:   []BufferReflection{},
	}
	for _, f := range []Feature{FeatureF16, FeatureSubgroups, FeatureCoopMat, FeatureDot4Packed} {
		if k.Features&f != 0 {
			kr.Features = append(kr.Features, f.Name())
		}
	}
	fields, _ := ParamsLayout(k)
	if size := ParamsSize(k); size > 0 {
		pr := &ParamsReflection{Group: 0, Binding: ParamsBinding, Size: size, Fields: []FieldReflection{}}
		if off := NumWorkgroupsOffset(k); off >= 0 {
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
	for _, b := range Buffers(k) {
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
