#version 430
// CG dispatch 1 of 2 per iteration: p_new = r + beta p_old (written to pOut), q = A p_new,
// and alpha = rho / (p_new . q) in the last workgroup. Neighbours' p_new are recomputed
// from r and p_old instead of being read back, so one dispatch does both steps. With
// RECOMPUTE_AP (matrix-free stencil) q is not stored: cg_update.comp recomputes A p'.
layout(local_size_x = LOCAL_SIZE) in;
#include "cg_common.glsl"

layout(std430, binding = 3) readonly buffer R { float r[]; };
layout(std430, binding = 4) readonly buffer PIn { float pIn[]; };
layout(std430, binding = 5) writeonly buffer POut { float pOut[]; };
layout(std430, binding = 6) writeonly buffer Q { float q[]; };

float gBeta;
float vecIn(uint j) { return r[j] + gBeta * pIn[j]; }
#include "cg_operator.glsl"

void main() {
    if (sStatus != CG_RUNNING) {
        return;
    }
    gBeta = sBeta;
    float pq = 0.0;
    for (uint e = 0u; e < ELEMS; ++e) {
        uint i = elementIndex(e);
        if (i < uN) {
            float pn = vecIn(i);
            float qi = applyA(i);
            pOut[i] = pn;
#ifndef RECOMPUTE_AP
            q[i] = qi;
#endif
            pq += pn * qi;
        }
    }
    if (finishReduction(pq, 0.0, false) && gl_LocalInvocationIndex == 0u) {
        float total = shSum[0];
        sPq = total;
        if (!(total > 0.0) || isinf(total)) {
            sStatus = CG_BREAKDOWN;
        } else {
            sAlpha = sRho / total;
        }
    }
}
