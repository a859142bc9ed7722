#version 430
// p = r + beta p: the bench's Table 44-1 "vector-vector operation" row.
layout(local_size_x = 256) in;

layout(std430, binding = 3) readonly buffer R { float r[]; };
layout(std430, binding = 4) buffer P { float p[]; };

uniform uint uN;
uniform float uBeta;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uN) {
        p[i] = r[i] + uBeta * p[i];
    }
}
