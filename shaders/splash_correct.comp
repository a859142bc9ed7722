#version 430
// The level correction after the water's step (docs/splash.md): W = sum (d + eta) h^2 minus the
// bodies' submerged volume under the new surface (splash_reduce.comp's sum, splash_sample.comp's
// per-body volumes), and the uniform shift (W0 - W) / A_pool added to u^n and u^n-1 alike, all
// on the GPU. Every workgroup sums the bodies' volumes in the same fixed order (so all add the
// same shift); workgroup 0 keeps the shift in the header (z) for the next step's readback.
layout(local_size_x = 256) in;
#include "splash_layout.glsl"

layout(std430, binding = 0) buffer U { float u[]; };
layout(std430, binding = 1) buffer UPrev { float uPrev[]; };
layout(std430, binding = 3) buffer Out { vec4 header; vec4 header2; SplashForce forces[]; };

uniform int uBodies;
uniform float uCellArea;    // h^2, m^2
uniform float uPoolArea;    // nx ny h^2, m^2
uniform float uRestMinusW0; // d nx ny h^2 - W0, m^3 (small: the first step's displaced volume)

shared float sVolume[256];
shared float sPlane[256];

void main() {
    uint lid = gl_LocalInvocationID.x;
    float v = 0.0;
    float plane = 0.0;
    for (int b = int(lid); b < uBodies; b += 256) {
        v += forces[b].buoyancy.w;
        plane += forces[b].buoyancy.x;
    }
    sVolume[lid] = v;
    sPlane[lid] = plane;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1) {
        if (lid < s) {
            sVolume[lid] += sVolume[lid + s];
            sPlane[lid] += sPlane[lid + s];
        }
        barrier();
    }
    // W - W0 from small terms only (each in float near its own size). The shift raises the
    // partly submerged bodies' volume by A_wp shift too (SplashWorld::step's 5).
    float excess = header.x * uCellArea - sVolume[0] + uRestMinusW0;
    float shift = -excess / (uPoolArea - min(sPlane[0], 0.9 * uPoolArea));
    if (isnan(shift) || isinf(shift)) {
        shift = 0.0;
    }
    if (gl_WorkGroupID.x == 0u && lid == 0u) {
        header.z = shift;
    }
    uint k = gl_GlobalInvocationID.x;
    if (shift != 0.0 && k < uint(uNx * uNy)) {
        u[k] += shift;
        uPrev[k] += shift;
    }
}
