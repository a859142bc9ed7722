#version 430
// y = A^T x: workgroup j reduces column j, y_j = sum_rb dot(texel(rb, j), x4[rb]); its
// invocations read consecutive texels of that column (coalesced) and combine in shared
// memory. Padding lanes of A and x are zero, so they add nothing.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Matrix { vec4 A[]; };
layout(std430, binding = 1) readonly buffer X { vec4 x[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };

uniform uint uRowBlocks;
uniform uint uColsPerRow;  // columns per row of workgroups (gl_NumWorkGroups.x)
uniform uint uCols;

shared float sPartial[64];

void main() {
    const uint j = gl_WorkGroupID.y * uColsPerRow + gl_WorkGroupID.x;
    const uint tid = gl_LocalInvocationID.x;
    float s = 0.0;
    if (j < uCols) {
        const uint base = j * uRowBlocks;
        for (uint rb = tid; rb < uRowBlocks; rb += 64u) {
            s += dot(A[base + rb], x[rb]);
        }
    }
    sPartial[tid] = s;
    memoryBarrierShared();
    barrier();
    for (uint width = 32u; width > 0u; width >>= 1u) {
        if (tid < width) {
            sPartial[tid] += sPartial[tid + width];
        }
        memoryBarrierShared();
        barrier();
    }
    if (tid == 0u && j < uCols) {
        y[j] = sPartial[0];
    }
}
