#version 430
// y <- a*x + y over vec4 elements: the smallest real kernel, used by `wavewall info` and the
// foundation tests to check that dispatch, SSBO binding and read-back work on this device.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer X { vec4 x[]; };
layout(std430, binding = 1) buffer Y { vec4 y[]; };

uniform uint uCount;  // number of vec4 elements
uniform float uA;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uCount) {
        y[i] = uA * x[i] + y[i];
    }
}
