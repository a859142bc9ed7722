#version 430
// Bodies -> water, the sources' spread along x (the first of the separable Gaussian's two 1-D
// passes; splash_apply.comp does the y pass): each cell gathers the moved sources of the cells
// within the radius along its row, each weighted by w[|d|] and divided by the weight that
// source's cell has inside the pool (so each source's total is kept at the pool's edges).
layout(local_size_x = 256) in;
#include "splash_layout.glsl"

layout(std430, binding = 8) readonly buffer Source { int source[]; };
layout(std430, binding = 10) readonly buffer Spread { float spread[]; };  // w[0..R], normX, normY
layout(std430, binding = 11) writeonly buffer Along { float along[]; };

uniform float uQuantumM;  // one fixed-point unit as a height on the cell, m
uniform int uSpreadRadius;

void main() {
    int k = int(gl_GlobalInvocationID.x);
    if (k >= uNx * uNy) {
        return;
    }
    int j = k / uNx;
    int i = k - j * uNx;
    float sum = 0.0;
    for (int d = -uSpreadRadius; d <= uSpreadRadius; ++d) {
        int s = i - d;
        if (s < 0 || s >= uNx) {
            continue;
        }
        int units = source[j * uNx + s];
        if (units != 0) {
            sum += float(units) * uQuantumM * spread[abs(d)] / spread[uSpreadRadius + 1 + s];
        }
    }
    along[k] = sum;
}
