package spirv

import (
	"github.com/kcgo/kc/ir"
)

// This file lowers cooperative matrices (ir/coopmat.go) and bf16.
//
// Two flavours, chosen by Options.CoopMat:
//   - SPV_KHR_cooperative_matrix (the default): OpTypeCooperativeMatrixKHR
//     with a use (MatrixA, MatrixB, MatrixAccumulator), loads and stores
//     with a MemoryLayout id (RowMajorKHR, ColumnMajorKHR) before the
//     stride, OpCooperativeMatrixMulAddKHR, OpCooperativeMatrixLengthKHR.
//   - SPV_NV_cooperative_matrix: OpTypeCooperativeMatrixNV has no use (an A
//     and a B matrix of one shape and element type are one type), loads
//     and stores take a stride and a ColumnMajor bool.
//
// Both extensions require the Vulkan memory model in shaders, so a module
// with a cooperative matrix declares VulkanMemoryModel (with
// SPV_KHR_vulkan_memory_model before SPIR-V 1.5) and OpMemoryModel Logical
// Vulkan; atomics on storage buffers then use Device scope, which needs
// VulkanMemoryModelDeviceScope. The emitter writes no Coherent or Volatile
// decorations, which that model forbids. spirv-val 2023.1 validates the NV
// flavour; it does not know the KHR capability (6022) or SPV_KHR_bfloat16.
//
// Pointers: a load or store takes a pointer to element offset of the
// buffer's runtime array or of the shared array; the stride counts
// elements of that array. Element-wise arithmetic maps to OpFAdd, OpFSub,
// OpFMul, OpFDiv and OpFNegate on the matrix type, scaling by a scalar to
// OpMatrixTimesScalar, division by a scalar to OpFDiv by a matrix filled
// with it (one rounding per element, as the interpreter does). A fill is
// OpCompositeConstruct of one scalar; a conversion is OpFConvert.
//
// Workgroup scope (SPV_NV_cooperative_matrix2): a workgroup-scope matrix
// is OpTypeCooperativeMatrixKHR with Scope Workgroup (2) in place of
// Subgroup (3); its operations are the KHR ones. The extension declares no
// capability for it (the grammar's CooperativeMatrix*NV capabilities are
// for reductions, conversions, per-element operations and tensor
// addressing, none of which kc uses); the Vulkan side gates it with the
// cooperativeMatrixWorkgroupScope feature. The extension requires SPIR-V
// 1.6: a module with a workgroup-scope matrix is emitted as 1.6 unless the
// caller asked for 1.3 explicitly (refused). It also requires the
// workgroup size to be declared before the type, which the LocalSize
// execution mode (a section before the types) is. The NV flavour cannot
// express it (refused). spirv-val 2023.1 knows neither the KHR type nor
// this extension: the goldens are checked by the disassembler's round trip
// and by running on the H200.
//
// bf16 (SPV_KHR_bfloat16): OpTypeFloat 16 BFloat16KHR, capability
// BFloat16TypeKHR (and BFloat16CooperativeMatrixKHR for bf16 matrices,
// which only the KHR flavour has); conversions to and from f32 are
// OpFConvert. Buffers of bf16 need StorageBuffer16BitAccess, as f16 ones do.

// CoopMatFlavor picks the cooperative-matrix extension.
type CoopMatFlavor uint8

const (
	CoopMatKHR CoopMatFlavor = iota // SPV_KHR_cooperative_matrix (default)
	CoopMatNV                       // SPV_NV_cooperative_matrix
)

func (c CoopMatFlavor) String() string {
	if c == CoopMatNV {
		return "nv"
	}
	return "khr"
}

// CoopMatFlavorByName maps "khr" and "nv" (kc compile -coopmat) to a flavour.
func CoopMatFlavorByName(name string) (CoopMatFlavor, bool) {
	switch name {
	case "khr":
		return CoopMatKHR, true
	case "nv":
		return CoopMatNV, true
	}
	return 0, false
}

