#version 430
// Bodies -> water, part 3: the displacement at rest, u^n and u^n-1 alike (as
// WaveModel::addAtRest): the sources (fixed point) as heights, with a spread radius the moved
// ones through the y pass of the separable Gaussian (gathering splash_spread.comp's x pass,
// each weighted by w[|d|] over the source row's in-pool weight). Clears the sources and the
// footprint for the next step.
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer U { float u[]; };
layout(std430, binding = 1) buffer UPrev { float uPrev[]; };
layout(std430, binding = 7) buffer Footprint { int footprint[]; };
layout(std430, binding = 8) buffer Source { int source[]; };
layout(std430, binding = 9) buffer Stay { int stay[]; };
layout(std430, binding = 10) readonly buffer Spread { float spread[]; };  // w[0..R], normX, normY
layout(std430, binding = 11) readonly buffer Along { float along[]; };

uniform int uNx;
uniform int uNy;
uniform int uSpreadRadius;
uniform float uQuantumM;      // one fixed-point unit as a height on the cell, m
uniform int uMoveWater;       // 0: the bodies do not move the water (sources dropped)

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= uint(uNx * uNy)) {
        return;
    }
    int moved = source[k];
    int kept = stay[k];
    source[k] = 0;
    stay[k] = 0;
    footprint[k] = 0;
    if (uMoveWater == 0) {
        return;
    }
    float d = 0.0;
    if (uSpreadRadius == 0) {
        int units = moved + kept;
        d = units != 0 ? float(units) * uQuantumM : 0.0;
    } else {
        d = kept != 0 ? float(kept) * uQuantumM : 0.0;
        int j = int(k) / uNx;
        int i = int(k) - j * uNx;
        for (int dj = -uSpreadRadius; dj <= uSpreadRadius; ++dj) {
            int s = j - dj;
            if (s >= 0 && s < uNy) {
                d += along[s * uNx + i] * spread[abs(dj)] / spread[uSpreadRadius + 1 + uNx + s];
            }
        }
    }
    float a = u[k];
    float b = uPrev[k];
    if (d != 0.0) {
        a += d;
        b += d;
    }
    u[k] = a;
    uPrev[k] = b;
}
