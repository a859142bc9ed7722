#version 430
// The splash coupling's numbers of the surface: sum of eta (for the water volume W), max eta
// (the dry-body bound), sum of eta^2 (the water's potential energy) and min eta (the height
// check), in a fixed order (the same sums every run). Stage 0: each workgroup sums a strided
// part of the grid into partials[group]; stage 1: one workgroup sums the partials into the
// header of the force record (header x sum, y max, w sum of squares; header2 x min).
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 5) buffer Partials { vec4 partials[]; };
layout(std430, binding = 3) buffer Out { vec4 header; vec4 header2; };

uniform int uCount;  // cells (stage 0) or partials (stage 1)
uniform int uStage;

shared float sSum[256];
shared float sMax[256];
shared float sSq[256];
shared float sMin[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    float sum = 0.0;
    float mx = -3.402823e38;
    float sq = 0.0;
    float mn = 3.402823e38;
    if (uStage == 0) {
        uint stride = gl_NumWorkGroups.x * 256u;
        for (uint k = gl_GlobalInvocationID.x; k < uint(uCount); k += stride) {
            float e = u[k];
            sum += e;
            mx = max(mx, e);
            sq += e * e;
            mn = min(mn, e);
        }
    } else {
        for (uint k = lid; k < uint(uCount); k += 256u) {
            vec4 p = partials[k];
            sum += p.x;
            mx = max(mx, p.y);
            sq += p.z;
            mn = min(mn, p.w);
        }
    }
    sSum[lid] = sum;
    sMax[lid] = mx;
    sSq[lid] = sq;
    sMin[lid] = mn;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1) {
        if (lid < s) {
            sSum[lid] += sSum[lid + s];
            sMax[lid] = max(sMax[lid], sMax[lid + s]);
            sSq[lid] += sSq[lid + s];
            sMin[lid] = min(sMin[lid], sMin[lid + s]);
        }
        barrier();
    }
    if (lid == 0u) {
        if (uStage == 0) {
            partials[gl_WorkGroupID.x] = vec4(sSum[0], sMax[0], sSq[0], sMin[0]);
        } else {
            header.xy = vec2(sSum[0], sMax[0]);  // z: the last level correction (splash_correct)
            header.w = sSq[0];
            header2.x = sMin[0];
        }
    }
}
