#version 430
// One projected-Jacobi iteration per dispatch, matvec and projection fused, for problems too
// large for one workgroup (lcp_jacobi_block.comp). Dispatch t reads x^t, writes x^{t+1} and
// folds r(x^t) into residualBits[t] with atomicMax. The stopping rule runs on the GPU too:
// dispatch t inspects r(x^{t-1}) (complete, as dispatch t-1 has finished), and when the solve
// is over it records stopAt and returns without writing, leaving x^{t-1} in its buffer; later
// dispatches see stopAt and do nothing. So the host enqueues every dispatch up front and
// reads back once at the end.
//   w = A x^t + b,  x^{t+1} = clamp(x^t - omega w / A_ii, lo(x^t), hi(x^t)),
// a disc pair (rows 2m, 2m + 1 of this invocation's vec4) projected jointly onto
// ||(x_f, x_g)|| <= mu max(x_normal, 0) (lcp_jacobi_block.comp).
// A workgroup owns LCP_STEP_ROW_BLOCKS row blocks (x: neighbouring invocations read
// neighbouring texels of a column, coalesced) and cuts their columns into LCP_STEP_SLICES
// slices (y), whose partial sums of A x meet in shared memory and are added in slice order by
// the slice-0 invocation, which projects. The slices give a GPU the many independent loads in
// flight that one invocation per row block (n / 4 invocations) could not: n = 1000 ran four
// workgroups, bound by load latency, at 0.24 ms an iteration on an H100.
#include "lcp_layout.glsl"

#ifndef LCP_STEP_ROW_BLOCKS
#define LCP_STEP_ROW_BLOCKS 16
#endif
#ifndef LCP_STEP_SLICES
#define LCP_STEP_SLICES 16
#endif

layout(local_size_x = LCP_STEP_ROW_BLOCKS, local_size_y = LCP_STEP_SLICES) in;

layout(std430, binding = 0) readonly buffer Matrix { vec4 A[]; };
layout(std430, binding = 1) readonly buffer Rows { LcpRow rows[]; };
layout(std430, binding = 2) readonly buffer XCur { vec4 xCur[]; };
layout(std430, binding = 3) buffer XNext { vec4 xNext[]; };  // holds x^{t-1} on entry
layout(std430, binding = 4) buffer Residual { uint residualBits[]; };
layout(std430, binding = 5) buffer Control { LcpControl control; };
layout(std430, binding = 6) writeonly buffer Good { vec4 good[]; };

uniform uint uT;
uniform uint uN;
uniform uint uRowBlocks;
uniform float uOmega;
uniform float uTolerance;
uniform float uGrowth;
uniform float uFloor;
uniform uint uCheckEvery;
// Chebyshev acceleration (uAccelerate != 0; LcpOptions::chebyshevRho): x^{t+1} =
// clamp(W[t - start] (x^ - x^{t-1}) + x^{t-1}, lo, hi), with x^{t-1} read from xNext before it
// is overwritten; start = t when r(x^{t-1}) > 1.01 r(x^{t-2}), else the previous dispatch's start
// (control.restartAt, ping-ponged like minResidual).
uniform uint uAccelerate;
layout(std430, binding = 7) readonly buffer Weights { float weights[]; };

shared vec4 sPartial[LCP_STEP_SLICES][LCP_STEP_ROW_BLOCKS];