// Numbers of SPV_KHR_cooperative_matrix, SPV_NV_cooperative_matrix,
// SPV_KHR_vulkan_memory_model and SPV_KHR_bfloat16 (checked against the
// registry's grammar; see the report of issue 13).
const (
	opMatrixTimesScalar          op = 143
	opUConvert                   op = 113
	opSConvert                   op = 114
	opTypeCooperativeMatrixKHR   op = 4456
	opCooperativeMatrixLoadKHR   op = 4457
	opCooperativeMatrixStoreKHR  op = 4458
	opCooperativeMatrixMulAddKHR op = 4459
	opCooperativeMatrixLengthKHR op = 4460
	opTypeCooperativeMatrixNV    op = 5358
	opCooperativeMatrixLoadNV    op = 5359
	opCooperativeMatrixStoreNV   op = 5360
	opCooperativeMatrixMulAddNV  op = 5361
	opCooperativeMatrixLengthNV  op = 5362

	capInt8                         capability = 39
	capStorageBuffer8BitAccess      capability = 4448
	capBFloat16TypeKHR              capability = 5116
	capBFloat16CooperativeMatrixKHR capability = 5118
	capVulkanMemoryModel            capability = 5345
	capVulkanMemoryModelDeviceScope capability = 5346
	capCooperativeMatrixNV          capability = 5357
	capCooperativeMatrixKHR         capability = 6022

	memoryModelVulkan  = 3
	fpEncodingBFloat16 = 0 // FPEncoding BFloat16KHR, OpTypeFloat's optional operand
	coopRowMajorKHR    = 0
	coopColMajorKHR    = 1

	// CooperativeMatrixOperands of OpCooperativeMatrixMulAddKHR
	coopASigned      = 0x1
	coopBSigned      = 0x2
	coopCSigned      = 0x4
	coopResultSigned = 0x8

	tkBF16 uint8 = 100 // tkey kinds of this file
	tkCoop uint8 = 101
)

// coopSetup prepares the module-level state for kernels: the Vulkan memory
// model when any kernel uses a cooperative matrix, and refuses what the
// chosen flavour cannot express.
func (b *builder) coopSetup(kernels []*ir.Kernel) error {
	for _, k := range kernels {
		if k.Features&ir.FeatureCoopMat == 0 {
			continue
		}
		b.vulkanMM = true
		if k.Features&ir.FeatureCoopMat2 != 0 {
			if err := b.workgroupScope(k); err != nil {
				return err
			}
		}
		if b.opts.CoopMat == CoopMatNV {
			if err := nvRefusals(k); err != nil {
				return err
			}
		}
		ir.Inspect(k.Body, func(n ir.Node) bool {
			if c, ok := n.(*ir.Call); ok && c.Func.IsAtomic() {
				b.deviceScope = true
			}
			return true
		})
	}
	return nil
}

// workgroupScope admits a kernel with workgroup-scope matrices: the KHR
// flavour at SPIR-V 1.6 (Emit raised the default version already).
func (b *builder) workgroupScope(k *ir.Kernel) error {
	pos := k.FeatPos[ir.FeatureCoopMat2]
	if b.opts.CoopMat == CoopMatNV {
		return &ir.UnsupportedError{Pos: pos, Target: Target + " (-coopmat nv)", Feature: "workgroup-scope cooperative matrix (SPV_NV_cooperative_matrix has none; use the KHR flavour)"}
	}
	if b.opts.Version != V1_6 {
		return &ir.UnsupportedError{Pos: pos, Target: Target + " " + b.opts.Version.String(), Feature: "workgroup-scope cooperative matrix (SPV_NV_cooperative_matrix2 requires SPIR-V 1.6)"}
	}
	b.exts["SPV_NV_cooperative_matrix2"] = true
	return nil
}

// nvRefusals reports what SPV_NV_cooperative_matrix cannot express: bf16
// matrices, and multiplication element by element (OpFMul/OpIMul of two
// matrices, which integer scaling also needs): NV has OpMatrixTimesScalar
// for float scaling only.
func nvRefusals(k *ir.Kernel) error {
	var found error
	refuse := func(pos ir.Pos, what string) {
		if found == nil {
			found = &ir.UnsupportedError{Pos: pos, Target: Target + " (-coopmat nv)", Feature: what + " (SPV_NV_cooperative_matrix has none; use the KHR flavour)"}
		}
	}
	ir.Inspect(k.Body, func(n ir.Node) bool {
		e, ok := n.(ir.Expr)
		if !ok || found != nil {
			return found == nil
		}
		m, ok := e.Type().(ir.CoopMat)
		if !ok {
			return true
		}
		if m.Elem == ir.BF16 {
			refuse(e.Position(), "bf16 cooperative matrix")
		}
		if b, ok := e.(*ir.Binary); ok && b.Op == ir.OpMul {
			switch {
			case ir.IsCoopMat(b.X.Type()) && ir.IsCoopMat(b.Y.Type()):
				refuse(b.Pos, "element-wise * of cooperative matrices")
			case m.Elem.IsInt():
				refuse(b.Pos, "scaling an integer cooperative matrix")
			}
		}
		return true
	})
	return found
}

// memoryModel declares the memory model's capabilities and returns it.
func (b *builder) memoryModel() uint32 {
	if !b.vulkanMM {
		return memoryModelGLSL450
	}
	b.capability(capVulkanMemoryModel)
	if b.deviceScope {
		b.capability(capVulkanMemoryModelDeviceScope)
	}
	if b.opts.Version < 0x00010500 {
		b.exts["SPV_KHR_vulkan_memory_model"] = true
	}
	return memoryModelVulkan
}

