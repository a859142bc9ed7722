#version 430
// Re-times the state when dt, the damping or the scheme changes: keeps u^n and the velocity
// v^n the pair (u^n, u^n-1) stands for (equations: solver/wave/wave_kernels.h, retime()).
// uA, uG are the old coefficients, uToA, uToG the new ones, uDtRatio = dt_new / dt_old.
//   old CN:        dt v = (1 - g)(u - uPrev) + a L (u + uPrev)
//   old explicit:  dt v = [(u - uPrev) + 2 a L u] / (1 + g)
//   new CN:        out = u + beta L u - s dt v / (1 - g'), beta = a' / (1 - g') (the rhs of
//                  (I - beta L) u^n-1' = out), guess = u - s (u - uPrev)
//   new explicit:  out = u + 2 a' L u - (1 + g') s dt v (the new u^n-1 itself)
layout(local_size_x = 16, local_size_y = 16) in;
#include "wave_common.glsl"

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 1) readonly buffer UPrev { float uPrev[]; };
layout(std430, binding = 2) writeonly buffer Out { float outBuf[]; };
layout(std430, binding = 3) writeonly buffer Guess { float guess[]; };

uniform int uFromCn;
uniform int uToCn;
uniform float uToA;
uniform float uToG;
uniform float uDtRatio;

WAVE_LAPLACIAN(lapU, u)
WAVE_LAPLACIAN(lapPrev, uPrev)

void main() {
    int i = int(gl_GlobalInvocationID.x);
    int j = int(gl_GlobalInvocationID.y);
    if (i >= uNx || j >= uNy) {
        return;
    }
    int k = j * uNx + i;
    float lu = lapU(i, j);
    float w = u[k] - uPrev[k];
    float dtv = uFromCn != 0 ? (1.0 - uG) * w + uA * (lu + lapPrev(i, j))
                             : (w + 2.0 * uA * lu) / (1.0 + uG);
    if (uToCn != 0) {
        float beta = uToA / (1.0 - uToG);
        outBuf[k] = u[k] + beta * lu - uDtRatio * dtv / (1.0 - uToG);
        guess[k] = u[k] - uDtRatio * w;
    } else {
        outBuf[k] = u[k] + 2.0 * uToA * lu - (1.0 + uToG) * uDtRatio * dtv;
    }
}
