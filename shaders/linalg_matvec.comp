#version 430
// y = A x in the vec4 row-block layout (docs/linalg.md): invocation rb accumulates the texel
// column sum_j texel(rb, j) * x_j for rows 4rb..4rb+3. Neighbouring invocations read
// neighbouring texels of each column (coalesced); x is staged in shared memory tile by tile.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Matrix { vec4 A[]; };
layout(std430, binding = 1) readonly buffer X { vec4 x[]; };
layout(std430, binding = 2) writeonly buffer Y { vec4 y[]; };

uniform uint uRows;
uniform uint uCols;
uniform uint uRowBlocks;

#define TILE 256u
shared vec4 sX[TILE / 4u];

void main() {
    const uint rb = gl_GlobalInvocationID.x;
    const uint colBlocks = (uCols + 3u) / 4u;
    vec4 acc = vec4(0.0);
    for (uint j0 = 0u; j0 < uCols; j0 += TILE) {
        for (uint k = gl_LocalInvocationID.x; k < TILE / 4u; k += 64u) {
            const uint q = j0 / 4u + k;
            sX[k] = q < colBlocks ? x[q] : vec4(0.0);
        }
        memoryBarrierShared();
        barrier();
        if (rb < uRowBlocks) {
            const uint jEnd = min(TILE, uCols - j0);
            uint a = j0 * uRowBlocks + rb;
            for (uint j = 0u; j < jEnd; ++j, a += uRowBlocks) {
                acc = fma(A[a], vec4(sX[j / 4u][j % 4u]), acc);
            }
        }
        barrier();
    }
    if (rb < uRowBlocks) {
        // Lanes past the last row stay zero, so y is a valid zero-padded vector.
        const uvec4 row = uvec4(rb * 4u) + uvec4(0u, 1u, 2u, 3u);
        y[rb] = mix(vec4(0.0), acc, lessThan(row, uvec4(uRows)));
    }
}
