#version 430
// Bodies -> water, part 2: each body's displacement change per cell (its tile, fixed point)
// moves out of the bodies' footprints (SplashWorld::outsideFootprint): the walk from the cell
// away from the body's centre in half-cell steps along the major axis, in exact integers, to
// the sourceOffsetCells-th cell outside every footprint; volumes below the negligible one stay
// in their cell (and are not spread). The volume is added to the target in fixed point
// (order-independent). A workgroup per body; the tile is zeroed for the next step as it is
// read. Each body's sum of dv (eta_target - eta_cell) over its moved volume (the potential
// energy, over rho g, that the move gave the water: SplashWorld's radiation reaction) is
// reduced in a fixed tree into forces[body].dragTorque.w, which the CPU reads back.
layout(local_size_x = 64) in;
#include "splash_layout.glsl"

layout(std430, binding = 0) readonly buffer U { float u[]; };
layout(std430, binding = 2) readonly buffer Bodies { SplashBody bodies[]; };
layout(std430, binding = 3) buffer Out { vec4 header; vec4 header2; SplashForce forces[]; };
layout(std430, binding = 6) buffer Tiles { int tiles[]; };
layout(std430, binding = 7) readonly buffer Footprint { int footprint[]; };
layout(std430, binding = 8) buffer Source { int source[]; };
layout(std430, binding = 9) buffer Stay { int stay[]; };

uniform float uQuantumM3;
uniform float uNegligibleM3;
uniform int uSourceOffsetCells;

// walkOutOfFootprints (solver/splash/water_column.h), step for step in integers.
int outsideFootprint(int cell, ivec2 origin) {
    int i0 = cell % uNx;
    int j0 = cell / uNx;
    int dx = 16 * i0 - origin.x;
    int dz = 16 * j0 - origin.y;
    if (dx == 0 && dz == 0) {
        dx = 1;
    }
    int ax = abs(dx);
    int az = abs(dz);
    int twoM = 2 * max(ax, az);
    int sx = dx < 0 ? -1 : 1;
    int sz = dz < 0 ? -1 : 1;
    int qx = 0;
    int rx = twoM / 2;
    int qz = 0;
    int rz = twoM / 2;
    int last = cell;
    int outside = 0;
    int steps = 4 * (uNx + uNy);
    for (int step = 1; step < steps; ++step) {
        rx += ax;
        rz += az;
        if (rx >= twoM) {
            rx -= twoM;
            ++qx;
        }
        if (rz >= twoM) {
            rz -= twoM;
            ++qz;
        }
        int i = i0 + sx * qx;
        int j = j0 + sz * qz;
        if (i < 0 || j < 0 || i >= uNx || j >= uNy) {
            return last;
        }
        last = j * uNx + i;
        if (footprint[last] == 0) {
            ++outside;
            if (outside > 2 * uSourceOffsetCells) {
                return last;
            }
        }
    }
    return last;
}

// Where the moved volume goes once its target is known (splash_spread.comp and
// splash_apply.comp spread it from there when the scene asks for a spread).
void deposit(int target, int units) {
    atomicAdd(source[target], units);
}

shared float sLift[64];

void main() {
    SplashBody body = bodies[gl_WorkGroupID.x];
    uint lid = gl_LocalInvocationID.x;
    int w = body.tile.z;
    int cells = w * body.tile.w;
    float lift = 0.0;
    for (int t = int(lid); t < cells; t += 64) {
        int k = body.tileAt.x + t;
        int units = tiles[k];
        tiles[k] = 0;
        if (units == 0) {
            continue;
        }
        int lj = t / w;
        int cell = (body.tile.y + lj) * uNx + body.tile.x + (t - lj * w);
        float dv = float(units) * uQuantumM3;
        if (abs(dv) < uNegligibleM3) {
            atomicAdd(stay[cell], units);  // stays in its cell, unspread
        } else {
            int target = outsideFootprint(cell, body.walk.xy);
            deposit(target, units);
            lift += dv * (u[target] - u[cell]);
        }
    }
    sLift[lid] = lift;
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
        if (lid < s) {
            sLift[lid] += sLift[lid + s];
        }
        barrier();
    }
    if (lid == 0u) {
        forces[gl_WorkGroupID.x].dragTorque.w = sLift[0];
    }
}
