#version 430
// Water -> bodies (solver/splash/water_column.h): a workgroup per body, an invocation per
// sample line (strided). Each line's submerged length and centroid under the bilinear
// surface (one fixed-point refinement of the crossing, as submergeLine), its buoyancy and
// drag; the sums over the body's lines reduced in shared memory in a fixed order into the
// body's SplashForce. Every line's (centroid, volume) is also written (volume 0 when dry) for
// the displacement passes. uWriteForces 0: the samples only (the poses after the LCP step).
layout(local_size_x = 64) in;
#include "splash_layout.glsl"

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 2) readonly buffer Bodies { SplashBody bodies[]; };
layout(std430, binding = 3) buffer Out { vec4 header; vec4 header2; SplashForce forces[]; };
layout(std430, binding = 4) writeonly buffer Samples { vec4 samples[]; };

uniform float uWaterDensity;
uniform float uGravity;
uniform float uLinearDrag;
uniform float uQuadraticDrag;
uniform float uDryMarginM;
uniform int uSampleOffset;  // where this pass's lines start in the samples
uniform int uWriteForces;

SPLASH_BILINEAR(etaOf, u)

// Surface level at (x, z), or -inf outside the pool.
float surfaceAt(vec3 p) {
    if (!overPool(p.x, p.z)) {
        return -1.0 / 0.0;
    }
    return uRestLevelM + etaOf(bilinearCell(p.x, p.z));
}

// The submerged part of the line p0 + t d, t in [-halfLen, halfLen]: xyz centroid, w volume;
// `plane` its waterplane share weight / d.y where the surface crosses it (0 wholly under).
vec4 submergeLine(vec3 p0, vec3 d, float halfLen, float weight, out float plane) {
    plane = 0.0;
    float t = clamp((uRestLevelM - p0.y) / d.y, -halfLen, halfLen);
    float level = surfaceAt(p0 + d * t);
    if (isinf(level) || isnan(level)) {
        return vec4(0.0);
    }
    t = clamp((level - p0.y) / d.y, -halfLen, halfLen);
    level = surfaceAt(p0 + d * t);
    if (isinf(level) || isnan(level)) {
        return vec4(0.0);
    }
    float ts = (level - p0.y) / d.y;
    float top = min(halfLen, ts);
    float len = clamp(ts + halfLen, 0.0, 2.0 * halfLen);
    if (!(len > 0.0)) {
        return vec4(0.0);
    }
    plane = ts < halfLen ? weight / d.y : 0.0;
    return vec4(p0 + d * (0.5 * (top - halfLen)), weight * len);
}

// volume, drag xyz, torque xyz, drag torque xyz, buoyancy y, waterplane, volume * height
shared float sAcc[13][64];

void main() {
    uint b = gl_WorkGroupID.x;
    uint lid = gl_LocalInvocationID.x;
    SplashBody body = bodies[b];
    int n1 = body.info.x;
    int n2 = body.info.y;
    int lines = body.info.z == 0 ? 0 : n1 * n2;
    float sum = header.x;
    float dryAbove = (isinf(sum) || isnan(sum)) ? 1.0 / 0.0 : uRestLevelM + header.y + uDryMarginM;
    bool dry = body.angVel.w > dryAbove;
    float acc[13];
    for (int a = 0; a < 13; ++a) {
        acc[a] = 0.0;
    }
    vec3 pos = body.centre.xyz;
    for (int s = int(lid); s < lines; s += 64) {
        vec4 smp = vec4(0.0);
        float plane = 0.0;
        if (!dry) {
            if (body.info.z == 1) {
                // The cut this line belongs to (axis order, as BoxSampling) and its place in it.
                vec4 col[3] = vec4[3](body.axis, body.e1, body.e2);
                int k = 0;
                int at = s;
                for (int a = 0; a < 3; ++a) {
                    int count = body.cutWeight[a] > 0.0
                                    ? body.cutLines[(a + 1) % 3] * body.cutLines[(a + 2) % 3]
                                    : 0;
                    if (at < count) {
                        k = a;
                        break;
                    }
                    at -= count;
                }
                int k1 = (k + 1) % 3;
                int k2 = (k + 2) % 3;
                int c1 = body.cutLines[k1];
                int c2 = body.cutLines[k2];
                int s1 = at / c2;
                int s2 = at - s1 * c2;
                float a1 = col[k1].w;
                float a2 = col[k2].w;
                float uu = a1 * ((2.0 * float(s1) + 1.0) / float(c1) - 1.0);
                float vv = a2 * ((2.0 * float(s2) + 1.0) / float(c2) - 1.0);
                vec3 d = col[k].y >= 0.0 ? col[k].xyz : -col[k].xyz;
                smp = submergeLine(pos + col[k1].xyz * uu + col[k2].xyz * vv, d, col[k].w,
                                   body.cutWeight[k], plane);
            } else {
                int s1 = s / n2;
                int s2 = s - s1 * n2;
                float r = body.e1.w;
                float side = 2.0 * r / float(n1);
                float x = -r + side * (float(s1) + 0.5);
                float z = -r + side * (float(s2) + 0.5);
                float rho2 = x * x + z * z;
                if (rho2 < r * r) {
                    smp = submergeLine(pos + vec3(x, 0.0, z), vec3(0.0, 1.0, 0.0),
                                       sqrt(r * r - rho2), side * side, plane);
                }
            }
        }
        samples[uSampleOffset + body.info.w + s] = smp;
        if (uWriteForces == 0 || smp.w == 0.0) {
            continue;
        }
        vec3 r = smp.xyz - pos;
        vec3 fb = vec3(0.0, uWaterDensity * uGravity * smp.w, 0.0);
        // Drag relative to still water (water_column.h: the water cannot feel its reaction).
        vec3 rel = body.linVel.xyz + cross(body.angVel.xyz, r);
        float speed = length(rel);
        vec3 fd = rel * (-uWaterDensity * smp.w *
                         (uLinearDrag + uQuadraticDrag * speed / body.centre.w));
        vec3 tq = cross(r, fb + fd);
        vec3 dtq = cross(r, fd);
        acc[0] += smp.w;
        acc[1] += fd.x;
        acc[2] += fd.y;
        acc[3] += fd.z;
        acc[4] += tq.x;
        acc[5] += tq.y;
        acc[6] += tq.z;
        acc[7] += dtq.x;
        acc[8] += dtq.y;
        acc[9] += dtq.z;
        acc[10] += fb.y;
        acc[11] += plane;
        acc[12] += smp.w * smp.y;
    }
    if (uWriteForces == 0) {
        return;
    }
    for (int a = 0; a < 13; ++a) {
        sAcc[a][lid] = acc[a];
    }
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
        if (lid < s) {
            for (int a = 0; a < 13; ++a) {
                sAcc[a][lid] += sAcc[a][lid + s];
            }
        }
        barrier();
    }
    if (lid == 0u) {
        SplashForce f;
        f.buoyancy = vec4(sAcc[11][0], sAcc[10][0], sAcc[12][0], sAcc[0][0]);
        f.drag = vec4(sAcc[1][0], sAcc[2][0], sAcc[3][0], 0.0);
        f.torque = vec4(sAcc[4][0], sAcc[5][0], sAcc[6][0], 0.0);
        f.dragTorque = vec4(sAcc[7][0], sAcc[8][0], sAcc[9][0], 0.0);
        forces[b] = f;
    }
}
