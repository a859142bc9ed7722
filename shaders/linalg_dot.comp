#version 430
// result[0] = a . b (norm2: b = a). One workgroup: each invocation sums a strided slice, then a
// shared-memory tree reduction; the result stays on the GPU (read back only on request).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer R { float result[]; };

uniform uint uCount;

shared float sPartial[256];

void main() {
    const uint tid = gl_LocalInvocationID.x;
    float s = 0.0;
    for (uint i = tid; i < uCount; i += 256u) {
        s = fma(a[i], b[i], s);
    }
    sPartial[tid] = s;
    memoryBarrierShared();
    barrier();
    for (uint width = 128u; width > 0u; width >>= 1u) {
        if (tid < width) {
            sPartial[tid] += sPartial[tid + width];
        }
        memoryBarrierShared();
        barrier();
    }
    if (tid == 0u) {
        result[0] = sPartial[0];
    }
}
