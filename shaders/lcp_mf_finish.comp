#version 430
// Matrix-free projected Jacobi, after the last pass: every block's answer into the good plane
// of x, so that one readback returns all of them. A block that stopped at iterate s
// (LcpMfBlock.stopAt) left x^s in plane s % 2; a diverged block's answer is its last good
// iterate, already in the good plane.
#include "lcp_layout.glsl"

#ifndef LCP_MF_THREADS
#define LCP_MF_THREADS 64  // lcp_gpu_layout.h, kMfThreads (set by the host)
#endif
#define LCP_MF_GOOD_PLANE 2u

layout(local_size_x = LCP_MF_THREADS) in;

layout(std430, binding = 0) readonly buffer Rows { LcpMfRow rows[]; };
layout(std430, binding = 3) buffer X { float x[]; };
layout(std430, binding = 4) readonly buffer Blocks { LcpMfBlock blocks[]; };

uniform uint uRows;

void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= uRows) {
        return;
    }
    const LcpMfBlock d = blocks[rows[i].block];
    if (d.status != LCP_DIVERGED) {
        x[LCP_MF_GOOD_PLANE * uRows + i] = x[(d.stopAt % 2u) * uRows + i];
    }
}
