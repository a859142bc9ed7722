#version 430
// a . b with the deterministic CG reduction; the result goes to sRho. Used by the bench's
// Table 44-1 "vector reduce" row.
layout(local_size_x = LOCAL_SIZE) in;
#include "cg_common.glsl"

layout(std430, binding = 2) readonly buffer A { float a[]; };
layout(std430, binding = 3) readonly buffer B { float b[]; };

uniform uint uN;

void main() {
    float s = 0.0;
    for (uint e = 0u; e < ELEMS; ++e) {
        uint i = elementIndex(e);
        if (i < uN) {
            s += a[i] * b[i];
        }
    }
    if (finishReduction(s, 0.0, false) && gl_LocalInvocationIndex == 0u) {
        sRho = shSum[0];
    }
}
