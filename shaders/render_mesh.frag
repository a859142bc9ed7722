#version 430 core
// Lit boxes and spheres: Blinn–Phong key light with shadow map, darkened box edges so that
// neighbouring bricks of a wall read as separate blocks.
#include "render_common.glsl"

in vec3 vWorldPos;
in vec3 vNormal;
in vec3 vLocal;
in vec3 vHalf;
flat in vec3 vColor;

uniform sampler2DShadow uShadowMap;
uniform mat4 uLightViewProj;
uniform float uShadowTexel;

out vec4 fragColor;

void main() {
    vec3 n = normalize(vNormal);
    float lit = shadowLit(uShadowMap, uLightViewProj, vWorldPos, n, uShadowTexel);
    vec3 albedo = vColor;
#if defined(MESH_BOX)
    // Distance (m) to the nearest edge of the face: the two largest-|local| coordinates
    // other than the face axis decide it.
    vec3 d = (1.0 - abs(vLocal)) * vHalf;
    vec3 a = abs(vLocal);
    float edge = a.x > a.y && a.x > a.z ? min(d.y, d.z) : (a.y > a.z ? min(d.x, d.z) : min(d.x, d.y));
    albedo *= mix(0.55, 1.0, smoothstep(0.0, 0.035, edge));
#endif
    fragColor = toDisplay(shade(albedo, n, vWorldPos, lit, 48.0, 0.25));
}
