#version 430 core
// Overlay lines (OVERLAY_LINE) and points (OVERLAY_POINT), one instanced draw each: every
// instance is a screen-space quad of 6 vertices from gl_VertexID, read from an SSBO indexed by
// gl_InstanceID. A line is uWidthPx wide across its projected direction; a point is a square
// uWidthPx across (the fragment shader cuts a disc). Instances with an end behind the eye are
// dropped (degenerate quad) rather than drawn through infinity.
#include "render_common.glsl"

#if defined(OVERLAY_LINE)
layout(std430, binding = 2) readonly buffer Lines { LineInstance lines[]; };
#elif defined(OVERLAY_POINT)
layout(std430, binding = 3) readonly buffer Points { PointInstance points[]; };
#endif

uniform mat4 uViewProj;
uniform vec2 uViewportPx;  // target size, pixels
uniform float uWidthPx;    // line width or point diameter, pixels

out vec2 vQuad;  // (along, across) in [-1, 1]
flat out vec4 vColor;

// Corners of two triangles: x along the line (0 = from, 1 = to), y across (-1, 1).
const vec2 kCorner[6] = vec2[6](vec2(0, -1), vec2(1, -1), vec2(1, 1),
                                vec2(0, -1), vec2(1, 1), vec2(0, 1));

void main() {
    vec2 c = kCorner[gl_VertexID];
#if defined(OVERLAY_LINE)
    LineInstance inst = lines[gl_InstanceID];
    vec4 a = uViewProj * vec4(inst.from.xyz, 1.0);
    vec4 b = uViewProj * vec4(inst.to.xyz, 1.0);
    vColor = inst.color;
#else
    PointInstance inst = points[gl_InstanceID];
    vec4 a = uViewProj * vec4(inst.position.xyz, 1.0);
    vec4 b = a;
    vColor = inst.color;
#endif
    if (a.w <= 1e-6 || b.w <= 1e-6) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: nothing drawn
        vQuad = vec2(0.0);
        return;
    }
    vec2 pa = a.xy / a.w * 0.5 * uViewportPx;  // pixels from the centre
    vec2 pb = b.xy / b.w * 0.5 * uViewportPx;
#if defined(OVERLAY_LINE)
    vec2 d = pb - pa;
    float len = length(d);
    vec2 along = len > 1e-4 ? d / len : vec2(1.0, 0.0);
    vec2 across = vec2(-along.y, along.x);
    vec2 p = mix(pa, pb, c.x) + across * (c.y * 0.5 * uWidthPx);
    vQuad = vec2(c.x * 2.0 - 1.0, c.y);
#else
    vec2 q = vec2(c.x * 2.0 - 1.0, c.y);
    vec2 p = pa + q * (0.5 * uWidthPx);
    vQuad = q;
#endif
    gl_Position = vec4(p / (0.5 * uViewportPx), 0.0, 1.0);
}
