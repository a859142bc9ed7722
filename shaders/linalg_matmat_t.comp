#version 430
// C = A^T B with A (m x k) and B (m x n) in the vec4 row-block layout: invocation (tx, ty)
// owns C texel (ib0 + ty, j0 + tx) = sum_l (A(l, 4ib), .., A(l, 4ib + 3)) * B(l, j). A 16-row
// slab of A (as transposed vec4s) and of B is staged in shared memory per step.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer MatA { vec4 A[]; };
layout(std430, binding = 1) readonly buffer MatB { vec4 B[]; };
layout(std430, binding = 2) writeonly buffer MatC { vec4 C[]; };

uniform uint uRows;        // m: rows of A and B
uniform uint uRowBlocksAB; // ceil(m / 4)
uniform uint uColsA;       // k
uniform uint uRowBlocksC;  // ceil(k / 4)
uniform uint uColsB;       // n

shared vec4 sAt[16][16];  // [column block of A][l]
shared float sB[16][16];  // [l][column of B]

float elementA(uint l, uint i) {
    return (l < uRows && i < uColsA) ? A[i * uRowBlocksAB + l / 4u][l % 4u] : 0.0;
}

void main() {
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint ib0 = gl_WorkGroupID.y * 16u;
    const uint j0 = gl_WorkGroupID.x * 16u;
    vec4 acc = vec4(0.0);
    for (uint l0 = 0u; l0 < uRows; l0 += 16u) {
        const uint l = l0 + tx;
        const uint i = (ib0 + ty) * 4u;
        sAt[ty][tx] = vec4(elementA(l, i), elementA(l, i + 1u), elementA(l, i + 2u),
                           elementA(l, i + 3u));
        const uint lb = l0 + ty;
        const uint jb = j0 + tx;
        sB[ty][tx] = (lb < uRows && jb < uColsB) ? B[jb * uRowBlocksAB + lb / 4u][lb % 4u] : 0.0;
        memoryBarrierShared();
        barrier();
        for (uint k = 0u; k < 16u; ++k) {
            acc = fma(sAt[ty][k], vec4(sB[k][tx]), acc);
        }
        barrier();
    }
    const uint ib = ib0 + ty;
    const uint j = j0 + tx;
    if (ib < uRowBlocksC && j < uColsB) {
        C[j * uRowBlocksC + ib] = acc;
    }
}
