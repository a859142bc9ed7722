#version 430
// Whole projected-Jacobi solves in ONE dispatch: workgroup k solves block k of a batch (a
// single problem is a batch of one). The block's iterate lives in shared memory; barriers
// separate the iterations, so nothing is read back until the solve ends.
//   w = A x^t + b,  r(x^t) = max_i |x_i - clamp(x_i - w_i, lo_i, hi_i)|,
//   x^{t+1} = clamp(x^t - omega w / A_ii, lo(x^t), hi(x^t))   (Moravanszky 2003, section 5)
// with friction bounds lo = -mu max(x_normal, 0), hi = -lo read from x^t; a disc pair (rows
// 2m, 2m + 1, LcpRow.pair) steps both rows by the same scale and is projected jointly onto
// ||(x_f, x_g)|| <= mu max(x_normal, 0), its residual |x - Proj_disc(x - w)|. Stopping and
// divergence rules are those of the CPU solver (solver/lcp/lcp_cpu.cpp).
#include "lcp_layout.glsl"

#ifndef LCP_THREADS
#define LCP_THREADS 256
#endif
#ifndef LCP_BLOCK_MAX_N
#define LCP_BLOCK_MAX_N 1024
#endif

layout(local_size_x = LCP_THREADS) in;

layout(std430, binding = 0) readonly buffer Matrix { vec4 A[]; };
layout(std430, binding = 1) readonly buffer Rows { LcpRow rows[]; };
layout(std430, binding = 2) buffer X { float x[]; };
layout(std430, binding = 3) readonly buffer Blocks { LcpBlockDesc blocks[]; };
layout(std430, binding = 4) writeonly buffer History { float history[]; };
layout(std430, binding = 5) writeonly buffer Results { LcpBlockResult results[]; };
// Chebyshev weights W (LcpOptions::chebyshevRho; lcp_common.h), read when uAccelerate != 0:
// x^{t+1} = clamp(W[t - start] (x^ - x^{t-1}) + x^{t-1}, lo, hi), x^ the plain step. x^{t-1} is
// the other half of the ping-pong pair, overwritten by x^{t+1} by the same invocation.
layout(std430, binding = 6) readonly buffer Weights { float weights[]; };

uniform float uOmega;
uniform float uTolerance;  // 0: run the fixed count
uniform float uGrowth;
uniform uint uCheckEvery;
uniform uint uRecordHistory;
uniform uint uAccelerate;

shared float sX[2][LCP_BLOCK_MAX_N];
shared float sGood[LCP_BLOCK_MAX_N];
shared uint sResidual[3];  // triple-buffered so that resetting the next slot never races a read

