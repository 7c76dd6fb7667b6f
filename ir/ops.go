package ir

// This file is the op table. The parser, printer, checker and every emitter
// switch on these enums; their spellings in .kc come from the tables here.

// BinaryOp is a binary operator.
type BinaryOp uint8

const (
	OpNone   BinaryOp = iota // only in Assign: a plain assignment
	OpAdd                    // +
	OpSub                    // -
	OpMul                    // *
	OpDiv                    // /
	OpRem                    // %
	OpAnd                    // & (bitwise)
	OpOr                     // | (bitwise)
	OpXor                    // ^ (bitwise)
	OpShl                    // <<
	OpShr                    // >> (arithmetic for i32, logical for u32)
	OpLogAnd                 // &&
	OpLogOr                  // ||
	OpEq                     // ==
	OpNe                     // !=
	OpLt                     // <
	OpLe                     // <=
	OpGt                     // >
	OpGe                     // >=
	numBinaryOps
)

var binaryOpText = [numBinaryOps]string{
	OpNone: "", OpAdd: "+", OpSub: "-", OpMul: "*", OpDiv: "/", OpRem: "%",
	OpAnd: "&", OpOr: "|", OpXor: "^", OpShl: "<<", OpShr: ">>",
	OpLogAnd: "&&", OpLogOr: "||",
	OpEq: "==", OpNe: "!=", OpLt: "<", OpLe: "<=", OpGt: ">", OpGe: ">=",
}

// binaryPrec follows Go: 5 * / % << >> &, 4 + - | ^, 3 comparisons, 2 &&, 1 ||.
var binaryPrec = [numBinaryOps]int{
	OpMul: 5, OpDiv: 5, OpRem: 5, OpShl: 5, OpShr: 5, OpAnd: 5,
	OpAdd: 4, OpSub: 4, OpOr: 4, OpXor: 4,
	OpEq: 3, OpNe: 3, OpLt: 3, OpLe: 3, OpGt: 3, OpGe: 3,
	OpLogAnd: 2, OpLogOr: 1,
}

func (op BinaryOp) String() string { return binaryOpText[op] }

// Precedence is Go's precedence level of op (higher binds tighter).
func (op BinaryOp) Precedence() int { return binaryPrec[op] }

// IsComparison reports whether op yields bool from two operands of one type.
func (op BinaryOp) IsComparison() bool { return op >= OpEq && op <= OpGe }

// IsLogical reports whether op is && or ||.
func (op BinaryOp) IsLogical() bool { return op == OpLogAnd || op == OpLogOr }

// IsBitwise reports whether op applies to integers only (& | ^ << >>).
func (op BinaryOp) IsBitwise() bool { return op >= OpAnd && op <= OpShr }

// IsShift reports whether op is << or >>.
func (op BinaryOp) IsShift() bool { return op == OpShl || op == OpShr }

// BinaryOpByText maps "+" and friends to their BinaryOp.
func BinaryOpByText(s string) (BinaryOp, bool) {
	for op := OpAdd; op < numBinaryOps; op++ {
		if binaryOpText[op] == s {
			return op, true
		}
	}
	return OpNone, false
}

// UnaryOp is a unary operator.
type UnaryOp uint8

const (
	OpNeg    UnaryOp = iota + 1 // -x
	OpNot                       // !x (bool)
	OpBitNot                    // ^x (integers, as in Go)
)

func (op UnaryOp) String() string {
	switch op {
	case OpNeg:
		return "-"
	case OpNot:
		return "!"
	case OpBitNot:
		return "^"
	}
	return "?"
}

// BuiltinKind names a compute-shader input value.
type BuiltinKind uint8

const (
	GlobalID             BuiltinKind = iota + 1 // vec3<u32>
	LocalID                                     // vec3<u32>
	WorkgroupID                                 // vec3<u32>
	NumWorkgroups                               // vec3<u32>
	LocalIndex                                  // u32
	SubgroupSize                                // u32, needs subgroups
	SubgroupInvocationID                        // u32, needs subgroups
	numBuiltins
)

var builtinNames = [numBuiltins]string{
	GlobalID: "global_id", LocalID: "local_id", WorkgroupID: "workgroup_id",
	NumWorkgroups: "num_workgroups", LocalIndex: "local_index",
	SubgroupSize: "subgroup_size", SubgroupInvocationID: "subgroup_invocation_id",
}

func (b BuiltinKind) String() string { return builtinNames[b] }

