#version 430 core
// Background: the sky model of render_common.glsl along each pixel's view ray.
#include "render_common.glsl"

in vec2 vNdc;
uniform mat4 uInvViewProj;
out vec4 fragColor;

void main() {
    vec4 far = uInvViewProj * vec4(vNdc, 1.0, 1.0);
    vec3 dir = normalize(far.xyz / far.w - uEye);
    fragColor = toDisplay(skyColor(dir));
}
