package spirv

import "sync"

// This file is the instruction grammar the disassembler and the id
// renumbering pass walk: for every opcode the emitter writes, its name and
// the kinds of its operands, with the enumerant names of each operand kind
// that is an enum. It covers exactly what Emit produces plus a few neighbours;
// Disassemble reports any other opcode as an error.

// operandKind says how to read one logical operand.
type operandKind uint8

const (
	kResultType operandKind = iota + 1 // an id: the result type
	kResult                            // an id: the result
	kID                                // an id operand
	kLit                               // a literal 32-bit integer
	kStr                               // a literal nul-terminated UTF-8 string
	kNumber                            // a literal number sized by the result type (OpConstant)
	kExtInst                           // an extended-instruction number of the preceding set
	kCapability
	kAddressing
	kMemoryModel
	kExecModel
	kExecMode // followed by its parameters
	kStorage
	kDecoration // followed by its parameters
	kBuiltIn
	kFunctionControl
	kSelectionControl
	kLoopControl
	kMemoryAccess
	kSourceLang
	kGroupOp
	kPackedFormat // PackedVectorFormat of OpSDot/OpUDot
	kPairIDID     // (id, id) pairs of OpPhi
	kPairLitID    // (32-bit literal, id) pairs of OpSwitch
)

// quant is an operand's multiplicity.
type quant uint8

const (
	one  quant = iota
	opt        // zero or one
	many       // zero or more, to the end of the instruction
)

type operand struct {
	kind  operandKind
	quant quant
}

type opInfo struct {
	name     string
	operands []operand
}

// opEntry is an opInfo with what renumbering's fast path needs.
type opEntry struct {
	opInfo
	// fast is set when every operand has a fixed place: fixed kinds for
	// the first words, tail for the rest (ids are all that renumbering
	// needs to find, so any non-id kind counts as kLit here).
	fast   bool
	fixed  []operandKind
	tail   operandKind
	result int // index of the result id, -1 when none
}

// prepare fills the fast-path fields of info.
func (info *opEntry) prepare() {
	info.result = -1
	simplify := func(k operandKind) operandKind {
		switch k {
		case kResultType, kResult, kID:
			return k
		case kPairIDID:
			return kID
		}
		return kLit
	}
	for j, o := range info.operands {
		switch o.kind {
		case kStr, kDecoration, kExecMode, kPairLitID:
			return
		}
		last := j == len(info.operands)-1
		if o.quant != one || o.kind == kPairIDID || o.kind == kNumber {
			if !last {
				return
			}
			info.tail = simplify(o.kind)
			break
		}
		if o.kind == kResult {
			info.result = j
		}
		info.fixed = append(info.fixed, simplify(o.kind))
	}
	if info.tail == 0 {
		info.tail = kLit
	}
	info.fast = true
}

func ops(kinds ...any) []operand {
	var out []operand
	for _, k := range kinds {
		switch k := k.(type) {
		case operandKind:
			out = append(out, operand{kind: k})
		case operand:
			out = append(out, k)
		}
	}
	return out
}

func optional(k operandKind) operand { return operand{kind: k, quant: opt} }
func variadic(k operandKind) operand { return operand{kind: k, quant: many} }

// Shorthands for the common shapes.
var (
	shapeNone     = ops()
	shapeUnary    = ops(kResultType, kResult, kID)
	shapeBinary   = ops(kResultType, kResult, kID, kID)
	shapeTernary  = ops(kResultType, kResult, kID, kID, kID)
	shapeAtomic   = ops(kResultType, kResult, kID, kID, kID, kID) // pointer, scope, semantics, value
	shapeGroupBin = ops(kResultType, kResult, kID, kID, kID)      // scope, value, id
	shapeGroupOp  = ops(kResultType, kResult, kID, kGroupOp, kID, optional(kID))
)

