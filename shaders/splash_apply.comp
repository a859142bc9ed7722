#version 430
// Bodies -> water, part 3: the displacement at rest, u^n and u^n-1 alike (as
// WaveModel::addAtRest): the sources (fixed point) as heights, then the uniform level
// correction. Clears the sources and the footprint for the next step.
layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer U { float u[]; };
layout(std430, binding = 1) buffer UPrev { float uPrev[]; };
layout(std430, binding = 7) buffer Footprint { int footprint[]; };
layout(std430, binding = 8) buffer Source { int source[]; };

uniform int uCount;
uniform float uQuantumM;      // one fixed-point unit as a height on the cell, m
uniform float uCorrectionM;   // the uniform level correction
uniform int uMoveWater;       // 0: the bodies do not move the water (sources dropped)

void main() {
    uint k = gl_GlobalInvocationID.x;
    if (k >= uint(uCount)) {
        return;
    }
    int units = source[k];
    source[k] = 0;
    footprint[k] = 0;
    if (uMoveWater == 0) {
        return;
    }
    float a = u[k];
    float b = uPrev[k];
    if (units != 0) {
        float d = float(units) * uQuantumM;
        a += d;
        b += d;
    }
    if (uCorrectionM != 0.0) {
        a += uCorrectionM;
        b += uCorrectionM;
    }
    u[k] = a;
    uPrev[k] = b;
}
