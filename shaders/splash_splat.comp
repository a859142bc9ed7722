#version 430
// Bodies -> water, part 1: the displaced volume of each body's lines before (-) and after (+)
// the LCP step, spread bilinearly (as splatVolume) into the body's own tile of the tile field
// in fixed point: integer sums are associative, so the result does not depend on the order of
// the invocations (GL 4.3 has no float atomics). Every cell a line touches is marked in the
// footprint. A workgroup per (body, pass): gl_WorkGroupID.y 0 before, 1 after.
layout(local_size_x = 64) in;
#include "splash_layout.glsl"

layout(std430, binding = 2) readonly buffer Bodies { SplashBody bodies[]; };
layout(std430, binding = 4) readonly buffer Samples { vec4 samples[]; };
layout(std430, binding = 6) buffer Tiles { int tiles[]; };
layout(std430, binding = 7) buffer Footprint { int footprint[]; };

uniform int uLinesPerPass;   // offset of the after pass's lines in the samples
uniform float uQuantumM3;    // one unit of the fixed point, m^3

void addTo(SplashBody body, int i, int j, float v) {
    footprint[j * uNx + i] = 1;
    int li = i - body.tile.x;
    int lj = j - body.tile.y;
    // v / quantum is far inside the int range (a cell's share of one line); floor(x + 0.5)
    // rounds the same way on every implementation.
    atomicAdd(tiles[body.tileAt.x + lj * body.tile.z + li], int(floor(v / uQuantumM3 + 0.5)));
}

void main() {
    SplashBody body = bodies[gl_WorkGroupID.x];
    bool after = gl_WorkGroupID.y == 1u;
    // Each pass reads its own layout: a body's line count (and so every later body's first
    // line) can change between the poses, so the before pass takes the previous sampling's
    // first line and count from tileAt.yz.
    int lines = after ? (body.info.z == 0 ? 0 : body.info.x * body.info.y) : body.tileAt.z;
    int first = after ? uLinesPerPass + body.info.w : body.tileAt.y;
    float sign = after ? 1.0 : -1.0;
    for (int s = int(gl_LocalInvocationID.x); s < lines; s += 64) {
        vec4 smp = samples[first + s];
        if (smp.w == 0.0) {
            continue;
        }
        vec4 bc = bilinearCell(smp.x, smp.z);
        int i0 = int(bc.x);
        int j0 = int(bc.y);
        float ax = bc.z;
        float az = bc.w;
        float v = sign * smp.w;
        addTo(body, i0, j0, v * (1.0 - ax) * (1.0 - az));
        addTo(body, i0 + 1, j0, v * ax * (1.0 - az));
        addTo(body, i0, j0 + 1, v * (1.0 - ax) * az);
        addTo(body, i0 + 1, j0 + 1, v * ax * az);
    }
}
