#version 430 core
// Water look: Schlick's Fresnel, F = F0 + (1 - F0)(1 - cos θ)^5 with F0 = 0.02 (index 1.33),
// blends the sky's reflection over what the refracted ray sees: the pool's tiled floor
// (y = 0) or walls (the grid's edges), found in closed form along the ray, seen through
// water that absorbs red first (Beer–Lambert, exp(-σ·path) per channel) and scatters a deep
// blue in its place. A sharp sun glint (Blinn–Phong, exponent 600) and a broad sheen go on
// top. No extra pass or texture: a few dozen ALU operations per pixel.
#include "render_common.glsl"
#include "render_heightfield.glsl"

in vec3 vWorldPos;
in vec3 vNormal;
in vec2 vGrid;
uniform sampler2DShadow uShadowMap;
uniform mat4 uLightViewProj;
uniform float uShadowTexel;
out vec4 fragColor;

// Absorption per metre (red, green, blue) and the colour deep water scatters back.
const vec3 kAbsorption = vec3(0.70, 0.18, 0.12);
const vec3 kDeepColor = vec3(0.01, 0.07, 0.12);
const float kTileM = 0.5;  // side of a pool tile, m

// Grout lines of a square tiling in `uv` (m), anti-aliased over a pixel's footprint.
float grout(vec2 uv) {
    vec2 g = uv / kTileM;
    vec2 w = fwidth(g) * 0.9 + 0.015;
    vec2 d = abs(fract(g - 0.5) - 0.5);
    vec2 line = 1.0 - smoothstep(w * 0.5, w, d);
    return max(line.x, line.y);
}

void main() {
    // A coarse mesh (grid larger than RendererOptions::maxWaterMesh): normals per pixel
    // from the full-resolution heights, bilinear (sixteen fetches), or with CHEAP_SHADING at
    // the nearest grid sample (four fetches; a cell is about a pixel at the low level's
    // render scale, so the steps show only close up).
#if defined(CHEAP_SHADING)
    vec3 n = (uMeshX == uNx && uMeshY == uNy) ? normalize(vNormal)
                                              : nearestNormal(vGrid);
#else
    vec3 n = (uMeshX == uNx && uMeshY == uNy) ? normalize(vNormal)
                                              : heightNormal(vGrid, vec2(1.0));
#endif
    vec3 v = normalize(uEye - vWorldPos);
    float cosTheta = clamp(dot(n, v), 0.0, 1.0);
    float fresnel = 0.02 + 0.98 * pow5(1.0 - cosTheta);
#if defined(CHEAP_SHADING)
    vec3 reflection = skyColorCheap(reflect(-v, n));
#else
    vec3 reflection = skyColor(reflect(-v, n));
#endif
    float lit = shadowLitFast(uShadowMap, uLightViewProj, vWorldPos, n);
    // Small ripples tilt the normal by a few degrees, too little to show in a smooth sky;
    // the light under the surface and a broad sheen use the slope exaggerated 4x.
    vec3 nBold = normalize(vec3(n.x * 4.0, n.y, n.z * 4.0));

    // Where the refracted ray (index 1.33) meets the pool: the floor y = 0 or the nearest
    // wall |x| = halfX, |z| = halfZ, whichever comes first.
    // The slope is exaggerated 3x here too, so ripples visibly bend the floor's tiles.
    vec3 r = refract(-v, normalize(vec3(n.x * 3.0, n.y, n.z * 3.0)), 1.0 / 1.33);
    vec2 halfSize = 0.5 * vec2(uNx - 1, uNy - 1) * uCellM;
    float tFloor = max(vWorldPos.y, 0.0) / max(-r.y, 1e-3);
    vec2 dirXZ = vec2(abs(r.x) > 1e-4 ? r.x : 1e-4, abs(r.z) > 1e-4 ? r.z : 1e-4);
    vec2 tWall = max((sign(dirXZ) * halfSize - vWorldPos.xz) / dirXZ, vec2(0.0));
    float t = min(tFloor, min(tWall.x, tWall.y));
    vec3 hit = vWorldPos + r * t;
    vec2 uv = t == tFloor ? hit.xz : (tWall.x < tWall.y ? hit.zy : hit.xy);
    vec3 tile = mix(vec3(0.50, 0.70, 0.78), vec3(0.30, 0.42, 0.48), grout(uv));
    // Sunlight through the rippled surface: brighter where the surface focuses it (a cheap
    // stand-in for caustics), darker in the surface's shadow.
    float under = 0.35 + 0.85 * lit * max(dot(nBold, uSunDir), 0.0);
    vec3 transmittance = exp(-kAbsorption * (t + max(vWorldPos.y, 0.0)));
    // Pool water's own blue-green tint on top of the path-length absorption.
    vec3 refracted = tile * under * transmittance * vec3(0.72, 0.90, 0.96) +
                     kDeepColor * (1.0 - transmittance);

    vec3 h = normalize(uSunDir + v);
#if defined(CHEAP_SHADING)
    // Powers by repeated squaring (x^512 and x^32 for the exponents 600 and 40): llvmpipe
    // evaluates pow as exp2(y log2 x), several times the cost of a multiply.
    float nh = max(dot(n, h), 0.0);
    float boldH = max(dot(nBold, h), 0.0);
    float spec = (pow512(nh) * 6.0 + pow32(boldH) * 0.12) * lit;
#else
    float spec = (pow(max(dot(n, h), 0.0), 600.0) * 6.0 + pow(max(dot(nBold, h), 0.0), 40.0) * 0.12) * lit;
#endif
    vec3 color = mix(refracted, reflection, fresnel) + vec3(1.0, 0.95, 0.85) * spec;
    fragColor = toDisplay(color);
}
