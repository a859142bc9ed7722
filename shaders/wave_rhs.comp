#version 430
// Crank–Nicolson right-hand side and warm-start guess, on the GPU beside the solve:
//   rhs = [2 u - (1 - g) uPrev + a L (2 u + uPrev)] / (1 + g)
//   guess = y + (rhs - (I - alpha L) y) / (1 + 4 alpha), y = 2 u - uPrev, alpha = a / (1 + g)
// (or 0): the extrapolation after the first Jacobi sweep of the system; wave_sweep.comp runs the
// second (solver/wave/wave_kernels.h).
layout(local_size_x = 16, local_size_y = 16) in;
#include "wave_common.glsl"

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 1) readonly buffer UPrev { float uPrev[]; };
layout(std430, binding = 2) writeonly buffer Rhs { float rhs[]; };
layout(std430, binding = 3) writeonly buffer Guess { float guess[]; };

uniform int uWarmStart;

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
    float lp = lapPrev(i, j);
    float b = (2.0 * u[k] - (1.0 - uG) * uPrev[k] + uA * (2.0 * lu + lp)) / (1.0 + uG);
    rhs[k] = b;
    float alpha = uA / (1.0 + uG);
    float y = 2.0 * u[k] - uPrev[k];
    guess[k] = uWarmStart != 0 ? y + (b - (y - alpha * (2.0 * lu - lp))) / (1.0 + 4.0 * alpha)
                               : 0.0;
}
