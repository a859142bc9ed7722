// Shared by the splash kernels: the body and force records (mirrored by
// solver/splash/splash_gpu_layout.h, checked there by static_asserts), the grid uniforms and
// the bilinear surface of solver/splash/water_column.cpp.

// One body as the kernels see it; its sample lines were laid out on the CPU (a box's cuts
// along the body axes near the vertical with their shares, BoxSampling, as submergedSamples
// does).
struct SplashBody {
    vec4 centre;  // xyz position m, w cube root of the body's volume (drag length) m
    vec4 axis;    // box: xyz body axis 0 (rotation column), w half extent 0
    vec4 e1;      // box: xyz body axis 1, w half extent 1; sphere: w radius
    vec4 e2;      // box: xyz body axis 2, w half extent 2
    vec4 linVel;  // xyz m/s, w unused
    vec4 angVel;  // xyz rad/s, w the body's lowest point y m
    ivec4 info;   // x n1, y n2 (a box: its lines over all cuts, 1), z kind (0 none, 1 box,
                  // 2 sphere), w first line in the samples
    ivec4 tile;   // the cells this step's displacement can touch: x i0, y j0, z width, w height
    ivec4 tileAt; // x offset of the tile in the tile field; the before pass: y first line, z lines
    ivec4 walk;   // xy the centre in sixteenths of a cell (GridPoint16), from the CPU; zw unused
    ivec4 cutLines;  // box: xyz lines per side along body axis 0, 1, 2
    vec4 cutWeight;  // box: xyz one line's cross-section in the cut along axis 0, 1, 2 (its
                     // share included), m^2; 0: that axis is not cut
};

// What the water does to one body (16 floats).
struct SplashForce {
    vec4 buoyancy;    // x the waterplane of the partly submerged lines m^2, y N, z sum of the
                      // lines' volume times height m^4, w submerged volume m^3 (buoyancy is
                      // vertical: x and z of the force are 0)
    vec4 drag;        // xyz N, w unused
    vec4 torque;      // xyz N m about the centre, buoyancy + drag
    vec4 dragTorque;  // xyz N m, the drag part; w (splash_distribute.comp, after the LCP step)
                      // sum dv (eta_target - eta_cell) of the body's moved volume, m^4
};

uniform int uNx;
uniform int uNy;
uniform float uCellM;
uniform float uRestLevelM;

float cellCoordX(float x) { return x / uCellM + 0.5 * float(uNx - 1); }
float cellCoordZ(float z) { return z / uCellM + 0.5 * float(uNy - 1); }

bool overPool(float x, float z) {
    float hx = 0.5 * float(uNx) * uCellM;
    float hz = 0.5 * float(uNy) * uCellM;
    return x >= -hx && x <= hx && z >= -hz && z <= hz;
}

// The bilinear cell and weights of (x, z) as WaterGrid::etaAt (clamped at the outer half cell):
// xy the lower cell, zw the weights along x and z.
vec4 bilinearCell(float x, float z) {
    float fx = clamp(cellCoordX(x), 0.0, float(uNx - 1));
    float fz = clamp(cellCoordZ(z), 0.0, float(uNy - 1));
    int i0 = min(int(fx), uNx - 2);
    int j0 = min(int(fz), uNy - 2);
    return vec4(float(i0), float(j0), fx - float(i0), fz - float(j0));
}

#define SPLASH_BILINEAR(NAME, BUF)                                                   \
    float NAME(vec4 b) {                                                             \
        int k = int(b.y) * uNx + int(b.x);                                           \
        float ax = b.z;                                                              \
        float az = b.w;                                                              \
        return (1.0 - az) * ((1.0 - ax) * BUF[k] + ax * BUF[k + 1]) +                \
               az * ((1.0 - ax) * BUF[k + uNx] + ax * BUF[k + uNx + 1]);             \
    }
