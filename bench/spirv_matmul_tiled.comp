#version 450
// The GLSL equivalent of testdata/kernels/matmul_tiled.kc, for bench/spirv.sh:
// glslangValidator compiles it to SPIR-V while kc compiles the .kc.
layout(local_size_x = 16, local_size_y = 16, local_size_z = 1) in;

layout(set = 0, binding = 0) uniform Params { uint M; uint N; uint K; } params;
layout(set = 0, binding = 1) readonly buffer ABuf { float A[]; };
layout(set = 0, binding = 2) readonly buffer BBuf { float B[]; };
layout(set = 0, binding = 3) buffer CBuf { float C[]; };

const uint TS = 16;
const uint RB = 4;
const uint BM = TS * RB;
const uint BN = TS * RB;
const uint BK = 16;

// As is stored transposed (k major) so that the inner loop reads rows
shared float As[BK][BM];
shared float Bs[BK][BN];

void main() {
	uint tx = gl_LocalInvocationID.x;
	uint ty = gl_LocalInvocationID.y;
	uint t = gl_LocalInvocationIndex;
	uint row0 = gl_WorkGroupID.y * BM;
	uint col0 = gl_WorkGroupID.x * BN;
	float acc[RB][RB];
	float a[RB];
	float b[RB];
	for (uint r = 0u; r < RB; r++) {
		for (uint c = 0u; c < RB; c++) {
			acc[r][c] = 0.0;
		}
	}
	for (uint k0 = 0u; k0 < params.K; k0 += BK) {
		// stage the A and B tiles, zero-padded outside the matrices
		for (uint e = 0u; e < BM * BK / (TS * TS); e++) {
			uint idx = t + e * TS * TS;
			uint m = idx / BK;
			uint k = idx % BK;
			float va = 0.0;
			if (row0 + m < params.M && k0 + k < params.K) {
				va = A[(row0 + m) * params.K + k0 + k];
			}
			As[k][m] = va;
		}
		for (uint e = 0u; e < BK * BN / (TS * TS); e++) {
			uint idx = t + e * TS * TS;
			uint k = idx / BN;
			uint n = idx % BN;
			float vb = 0.0;
			if (k0 + k < params.K && col0 + n < params.N) {
				vb = B[(k0 + k) * params.N + col0 + n];
			}
			Bs[k][n] = vb;
		}
		barrier();
		for (uint kk = 0u; kk < BK; kk++) {
			for (uint r = 0u; r < RB; r++) {
				a[r] = As[kk][ty + r * TS];
				b[r] = Bs[kk][tx + r * TS];
			}
			for (uint r = 0u; r < RB; r++) {
				for (uint c = 0u; c < RB; c++) {
					acc[r][c] = fma(a[r], b[c], acc[r][c]);
				}
			}
		}
		barrier();
	}
	for (uint r = 0u; r < RB; r++) {
		for (uint c = 0u; c < RB; c++) {
			uint row = row0 + ty + r * TS;
			uint col = col0 + tx + c * TS;
			if (row < params.M && col < params.N) {
				C[row * params.N + col] = acc[r][c];
			}
		}
	}
}
