#version 430
// One linear Jacobi sweep on banded storage (Göddeke): x_out = x_in + (b - A x_in) D^-1,
// with the inverse diagonal precomputed (a multiply instead of a divide per row).
layout(local_size_x = 256) in;

layout(std430, binding = 2) readonly buffer XIn { float xIn[]; };
layout(std430, binding = 5) writeonly buffer XOut { float xOut[]; };
layout(std430, binding = 7) readonly buffer B { float b[]; };
layout(std430, binding = 13) readonly buffer InvDiag { float invDiag[]; };

float vecIn(uint j) { return xIn[j]; }
#include "cg_operator.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uN) {
        xOut[i] = xIn[i] + (b[i] - applyA(i)) * invDiag[i];
    }
}
