#version 430 core
// The water height field: a uMeshX × uMeshY grid of vertices (index buffer) whose heights
// are read straight from the solver's SSBO (binding 0, uNx × uNy floats, row-major),
// bilinearly when the mesh is coarser than the grid. Normals by central differences:
// n ∝ (−∂u/∂x, 1, −∂u/∂z), ∂u/∂x ≈ (u[i+1] − u[i−1]) / 2h (indices clamped at the border).
#include "render_common.glsl"

layout(std430, binding = 0) readonly buffer Heights { float heights[]; };

uniform mat4 uViewProj;
uniform int uNx;
uniform int uNy;
uniform int uMeshX;
uniform int uMeshY;
uniform float uCellM;
uniform float uBaseM;

out vec3 vWorldPos;
out vec3 vNormal;

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

void main() {
    ivec2 m = ivec2(gl_VertexID % uMeshX, gl_VertexID / uMeshX);
    float h;
    float dudx;
    float dudz;
    if (uMeshX == uNx && uMeshY == uNy) {
        // One vertex per grid sample: five plain fetches.
        h = u(m.x, m.y);
        dudx = (u(m.x + 1, m.y) - u(m.x - 1, m.y)) / (2.0 * uCellM);
        dudz = (u(m.x, m.y + 1) - u(m.x, m.y - 1)) / (2.0 * uCellM);
    } else {
        // A coarser mesh: bilinear samples, derivatives over one mesh cell.
        vec2 g = vec2(m) * vec2(uNx - 1, uNy - 1) / vec2(uMeshX - 1, uMeshY - 1);
        vec2 stride = vec2(uNx - 1, uNy - 1) / vec2(uMeshX - 1, uMeshY - 1);
        h = uBilinear(g);
        dudx = (uBilinear(g + vec2(stride.x, 0)) - uBilinear(g - vec2(stride.x, 0))) / (2.0 * stride.x * uCellM);
        dudz = (uBilinear(g + vec2(0, stride.y)) - uBilinear(g - vec2(0, stride.y))) / (2.0 * stride.y * uCellM);
    }
    vec2 gridPos = vec2(m) * vec2(uNx - 1, uNy - 1) / vec2(max(uMeshX - 1, 1), max(uMeshY - 1, 1));
    vec2 xz = (gridPos - 0.5 * vec2(uNx - 1, uNy - 1)) * uCellM;
    vWorldPos = vec3(xz.x, uBaseM + h, xz.y);
    vNormal = normalize(vec3(-dudx, 1.0, -dudz));
    gl_Position = uViewProj * vec4(vWorldPos, 1.0);
}
