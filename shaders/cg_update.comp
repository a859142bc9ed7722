#version 430
// CG dispatch 2 of 2 per iteration: x += alpha p, r -= alpha q, rho_new = r.r; the last
// workgroup sets beta = rho_new / rho, the residual, the iteration count and the status.
layout(local_size_x = LOCAL_SIZE) in;
#include "cg_common.glsl"

layout(std430, binding = 2) buffer X { float x[]; };
layout(std430, binding = 3) buffer R { float r[]; };
layout(std430, binding = 5) readonly buffer P { float p[]; };
layout(std430, binding = 6) readonly buffer Q { float q[]; };
layout(std430, binding = 8) writeonly buffer History { float history[]; };

uniform uint uHistoryCapacity;

#ifdef RECOMPUTE_AP
// The matrix-free stencil recomputes q = A p' (4 loads that hit the cache) instead of
// reading a stored q: 8 bytes less per unknown and iteration.
float vecIn(uint j) { return p[j]; }
#include "cg_operator.glsl"
#else
uniform uint uN;
#endif

void main() {
    if (sStatus != CG_RUNNING) {
        return;
    }
    float alpha = sAlpha;
    float rr = 0.0;
    for (uint e = 0u; e < ELEMS; ++e) {
        uint i = elementIndex(e);
        if (i < uN) {
            x[i] += alpha * p[i];
#ifdef RECOMPUTE_AP
            float qi = applyA(i);
#else
            float qi = q[i];
#endif
            float ri = r[i] - alpha * qi;
            r[i] = ri;
            rr += ri * ri;
        }
    }
    if (finishReduction(rr, 0.0, false) && gl_LocalInvocationIndex == 0u) {
        float rho = shSum[0];
        float res = sBb > 0.0 ? sqrt(rho / sBb) : sqrt(rho);
        uint it = sIterations + 1u;
        sIterations = it;
        sBeta = rho / sRho;
        sRho = rho;
        sResidual = res;
        if (it < uHistoryCapacity) {
            history[it] = res;
        }
        if (isnan(rho) || isinf(rho)) {
            sStatus = CG_BREAKDOWN;
        } else if (res <= sTolerance) {
            sStatus = CG_CONVERGED;
        }
    }
}
