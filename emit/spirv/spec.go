package spirv

// This file holds the numbers of the SPIR-V specification (unified 1.6
// revision) and of GLSL.std.450 that the emitter writes. The names match the
// spec's spelling so that the disassembly reads like spirv-dis output.

const (
	magicNumber = 0x07230203
	// generatorID is the generator word of the header: tool id 0 (not
	// registered with Khronos), version 1.
	generatorID = 0x0000_0001
)

// op is a SPIR-V opcode.
type op uint16

const (
	opNop                           op = 0
	opSource                        op = 3
	opName                          op = 5
	opMemberName                    op = 6
	opString                        op = 7
	opLine                          op = 8
	opExtension                     op = 10
	opExtInstImport                 op = 11
	opExtInst                       op = 12
	opMemoryModel                   op = 14
	opEntryPoint                    op = 15
	opExecutionMode                 op = 16
	opCapability                    op = 17
	opTypeVoid                      op = 19
	opTypeBool                      op = 20
	opTypeInt                       op = 21
	opTypeFloat                     op = 22
	opTypeVector                    op = 23
	opTypeArray                     op = 28
	opTypeRuntimeArray              op = 29
	opTypeStruct                    op = 30
	opTypePointer                   op = 32
	opTypeFunction                  op = 33
	opConstantTrue                  op = 41
	opConstantFalse                 op = 42
	opConstant                      op = 43
	opConstantComposite             op = 44
	opConstantNull                  op = 46
	opFunction                      op = 54
	opFunctionParameter             op = 55
	opFunctionEnd                   op = 56
	opFunctionCall                  op = 57
	opVariable                      op = 59
	opLoad                          op = 61
	opStore                         op = 62
	opAccessChain                   op = 65
	opArrayLength                   op = 68
	opDecorate                      op = 71
	opMemberDecorate                op = 72
	opVectorExtractDynamic          op = 77
	opVectorShuffle                 op = 79
	opCompositeConstruct            op = 80
	opCompositeExtract              op = 81
	opConvertFToU                   op = 109
	opConvertFToS                   op = 110
	opConvertSToF                   op = 111
	opConvertUToF                   op = 112
	opFConvert                      op = 115
	opBitcast                       op = 124
	opSNegate                       op = 126
	opFNegate                       op = 127
	opIAdd                          op = 128
	opFAdd                          op = 129
	opISub                          op = 130
	opFSub                          op = 131
	opIMul                          op = 132
	opFMul                          op = 133
	opUDiv                          op = 134
	opSDiv                          op = 135
	opFDiv                          op = 136
	opUMod                          op = 137
	opSRem                          op = 138
	opFRem                          op = 140
	opDot                           op = 148
	opIsNan                         op = 156
	opLogicalEqual                  op = 164
	opLogicalNotEqual               op = 165
	opLogicalOr                     op = 166
	opLogicalAnd                    op = 167
	opLogicalNot                    op = 168
	opAny                           op = 154
	opAll                           op = 155
	opSelect                        op = 169
	opIEqual                        op = 170
	opINotEqual                     op = 171
	opUGreaterThan                  op = 172
	opSGreaterThan                  op = 173
	opUGreaterThanEqual             op = 174
	opSGreaterThanEqual             op = 175
	opULessThan                     op = 176
	opSLessThan                     op = 177
	opULessThanEqual                op = 178
	opSLessThanEqual                op = 179
	opFOrdEqual                     op = 180
	opFUnordNotEqual                op = 183
	opFOrdLessThan                  op = 184
	opFOrdGreaterThan               op = 186
	opFOrdLessThanEqual             op = 188
	opFOrdGreaterThanEqual          op = 190
	opShiftRightLogical             op = 194
	opShiftRightArithmetic          op = 195
	opShiftLeftLogical              op = 196
	opBitwiseOr                     op = 197
	opBitwiseXor                    op = 198
	opBitwiseAnd                    op = 199
	opNot                           op = 200
	opBitReverse                    op = 204
	opBitCount                      op = 205
	opBitFieldInsert                op = 201
	opBitFieldSExtract              op = 202
	opBitFieldUExtract              op = 203
	opControlBarrier                op = 224
	opAtomicLoad                    op = 227
	opAtomicStore                   op = 228
	opAtomicExchange                op = 229
	opAtomicCompareExchange         op = 230
	opSDot                          op = 4450 // OpSDotKHR (SPV_KHR_integer_dot_product)
	opUDot                          op = 4451 // OpUDotKHR
	opAtomicIAdd                    op = 234
	opAtomicISub                    op = 235
	opAtomicSMin                    op = 236
	opAtomicUMin                    op = 237
	opAtomicSMax                    op = 238
	opAtomicUMax                    op = 239
	opAtomicAnd                     op = 240
	opAtomicOr                      op = 241
	opAtomicXor                     op = 242
	opPhi                           op = 245
	opLoopMerge                     op = 246
	opSelectionMerge                op = 247
	opLabel                         op = 248
	opBranch                        op = 249
	opBranchConditional             op = 250
	opSwitch                        op = 251
	opReturn                        op = 253
	opReturnValue                   op = 254
	opUnreachable                   op = 255
	opNoLine                        op = 317
	opGroupNonUniformElect          op = 333
	opGroupNonUniformAll            op = 334
	opGroupNonUniformAny            op = 335
	opGroupNonUniformBroadcast      op = 337
	opGroupNonUniformBroadcastFirst op = 338
	opGroupNonUniformBallot         op = 339
	opGroupNonUniformShuffle        op = 345
	opGroupNonUniformShuffleXor     op = 346
	opGroupNonUniformShuffleUp      op = 347
	opGroupNonUniformShuffleDown    op = 348
	opGroupNonUniformIAdd           op = 349
	opGroupNonUniformFAdd           op = 350
	opGroupNonUniformIMul           op = 351
	opGroupNonUniformFMul           op = 352
	opGroupNonUniformSMin           op = 353
	opGroupNonUniformUMin           op = 354
	opGroupNonUniformFMin           op = 355
	opGroupNonUniformSMax           op = 356
	opGroupNonUniformUMax           op = 357
	opGroupNonUniformFMax           op = 358
	opGroupNonUniformBitwiseAnd     op = 359
	opGroupNonUniformBitwiseOr      op = 360
	opGroupNonUniformBitwiseXor     op = 361
)