// vec3U32 is the type of the vector builtins, boxed once: emitters ask for
// it at every use.
var vec3U32 Type = Vec(U32, 3)

// Type is the type of the builtin value.
func (b BuiltinKind) Type() Type {
	switch b {
	case GlobalID, LocalID, WorkgroupID, NumWorkgroups:
		return vec3U32
	}
	return U32
}

// BuiltinByName maps a .kc spelling ("global_id") to its kind.
func BuiltinByName(name string) (BuiltinKind, bool) {
	for b := GlobalID; b < numBuiltins; b++ {
		if builtinNames[b] == name {
			return b, true
		}
	}
	return 0, false
}

// Access is how a kernel may use a storage buffer.
type Access uint8

const (
	Read      Access = iota + 1 // read
	ReadWrite                   // read_write
)

func (a Access) String() string {
	if a == ReadWrite {
		return "read_write"
	}
	return "read"
}

// BarrierKind is the memory a barrier orders, all with workgroup execution scope.
type BarrierKind uint8

const (
	WorkgroupBarrier BarrierKind = iota + 1 // workgroupBarrier(): shared memory
	StorageBarrier                          // storageBarrier(): storage buffers
)

func (b BarrierKind) String() string {
	if b == StorageBarrier {
		return "storageBarrier"
	}
	return "workgroupBarrier"
}

// Feature is an optional capability a kernel uses and a target may lack.
type Feature uint8

const (
	FeatureF16       Feature = 1 << iota // f16 arithmetic and storage ("enable f16")
	FeatureSubgroups                     // subgroup builtins and operations ("enable subgroups")
	FeatureCoopMat                       // cooperative matrices ("enable cooperative_matrix")
	// dot4I8Packed and dot4U8Packed ("enable packed_4x8_integer_dot_product",
	// WGSL's name for the language feature): SPIR-V's
	// SPV_KHR_integer_dot_product, HLSL's shader model 6.4
	FeatureDot4Packed
	FeatureBF16 // bf16 storage and conversions ("enable bf16")
	FeatureInt8 // i8/u8 storage and conversions ("enable int8")
	// workgroup-scope cooperative matrices ("enable cooperative_matrix2",
	// after "enable cooperative_matrix"): SPV_NV_cooperative_matrix2
	FeatureCoopMat2
)

// Features is a set of Feature bits.
type Features = Feature

// Name is the spelling used in `enable` directives and in messages.
func (f Feature) Name() string {
	switch f {
	case FeatureF16:
		return "f16"
	case FeatureSubgroups:
		return "subgroups"
	case FeatureCoopMat:
		return "cooperative_matrix"
	case FeatureDot4Packed:
		return "packed_4x8_integer_dot_product"
	case FeatureBF16:
		return "bf16"
	case FeatureInt8:
		return "int8"
	case FeatureCoopMat2:
		return "cooperative_matrix2"
	}
	return "features"
}

// FeatureByName maps an `enable` name to its Feature.
func FeatureByName(name string) (Feature, bool) {
	for _, f := range []Feature{FeatureF16, FeatureSubgroups, FeatureCoopMat, FeatureDot4Packed, FeatureBF16, FeatureInt8, FeatureCoopMat2} {
		if f.Name() == name {
			return f, true
		}
	}
	return 0, false
}

// Intrinsic is a builtin function. Its signature class (Sig) tells the checker
// how to type a call; Feature is the capability the call needs, if any.
type Intrinsic uint8

