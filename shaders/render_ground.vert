#version 430 core
// The ground plane y = 0: one quad of half size uHalfSizeM around uCenter (x, z).
uniform mat4 uViewProj;
uniform vec2 uCenter;
uniform float uHalfSizeM;
out vec3 vWorldPos;

const vec2 kCorner[6] = vec2[6](vec2(-1, -1), vec2(-1, 1), vec2(1, 1),
                                vec2(-1, -1), vec2(1, 1), vec2(1, -1));

void main() {
    vec2 xz = uCenter + kCorner[gl_VertexID] * uHalfSizeM;
    vWorldPos = vec3(xz.x, 0.0, xz.y);
    gl_Position = uViewProj * vec4(vWorldPos, 1.0);
}
