#version 430
// Matrix-free projected Jacobi, pass 1 of 2 per iteration (lcp_mf_rows.comp is pass 2): the
// per-body sums of A = J W J^T + cfm I (solver/lcp/row_operator.h) for every body of a batch,
//   u_b = sum over the rows i acting on b of K_{i,side} x_i^t,
// LCP_MF_GATHER_LANES invocations per body: lane l sums the body's entries l, l + LANES, ...
// in order, then the lanes' partial sums are added in a fixed tree (lane pairs 0+1, 2+3, ...,
// then pairs of pairs). The order is fixed, so the sums do not depend on scheduling; it is not
// the CPU's order (rows ascending, one chain), so the two agree to rounding. A body of a wall
// has 40-100 entries: one invocation per body left a GPU waiting on one dependent chain of
// loads per body; lanes shorten the chain by LANES. Bodies of blocks that have stopped are
// skipped.
#include "lcp_layout.glsl"

#ifndef LCP_MF_THREADS
#define LCP_MF_THREADS 64  // lcp_gpu_layout.h, kMfThreads (set by the host)
#endif
#ifndef LCP_MF_GATHER_LANES
#define LCP_MF_GATHER_LANES 8  // lcp_gpu_layout.h, kMfGatherLanes (set by the host)
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

shared vec4 sAcc0[LCP_MF_THREADS];
shared vec2 sAcc1[LCP_MF_THREADS];

void main() {
    const uint lane = gl_LocalInvocationID.x % uint(LCP_MF_GATHER_LANES);
    const uint b = gl_GlobalInvocationID.x / uint(LCP_MF_GATHER_LANES);
    // Every invocation reaches the barriers below: no early return.
    bool running = b < uBodies;
    LcpMfBody body;
    if (running) {
        body = bodies[b];
        running = blocks[body.block].stopAt == LCP_NONE;
    }
    vec4 acc0 = vec4(0.0);
    vec2 acc1 = vec2(0.0);
    if (running) {
        const uint cur = (uT % 2u) * uRows;
        for (int e = body.entryBegin + int(lane); e < body.entryEnd;
             e += LCP_MF_GATHER_LANES) {
            const LcpMfEntry entry = entries[e];
            const float xi = x[cur + entry.row];
            acc0 += entry.k0 * xi;
            acc1 += entry.k1 * xi;
        }
    }
    const uint me = gl_LocalInvocationID.x;
    sAcc0[me] = acc0;
    sAcc1[me] = acc1;
    barrier();
    for (uint stride = 1u; stride < uint(LCP_MF_GATHER_LANES); stride *= 2u) {
        if (lane % (2u * stride) == 0u) {
            sAcc0[me] += sAcc0[me + stride];
            sAcc1[me] += sAcc1[me + stride];
        }
        barrier();
    }
    if (running && lane == 0u) {
        u[b] = sAcc0[me];
        u[uBodies + b] = vec4(sAcc1[me], 0.0, 0.0);
    }
}
