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
#include "lcp_layout.glsl"

#define LCP_THREADS 64u
#define LCP_TILE 256u

layout(local_size_x = LCP_THREADS) in;

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

shared vec4 sX[LCP_TILE / 4];

void main() {
    if (control.stopAt != LCP_NONE) {
        return;
    }
    const uint rb = gl_GlobalInvocationID.x;
    const float inf = uintBitsToFloat(LCP_INF_BITS);
    const float minPrev = uT == 0u ? inf : control.minResidual[(uT + 1u) % 2u];
    float minNow = minPrev;
    bool copyGood = false;
    if (uT > 0u) {
        const uint tp = uT - 1u;
        const float r = uintBitsToFloat(residualBits[tp]);
        const bool finite = !isinf(r) && !isnan(r);
        if (!finite || tp % uCheckEvery == 0u) {
            uint status = LCP_NONE;
            if (!finite) {
                status = LCP_DIVERGED;
            } else if (uTolerance > 0.0 && r <= uTolerance) {
                status = LCP_CONVERGED;
            } else if (r > uGrowth * max(minPrev, uFloor) && r > uTolerance) {
                status = LCP_DIVERGED;
            }
            if (status != LCP_NONE) {
                if (rb == 0u) {
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
    if (rb == 0u) {
        control.minResidual[uT % 2u] = minNow;
        control.restartAt[uT % 2u] = start;
    }

    vec4 acc = vec4(0.0);
    for (uint j0 = 0u; j0 < uN; j0 += LCP_TILE) {
        for (uint k = gl_LocalInvocationID.x; k < LCP_TILE / 4u; k += LCP_THREADS) {
            const uint q = j0 / 4u + k;
            sX[k] = q < uRowBlocks ? xCur[q] : vec4(0.0);
        }
        barrier();
        if (rb < uRowBlocks) {
            const uint jEnd = min(LCP_TILE, uN - j0);
            uint a = j0 * uRowBlocks + rb;
            for (uint j = 0u; j < jEnd; ++j, a += uRowBlocks) {
                acc += A[a] * sX[j / 4u][j % 4u];
            }
        }
        barrier();
    }
    if (rb >= uRowBlocks) {
        return;
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
