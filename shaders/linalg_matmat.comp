#version 430
// C = A B in the vec4 row-block layout: invocation (tx, ty) of a 16 x 16 workgroup owns the
// texel C(rb0 + ty, j0 + tx) = sum_l texel_A(rb0 + ty, l) * B(l, j0 + tx). Each step stages
// a 16 x 16 tile of A texels and of B scalars in shared memory (64 x 16 floats of A).
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer MatA { vec4 A[]; };
layout(std430, binding = 1) readonly buffer MatB { vec4 B[]; };
layout(std430, binding = 2) writeonly buffer MatC { vec4 C[]; };

uniform uint uRowBlocksA;  // = row blocks of C
uniform uint uInner;       // columns of A = rows of B
uniform uint uRowBlocksB;
uniform uint uColsB;

shared vec4 sA[16][16];   // [row block][l]
shared float sB[16][16];  // [l][column]

void main() {
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint rb0 = gl_WorkGroupID.y * 16u;
    const uint j0 = gl_WorkGroupID.x * 16u;
    vec4 acc = vec4(0.0);
    for (uint l0 = 0u; l0 < uInner; l0 += 16u) {
        // Invocations with consecutive tx read consecutive texels of a column of A.
        const uint la = l0 + ty;
        const uint rba = rb0 + tx;
        sA[tx][ty] = (la < uInner && rba < uRowBlocksA) ? A[la * uRowBlocksA + rba] : vec4(0.0);
        const uint lb = l0 + ty;
        const uint jb = j0 + tx;
        sB[ty][tx] = (lb < uInner && jb < uColsB) ? B[jb * uRowBlocksB + lb / 4u][lb % 4u] : 0.0;
        memoryBarrierShared();
        barrier();
        for (uint l = 0u; l < 16u; ++l) {
            acc = fma(sA[ty][l], vec4(sB[l][tx]), acc);
        }
        barrier();
    }
    const uint rb = rb0 + ty;
    const uint j = j0 + tx;
    if (rb < uRowBlocksA && j < uColsB) {
        C[j * uRowBlocksA + rb] = acc;
    }
}