var grammar = map[op]opInfo{
	opNop:                           {"OpNop", shapeNone},
	opSource:                        {"OpSource", ops(kSourceLang, kLit, optional(kID), optional(kStr))},
	opName:                          {"OpName", ops(kID, kStr)},
	opMemberName:                    {"OpMemberName", ops(kID, kLit, kStr)},
	opString:                        {"OpString", ops(kResult, kStr)},
	opLine:                          {"OpLine", ops(kID, kLit, kLit)},
	opNoLine:                        {"OpNoLine", shapeNone},
	opExtension:                     {"OpExtension", ops(kStr)},
	opExtInstImport:                 {"OpExtInstImport", ops(kResult, kStr)},
	opExtInst:                       {"OpExtInst", ops(kResultType, kResult, kID, kExtInst, variadic(kID))},
	opMemoryModel:                   {"OpMemoryModel", ops(kAddressing, kMemoryModel)},
	opEntryPoint:                    {"OpEntryPoint", ops(kExecModel, kID, kStr, variadic(kID))},
	opExecutionMode:                 {"OpExecutionMode", ops(kID, kExecMode)},
	opCapability:                    {"OpCapability", ops(kCapability)},
	opTypeVoid:                      {"OpTypeVoid", ops(kResult)},
	opTypeBool:                      {"OpTypeBool", ops(kResult)},
	opTypeInt:                       {"OpTypeInt", ops(kResult, kLit, kLit)},
	opTypeFloat:                     {"OpTypeFloat", ops(kResult, kLit)},
	opTypeVector:                    {"OpTypeVector", ops(kResult, kID, kLit)},
	opTypeArray:                     {"OpTypeArray", ops(kResult, kID, kID)},
	opTypeRuntimeArray:              {"OpTypeRuntimeArray", ops(kResult, kID)},
	opTypeStruct:                    {"OpTypeStruct", ops(kResult, variadic(kID))},
	opTypePointer:                   {"OpTypePointer", ops(kResult, kStorage, kID)},
	opTypeFunction:                  {"OpTypeFunction", ops(kResult, kID, variadic(kID))},
	opConstantTrue:                  {"OpConstantTrue", ops(kResultType, kResult)},
	opConstantFalse:                 {"OpConstantFalse", ops(kResultType, kResult)},
	opConstant:                      {"OpConstant", ops(kResultType, kResult, kNumber)},
	opConstantComposite:             {"OpConstantComposite", ops(kResultType, kResult, variadic(kID))},
	opConstantNull:                  {"OpConstantNull", ops(kResultType, kResult)},
	opFunction:                      {"OpFunction", ops(kResultType, kResult, kFunctionControl, kID)},
	opFunctionParameter:             {"OpFunctionParameter", ops(kResultType, kResult)},
	opFunctionEnd:                   {"OpFunctionEnd", shapeNone},
	opFunctionCall:                  {"OpFunctionCall", ops(kResultType, kResult, kID, variadic(kID))},
	opVariable:                      {"OpVariable", ops(kResultType, kResult, kStorage, optional(kID))},
	opLoad:                          {"OpLoad", ops(kResultType, kResult, kID, optional(kMemoryAccess))},
	opStore:                         {"OpStore", ops(kID, kID, optional(kMemoryAccess))},
	opAccessChain:                   {"OpAccessChain", ops(kResultType, kResult, kID, variadic(kID))},
	opArrayLength:                   {"OpArrayLength", ops(kResultType, kResult, kID, kLit)},
	opDecorate:                      {"OpDecorate", ops(kID, kDecoration)},
	opMemberDecorate:                {"OpMemberDecorate", ops(kID, kLit, kDecoration)},
	opVectorExtractDynamic:          {"OpVectorExtractDynamic", shapeBinary},
	opVectorShuffle:                 {"OpVectorShuffle", ops(kResultType, kResult, kID, kID, variadic(kLit))},
	opCompositeConstruct:            {"OpCompositeConstruct", ops(kResultType, kResult, variadic(kID))},
	opCompositeExtract:              {"OpCompositeExtract", ops(kResultType, kResult, kID, variadic(kLit))},
	opConvertFToU:                   {"OpConvertFToU", shapeUnary},
	opConvertFToS:                   {"OpConvertFToS", shapeUnary},
	opConvertSToF:                   {"OpConvertSToF", shapeUnary},
	opConvertUToF:                   {"OpConvertUToF", shapeUnary},
	opFConvert:                      {"OpFConvert", shapeUnary},
	opBitcast:                       {"OpBitcast", shapeUnary},
	opSNegate:                       {"OpSNegate", shapeUnary},
	opFNegate:                       {"OpFNegate", shapeUnary},
	opIAdd:                          {"OpIAdd", shapeBinary},
	opFAdd:                          {"OpFAdd", shapeBinary},
	opISub:                          {"OpISub", shapeBinary},
	opFSub:                          {"OpFSub", shapeBinary},
	opIMul:                          {"OpIMul", shapeBinary},
	opFMul:                          {"OpFMul", shapeBinary},
	opUDiv:                          {"OpUDiv", shapeBinary},
	opSDiv:                          {"OpSDiv", shapeBinary},
	opFDiv:                          {"OpFDiv", shapeBinary},
	opUMod:                          {"OpUMod", shapeBinary},
	opSRem:                          {"OpSRem", shapeBinary},
	opFRem:                          {"OpFRem", shapeBinary},
	opDot:                           {"OpDot", shapeBinary},
	opIsNan:                         {"OpIsNan", shapeUnary},
	opLogicalEqual:                  {"OpLogicalEqual", shapeBinary},
	opLogicalNotEqual:               {"OpLogicalNotEqual", shapeBinary},
	opLogicalOr:                     {"OpLogicalOr", shapeBinary},
	opLogicalAnd:                    {"OpLogicalAnd", shapeBinary},
	opLogicalNot:                    {"OpLogicalNot", shapeUnary},
	opAny:                           {"OpAny", shapeUnary},
	opAll:                           {"OpAll", shapeUnary},
	opSelect:                        {"OpSelect", shapeTernary},
	opIEqual:                        {"OpIEqual", shapeBinary},
	opINotEqual:                     {"OpINotEqual", shapeBinary},
	opUGreaterThan:                  {"OpUGreaterThan", shapeBinary},
	opSGreaterThan:                  {"OpSGreaterThan", shapeBinary},
	opUGreaterThanEqual:             {"OpUGreaterThanEqual", shapeBinary},
	opSGreaterThanEqual:             {"OpSGreaterThanEqual", shapeBinary},
	opULessThan:                     {"OpULessThan", shapeBinary},
	opSLessThan:                     {"OpSLessThan", shapeBinary},
	opULessThanEqual:                {"OpULessThanEqual", shapeBinary},
	opSLessThanEqual:                {"OpSLessThanEqual", shapeBinary},
	opFOrdEqual:                     {"OpFOrdEqual", shapeBinary},
	opFUnordNotEqual:                {"OpFUnordNotEqual", shapeBinary},
	opFOrdLessThan:                  {"OpFOrdLessThan", shapeBinary},
	opFOrdGreaterThan:               {"OpFOrdGreaterThan", shapeBinary},
	opFOrdLessThanEqual:             {"OpFOrdLessThanEqual", shapeBinary},
	opFOrdGreaterThanEqual:          {"OpFOrdGreaterThanEqual", shapeBinary},
	opShiftRightLogical:             {"OpShiftRightLogical", shapeBinary},
	opShiftRightArithmetic:          {"OpShiftRightArithmetic", shapeBinary},
	opShiftLeftLogical:              {"OpShiftLeftLogical", shapeBinary},
	opBitwiseOr:                     {"OpBitwiseOr", shapeBinary},
	opBitwiseXor:                    {"OpBitwiseXor", shapeBinary},
	opBitwiseAnd:                    {"OpBitwiseAnd", shapeBinary},
	opNot:                           {"OpNot", shapeUnary},
	opBitReverse:                    {"OpBitReverse", shapeUnary},
	opBitCount:                      {"OpBitCount", shapeUnary},
	opBitFieldInsert:                {"OpBitFieldInsert", ops(kResultType, kResult, kID, kID, kID, kID)},
	opBitFieldSExtract:              {"OpBitFieldSExtract", shapeTernary},
	opBitFieldUExtract:              {"OpBitFieldUExtract", shapeTernary},
	opControlBarrier:                {"OpControlBarrier", ops(kID, kID, kID)},
	opAtomicLoad:                    {"OpAtomicLoad", ops(kResultType, kResult, kID, kID, kID)},
	opAtomicStore:                   {"OpAtomicStore", ops(kID, kID, kID, kID)},
	opAtomicExchange:                {"OpAtomicExchange", shapeAtomic},
	opAtomicCompareExchange:         {"OpAtomicCompareExchange", ops(kResultType, kResult, kID, kID, kID, kID, kID, kID)},
	opSDot:                          {"OpSDot", ops(kResultType, kResult, kID, kID, kPackedFormat)},
	opUDot:                          {"OpUDot", ops(kResultType, kResult, kID, kID, kPackedFormat)},
	opAtomicIAdd:                    {"OpAtomicIAdd", shapeAtomic},
	opAtomicISub:                    {"OpAtomicISub", shapeAtomic},
	opAtomicSMin:                    {"OpAtomicSMin", shapeAtomic},
	opAtomicUMin:                    {"OpAtomicUMin", shapeAtomic},
	opAtomicSMax:                    {"OpAtomicSMax", shapeAtomic},
	opAtomicUMax:                    {"OpAtomicUMax", shapeAtomic},
	opAtomicAnd:                     {"OpAtomicAnd", shapeAtomic},
	opAtomicOr:                      {"OpAtomicOr", shapeAtomic},
	opAtomicXor:                     {"OpAtomicXor", shapeAtomic},
	opPhi:                           {"OpPhi", ops(kResultType, kResult, variadic(kPairIDID))},
	opLoopMerge:                     {"OpLoopMerge", ops(kID, kID, kLoopControl)},
	opSelectionMerge:                {"OpSelectionMerge", ops(kID, kSelectionControl)},
	opLabel:                         {"OpLabel", ops(kResult)},
	opBranch:                        {"OpBranch", ops(kID)},
	opBranchConditional:             {"OpBranchConditional", ops(kID, kID, kID, variadic(kLit))},
	opSwitch:                        {"OpSwitch", ops(kID, kID, variadic(kPairLitID))},
	opReturn:                        {"OpReturn", shapeNone},
	opReturnValue:                   {"OpReturnValue", ops(kID)},
	opUnreachable:                   {"OpUnreachable", shapeNone},
	opGroupNonUniformElect:          {"OpGroupNonUniformElect", ops(kResultType, kResult, kID)},
	opGroupNonUniformAll:            {"OpGroupNonUniformAll", ops(kResultType, kResult, kID, kID)},
	opGroupNonUniformAny:            {"OpGroupNonUniformAny", ops(kResultType, kResult, kID, kID)},
	opGroupNonUniformBroadcast:      {"OpGroupNonUniformBroadcast", shapeGroupBin},
	opGroupNonUniformBroadcastFirst: {"OpGroupNonUniformBroadcastFirst", ops(kResultType, kResult, kID, kID)},
	opGroupNonUniformBallot:         {"OpGroupNonUniformBallot", ops(kResultType, kResult, kID, kID)},
	opGroupNonUniformShuffle:        {"OpGroupNonUniformShuffle", shapeGroupBin},
	opGroupNonUniformShuffleXor:     {"OpGroupNonUniformShuffleXor", shapeGroupBin},
	opGroupNonUniformShuffleUp:      {"OpGroupNonUniformShuffleUp", shapeGroupBin},
	opGroupNonUniformShuffleDown:    {"OpGroupNonUniformShuffleDown", shapeGroupBin},
	opGroupNonUniformIAdd:           {"OpGroupNonUniformIAdd", shapeGroupOp},
	opGroupNonUniformFAdd:           {"OpGroupNonUniformFAdd", shapeGroupOp},
	opGroupNonUniformIMul:           {"OpGroupNonUniformIMul", shapeGroupOp},
	opGroupNonUniformFMul:           {"OpGroupNonUniformFMul", shapeGroupOp},
	opGroupNonUniformSMin:           {"OpGroupNonUniformSMin", shapeGroupOp},
	opGroupNonUniformUMin:           {"OpGroupNonUniformUMin", shapeGroupOp},
	opGroupNonUniformFMin:           {"OpGroupNonUniformFMin", shapeGroupOp},
	opGroupNonUniformSMax:           {"OpGroupNonUniformSMax", shapeGroupOp},
	opGroupNonUniformUMax:           {"OpGroupNonUniformUMax", shapeGroupOp},
	opGroupNonUniformFMax:           {"OpGroupNonUniformFMax", shapeGroupOp},
	opGroupNonUniformBitwiseAnd:     {"OpGroupNonUniformBitwiseAnd", shapeGroupOp},
	opGroupNonUniformBitwiseOr:      {"OpGroupNonUniformBitwiseOr", shapeGroupOp},
	opGroupNonUniformBitwiseXor:     {"OpGroupNonUniformBitwiseXor", shapeGroupOp},
}

