#version 430
// Matrix-free projected Jacobi, pass 2 of 2 per iteration: one invocation per row of a batch
// of blocks (islands), with u_b = sum_i K_{i,side} x_i^t from lcp_mf_gather.comp:
//   w_i     = cfm x_i + J_iA . u_A + J_iB . u_B + b_i        (A x^t + b, row_operator.h order)
//   r(x^t)  = max_i |x_i - clamp(x_i - w_i, lo_i, hi_i)|      (atomicMax into residual[t])
//   x^{t+1} = clamp(x_i - s_i w_i, lo(x^t), hi(x^t)),  s_i = omega / A_ii
// a disc pair (f, g) stepped by its first row with s = omega / max(A_ff, A_gg) for both and
// projected jointly onto ||(x_f, x_g)|| <= mu max(x_normal, 0); with Chebyshev weights
// x^{t+1} = clamp(W (x^ - x^{t-1}) + x^{t-1}, ...) (lcp_jacobi_step.comp).
// Each block's stopping rule runs here, as in lcp_jacobi_step.comp: pass t first inspects the
// block's finished r(x^{t-1}); when the block's solve is over its first row records stopAt and
// no invocation of the block writes, so x^{t-1} survives in plane (t - 1) % 2 and later passes
// skip the block. Pass t = maxIterations + 1 of a block only checks x^maxIterations. Every
// invocation of a block takes the same decision from the same data, so no host readback is
// needed until the end. The host dispatches the gather and row passes indirectly from
// `control`; the leader of the last block to stop sets both passes' group counts to 0, so the
// passes queued after the whole batch has stopped do no work.
#include "lcp_layout.glsl"

#ifndef LCP_MF_THREADS
#define LCP_MF_THREADS 64  // lcp_gpu_layout.h, kMfThreads (set by the host)
#endif
#define LCP_MF_GOOD_PLANE 2u

layout(local_size_x = LCP_MF_THREADS) in;

layout(std430, binding = 0) readonly buffer Rows { LcpMfRow rows[]; };
layout(std430, binding = 1) readonly buffer J { vec4 jacobian[]; };  // 3 planes of uRows
layout(std430, binding = 2) readonly buffer U { vec4 u[]; };         // 2 planes of uBodies
layout(std430, binding = 3) buffer X { float x[]; };  // planes: even x^t, odd x^t, last good
layout(std430, binding = 4) buffer Blocks { LcpMfBlock blocks[]; };
layout(std430, binding = 5) buffer Residual { uint residualBits[]; };
layout(std430, binding = 6) readonly buffer Weights { float weights[]; };
// [0..2] the gather pass's workgroup counts, [3..5] this pass's, [6] blocks still running
// (lcp_gpu_layout.h, MfControl).
layout(std430, binding = 7) buffer Control { uint control[]; };

uniform uint uT;
uniform uint uRows;
uniform uint uBodies;
uniform float uTolerance;
uniform float uGrowth;
uniform uint uCheckEvery;
uniform uint uAccelerate;

shared uint sBits;

// (A x^t)_i = cfm x_i + J_iA . u_A + J_iB . u_B, each dot product summed in J's order.
float product(uint i, LcpMfRow row, float xi, float cfm) {
    float w = cfm * xi;
    const vec4 p0 = jacobian[i];
    const vec4 p1 = jacobian[uRows + i];
    const vec4 p2 = jacobian[2u * uRows + i];
    if (row.bodyA >= 0) {
        const vec4 u0 = u[row.bodyA];
        const vec4 u1 = u[uBodies + uint(row.bodyA)];
        w += p0.x * u0.x + p0.y * u0.y + p0.z * u0.z + p0.w * u0.w + p1.x * u1.x + p1.y * u1.y;
    }
    if (row.bodyB >= 0) {
        const vec4 u0 = u[row.bodyB];
        const vec4 u1 = u[uBodies + uint(row.bodyB)];
        w += p1.z * u0.x + p1.w * u0.y + p2.x * u0.z + p2.y * u0.w + p2.z * u1.x + p2.w * u1.y;
    }
    return w;
}

