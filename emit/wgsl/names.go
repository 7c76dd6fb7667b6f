package wgsl

import (
	"strings"

	"github.com/kcgo/kc/emit"
)

// This file holds the WGSL words kc identifiers must avoid and the namer
// that renames them deterministically.

// keywords are WGSL's keywords and reserved words (WGSL § 16.1, § 16.2):
// a module must not contain them as identifiers.
const keywords = `alias break case const const_assert continue continuing default
diagnostic discard else enable false fn for if let loop override requires return
struct switch true var while
NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto
await become cast catch class co_await co_return co_yield coherent column_major
common compile compile_fragment concept const_cast consteval constexpr constinit
crate debugger decltype delete demote demote_to_helper do dynamic_cast enum explicit
export extends extern external fallthrough filter final finally friend from fxgroup
get goto groupshared highp impl implements import inline instanceof interface layout
lowp macro macro_rules match mediump meta mod module move mut mutable namespace new
nil noexcept noinline nointerpolation non_coherent noncoherent noperspective null
nullptr of operator package packoffset partition pass patch pixelfragment precise
precision premerge priv protected pub public readonly ref regardless register
reinterpret_cast require resource restrict self set shared sizeof smooth snorm
static static_assert static_cast std subroutine super target template this
thread_local throw trait try type typedef typeid typename typeof union unless unorm
unsafe unsized use using varying virtual volatile wgsl where with writeonly yield`

// predeclared are names WGSL declares itself (types, type generators,
// enumerants, builtin functions). A declaration may shadow them, but the
// emitted code spells them, so kc identifiers must not take them.
const predeclared = `bool i32 u32 f32 f16 vec2 vec3 vec4 vec2i vec3i vec4i vec2u
vec3u vec4u vec2f vec3f vec4f vec2h vec3h vec4h mat2x2 mat2x3 mat2x4 mat3x2 mat3x3
mat3x4 mat4x2 mat4x3 mat4x4 mat2x2f mat3x3f mat4x4f mat2x2h mat3x3h mat4x4h array
atomic ptr sampler sampler_comparison texture_1d texture_2d texture_2d_array
texture_3d texture_cube texture_cube_array texture_multisampled_2d
texture_depth_2d texture_depth_2d_array texture_depth_cube
texture_depth_cube_array texture_depth_multisampled_2d texture_external
texture_storage_1d texture_storage_2d texture_storage_2d_array texture_storage_3d
read write read_write function private workgroup uniform storage handle
rgba8unorm rgba8snorm rgba8uint rgba8sint rgba16uint rgba16sint rgba16float
r32uint r32sint r32float rg32uint rg32sint rg32float rgba32uint rgba32sint
rgba32float bgra8unorm
bitcast all any select arrayLength abs acos acosh asin asinh atan atanh atan2
ceil clamp cos cosh countLeadingZeros countOneBits countTrailingZeros cross
degrees determinant distance dot dot4U8Packed dot4I8Packed exp exp2
extractBits faceForward firstLeadingBit firstTrailingBit floor fma fract frexp
insertBits inverseSqrt ldexp length log log2 max min mix modf normalize pow
quantizeToF16 radians reflect refract reverseBits round saturate sign sin sinh
smoothstep sqrt step tan tanh transpose trunc pack4x8snorm pack4x8unorm
pack4xI8 pack4xU8 pack4xI8Clamp pack4xU8Clamp pack2x16snorm pack2x16unorm
pack2x16float unpack4x8snorm unpack4x8unorm unpack4xI8 unpack4xU8
unpack2x16snorm unpack2x16unorm unpack2x16float storageBarrier
workgroupBarrier textureBarrier workgroupUniformLoad atomicLoad atomicStore
atomicAdd atomicSub atomicMax atomicMin atomicAnd atomicOr atomicXor
atomicExchange atomicCompareExchangeWeak subgroupAdd subgroupMul subgroupMin
subgroupMax subgroupAnd subgroupOr subgroupXor subgroupInclusiveAdd
subgroupExclusiveAdd subgroupInclusiveMul subgroupExclusiveMul
subgroupBroadcast subgroupBroadcastFirst subgroupShuffle subgroupShuffleXor
subgroupShuffleUp subgroupShuffleDown subgroupBallot subgroupAll subgroupAny
subgroupElect quadBroadcast quadSwapX quadSwapY quadSwapDiagonal dpdx dpdy
fwidth textureSample textureLoad textureStore textureDimensions`

// reserved is keywords and predeclared as a set, built once; it is only read.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(keywords + " " + predeclared) {
		m[w] = true
	}
	return m
}()

// helperPrefix starts every name the emitter invents (helper functions,
// temporaries); kc identifiers with this prefix are renamed.
const helperPrefix = "kc_"

// words is what WGSL identifiers avoid (emit.Words): reserved words get a
// trailing underscore; "_" and names starting "__" (both invalid in WGSL)
// and names with the helper prefix get a leading "x".
var words = &emit.Words{
	Reserved: func(s string) bool { return reserved[s] },
	Prefixes: []string{"__", helperPrefix},
	Invalid:  []string{"_"},
	Escape:   "x",
}
