#version 430
// CG start: r = b - A x, rho = r.r, b.b, p = 0 (so the first direction is r), status.
// With uFinal = 1 (once after the iterations) it only measures the true residual
// ||b - A x|| / ||b|| into sTrueResidual: CG's recursive r drifts from b - A x in float.
layout(local_size_x = LOCAL_SIZE) in;
#include "cg_common.glsl"

layout(std430, binding = 2) readonly buffer X { float x[]; };
layout(std430, binding = 3) writeonly buffer R { float r[]; };
layout(std430, binding = 4) writeonly buffer P { float p[]; };
layout(std430, binding = 7) readonly buffer B { float b[]; };
layout(std430, binding = 8) writeonly buffer History { float history[]; };

uniform float uTolerance;
uniform uint uHistoryCapacity;
uniform int uFinal;

float vecIn(uint j) { return x[j]; }
#include "cg_operator.glsl"

void main() {
    float rr = 0.0;
    float bb = 0.0;
    for (uint e = 0u; e < ELEMS; ++e) {
        uint i = elementIndex(e);
        if (i < uN) {
            float bi = b[i];
            float ri = bi - applyA(i);
            if (uFinal == 0) {
                r[i] = ri;
                p[i] = 0.0;
            }
            rr += ri * ri;
            bb += bi * bi;
        }
    }
    if (finishReduction(rr, bb, true) && gl_LocalInvocationIndex == 0u) {
        float rho = shSum[0];
        float bnorm2 = shSum2[0];
        float res = bnorm2 > 0.0 ? sqrt(rho / bnorm2) : sqrt(rho);
        if (uFinal != 0) {
            sTrueResidual = res;
            return;
        }
        sRho = rho;
        sBb = bnorm2;
        sResidual = res;
        sTolerance = uTolerance;
        sBeta = 0.0;
        sAlpha = 0.0;
        sIterations = 0u;
        sStatus = res <= uTolerance ? CG_CONVERGED : CG_RUNNING;
        if (uHistoryCapacity > 0u) {
            history[0] = res;
        }
    }
}
