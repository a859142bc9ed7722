#version 430 core
// Ground: a light floor with an anti-aliased 1 m grid (heavier every 5 m), the key light's
// shadow, and a fade into the sky colour with distance so the plane has no hard edge.
#include "render_common.glsl"

in vec3 vWorldPos;
uniform sampler2DShadow uShadowMap;
uniform mat4 uLightViewProj;
uniform float uShadowTexel;
uniform float uFadeStartM;
uniform float uFadeEndM;
out vec4 fragColor;

// `footprint` = fwidth(xz), the pixel's extent in metres, computed once for both grids.
float gridLine(vec2 xz, vec2 footprint, float spacing, float widthPixels) {
    vec2 g = xz / spacing;
    vec2 fw = footprint / spacing;
    vec2 w = fw * widthPixels;
    vec2 d = abs(fract(g - 0.5) - 0.5);
    vec2 line = 1.0 - smoothstep(w * 0.5, w, d);
    // Fade lines out where they get denser than a few pixels (far away), avoiding moiré.
    float density = clamp(1.0 - max(fw.x, fw.y) * 4.0, 0.0, 1.0);
    return max(line.x, line.y) * density;
}

void main() {
    vec3 n = vec3(0.0, 1.0, 0.0);
    float lit = shadowLit(uShadowMap, uLightViewProj, vWorldPos, n, uShadowTexel);
    vec3 albedo = vec3(0.36, 0.37, 0.38);
    vec2 footprint = fwidth(vWorldPos.xz);
    albedo = mix(albedo, vec3(0.27, 0.28, 0.30), gridLine(vWorldPos.xz, footprint, 1.0, 1.0) * 0.5);
    albedo = mix(albedo, vec3(0.22, 0.23, 0.26), gridLine(vWorldPos.xz, footprint, 5.0, 1.4) * 0.6);
    vec3 toEye = vWorldPos - uEye;
    float fade = smoothstep(uFadeStartM, uFadeEndM, length(toEye.xz));
#if defined(CHEAP_SHADING)
    // The low quality level: the floor's faint highlight (specular 0.04) left out, the
    // horizon's colour without pow.
    vec3 color = shadeDiffuse(albedo, n, lit);
    color = mix(color, skyColorCheap(normalize(vec3(toEye.x, 0.0, toEye.z))), fade);
#else
    vec3 color = shade(albedo, n, vWorldPos, lit, 16.0, 0.04);
    color = mix(color, skyColor(normalize(vec3(toEye.x, 0.0, toEye.z))), fade);
#endif
    fragColor = toDisplay(color);
}