// enumNames holds the spelling of every enumerant the emitter writes, per kind.
var enumNames = map[operandKind]map[uint32]string{
	kCapability: {
		1: "Shader", 9: "Float16", 61: "GroupNonUniform", 62: "GroupNonUniformVote",
		63: "GroupNonUniformArithmetic", 64: "GroupNonUniformBallot",
		65: "GroupNonUniformShuffle", 66: "GroupNonUniformShuffleRelative",
		4433: "StorageBuffer16BitAccess", 4434: "UniformAndStorageBuffer16BitAccess",
		6018: "DotProductInput4x8BitPacked", 6019: "DotProduct",
	},
	kAddressing:  {0: "Logical"},
	kMemoryModel: {0: "Simple", 1: "GLSL450", 3: "Vulkan"},
	kExecModel:   {5: "GLCompute"},
	kExecMode:    {17: "LocalSize", 38: "LocalSizeId"},
	kStorage: {
		0: "UniformConstant", 1: "Input", 2: "Uniform", 3: "Output", 4: "Workgroup",
		6: "Private", 7: "Function", 9: "PushConstant", 12: "StorageBuffer",
	},
	kDecoration: {
		2: "Block", 3: "BufferBlock", 6: "ArrayStride", 11: "BuiltIn", 19: "Restrict",
		23: "Coherent", 24: "NonWritable", 25: "NonReadable", 33: "Binding",
		34: "DescriptorSet", 35: "Offset", 42: "NoContraction",
	},
	kBuiltIn: {
		24: "NumWorkgroups", 25: "WorkgroupSize", 26: "WorkgroupId", 27: "LocalInvocationId",
		28: "GlobalInvocationId", 29: "LocalInvocationIndex", 36: "SubgroupSize",
		41: "SubgroupLocalInvocationId",
	},
	kFunctionControl:  {0: "None"},
	kSelectionControl: {0: "None"},
	kLoopControl:      {0: "None"},
	kMemoryAccess:     {0: "None"},
	kSourceLang:       {0: "Unknown", 2: "GLSL", 5: "HLSL"},
	kGroupOp:          {0: "Reduce", 1: "InclusiveScan", 2: "ExclusiveScan"},
	kPackedFormat:     {0: "PackedVectorFormat4x8Bit"},
}

