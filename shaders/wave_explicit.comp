#version 430
// Explicit leapfrog step: uNext = [2 u - (1 - g) uPrev + 4 a L u] / (1 + g).
layout(local_size_x = 16, local_size_y = 16) in;
#include "wave_common.glsl"

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 1) readonly buffer UPrev { float uPrev[]; };
layout(std430, binding = 2) writeonly buffer UNext { float uNext[]; };

WAVE_LAPLACIAN(lapU, u)

void main() {
    int i = int(gl_GlobalInvocationID.x);
    int j = int(gl_GlobalInvocationID.y);
    if (i >= uNx || j >= uNy) {
        return;
    }
    int k = j * uNx + i;
    uNext[k] = (2.0 * u[k] - (1.0 - uG) * uPrev[k] + 4.0 * uA * lapU(i, j)) / (1.0 + uG);
}
