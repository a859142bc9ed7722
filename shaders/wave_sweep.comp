#version 430
// The warm start's second Jacobi sweep of the Crank–Nicolson system, from the first sweep's
// x0 that wave_rhs.comp wrote (solver/wave/wave_kernels.h):
//   guess = x0 + (rhs - (I - alpha L) x0) / (1 + 4 alpha),  alpha = a / (1 + g).
layout(local_size_x = 16, local_size_y = 16) in;
#include "wave_common.glsl"

layout(std430, binding = 2) readonly buffer Rhs { float rhs[]; };
layout(std430, binding = 3) readonly buffer FirstSweep { float x0[]; };
layout(std430, binding = 5) writeonly buffer Guess { float guess[]; };

WAVE_LAPLACIAN(lapX0, x0)

void main() {
    int i = int(gl_GlobalInvocationID.x);
    int j = int(gl_GlobalInvocationID.y);
    if (i >= uNx || j >= uNy) {
        return;
    }
    int k = j * uNx + i;
    float alpha = uA / (1.0 + uG);
    guess[k] = x0[k] + (rhs[k] - (x0[k] - alpha * lapX0(i, j))) / (1.0 + 4.0 * alpha);
}
