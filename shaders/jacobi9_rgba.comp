#version 430
// One linear Jacobi sweep of four banded systems at once in Göddeke's RGBA layout: channel c
// of every vec4 belongs to system c (same band offsets, their own values, right-hand side and
// inverse diagonal). x_out = x_in + (b - A x_in) * invDiag, per channel.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer XIn { vec4 xIn[]; };
layout(std430, binding = 1) writeonly buffer XOut { vec4 xOut[]; };
layout(std430, binding = 2) readonly buffer B { vec4 b[]; };
layout(std430, binding = 3) readonly buffer InvDiag { vec4 invDiag[]; };
#define BANDS 9
// Band d of every system in its own buffer (binding 4 + d), like Göddeke's one texture per
// band, so no single buffer outgrows GL_MAX_SHADER_STORAGE_BLOCK_SIZE:
// band[d].v[i] = (A_0(i, i + off_d), ..., A_3(i, i + off_d)).
layout(std430, binding = 4) readonly buffer Band { vec4 v[]; } band[BANDS];

uniform uint uN;
uniform int uOffsets[BANDS];

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uN) {
        return;
    }
    vec4 ax = vec4(0.0);
    for (int d = 0; d < BANDS; ++d) {
        int j = int(i) + uOffsets[d];
        if (j >= 0 && j < int(uN)) {
            ax += band[d].v[i] * xIn[j];
        }
    }
    xOut[i] = xIn[i] + (b[i] - ax) * invDiag[i];
}