const (
	// float math, componentwise on f32/f16 scalars and vectors
	Exp Intrinsic = iota + 1
	Exp2
	Log
	Log2
	Sqrt
	InverseSqrt
	Sin
	Cos
	Tan
	Tanh
	Floor
	Ceil
	Round // to nearest even
	Trunc
	Fract
	Pow
	Fma
	Mix
	Dot
	// numeric, componentwise on any numeric scalar or vector
	Abs
	Min
	Max
	Clamp
	Sign // floats and i32
	// integer bits, componentwise on i32/u32
	CountOneBits
	ReverseBits
	FirstTrailingBit
	FirstLeadingBit
	// select(cond, a, b): a where cond is true, b otherwise (Go-ish order)
	Select
	// atomics: the first argument is an atomic location (buffer or shared element)
	AtomicLoad
	AtomicStore
	AtomicAdd
	AtomicSub
	AtomicMax
	AtomicMin
	AtomicAnd
	AtomicOr
	AtomicXor
	AtomicExchange
	// subgroup operations (FeatureSubgroups)
	SubgroupAdd
	SubgroupMul
	SubgroupMin
	SubgroupMax
	SubgroupAnd
	SubgroupOr
	SubgroupXor
	SubgroupInclusiveAdd
	SubgroupExclusiveAdd
	SubgroupBroadcast      // (x, lane) lane a constant u32
	SubgroupBroadcastFirst // (x)
	SubgroupShuffle        // (x, lane u32)
	SubgroupShuffleXor     // (x, mask u32)
	SubgroupShuffleUp      // (x, delta u32)
	SubgroupShuffleDown    // (x, delta u32)
	SubgroupBallot         // (bool) vec4<u32>
	SubgroupAll            // (bool) bool
	SubgroupAny            // (bool) bool
	SubgroupElect          // () bool
	// more float math, componentwise on f32/f16 scalars and vectors
	Asin
	Acos
	Atan
	Atan2 // atan2(y, x)
	Sinh
	Cosh
	Step       // step(edge, x): 1 where x >= edge, else 0
	Smoothstep // smoothstep(lo, hi, x)
	// geometry on float vectors (length and distance also on scalars)
	Length        // (T) scalar
	Distance      // (T, T) scalar
	Normalize     // (vecN) vecN
	Cross         // (vec3, vec3) vec3
	ReflectVector // reflect(e, n) (ir.Reflect is the binding reflection) = e - 2*dot(n, e)*n
	// packing: float vectors to and from the bits of a u32
	Pack4x8Snorm    // (vec4<f32>) u32
	Pack4x8Unorm    // (vec4<f32>) u32
	Pack2x16Float   // (vec2<f32>) u32
	Unpack4x8Snorm  // (u32) vec4<f32>
	Unpack4x8Unorm  // (u32) vec4<f32>
	Unpack2x16Float // (u32) vec2<f32>
	// bit fields, componentwise on i32/u32
	ExtractBits // (e T, offset u32, count u32) T
	InsertBits  // (e T, newbits T, offset u32, count u32) T
	// reductions of bool vectors
	All // (vecN<bool> or bool) bool: every component true
	Any // (vecN<bool> or bool) bool: some component true
	// atomicCompareExchangeWeak(a, cmp, v): CompareExchangeResult
	AtomicCompareExchangeWeak
	// dot products of four packed 8-bit integers in a u32 each
	Dot4I8Packed // (u32, u32) i32: signed bytes
	Dot4U8Packed // (u32, u32) u32: unsigned bytes
	numIntrinsics
)

// Sig classifies an intrinsic's signature.
type Sig uint8

const (
	SigFloat1         Sig = iota + 1 // (T) T; T float scalar/vector
	SigFloat2                        // (T, T) T
	SigFloat3                        // (T, T, T) T
	SigFloatMix                      // (T, T, T|scalar) T
	SigDot                           // (vecN<T>, vecN<T>) T; T numeric
	SigNumeric1                      // (T) T; numeric
	SigNumeric2                      // (T, T) T
	SigNumeric3                      // (T, T, T) T
	SigSigned1                       // (T) T; float or i32
	SigInt1                          // (T) T; i32/u32 scalar/vector
	SigSelect                        // (bool, T, T) T or (vecN<bool>, vecN<T>, vecN<T>) vecN<T>
	SigAtomicLoad                    // (atomic<T>) T
	SigAtomicStore                   // (atomic<T>, T) no value
	SigAtomicRMW                     // (atomic<T>, T) T (old value)
	SigSubgroupArith                 // (T) T; numeric scalar/vector
	SigSubgroupBits                  // (T) T; integer scalar/vector
	SigSubgroupLane                  // (T, u32) T
	SigSubgroupFirst                 // (T) T; any scalar/vector
	SigSubgroupBallot                // (bool) vec4<u32>
	SigSubgroupVote                  // (bool) bool
	SigSubgroupElect                 // () bool
	SigFloatScalarOut                // (T) or (T, T) ElemScalar(T); T float scalar/vector (length, distance)
	SigFloatVec                      // (T) or (T, T) T; T a float vector (normalize, reflect)
	SigCross                         // (vec3<T>, vec3<T>) vec3<T>; T float
	SigPack                          // (vecN<f32>) u32, N from PackWidth
	SigUnpack                        // (u32) vecN<f32>
	SigExtractBits                   // (T, u32, u32) T; T i32/u32 scalar/vector
	SigInsertBits                    // (T, T, u32, u32) T
	SigBoolReduce                    // (vecN<bool> or bool) bool
	SigAtomicCAS                     // (atomic<T>, T, T) CompareExchangeResult{T}
	SigDot4Packed                    // (u32, u32) i32 or u32
)

