#version 430 core
// Water look: Schlick-Fresnel blend of the sky reflection over a body colour tinted by the
// depth of water the view ray crosses, plus a sharp specular highlight of the key light.
#include "render_common.glsl"
#include "render_heightfield.glsl"

in vec3 vWorldPos;
in vec3 vNormal;
in vec2 vGrid;
uniform sampler2DShadow uShadowMap;
uniform mat4 uLightViewProj;
uniform float uShadowTexel;
out vec4 fragColor;

void main() {
    // A coarse mesh (grid larger than RendererOptions::maxWaterMesh): normals per pixel
    // from the full-resolution heights.
    vec3 n = (uMeshX == uNx && uMeshY == uNy) ? normalize(vNormal)
                                              : heightNormal(vGrid, vec2(1.0));
    vec3 v = normalize(uEye - vWorldPos);
    float cosTheta = clamp(dot(n, v), 0.0, 1.0);
    float fresnel = 0.02 + 0.98 * pow(1.0 - cosTheta, 5.0);
    vec3 reflection = skyColor(reflect(-v, n));
    // Path length through water to the floor at y = 0 along the refracted ray (index 1.33).
    vec3 r = refract(-v, n, 1.0 / 1.33);
    float depth = max(vWorldPos.y, 0.0);
    float path = depth / max(-r.y, 0.15);
    vec3 shallow = vec3(0.07, 0.34, 0.40);
    vec3 deep = vec3(0.01, 0.06, 0.13);
    float lit = shadowLitFast(uShadowMap, uLightViewProj, vWorldPos, n);
    // Small ripples tilt the normal by a few degrees, too little to show in a smooth sky;
    // the body light and a broad sheen use the slope exaggerated 4x so they read clearly.
    vec3 nBold = normalize(vec3(n.x * 4.0, n.y, n.z * 4.0));
    float bodyLight = 0.45 + 0.55 * lit * max(dot(nBold, uSunDir), 0.0);
    vec3 body = mix(shallow, deep, 1.0 - exp(-path * 1.6)) * bodyLight;
    vec3 h = normalize(uSunDir + v);
    float spec = (pow(max(dot(n, h), 0.0), 600.0) * 6.0 + pow(max(dot(nBold, h), 0.0), 40.0) * 0.12) * lit;
    vec3 color = mix(body, reflection, fresnel) + vec3(1.0, 0.95, 0.85) * spec;
    fragColor = toDisplay(color);
}