// tBF16 is OpTypeFloat 16 BFloat16KHR.
func (b *builder) tBF16() uint32 {
	b.capability(capBFloat16TypeKHR)
	b.exts["SPV_KHR_bfloat16"] = true
	return b.intern(tkey{kind: tkBF16}, func(id uint32) {
		b.globals.inst(opTypeFloat, id, 16, fpEncodingBFloat16)
	})
}

// tInt8 is OpTypeInt 8 with the signedness of i8 or u8.
func (b *builder) tInt8(signed bool) uint32 {
	b.capability(capInt8)
	s := uint32(0)
	if signed {
		s = 1
	}
	return b.intern(tkey{kind: tkInt, a: 8, b: s}, func(id uint32) { b.globals.inst(opTypeInt, id, 8, s) })
}

// coopType returns the id of a cooperative-matrix type.
func (b *builder) coopType(t ir.CoopMat) uint32 {
	elem := b.scalarType(t.Elem)
	use := uint32(t.Use)
	nv := b.opts.CoopMat == CoopMatNV
	if nv {
		use = 3 // the NV type has no use
		b.capability(capCooperativeMatrixNV)
		b.exts["SPV_NV_cooperative_matrix"] = true
	} else {
		b.capability(capCooperativeMatrixKHR)
		b.exts["SPV_KHR_cooperative_matrix"] = true
		if t.Elem == ir.BF16 {
			b.capability(capBFloat16CooperativeMatrixKHR)
		}
	}
	key := tkey{kind: tkCoop, a: elem, b: uint32(t.Rows)<<16 | uint32(t.Cols), c: use}
	if t.Scope == ir.ScopeWorkgroup {
		key.c |= 0x100 // a workgroup-scope type is another type
	}
	return b.intern(key, func(id uint32) {
		sc := uint32(scopeSubgroup)
		if t.Scope == ir.ScopeWorkgroup {
			sc = scopeWorkgroup
		}
		scope, rows, cols := b.constU32(sc), b.constU32(uint32(t.Rows)), b.constU32(uint32(t.Cols))
		if nv {
			b.globals.inst(opTypeCooperativeMatrixNV, id, elem, scope, rows, cols)
			return
		}
		b.globals.inst(opTypeCooperativeMatrixKHR, id, elem, scope, rows, cols, b.constU32(use))
	})
}

// coopZero is the zero matrix of type t (a var without an initializer).
func (f *fn) coopZero(t ir.CoopMat) uint32 {
	mt := f.coopType(t)
	zero := f.constOf(t.Elem, ir.IntVal(0))
	if t.Elem == ir.BF16 {
		zero = f.constNull(f.tBF16())
	}
	return f.intern(tkey{kind: ckComposite, a: mt, b: zero}, func(id uint32) {
		f.globals.inst(opConstantComposite, mt, id, zero)
	})
}

// coopExpr lowers the cooperative-matrix expressions and element-wise
// arithmetic on matrices; ok is false for other expressions.
func (f *fn) coopExpr(e ir.Expr) (v uint32, ok bool) {
	switch e := e.(type) {
	case *ir.CoopMake:
		return f.coopMake(e), true
	case *ir.CoopLoad:
		return f.coopLoad(e), true
	case *ir.CoopMulAdd:
		return f.coopMulAdd(e), true
	case *ir.CoopLength:
		o := opCooperativeMatrixLengthKHR
		if f.opts.CoopMat == CoopMatNV {
			o = opCooperativeMatrixLengthNV
		}
		return f.op1(o, f.tU32(), f.tid(e.M.Type())), true
	case *ir.Binary:
		if ir.IsCoopMat(e.Ty) {
			return f.coopBinary(e), true
		}
	case *ir.Unary:
		if m, ok := e.Ty.(ir.CoopMat); ok {
			if m.Elem.IsInt() {
				return f.op1(opSNegate, f.tid(e.Ty), f.expr(e.X)), true
			}
			return f.op1(opFNegate, f.tid(e.Ty), f.expr(e.X)), true
		}
	}
	return 0, false
}

func (f *fn) coopMake(e *ir.CoopMake) uint32 {
	x := f.expr(e.X)
	mt := f.tid(e.To)
	if e.IsConversion() {
		return f.op1(opFConvert, mt, x)
	}
	if s := ir.ElemScalar(e.X.Type()); s != e.To.Elem {
		x = f.convert(x, s, e.To.Elem) // an untyped constant filling a bf16 matrix is an f32
	}
	return f.compose(mt, x)
}