// capability is a SPIR-V Capability operand.
type capability uint32

const (
	capShader                         capability = 1
	capFloat16                        capability = 9
	capGroupNonUniform                capability = 61
	capGroupNonUniformVote            capability = 62
	capGroupNonUniformArithmetic      capability = 63
	capGroupNonUniformBallot          capability = 64
	capGroupNonUniformShuffle         capability = 65
	capGroupNonUniformShuffleRelative capability = 66
	capStorageBuffer16BitAccess       capability = 4433
	capDotProductInput4x8BitPacked    capability = 6018
	capDotProduct                     capability = 6019
)

// Storage classes.
const (
	scInput         = 1
	scUniform       = 2
	scWorkgroup     = 4
	scFunction      = 7
	scStorageBuffer = 12
)

// Decorations.
const (
	decBlock         = 2
	decArrayStride   = 6
	decBuiltIn       = 11
	decNonWritable   = 24
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35
	decNoContraction = 42
)

// BuiltIn values.
const (
	biNumWorkgroups             = 24
	biWorkgroupID               = 26
	biLocalInvocationID         = 27
	biGlobalInvocationID        = 28
	biLocalInvocationIndex      = 29
	biSubgroupSize              = 36
	biSubgroupLocalInvocationID = 41
)

// Scopes and memory semantics (operands given as u32 constant ids).
const (
	scopeDevice    = 1
	scopeWorkgroup = 2
	scopeSubgroup  = 3

	semRelaxed         = 0
	semAcquireRelease  = 0x8
	semUniformMemory   = 0x40
	semWorkgroupMemory = 0x100
)

// Other enumerants.
const (
	addressingLogical    = 0
	memoryModelGLSL450   = 1
	execModelGLCompute   = 5
	execModeLocalSize    = 17
	sourceLangUnknown    = 0
	groupOpReduce        = 0
	groupOpInclusive     = 1
	groupOpExclusive     = 2
	selectionControlNone = 0
	loopControlNone      = 0
	functionControlNone  = 0
)

// GLSL.std.450 extended instructions.
const (
	glslRoundEven      = 2
	glslTrunc          = 3
	glslFAbs           = 4
	glslSAbs           = 5
	glslFSign          = 6
	glslSSign          = 7
	glslFloor          = 8
	glslCeil           = 9
	glslFract          = 10
	glslSin            = 13
	glslCos            = 14
	glslTan            = 15
	glslTanh           = 21
	glslPow            = 26
	glslExp            = 27
	glslLog            = 28
	glslExp2           = 29
	glslLog2           = 30
	glslSqrt           = 31
	glslInverseSqrt    = 32
	glslFMin           = 37
	glslUMin           = 38
	glslSMin           = 39
	glslFMax           = 40
	glslUMax           = 41
	glslSMax           = 42
	glslFClamp         = 43
	glslUClamp         = 44
	glslSClamp         = 45
	glslFMix           = 46
	glslFma            = 50
	glslFindILsb       = 73
	glslAsin           = 16
	glslAcos           = 17
	glslAtan           = 18
	glslSinh           = 19
	glslCosh           = 20
	glslAtan2          = 25
	glslStep           = 48
	glslSmoothStep     = 49
	glslPackSnorm4x8   = 54
	glslPackUnorm4x8   = 55
	glslPackHalf2x16   = 58
	glslUnpackHalf2x16 = 62
	glslUnpackSnorm4x8 = 63
	glslUnpackUnorm4x8 = 64
	glslLength         = 66
	glslDistance       = 67
	glslCross          = 68
	glslNormalize      = 69
	glslReflect        = 71
	glslFindSMsb       = 74
	glslFindUMsb       = 75
)
