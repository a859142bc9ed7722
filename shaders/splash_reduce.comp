#version 430
// The splash coupling's two numbers of the surface: sum of eta (for the water volume W) and
// max eta (the dry-body bound), in a fixed order (the same sums every run). Stage 0: each
// workgroup sums a strided part of the grid into partials[group]; stage 1: one workgroup sums
// the partials into the header of the force record (x sum, y max).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 5) buffer Partials { vec2 partials[]; };
layout(std430, binding = 3) buffer Out { vec4 header; };

uniform int uCount;  // cells (stage 0) or partials (stage 1)
uniform int uStage;

shared float sSum[256];
shared float sMax[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    float sum = 0.0;
    float mx = -3.402823e38;
    if (uStage == 0) {
        uint stride = gl_NumWorkGroups.x * 256u;
        for (uint k = gl_GlobalInvocationID.x; k < uint(uCount); k += stride) {
            sum += u[k];
            mx = max(mx, u[k]);
        }
    } else {
        for (uint k = lid; k < uint(uCount); k += 256u) {
            sum += partials[k].x;
            mx = max(mx, partials[k].y);
        }
    }
    sSum[lid] = sum;
    sMax[lid] = mx;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1) {
        if (lid < s) {
            sSum[lid] += sSum[lid + s];
            sMax[lid] = max(sMax[lid], sMax[lid + s]);
        }
        barrier();
    }
    if (lid == 0u) {
        if (uStage == 0) {
            partials[gl_WorkGroupID.x] = vec2(sSum[0], sMax[0]);
        } else {
            header.xy = vec2(sSum[0], sMax[0]);  // z: the last level correction (splash_correct)
        }
    }
}