// IntrinsicInfo is one row of the op table.
type IntrinsicInfo struct {
	Name    string // .kc spelling
	Arity   int
	Sig     Sig
	Feature Feature
}

var intrinsics = [numIntrinsics]IntrinsicInfo{
	Exp: {"exp", 1, SigFloat1, 0}, Exp2: {"exp2", 1, SigFloat1, 0},
	Log: {"log", 1, SigFloat1, 0}, Log2: {"log2", 1, SigFloat1, 0},
	Sqrt: {"sqrt", 1, SigFloat1, 0}, InverseSqrt: {"inverseSqrt", 1, SigFloat1, 0},
	Sin: {"sin", 1, SigFloat1, 0}, Cos: {"cos", 1, SigFloat1, 0},
	Tan: {"tan", 1, SigFloat1, 0}, Tanh: {"tanh", 1, SigFloat1, 0},
	Floor: {"floor", 1, SigFloat1, 0}, Ceil: {"ceil", 1, SigFloat1, 0},
	Round: {"round", 1, SigFloat1, 0}, Trunc: {"trunc", 1, SigFloat1, 0},
	Fract: {"fract", 1, SigFloat1, 0}, Pow: {"pow", 2, SigFloat2, 0},
	Fma: {"fma", 3, SigFloat3, 0}, Mix: {"mix", 3, SigFloatMix, 0},
	Dot: {"dot", 2, SigDot, 0},
	Abs: {"abs", 1, SigNumeric1, 0}, Min: {"min", 2, SigNumeric2, 0},
	Max: {"max", 2, SigNumeric2, 0}, Clamp: {"clamp", 3, SigNumeric3, 0},
	Sign:         {"sign", 1, SigSigned1, 0},
	CountOneBits: {"countOneBits", 1, SigInt1, 0}, ReverseBits: {"reverseBits", 1, SigInt1, 0},
	FirstTrailingBit: {"firstTrailingBit", 1, SigInt1, 0}, FirstLeadingBit: {"firstLeadingBit", 1, SigInt1, 0},
	Select:     {"select", 3, SigSelect, 0},
	AtomicLoad: {"atomicLoad", 1, SigAtomicLoad, 0}, AtomicStore: {"atomicStore", 2, SigAtomicStore, 0},
	AtomicAdd: {"atomicAdd", 2, SigAtomicRMW, 0}, AtomicSub: {"atomicSub", 2, SigAtomicRMW, 0},
	AtomicMax: {"atomicMax", 2, SigAtomicRMW, 0}, AtomicMin: {"atomicMin", 2, SigAtomicRMW, 0},
	AtomicAnd: {"atomicAnd", 2, SigAtomicRMW, 0}, AtomicOr: {"atomicOr", 2, SigAtomicRMW, 0},
	AtomicXor: {"atomicXor", 2, SigAtomicRMW, 0}, AtomicExchange: {"atomicExchange", 2, SigAtomicRMW, 0},
	SubgroupAdd:            {"subgroupAdd", 1, SigSubgroupArith, FeatureSubgroups},
	SubgroupMul:            {"subgroupMul", 1, SigSubgroupArith, FeatureSubgroups},
	SubgroupMin:            {"subgroupMin", 1, SigSubgroupArith, FeatureSubgroups},
	SubgroupMax:            {"subgroupMax", 1, SigSubgroupArith, FeatureSubgroups},
	SubgroupAnd:            {"subgroupAnd", 1, SigSubgroupBits, FeatureSubgroups},
	SubgroupOr:             {"subgroupOr", 1, SigSubgroupBits, FeatureSubgroups},
	SubgroupXor:            {"subgroupXor", 1, SigSubgroupBits, FeatureSubgroups},
	SubgroupInclusiveAdd:   {"subgroupInclusiveAdd", 1, SigSubgroupArith, FeatureSubgroups},
	SubgroupExclusiveAdd:   {"subgroupExclusiveAdd", 1, SigSubgroupArith, FeatureSubgroups},
	SubgroupBroadcast:      {"subgroupBroadcast", 2, SigSubgroupLane, FeatureSubgroups},
	SubgroupBroadcastFirst: {"subgroupBroadcastFirst", 1, SigSubgroupFirst, FeatureSubgroups},
	SubgroupShuffle:        {"subgroupShuffle", 2, SigSubgroupLane, FeatureSubgroups},
	SubgroupShuffleXor:     {"subgroupShuffleXor", 2, SigSubgroupLane, FeatureSubgroups},
	SubgroupShuffleUp:      {"subgroupShuffleUp", 2, SigSubgroupLane, FeatureSubgroups},
	SubgroupShuffleDown:    {"subgroupShuffleDown", 2, SigSubgroupLane, FeatureSubgroups},
	SubgroupBallot:         {"subgroupBallot", 1, SigSubgroupBallot, FeatureSubgroups},
	SubgroupAll:            {"subgroupAll", 1, SigSubgroupVote, FeatureSubgroups},
	SubgroupAny:            {"subgroupAny", 1, SigSubgroupVote, FeatureSubgroups},
	SubgroupElect:          {"subgroupElect", 0, SigSubgroupElect, FeatureSubgroups},
	Asin:                   {"asin", 1, SigFloat1, 0}, Acos: {"acos", 1, SigFloat1, 0},
	Atan: {"atan", 1, SigFloat1, 0}, Atan2: {"atan2", 2, SigFloat2, 0},
	Sinh: {"sinh", 1, SigFloat1, 0}, Cosh: {"cosh", 1, SigFloat1, 0},
	Step: {"step", 2, SigFloat2, 0}, Smoothstep: {"smoothstep", 3, SigFloat3, 0},
	Length: {"length", 1, SigFloatScalarOut, 0}, Distance: {"distance", 2, SigFloatScalarOut, 0},
	Normalize: {"normalize", 1, SigFloatVec, 0}, Cross: {"cross", 2, SigCross, 0},
	ReflectVector: {"reflect", 2, SigFloatVec, 0},
	Pack4x8Snorm:  {"pack4x8snorm", 1, SigPack, 0}, Pack4x8Unorm: {"pack4x8unorm", 1, SigPack, 0},
	Pack2x16Float: {"pack2x16float", 1, SigPack, 0}, Unpack4x8Snorm: {"unpack4x8snorm", 1, SigUnpack, 0},
	Unpack4x8Unorm: {"unpack4x8unorm", 1, SigUnpack, 0}, Unpack2x16Float: {"unpack2x16float", 1, SigUnpack, 0},
	ExtractBits: {"extractBits", 3, SigExtractBits, 0}, InsertBits: {"insertBits", 4, SigInsertBits, 0},
	All: {"all", 1, SigBoolReduce, 0}, Any: {"any", 1, SigBoolReduce, 0},
	AtomicCompareExchangeWeak: {"atomicCompareExchangeWeak", 3, SigAtomicCAS, 0},
	Dot4I8Packed:              {"dot4I8Packed", 2, SigDot4Packed, FeatureDot4Packed},
	Dot4U8Packed:              {"dot4U8Packed", 2, SigDot4Packed, FeatureDot4Packed},
}

