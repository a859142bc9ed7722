#version 430
// sum of a's elements (Krüger & Westermann's "vector reduce") with the deterministic CG
// reduction; the result goes to sRho and stays on the GPU. Used by the bench's Table 44-1.
layout(local_size_x = LOCAL_SIZE) in;
#include "cg_common.glsl"

layout(std430, binding = 2) readonly buffer A { float a[]; };

uniform uint uN;

void main() {
    float s = 0.0;
    for (uint e = 0u; e < ELEMS; ++e) {
        uint i = elementIndex(e);
        if (i < uN) {
            s += a[i];
        }
    }
    if (finishReduction(s, 0.0, false) && gl_LocalInvocationIndex == 0u) {
        sRho = shSum[0];
    }
}
