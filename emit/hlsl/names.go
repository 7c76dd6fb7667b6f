package hlsl

import (
	"strconv"
	"strings"
	"sync"

	"github.com/kcgo/kc/emit"
)

// reserved holds HLSL keywords, type names and intrinsic function names that
// a .kc identifier must not take, plus a few words glslang's HLSL front end
// treats specially. A .kc name found here gets a trailing underscore. The
// set is built on first use, so that programs linking kc (the CLI among
// them) do not pay for it at start-up.
var reserved = sync.OnceValue(reservedWords)

func reservedWords() map[string]bool {
	reserved := map[string]bool{}
	words := `
AppendStructuredBuffer BlendState Buffer ByteAddressBuffer CompileShader
ComputeShader ConsumeStructuredBuffer DepthStencilState DepthStencilView
DomainShader GeometryShader Hullshader HullShader InputPatch LineStream
NULL OutputPatch PixelShader PointStream RWBuffer RWByteAddressBuffer
RWStructuredBuffer RWTexture1D RWTexture1DArray RWTexture2D RWTexture2DArray
RWTexture3D RasterizerState RenderTargetView SamplerComparisonState
SamplerState StructuredBuffer Texture Texture1D Texture1DArray Texture2D
Texture2DArray Texture2DMS Texture2DMSArray Texture3D TextureCube
TextureCubeArray TriangleStream VertexShader
asm asm_fragment auto bool break case catch cbuffer centroid char class
column_major compile compile_fragment const const_cast continue default
delete discard do double dword dynamic_cast else enum explicit export
extern false float for friend fxgroup goto groupshared half if in inline
inout int interface line lineadj linear long matrix min10float min12int
min16float min16int min16uint mutable namespace new nointerpolation
noperspective operator out packoffset pass pixelfragment point precise
private protected public register reinterpret_cast return row_major sample
sampler sampler1D sampler2D sampler3D samplerCUBE shared short signed sizeof
snorm stateblock stateblock_state static static_cast string struct switch
tbuffer technique technique10 technique11 template texture texture1D
texture2D texture3D textureCUBE this throw triangle triangleadj true try
typedef typename uint uniform union unorm unsigned using vector vertexfragment
virtual void volatile while
float16_t float32_t float64_t int16_t int32_t int64_t uint16_t uint32_t
uint64_t dword half min16float min10float min16int min12int min16uint
globallycoherent nointerpolation numthreads vk
abort abs acos all AllMemoryBarrier AllMemoryBarrierWithGroupSync any asdouble
asfloat asin asint asuint atan atan2 ceil CheckAccessFullyMapped clamp clip
cos cosh countbits cross D3DCOLORtoUBYTE4 ddx ddx_coarse ddx_fine ddy
ddy_coarse ddy_fine degrees determinant DeviceMemoryBarrier
DeviceMemoryBarrierWithGroupSync distance dot dst errorf EvaluateAttributeAtCentroid
EvaluateAttributeAtSample EvaluateAttributeSnapped exp exp2 f16tof32 f32tof16
faceforward firstbithigh firstbitlow floor fma fmod frac frexp fwidth
GetRenderTargetSampleCount GetRenderTargetSamplePosition GroupMemoryBarrier
GroupMemoryBarrierWithGroupSync InterlockedAdd InterlockedAnd
InterlockedCompareExchange InterlockedCompareStore InterlockedExchange
InterlockedMax InterlockedMin InterlockedOr InterlockedXor isfinite isinf
isnan ldexp length lerp lit log log10 log2 mad max min modf msad4 mul
noise normalize pow printf Process2DQuadTessFactorsAvg
Process2DQuadTessFactorsMax Process2DQuadTessFactorsMin
ProcessIsolineTessFactors ProcessQuadTessFactorsAvg ProcessQuadTessFactorsMax
ProcessQuadTessFactorsMin ProcessTriTessFactorsAvg ProcessTriTessFactorsMax
ProcessTriTessFactorsMin radians rcp reflect refract reversebits round rsqrt
saturate select sign sin sincos sinh smoothstep sqrt step tan tanh tex1D
tex1Dbias tex1Dgrad tex1Dlod tex1Dproj tex2D tex2Dbias tex2Dgrad tex2Dlod
tex2Dproj tex3D tex3Dbias tex3Dgrad tex3Dlod tex3Dproj texCUBE texCUBEbias
texCUBEgrad texCUBElod texCUBEproj transpose trunc and or
WaveActiveAllEqual WaveActiveAllTrue WaveActiveAnyTrue WaveActiveBallot
WaveActiveBitAnd WaveActiveBitOr WaveActiveBitXor WaveActiveCountBits
WaveActiveMax WaveActiveMin WaveActiveProduct WaveActiveSum WaveGetLaneCount
WaveGetLaneIndex WaveIsFirstLane WavePrefixCountBits WavePrefixProduct
WavePrefixSum WaveReadLaneAt WaveReadLaneFirst QuadReadAcrossDiagonal
QuadReadAcrossX QuadReadAcrossY QuadReadLaneAt
`
	for _, w := range strings.Fields(words) {
		reserved[w] = true
	}
	// Vector and matrix type names: float4, uint2x3, bool1, half3x3, ...
	for _, base := range []string{"bool", "int", "uint", "float", "half", "double", "dword",
		"min16float", "min10float", "min16int", "min12int", "min16uint",
		"float16_t", "float32_t", "float64_t", "int16_t", "int32_t", "int64_t",
		"uint16_t", "uint32_t", "uint64_t"} {
		for i := 1; i <= 4; i++ {
			reserved[base+strconv.Itoa(i)] = true
			for j := 1; j <= 4; j++ {
				reserved[base+strconv.Itoa(i)+"x"+strconv.Itoa(j)] = true
			}
		}
	}
	return reserved
}

// words is what HLSL identifiers avoid (emit.Words): reserved words get a
// trailing underscore; names starting kc_ (kc's helpers), gl_ (the GLSL
// built-ins glslang reserves), sv_ or __ (implementation names) get a
// leading "u_"; other characters than ASCII letters, digits and _ are
// spelled out.
var words = &emit.Words{
	Reserved: func(s string) bool { return reserved()[s] },
	Prefixes: []string{"kc_", "gl_", "sv_", "__"},
	Escape:   "u_",
	ASCII:    true,
}