// PackWidth is the number of f32 components a packing intrinsic packs into
// or unpacks from a u32 (0 for other intrinsics).
func (f Intrinsic) PackWidth() int {
	switch f {
	case Pack4x8Snorm, Pack4x8Unorm, Unpack4x8Snorm, Unpack4x8Unorm:
		return 4
	case Pack2x16Float, Unpack2x16Float:
		return 2
	}
	return 0
}

// Info returns the op-table row of f.
func (f Intrinsic) Info() IntrinsicInfo { return intrinsics[f] }

func (f Intrinsic) String() string { return intrinsics[f].Name }

// IsAtomic reports whether f operates on an atomic location.
func (f Intrinsic) IsAtomic() bool {
	return f >= AtomicLoad && f <= AtomicExchange || f == AtomicCompareExchangeWeak
}

// IsSubgroup reports whether f is a subgroup operation.
func (f Intrinsic) IsSubgroup() bool { return f >= SubgroupAdd && f <= SubgroupElect }

// Intrinsics lists every intrinsic in table order.
func Intrinsics() []Intrinsic {
	out := make([]Intrinsic, 0, numIntrinsics-1)
	for f := Exp; f < numIntrinsics; f++ {
		out = append(out, f)
	}
	return out
}

// IntrinsicByName maps a .kc spelling ("inverseSqrt") to its Intrinsic.
func IntrinsicByName(name string) (Intrinsic, bool) {
	for f := Exp; f < numIntrinsics; f++ {
		if intrinsics[f].Name == name {
			return f, true
		}
	}
	return 0, false
}
