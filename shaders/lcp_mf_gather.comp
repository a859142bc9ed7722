#version 430
// Matrix-free projected Jacobi, pass 1 of 2 per iteration (lcp_mf_rows.comp is pass 2): the
// per-body sums of A = J W J^T + cfm I (solver/lcp/row_operator.h) for every body of a batch,
//   u_b = sum over the rows i acting on b, rows ascending, of K_{i,side} x_i^t,
// one invocation per body, in the order of RowOperator::gatherBodies so that the sums round as
// the CPU's do. Bodies of blocks that have stopped are skipped.
#include "lcp_layout.glsl"

#ifndef LCP_MF_THREADS
#define LCP_MF_THREADS 64  // lcp_gpu_layout.h, kMfThreads (set by the host)
#endif

layout(local_size_x = LCP_MF_THREADS) in;

layout(std430, binding = 0) readonly buffer Bodies { LcpMfBody bodies[]; };
layout(std430, binding = 1) readonly buffer Entries { LcpMfEntry entries[]; };
layout(std430, binding = 2) writeonly buffer U { vec4 u[]; };  // 2 planes of uBodies
layout(std430, binding = 3) readonly buffer X { float x[]; };  // planes of uRows (layout.h)
layout(std430, binding = 4) readonly buffer Blocks { LcpMfBlock blocks[]; };

uniform uint uT;
uniform uint uRows;
uniform uint uBodies;

void main() {
    const uint b = gl_GlobalInvocationID.x;
    if (b >= uBodies) {
        return;
    }
    const LcpMfBody body = bodies[b];
    if (blocks[body.block].stopAt != LCP_NONE) {
        return;
    }
    const uint cur = (uT % 2u) * uRows;
    vec4 acc0 = vec4(0.0);
    vec2 acc1 = vec2(0.0);
    for (int e = body.entryBegin; e < body.entryEnd; ++e) {
        const LcpMfEntry entry = entries[e];
        const float xi = x[cur + entry.row];
        acc0 += entry.k0 * xi;
        acc1 += entry.k1 * xi;
    }
    u[b] = acc0;
    u[uBodies + b] = vec4(acc1, 0.0, 0.0);
}
