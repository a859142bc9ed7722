#version 430 core
// The water height field: a uMeshX × uMeshY grid of vertices (index buffer) whose heights
// are read straight from the solver's SSBO (render_heightfield.glsl). With one vertex per
// grid sample, normals come from central differences here,
// ∂u/∂x ≈ (u[i+1] − u[i−1]) / 2h (indices clamped at the border); when the mesh is coarser
// than the grid, heights are sampled bilinearly and the fragment shader computes the
// normals per pixel so small waves stay sharp.
#include "render_common.glsl"
#include "render_heightfield.glsl"

uniform mat4 uViewProj;
uniform float uBaseM;

out vec3 vWorldPos;
out vec3 vNormal;
out vec2 vGrid;  // continuous grid coordinates (i, j)

void main() {
    ivec2 m = ivec2(gl_VertexID % uMeshX, gl_VertexID / uMeshX);
    float h;
    vec2 g;
    if (uMeshX == uNx && uMeshY == uNy) {
        // One vertex per grid sample: five plain fetches.
        g = vec2(m);
        h = u(m.x, m.y);
        float dudx = (u(m.x + 1, m.y) - u(m.x - 1, m.y)) / (2.0 * uCellM);
        float dudz = (u(m.x, m.y + 1) - u(m.x, m.y - 1)) / (2.0 * uCellM);
        vNormal = normalize(vec3(-dudx, 1.0, -dudz));
    } else {
        g = vec2(m) * vec2(uNx - 1, uNy - 1) / vec2(uMeshX - 1, uMeshY - 1);
        h = uBilinear(g);
        vNormal = vec3(0.0, 1.0, 0.0);  // per pixel in the fragment shader
    }
    vec2 xz = (g - 0.5 * vec2(uNx - 1, uNy - 1)) * uCellM;
    vWorldPos = vec3(xz.x, uBaseM + h, xz.y);
    vGrid = g;
    gl_Position = uViewProj * vec4(vWorldPos, 1.0);
}
