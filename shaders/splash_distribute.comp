#version 430
// Bodies -> water, part 2: each body's displacement change per cell (its tile, fixed point)
// moves out of the bodies' footprints (SplashWorld::outsideFootprint): the walk from the cell
// away from the body's centre in half-cell steps to the sourceOffsetCells-th cell outside every
// footprint; volumes below the negligible one stay in their cell (and are not spread). The volume is added to the
// target in fixed point (order-independent). A workgroup per body; the tile is zeroed for the
// next step as it is read.
layout(local_size_x = 64) in;
#include "splash_layout.glsl"

layout(std430, binding = 2) readonly buffer Bodies { SplashBody bodies[]; };
layout(std430, binding = 6) buffer Tiles { int tiles[]; };
layout(std430, binding = 7) readonly buffer Footprint { int footprint[]; };
layout(std430, binding = 8) buffer Source { int source[]; };
layout(std430, binding = 9) buffer Stay { int stay[]; };

uniform float uQuantumM3;
uniform float uNegligibleM3;
uniform int uSourceOffsetCells;

int roundHalfAway(float x) {
    return x >= 0.0 ? int(floor(x + 0.5)) : -int(floor(0.5 - x));
}

int outsideFootprint(int cell, vec3 centre) {
    int i0 = cell % uNx;
    int j0 = cell / uNx;
    float x0 = (float(i0) - 0.5 * float(uNx - 1)) * uCellM;
    float z0 = (float(j0) - 0.5 * float(uNy - 1)) * uCellM;
    float dx = x0 - centre.x;
    float dz = z0 - centre.z;
    float len = sqrt(dx * dx + dz * dz);
    if (len < 1e-6) {
        dx = 1.0;
        dz = 0.0;
    } else {
        dx /= len;
        dz /= len;
    }
    int last = cell;
    int outside = 0;
    float fi = float(i0);
    float fj = float(j0);
    int steps = 4 * (uNx + uNy);
    for (int step = 1; step < steps; ++step) {
        int i = roundHalfAway(fi + 0.5 * float(step) * dx);
        int j = roundHalfAway(fj + 0.5 * float(step) * dz);
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

void main() {
    SplashBody body = bodies[gl_WorkGroupID.x];
    int w = body.tile.z;
    int cells = w * body.tile.w;
    for (int t = int(gl_LocalInvocationID.x); t < cells; t += 64) {
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
            deposit(outsideFootprint(cell, body.centre.xyz), units);
        }
    }
}