void main() {
    const LcpBlockDesc d = blocks[gl_WorkGroupID.x];
    const uint tid = gl_LocalInvocationID.x;
    for (uint i = tid; i < d.n; i += LCP_THREADS) {
        const float v = x[d.vectorOffset + i];
        sX[0][i] = v;
        sX[1][i] = v;  // x^{-1} = x^0 for the accelerated step
        sGood[i] = v;
    }
    if (tid < 3u) {
        sResidual[tid] = 0u;
    }
    memoryBarrierShared();
    barrier();

    uint cur = 0u;
    uint status = LCP_ITERATION_LIMIT;
    float minResidual = uintBitsToFloat(LCP_INF_BITS);
    float goodResidual = minResidual;
    float r = 0.0;
    uint t = 0u;
    uint start = 0u;  // Chebyshev schedule start: t when r(x^{t-1}) > 1.01 r(x^{t-2})
    float rPrev1 = minResidual, rPrev2 = minResidual;
    for (;; ++t) {
        const uint slot = t % 3u;
        if (t >= 2u && rPrev1 > LCP_RESTART_RISE * rPrev2) {
            start = t;
        }
        const float weight = uAccelerate != 0u ? weights[t - start] : 1.0;
        for (uint rb = tid; rb < d.rowBlocks; rb += LCP_THREADS) {
            // Four columns per trip: Mesa's llvmpipe stops a loop silently after 65535 trips
            // in one invocation (counted over all its entries), and this loop runs once per
            // iteration; the host keeps (iterations + 1) * n / 4 under that (lcp_gpu.cpp).
            vec4 acc = vec4(0.0);
            uint a = d.matrixOffset + rb;
            const uint stride = d.rowBlocks;
            uint j = 0u;
            for (; j + 4u <= d.n; j += 4u, a += 4u * stride) {
                acc += A[a] * sX[cur][j] + A[a + stride] * sX[cur][j + 1u] +
                       A[a + 2u * stride] * sX[cur][j + 2u] + A[a + 3u * stride] * sX[cur][j + 3u];
            }
            for (; j < d.n; ++j, a += stride) {
                acc += A[a] * sX[cur][j];
            }
            uint bits = 0u;
            for (uint c = 0u; c < 4u; ++c) {
                const uint i = rb * 4u + c;
                if (i < d.n) {
                    const LcpRow row = rows[d.vectorOffset + i];
                    if (row.pair == LCP_PAIR_SECOND) {
                        continue;  // projected with its first row
                    }
                    if (row.pair == LCP_PAIR_FIRST) {
                        const vec2 xi = vec2(sX[cur][i], sX[cur][i + 1u]);
                        const vec2 w = vec2(acc[c], acc[c + 1u]) +
                                       vec2(row.b, rows[d.vectorOffset + i + 1u].b);
                        const float radius = row.mu * max(sX[cur][row.normal], 0.0);
                        bits = max(bits, lcpPairResidualBits(xi, w, radius));
                        vec2 next = lcpDisc(xi - uOmega * row.invDiag * w, radius);
                        if (weight != 1.0) {
                            const vec2 before = vec2(sX[1u - cur][i], sX[1u - cur][i + 1u]);
                            next = lcpDisc(weight * (next - before) + before, radius);
                        }
                        sX[1u - cur][i] = next.x;
                        sX[1u - cur][i + 1u] = next.y;
                        continue;
                    }
                    const float xi = sX[cur][i];
                    const float w = acc[c] + row.b;
                    float lo = row.lo;
                    float hi = row.hi;
                    if (row.normal >= 0) {
                        hi = row.mu * max(sX[cur][row.normal], 0.0);
                        lo = -hi;
                    }
                    bits = max(bits, lcpResidualBits(xi, w, lo, hi));
                    const float plain = clamp(xi - uOmega * row.invDiag * w, lo, hi);
                    if (weight != 1.0) {
                        const float before = sX[1u - cur][i];
                        sX[1u - cur][i] = clamp(weight * (plain - before) + before, lo, hi);
                    } else {
                        sX[1u - cur][i] = plain;
                    }
                }
            }
            atomicMax(sResidual[slot], bits);
        }
        if (tid == 0u) {
            sResidual[(t + 1u) % 3u] = 0u;
        }
        memoryBarrierShared();
        barrier();
        r = uintBitsToFloat(sResidual[slot]);
        rPrev2 = rPrev1;
        rPrev1 = r;
        if (uRecordHistory != 0u && tid == 0u) {
            history[d.historyOffset + t] = r;
        }
        const bool finite = !isinf(r) && !isnan(r);
        if (lcpTestsIterate(t, uCheckEvery, d.maxIterations, r, uTolerance, uAccelerate != 0u)) {
            if (!finite) {
                status = LCP_DIVERGED;
                break;
            }
            if (uTolerance > 0.0 && r <= uTolerance) {
                status = LCP_CONVERGED;
                break;
            }
            if (r > uGrowth * max(minResidual, d.divergenceFloor) && r > uTolerance) {
                status = LCP_DIVERGED;
                break;
            }
            if (t == d.maxIterations) {
                break;
            }
            minResidual = min(minResidual, r);
            goodResidual = r;
            for (uint i = tid; i < d.n; i += LCP_THREADS) {
                sGood[i] = sX[cur][i];
            }
            memoryBarrierShared();
            barrier();  // the copy reads sX[cur], which the next iteration overwrites
        }
        cur = 1u - cur;
    }

    const bool diverged = status == LCP_DIVERGED;
    for (uint i = tid; i < d.n; i += LCP_THREADS) {
        x[d.vectorOffset + i] = diverged ? sGood[i] : sX[cur][i];
    }
    if (tid == 0u) {
        results[gl_WorkGroupID.x] = LcpBlockResult(t, diverged ? goodResidual : r, status, 0u);
    }
}