// glslNames names the GLSL.std.450 instructions the emitter uses.
var glslNames = map[uint32]string{
	2: "RoundEven", 3: "Trunc", 4: "FAbs", 5: "SAbs", 6: "FSign", 7: "SSign", 8: "Floor",
	9: "Ceil", 10: "Fract", 13: "Sin", 14: "Cos", 15: "Tan", 21: "Tanh", 26: "Pow",
	27: "Exp", 28: "Log", 29: "Exp2", 30: "Log2", 31: "Sqrt", 32: "InverseSqrt",
	37: "FMin", 38: "UMin", 39: "SMin", 40: "FMax", 41: "UMax", 42: "SMax", 43: "FClamp",
	44: "UClamp", 45: "SClamp", 46: "FMix", 50: "Fma", 73: "FindILsb", 74: "FindSMsb",
	75: "FindUMsb", 79: "NMin", 80: "NMax", 81: "NClamp",
	16: "Asin", 17: "Acos", 18: "Atan", 19: "Sinh", 20: "Cosh", 25: "Atan2", 48: "Step",
	49: "SmoothStep", 54: "PackSnorm4x8", 55: "PackUnorm4x8", 58: "PackHalf2x16",
	62: "UnpackHalf2x16", 63: "UnpackSnorm4x8", 64: "UnpackUnorm4x8", 66: "Length",
	67: "Distance", 68: "Cross", 69: "Normalize", 71: "Reflect",
}

