#version 430
// y = A x in the vec4 row-block layout (docs/linalg.md): texel (rb, j) holds rows 4rb..4rb+3 of
// column j. A workgroup owns MATVEC_ROW_BLOCKS row blocks (x: neighbouring invocations read
// neighbouring texels of a column, coalesced) and cuts the columns into MATVEC_SLICES slices
// (y); the slices' partial sums meet in shared memory and are added in slice order. One
// invocation per row block alone walked every column with few loads in flight: 1000 x 1000 ran
// four workgroups at 0.26 ms on an H100, ten times A^T x.
#ifndef MATVEC_ROW_BLOCKS
#define MATVEC_ROW_BLOCKS 16
#endif
#ifndef MATVEC_SLICES
#define MATVEC_SLICES 16
#endif
layout(local_size_x = MATVEC_ROW_BLOCKS, local_size_y = MATVEC_SLICES) in;

layout(std430, binding = 0) readonly buffer Matrix { vec4 A[]; };
layout(std430, binding = 1) readonly buffer X { vec4 x[]; };
layout(std430, binding = 2) writeonly buffer Y { vec4 y[]; };

uniform uint uRows;
uniform uint uCols;
uniform uint uRowBlocks;

shared vec4 sPartial[MATVEC_SLICES][MATVEC_ROW_BLOCKS];

void main() {
    const uint rb = gl_GlobalInvocationID.x;
    const uint slice = gl_LocalInvocationID.y;
    // This slice's columns [j0, j1), whole texels of x.
    const uint perSlice = ((uCols + uint(MATVEC_SLICES) - 1u) / uint(MATVEC_SLICES) + 3u) & ~3u;
    const uint j0 = min(uCols, slice * perSlice);
    const uint j1 = min(uCols, j0 + perSlice);
    vec4 acc = vec4(0.0);
    if (rb < uRowBlocks) {
        uint a = j0 * uRowBlocks + rb;
        for (uint j = j0; j < j1; ++j, a += uRowBlocks) {
            acc = fma(A[a], vec4(x[j / 4u][j % 4u]), acc);
        }
    }
    sPartial[slice][gl_LocalInvocationID.x] = acc;
    memoryBarrierShared();
    barrier();
    if (slice != 0u || rb >= uRowBlocks) {
        return;
    }
    acc = vec4(0.0);
    for (uint s = 0u; s < uint(MATVEC_SLICES); ++s) {
        acc += sPartial[s][gl_LocalInvocationID.x];
    }
    // Lanes past the last row stay zero, so y is a valid zero-padded vector.
    const uvec4 row = uvec4(rb * 4u) + uvec4(0u, 1u, 2u, 3u);
    y[rb] = mix(vec4(0.0), acc, lessThan(row, uvec4(uRows)));
}