void main() {
    // Every return before the barrier below is taken by a whole workgroup or none of it: it
    // depends on control.stopAt and residualBits[t - 1], which agree for all its invocations.
    if (control.stopAt != LCP_NONE) {
        return;
    }
    const uint rb = gl_GlobalInvocationID.x;
    const uint slice = gl_LocalInvocationID.y;
    const bool lead = rb == 0u && slice == 0u;
    const float inf = uintBitsToFloat(LCP_INF_BITS);
    const float minPrev = uT == 0u ? inf : control.minResidual[(uT + 1u) % 2u];
    float minNow = minPrev;
    bool copyGood = false;
    if (uT > 0u) {
        const uint tp = uT - 1u;
        const float r = uintBitsToFloat(residualBits[tp]);
        const bool finite = !isinf(r) && !isnan(r);
        // The last iterate's test is the host's (no maxIterations here: LCP_NONE never matches).
        if (lcpTestsIterate(tp, uCheckEvery, LCP_NONE, r, uTolerance, uAccelerate != 0u)) {
            uint status = LCP_NONE;
            if (!finite) {
                status = LCP_DIVERGED;
            } else if (uTolerance > 0.0 && r <= uTolerance) {
                status = LCP_CONVERGED;
            } else if (r > uGrowth * max(minPrev, uFloor) && r > uTolerance) {
                status = LCP_DIVERGED;
            }
            if (status != LCP_NONE) {
                if (lead) {
                    control.stopAt = tp;
                    control.status = status;
                }
                return;
            }
            minNow = min(minPrev, r);
            copyGood = true;
        }
    }
    uint start = uT == 0u ? 0u : control.restartAt[(uT + 1u) % 2u];
    if (uT >= 2u && uintBitsToFloat(residualBits[uT - 1u]) >
                        LCP_RESTART_RISE * uintBitsToFloat(residualBits[uT - 2u])) {
        start = uT;
    }
    const float weight = uAccelerate != 0u ? weights[uT - start] : 1.0;
    if (lead) {
        control.minResidual[uT % 2u] = minNow;
        control.restartAt[uT % 2u] = start;
    }

    // This slice's columns [j0, j1): whole vec4s of x, so that each slice starts a texel.
    const uint perSlice = ((uN + uint(LCP_STEP_SLICES) - 1u) / uint(LCP_STEP_SLICES) + 3u) & ~3u;
    const uint j0 = min(uN, slice * perSlice);
    const uint j1 = min(uN, j0 + perSlice);
    vec4 acc = vec4(0.0);
    if (rb < uRowBlocks) {
        uint a = j0 * uRowBlocks + rb;
        for (uint j = j0; j < j1; ++j, a += uRowBlocks) {
            acc += A[a] * xCur[j / 4u][j % 4u];
        }
    }
    sPartial[slice][gl_LocalInvocationID.x] = acc;
    memoryBarrierShared();
    barrier();
    if (slice != 0u || rb >= uRowBlocks) {
        return;
    }
    acc = vec4(0.0);
    for (uint s = 0u; s < uint(LCP_STEP_SLICES); ++s) {
        acc += sPartial[s][gl_LocalInvocationID.x];
    }
    const vec4 xc = xCur[rb];
    const vec4 before = xNext[rb];  // x^{t-1}
    if (copyGood) {
        good[rb] = before;
    }
    vec4 xn = vec4(0.0);
    uint bits = 0u;
    for (uint c = 0u; c < 4u; ++c) {
        const uint i = rb * 4u + c;
        if (i < uN) {
            const LcpRow row = rows[i];
            if (row.pair == LCP_PAIR_SECOND) {
                continue;  // projected with its first row
            }
            if (row.pair == LCP_PAIR_FIRST) {
                const vec2 xi = vec2(xc[c], xc[c + 1u]);
                const vec2 w = vec2(acc[c], acc[c + 1u]) + vec2(row.b, rows[i + 1u].b);
                const float radius =
                    row.mu * max(xCur[uint(row.normal) / 4u][uint(row.normal) % 4u], 0.0);
                bits = max(bits, lcpPairResidualBits(xi, w, radius));
                vec2 next = lcpDisc(xi - uOmega * row.invDiag * w, radius);
                if (weight != 1.0) {
                    const vec2 prev = vec2(before[c], before[c + 1u]);
                    next = lcpDisc(weight * (next - prev) + prev, radius);
                }
                xn[c] = next.x;
                xn[c + 1u] = next.y;
                continue;
            }
            const float w = acc[c] + row.b;
            float lo = row.lo;
            float hi = row.hi;
            if (row.normal >= 0) {
                hi = row.mu * max(xCur[uint(row.normal) / 4u][uint(row.normal) % 4u], 0.0);
                lo = -hi;
            }
            bits = max(bits, lcpResidualBits(xc[c], w, lo, hi));
            const float plain = clamp(xc[c] - uOmega * row.invDiag * w, lo, hi);
            xn[c] = weight == 1.0 ? plain
                                  : clamp(weight * (plain - before[c]) + before[c], lo, hi);
        }
    }
    xNext[rb] = xn;
    atomicMax(residualBits[uT], bits);
}
