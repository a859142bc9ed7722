#version 430
// Adds this step's Gaussian impulses (drops, rain, wake): u += A exp(-(d/R)^2) for d < 3R;
// drops also lift uPrev so that they start at rest.
layout(local_size_x = 16, local_size_y = 16) in;
#include "wave_common.glsl"

layout(std430, binding = 0) buffer U { float u[]; };
layout(std430, binding = 1) buffer UPrev { float uPrev[]; };
layout(std430, binding = 4) readonly buffer Impulses { WaveImpulse impulses[]; };

uniform int uImpulseCount;
uniform float uCellSize;

void main() {
    int i = int(gl_GlobalInvocationID.x);
    int j = int(gl_GlobalInvocationID.y);
    if (i >= uNx || j >= uNy) {
        return;
    }
    int k = j * uNx + i;
    float x = (float(i) + 0.5) * uCellSize;
    float y = (float(j) + 0.5) * uCellSize;
    float add = u[k];
    float addPrev = uPrev[k];
    for (int d = 0; d < uImpulseCount; ++d) {
        WaveImpulse w = impulses[d];
        float dx = x - w.xM;
        float dy = y - w.yM;
        float r2 = dx * dx + dy * dy;
        float reach = 3.0 * w.radiusM;
        if (r2 < reach * reach) {
            float bump = w.amplitude * exp(-r2 / (w.radiusM * w.radiusM));
            add += bump;
            if (w.bothLevels != 0u) {
                addPrev += bump;
            }
        }
    }
    u[k] = add;
    uPrev[k] = addPrev;
}