// decorationParams is the number and kind of the parameters of a decoration.
func decorationParams(d uint32) (n int, kind operandKind) {
	switch d {
	case decArrayStride, decBinding, decDescriptorSet, decOffset:
		return 1, kLit
	case decBuiltIn:
		return 1, kBuiltIn
	}
	return 0, 0
}

// execModeParams is the number and kind of the parameters of an execution mode.
func execModeParams(m uint32) (n int, kind operandKind) {
	switch m {
	case 17: // LocalSize
		return 3, kLit
	case 38: // LocalSizeId
		return 3, kID
	}
	return 0, 0
}

// grammarTab is grammar indexed by opcode, for the hot loops, built on
// first use.
var grammarTab = sync.OnceValue(func() []*opEntry {
	n := 0
	for o := range grammar {
		n = max(n, int(o)+1)
	}
	tab := make([]*opEntry, n)
	for o, info := range grammar {
		e := &opEntry{opInfo: info}
		e.prepare()
		tab[o] = e
	}
	return tab
})

// lookup returns the grammar of opcode o.
func lookup(o op) (opInfo, bool) {
	if e := lookupEntry(o); e != nil {
		return e.opInfo, true
	}
	return opInfo{}, false
}

// lookupEntry returns the grammar entry of opcode o, or nil.
func lookupEntry(o op) *opEntry {
	if tab := grammarTab(); int(o) < len(tab) {
		return tab[o]
	}
	return nil
}

func mustLookup(o op) opInfo {
	info, _ := lookup(o)
	return info
}
