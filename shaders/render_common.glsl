// Shared by the render shaders: instance layouts (mirrored in render/gpu_layout.h with
// static_asserts), the sky model, key-light shading with a shadow map, display encoding.

struct BoxInstance {
    vec4 position;     // xyz centre (m)
    vec4 orientation;  // quaternion xyzw, body to world
    vec4 halfExtents;  // xyz (m)
    vec4 color;        // linear rgb
};

struct SphereInstance {
    vec4 positionRadius;  // xyz centre, w radius (m)
    vec4 color;
};

struct LineInstance {
    vec4 from;  // xyz (m)
    vec4 to;    // xyz (m)
    vec4 color;
};

struct PointInstance {
    vec4 position;  // xyz (m)
    vec4 color;
};

uniform vec3 uSunDir;  // unit vector towards the key light
uniform vec3 uEye;     // camera position (m)

vec3 quatRotate(vec4 q, vec3 v) {
    vec3 t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// A clear-day gradient with a sun glow; used for the background and water reflections.
vec3 skyColor(vec3 dir) {
    float up = clamp(dir.y, -1.0, 1.0);
    vec3 horizon = vec3(0.62, 0.72, 0.82);
    vec3 zenith = vec3(0.16, 0.34, 0.66);
    vec3 below = vec3(0.32, 0.33, 0.34);
    vec3 sky = up >= 0.0 ? mix(horizon, zenith, pow(up, 0.55)) : mix(horizon, below, min(-up * 4.0, 1.0));
    float sun = max(dot(dir, uSunDir), 0.0);
    sky += vec3(1.0, 0.85, 0.6) * (0.35 * pow(sun, 12.0) + 6.0 * pow(sun, 900.0));
    return sky;
}

// Integer powers by multiplication, for the low quality level (CHEAP_SHADING): software
// rasterizers evaluate pow(x, y) as exp2(y·log2 x), several times the cost of a multiply.
float pow5(float x) {
    float x2 = x * x;
    return x2 * x2 * x;
}
float pow32(float x) {
    float x2 = x * x;
    float x4 = x2 * x2;
    float x8 = x4 * x4;
    float x16 = x8 * x8;
    return x16 * x16;
}
float pow512(float x) {
    float x32 = pow32(x);
    float x64 = x32 * x32;
    float x128 = x64 * x64;
    float x256 = x128 * x128;
    return x256 * x256;
}

// skyColor with the exponents rounded for multiplication (0.55 → a square root, 12 → 8 + 4,
// 900 → 1024): the water's reflection on the low quality level looks the same to the eye.
vec3 skyColorCheap(vec3 dir) {
    float up = clamp(dir.y, -1.0, 1.0);
    vec3 horizon = vec3(0.62, 0.72, 0.82);
    vec3 zenith = vec3(0.16, 0.34, 0.66);
    vec3 below = vec3(0.32, 0.33, 0.34);
    vec3 sky = up >= 0.0 ? mix(horizon, zenith, sqrt(up)) : mix(horizon, below, min(-up * 4.0, 1.0));
    float sun = max(dot(dir, uSunDir), 0.0);
    float sun4 = (sun * sun) * (sun * sun);
    float sun1024 = pow512(sun);
    sky += vec3(1.0, 0.85, 0.6) * (0.35 * sun4 * sun4 * sun4 + 6.0 * sun1024 * sun1024);
    return sky;
}

// Percentage-closer filtering over a depth-compare sampler; 1 = lit, 0 = in shadow. Four
// bilinear compare taps half a texel apart cover a 3×3 texel footprint at a third of the
// cost of nine taps (it matters on software rasterizers).
float shadowLit(sampler2DShadow map, mat4 lightViewProj, vec3 worldPos, vec3 normal, float texel) {
    // Normal offset moves the lookup off the surface so it does not shadow itself (acne).
    vec4 lp = lightViewProj * vec4(worldPos + normal * 0.02, 1.0);
    vec3 p = lp.xyz / lp.w * 0.5 + 0.5;
    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0 || p.z >= 1.0) {
        return 1.0;
    }
    float ref = p.z - 0.0015;
#if defined(CHEAP_SHADING)
    // The low quality level: one bilinear compare tap (2×2 texels) instead of four.
    return texture(map, vec3(p.xy, ref));
#endif
    float lit = texture(map, vec3(p.xy + vec2(-0.5, -0.5) * texel, ref));
    lit += texture(map, vec3(p.xy + vec2(0.5, -0.5) * texel, ref));
    lit += texture(map, vec3(p.xy + vec2(-0.5, 0.5) * texel, ref));
    lit += texture(map, vec3(p.xy + vec2(0.5, 0.5) * texel, ref));
    return lit * 0.25;
}

// One bilinear compare tap (2×2 texels): for surfaces where soft detail does not show.
float shadowLitFast(sampler2DShadow map, mat4 lightViewProj, vec3 worldPos, vec3 normal) {
    vec4 lp = lightViewProj * vec4(worldPos + normal * 0.02, 1.0);
    vec3 p = lp.xyz / lp.w * 0.5 + 0.5;
    if (p.x <= 0.0 || p.x >= 1.0 || p.y <= 0.0 || p.y >= 1.0 || p.z >= 1.0) {
        return 1.0;
    }
    return texture(map, vec3(p.xy, p.z - 0.0015));
}

// Blinn–Phong key light + hemispherical ambient, in linear RGB.
vec3 shade(vec3 albedo, vec3 n, vec3 worldPos, float lit, float shininess, float specular) {
    vec3 v = normalize(uEye - worldPos);
    vec3 h = normalize(uSunDir + v);
    float diffuse = max(dot(n, uSunDir), 0.0) * lit;
    float spec = pow(max(dot(n, h), 0.0), shininess) * specular * lit * step(0.0, dot(n, uSunDir));
    vec3 ambient = mix(vec3(0.20, 0.19, 0.18), vec3(0.34, 0.40, 0.50), n.y * 0.5 + 0.5);
    vec3 sunColor = vec3(1.0, 0.95, 0.86) * 1.15;
    return albedo * (ambient + sunColor * diffuse) + sunColor * spec;
}

// shade() without the specular term.
vec3 shadeDiffuse(vec3 albedo, vec3 n, float lit) {
    float diffuse = max(dot(n, uSunDir), 0.0) * lit;
    vec3 ambient = mix(vec3(0.20, 0.19, 0.18), vec3(0.34, 0.40, 0.50), n.y * 0.5 + 0.5);
    return albedo * (ambient + vec3(1.0, 0.95, 0.86) * 1.15 * diffuse);
}

// Linear RGB to the 8-bit framebuffer: a soft shoulder, then gamma 2.2.
vec4 toDisplay(vec3 linear) {
    vec3 mapped = linear / (1.0 + 0.15 * linear);
    return vec4(pow(clamp(mapped, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