// Row i's part of pass uT; false when its block is not iterating in this pass (then `bits`
// stays 0 and nothing is written).
bool stepRow(uint i, inout uint bits) {
    const LcpMfRow row = rows[i];
    const LcpMfBlock d = blocks[row.block];
    if (d.stopAt != LCP_NONE) {
        return false;
    }
    const bool leader = i == d.rowOffset;
    const float inf = uintBitsToFloat(LCP_INF_BITS);
    const float minPrev = uT == 0u ? inf : d.minResidual[(uT + 1u) % 2u];
    float minNow = minPrev;
    bool copyGood = false;
    if (uT > 0u) {
        const uint tp = uT - 1u;
        const float r = uintBitsToFloat(residualBits[d.residualOffset + tp]);
        const bool finite = !isinf(r) && !isnan(r);
        if (lcpTestsIterate(tp, uCheckEvery, d.maxIterations, r, uTolerance, uAccelerate != 0u)) {
            uint status = LCP_NONE;
            if (!finite) {
                status = LCP_DIVERGED;
            } else if (uTolerance > 0.0 && r <= uTolerance) {
                status = LCP_CONVERGED;
            } else if (r > uGrowth * max(minPrev, d.divergenceFloor) && r > uTolerance) {
                status = LCP_DIVERGED;
            } else if (tp == d.maxIterations) {
                status = LCP_ITERATION_LIMIT;
            }
            if (status != LCP_NONE) {
                if (leader) {
                    blocks[row.block].stopAt = tp;
                    blocks[row.block].status = status;
                    blocks[row.block].residual = r;
                    if (atomicAdd(control[6], 0xffffffffu) == 1u) {
                        control[0] = 0u;  // the last block has stopped: later passes are empty
                        control[3] = 0u;
                    }
                }
                return false;
            }
            minNow = min(minPrev, r);
            copyGood = true;
        }
    }
    uint start = uT == 0u ? 0u : d.restartAt[(uT + 1u) % 2u];
    if (uT >= 2u && uintBitsToFloat(residualBits[d.residualOffset + uT - 1u]) >
                        LCP_RESTART_RISE * uintBitsToFloat(residualBits[d.residualOffset + uT - 2u])) {
        start = uT;
    }
    const float weight = uAccelerate != 0u ? weights[uT - start] : 1.0;
    if (leader) {
        blocks[row.block].minResidual[uT % 2u] = minNow;
        blocks[row.block].restartAt[uT % 2u] = start;
    }
    if (row.partner >= 0 && uint(row.partner) < i) {
        return true;  // the second row of a disc pair: stepped with its first
    }

    const uint cur = (uT % 2u) * uRows;
    const uint next = ((uT + 1u) % 2u) * uRows;  // holds x^{t-1} on entry
    const uint good = LCP_MF_GOOD_PLANE * uRows;
    const float xi = x[cur + i];
    const float w = product(i, row, xi, d.cfm) + row.b;
    if (row.partner >= 0) {
        const uint g = uint(row.partner);
        const LcpMfRow rowG = rows[g];
        const vec2 xp = vec2(xi, x[cur + g]);
        const vec2 wp = vec2(w, product(g, rowG, xp.y, d.cfm) + rowG.b);
        const float radius = row.mu * max(x[cur + uint(row.normal)], 0.0);
        bits = lcpPairResidualBits(xp, wp, radius);
        const vec2 before = vec2(x[next + i], x[next + g]);
        if (copyGood) {
            x[good + i] = before.x;
            x[good + g] = before.y;
        }
        vec2 step = lcpDisc(xp - row.scale * wp, radius);
        if (weight != 1.0) {
            step = lcpDisc(weight * (step - before) + before, radius);
        }
        x[next + i] = step.x;
        x[next + g] = step.y;
        return true;
    }
    float lo = row.lo;
    float hi = row.hi;
    if (row.normal >= 0) {
        hi = row.mu * max(x[cur + uint(row.normal)], 0.0);
        lo = -hi;
    }
    bits = lcpResidualBits(xi, w, lo, hi);
    const float before = x[next + i];
    if (copyGood) {
        x[good + i] = before;
    }
    const float plain = clamp(xi - row.scale * w, lo, hi);
    x[next + i] = weight == 1.0 ? plain : clamp(weight * (plain - before) + before, lo, hi);
    return true;
}

void main() {
    const uint i = gl_GlobalInvocationID.x;
    uint bits = 0u;
    const bool live = i < uRows && stepRow(i, bits);
    // The residual is a max over the block's rows. A workgroup inside one block (the common
    // case for large islands) reduces in shared memory first and issues one global atomic;
    // otherwise every row issues its own. The condition is uniform over the workgroup.
    const uint first = gl_WorkGroupID.x * uint(LCP_MF_THREADS);
    const uint last = min(first + uint(LCP_MF_THREADS), uRows) - 1u;
    const uint block = rows[first].block;
    if (block == rows[last].block) {
        if (gl_LocalInvocationID.x == 0u) {
            sBits = 0u;
        }
        memoryBarrierShared();
        barrier();
        if (live) {
            atomicMax(sBits, bits);
        }
        memoryBarrierShared();
        barrier();
        // Every row of a block takes the same decision, so row `first` is live iff the block is.
        if (gl_LocalInvocationID.x == 0u && live) {
            atomicMax(residualBits[blocks[block].residualOffset + uT], sBits);
        }
    } else if (live) {
        atomicMax(residualBits[blocks[rows[i].block].residualOffset + uT], bits);
    }
}
