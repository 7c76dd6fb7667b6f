package spirv

// The grammar of the cooperative-matrix and bf16 instructions and
// enumerants (coopmat.go), added to the tables of grammar.go.

// kFPEncoding is OpTypeFloat's optional FP Encoding operand.
const kFPEncoding operandKind = 200

func init() {
	grammar[opTypeFloat] = opInfo{"OpTypeFloat", ops(kResult, kLit, optional(kFPEncoding))}
	enumNames[kFPEncoding] = map[uint32]string{fpEncodingBFloat16: "BFloat16KHR"}
	grammar[opMatrixTimesScalar] = opInfo{"OpMatrixTimesScalar", shapeBinary}
	grammar[opTypeCooperativeMatrixKHR] = opInfo{"OpTypeCooperativeMatrixKHR", ops(kResult, kID, kID, kID, kID, kID)}
	grammar[opCooperativeMatrixLoadKHR] = opInfo{"OpCooperativeMatrixLoadKHR", ops(kResultType, kResult, kID, kID, optional(kID), optional(kMemoryAccess))}
	grammar[opCooperativeMatrixStoreKHR] = opInfo{"OpCooperativeMatrixStoreKHR", ops(kID, kID, kID, optional(kID), optional(kMemoryAccess))}
	grammar[opCooperativeMatrixMulAddKHR] = opInfo{"OpCooperativeMatrixMulAddKHR", ops(kResultType, kResult, kID, kID, kID, optional(kLit))}
	grammar[opCooperativeMatrixLengthKHR] = opInfo{"OpCooperativeMatrixLengthKHR", ops(kResultType, kResult, kID)}
	grammar[opTypeCooperativeMatrixNV] = opInfo{"OpTypeCooperativeMatrixNV", ops(kResult, kID, kID, kID, kID)}
	grammar[opCooperativeMatrixLoadNV] = opInfo{"OpCooperativeMatrixLoadNV", ops(kResultType, kResult, kID, kID, kID, optional(kMemoryAccess))}
	grammar[opCooperativeMatrixStoreNV] = opInfo{"OpCooperativeMatrixStoreNV", ops(kID, kID, kID, kID, optional(kMemoryAccess))}
	grammar[opCooperativeMatrixMulAddNV] = opInfo{"OpCooperativeMatrixMulAddNV", shapeTernary}
	grammar[opCooperativeMatrixLengthNV] = opInfo{"OpCooperativeMatrixLengthNV", ops(kResultType, kResult, kID)}
	grammar[opUConvert] = opInfo{"OpUConvert", shapeUnary}
	grammar[opSConvert] = opInfo{"OpSConvert", shapeUnary}
	caps := enumNames[kCapability]
	caps[uint32(capInt8)] = "Int8"
	caps[uint32(capStorageBuffer8BitAccess)] = "StorageBuffer8BitAccess"

	caps[uint32(capBFloat16TypeKHR)] = "BFloat16TypeKHR"
	caps[uint32(capBFloat16CooperativeMatrixKHR)] = "BFloat16CooperativeMatrixKHR"
	caps[uint32(capVulkanMemoryModel)] = "VulkanMemoryModel"
	caps[uint32(capVulkanMemoryModelDeviceScope)] = "VulkanMemoryModelDeviceScope"
	caps[uint32(capCooperativeMatrixNV)] = "CooperativeMatrixNV"
	caps[uint32(capCooperativeMatrixKHR)] = "CooperativeMatrixKHR"
}
