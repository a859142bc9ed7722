#version 430 core
// Overlay lines and points: flat colours, written as given (not shaded, not display-encoded),
// so a debug colour is exactly what the caller chose. Points are cut to a disc.
in vec2 vQuad;
flat in vec4 vColor;
out vec4 fragColor;

void main() {
#if defined(OVERLAY_POINT)
    if (dot(vQuad, vQuad) > 1.0) {
        discard;
    }
#endif
    fragColor = vec4(vColor.rgb, 1.0);
}
