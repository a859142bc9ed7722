// The water heights as the render shaders see them: the solver's SSBO (binding 0, nx × ny
// floats, row-major) with clamped indexing, bilinear sampling and central-difference
// gradients, shared by render_water.vert and render_water.frag.

layout(std430, binding = 0) readonly buffer Heights { float heights[]; };

uniform int uNx;
uniform int uNy;
uniform int uMeshX;
uniform int uMeshY;
uniform float uCellM;

float u(int i, int j) {
    return heights[clamp(j, 0, uNy - 1) * uNx + clamp(i, 0, uNx - 1)];
}

float uBilinear(vec2 g) {
    ivec2 i0 = ivec2(floor(g));
    vec2 f = g - vec2(i0);
    float a = mix(u(i0.x, i0.y), u(i0.x + 1, i0.y), f.x);
    float b = mix(u(i0.x, i0.y + 1), u(i0.x + 1, i0.y + 1), f.x);
    return mix(a, b, f.y);
}

// Surface normal at grid position g from central differences over `stride` cells:
// n ∝ (−∂u/∂x, 1, −∂u/∂z), ∂u/∂x ≈ (u(g + s) − u(g − s)) / 2sh.
vec3 heightNormal(vec2 g, vec2 stride) {
    float dudx = (uBilinear(g + vec2(stride.x, 0.0)) - uBilinear(g - vec2(stride.x, 0.0))) /
                 (2.0 * stride.x * uCellM);
    float dudz = (uBilinear(g + vec2(0.0, stride.y)) - uBilinear(g - vec2(0.0, stride.y))) /
                 (2.0 * stride.y * uCellM);
    return normalize(vec3(-dudx, 1.0, -dudz));
}

// The normal at the grid sample nearest to g, central differences over one cell:
// ∂u/∂x ≈ (u[i+1,j] − u[i−1,j]) / 2h. Four fetches instead of heightNormal's sixteen.
vec3 nearestNormal(vec2 g) {
    ivec2 k = ivec2(floor(g + 0.5));
    float dudx = (u(k.x + 1, k.y) - u(k.x - 1, k.y)) / (2.0 * uCellM);
    float dudz = (u(k.x, k.y + 1) - u(k.x, k.y - 1)) / (2.0 * uCellM);
    return normalize(vec3(-dudx, 1.0, -dudz));
}