// coopPointer returns a pointer to element off of a buffer or shared array.
func (f *fn) coopPointer(id *ir.Ident, off ir.Expr) uint32 {
	i := f.index(off)
	switch o := f.resource(id.Obj).(type) { // a function's resource parameter names the kernel's
	case *ir.Param:
		if o.Kind == ir.BufferParam {
			return f.accessChain(f.tPtr(scStorageBuffer, f.typeID(o.Type, true)), f.buffers[o], f.constU32(0), i)
		}
	case *ir.Shared:
		if a, ok := o.Type.(*ir.Array); ok {
			return f.accessChain(f.tPtr(scWorkgroup, f.tid(a.Elem)), f.shared[o], i)
		}
	}
	fail(ir.Errorf(id.Pos, "spirv: %s is not a buffer or shared array", id.Name))
	return 0
}

// layoutOperands returns the operands that follow the pointer (and, for a
// store, the object): KHR's MemoryLayout and Stride, or NV's Stride and
// ColumnMajor.
func (f *fn) layoutOperands(layout ir.Layout, stride ir.Expr) []uint32 {
	s := f.expr(stride)
	col := layout == ir.ColMajor
	if f.opts.CoopMat == CoopMatNV {
		return []uint32{s, f.constBool(col)}
	}
	l := uint32(coopRowMajorKHR)
	if col {
		l = coopColMajorKHR
	}
	return []uint32{f.constU32(l), s}
}

func (f *fn) coopLoad(e *ir.CoopLoad) uint32 {
	ptr := f.coopPointer(e.Src, e.Offset)
	rest := f.layoutOperands(e.Layout, e.Stride)
	rt := f.tid(e.To)
	o := opCooperativeMatrixLoadKHR
	if f.opts.CoopMat == CoopMatNV {
		o = opCooperativeMatrixLoadNV
	}
	v := f.builder.id()
	f.body.inst(o, append([]uint32{rt, v, ptr}, rest...)...)
	return v
}

func (f *fn) coopStore(s *ir.CoopStore) {
	m := f.expr(s.M)
	ptr := f.coopPointer(s.Dst, s.Offset)
	rest := f.layoutOperands(s.Layout, s.Stride)
	o := opCooperativeMatrixStoreKHR
	if f.opts.CoopMat == CoopMatNV {
		o = opCooperativeMatrixStoreNV
	}
	f.body.inst(o, append([]uint32{ptr, m}, rest...)...)
}

// coopMulAdd: KHR states the signedness of integer operands in its
// Cooperative Matrix Operands; NV takes it from the types.
func (f *fn) coopMulAdd(e *ir.CoopMulAdd) uint32 {
	rt := f.tid(e.Ty)
	a, b, c := f.expr(e.A), f.expr(e.B), f.expr(e.C)
	if f.opts.CoopMat == CoopMatNV {
		return f.op3(opCooperativeMatrixMulAddNV, rt, a, b, c)
	}
	var mask uint32
	for _, s := range []struct {
		t   ir.Type
		bit uint32
	}{{e.A.Type(), coopASigned}, {e.B.Type(), coopBSigned}, {e.C.Type(), coopCSigned}, {e.Ty, coopResultSigned}} {
		if el := s.t.(ir.CoopMat).Elem; el == ir.I8 || el == ir.I32 {
			mask |= s.bit
		}
	}
	v := f.builder.id()
	if mask == 0 {
		f.body.inst(opCooperativeMatrixMulAddKHR, rt, v, a, b, c)
	} else {
		f.body.inst(opCooperativeMatrixMulAddKHR, rt, v, a, b, c, mask)
	}
	return v
}

var (
	coopFloatArith = map[ir.BinaryOp]op{ir.OpAdd: opFAdd, ir.OpSub: opFSub, ir.OpMul: opFMul, ir.OpDiv: opFDiv}
	coopIntArith   = map[ir.BinaryOp]op{ir.OpAdd: opIAdd, ir.OpSub: opISub, ir.OpMul: opIMul}
)

func (f *fn) coopBinary(e *ir.Binary) uint32 {
	t := e.Ty.(ir.CoopMat)
	rt := f.tid(t)
	x, y := f.expr(e.X), f.expr(e.Y)
	xMat, yMat := ir.IsCoopMat(e.X.Type()), ir.IsCoopMat(e.Y.Type())
	if t.Elem.IsInt() { // OpMatrixTimesScalar is for floats: multiply by a filled matrix
		switch {
		case !xMat:
			x = f.compose(rt, x)
		case !yMat:
			y = f.compose(rt, y)
		}
		return f.op2(coopIntArith[e.Op], rt, x, y)
	}
	switch {
	case xMat && yMat:
		return f.op2(coopFloatArith[e.Op], rt, x, y)
	case e.Op == ir.OpDiv: // m / s: divide by a matrix of s
		return f.op2(opFDiv, rt, x, f.compose(rt, y))
	case xMat:
		return f.op2(opMatrixTimesScalar, rt, x, y)
	}
	return f.op2(opMatrixTimesScalar, rt, y, x) // s * m
}
