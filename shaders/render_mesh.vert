#version 430 core
// Instanced boxes (MESH_BOX) or spheres (MESH_SPHERE), geometry generated from
// gl_VertexID, per-instance transforms read from an SSBO indexed by gl_InstanceID.
// With SHADOW_PASS only the light-space position is computed.
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Boxes { BoxInstance boxes[]; };
layout(std430, binding = 1) readonly buffer Spheres { SphereInstance spheres[]; };

uniform mat4 uViewProj;  // camera (or light, in the shadow pass) view-projection

out vec3 vWorldPos;
out vec3 vNormal;
out vec3 vLocal;   // position in the box frame divided by the half extents, in [-1, 1]
out vec3 vHalf;    // half extents (m), for edge shading
flat out vec3 vColor;

#if defined(MESH_BOX)
const vec3 kFaceNormal[6] = vec3[6](vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 1, 0),
                                    vec3(0, -1, 0), vec3(0, 0, 1), vec3(0, 0, -1));
const vec2 kCorner[6] = vec2[6](vec2(-1, -1), vec2(1, -1), vec2(1, 1),
                                vec2(-1, -1), vec2(1, 1), vec2(-1, 1));
#elif defined(MESH_SPHERE)
const int kSlices = 24;
const int kStacks = 14;
const vec2 kQuad[6] = vec2[6](vec2(0, 0), vec2(1, 0), vec2(1, 1), vec2(0, 0), vec2(1, 1), vec2(0, 1));
#endif

void main() {
#if defined(MESH_BOX)
    int face = gl_VertexID / 6;
    vec3 n = kFaceNormal[face];
    // Two tangents chosen so that (t1, t2, n) is right-handed: counter-clockwise front faces.
    vec3 t1 = abs(n.x) > 0.5 ? vec3(0, 1, 0) : (abs(n.y) > 0.5 ? vec3(0, 0, 1) : vec3(1, 0, 0));
    vec3 t2 = cross(n, t1);
    vec2 c = kCorner[gl_VertexID % 6];
    vec3 local = n + c.x * t1 + c.y * t2;
    BoxInstance b = boxes[gl_InstanceID];
    vec3 world = b.position.xyz + quatRotate(b.orientation, local * b.halfExtents.xyz);
    vNormal = quatRotate(b.orientation, n);
    vLocal = local;
    vHalf = b.halfExtents.xyz;
    vColor = b.color.rgb;
#elif defined(MESH_SPHERE)
    int quad = gl_VertexID / 6;
    vec2 uv = (vec2(quad % kSlices, quad / kSlices) + kQuad[gl_VertexID % 6]) /
              vec2(kSlices, kStacks);
    float phi = uv.x * 6.2831853;
    float theta = uv.y * 3.1415927;
    vec3 n = vec3(sin(theta) * cos(phi), cos(theta), sin(theta) * sin(phi));
    SphereInstance s = spheres[gl_InstanceID];
    vec3 world = s.positionRadius.xyz + n * s.positionRadius.w;
    vNormal = n;
    vLocal = vec3(0.0);
    vHalf = vec3(1.0);
    vColor = s.color.rgb;
#endif
    vWorldPos = world;
    gl_Position = uViewProj * vec4(world, 1.0);
}
