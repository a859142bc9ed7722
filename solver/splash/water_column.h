// Water -> body: the submerged part of a rigid body under a height-field surface, integrated
// column by column, and the buoyancy and drag it feels (docs/splash.md).
//
// Grid: nx x ny cells of side h centred on the origin in x/z (cell (i, j) at
// x = (i - (nx-1)/2) h, z = (j - (ny-1)/2) h, as render::WaterSurface draws it); the water
// surface is y = restLevel + eta(x, z), eta bilinear between cell centres; outside the pool
// there is no water.
//
// Body: split into sample lines. A box is cut along the body axis k closest to the vertical
// into n1 x n2 prisms of cross-section w = 4 a1 a2 / (n1 n2) (midpoints of its k-face), and
// near a tie of two or three axes along each of them, the cuts weighted by continuous shares
// (boxSampling); a sphere into vertical chords over an n x n grid of its horizontal disc. A line
// p(t) = p0 + t d, t in [-L, L], d.y > 0, is under water for t < ts = (S - p0.y) / d.y with S
// the surface level where the line crosses it (one fixed-point refinement of the crossing):
//   submerged length  l = clamp(ts + L, 0, 2L),  volume  v = w l,
//   centroid          c = p((-L + min(L, ts)) / 2).
// For a flat surface this is exact for every orientation of the line; the midpoint rule
// over the face is exact for an upright box (the footprint's area does not depend on how
// the box sits on the water grid, which keeps the draft of a floating brick unbiased).
//
// Forces per line (rho water density, g = |gravity|, u the upward unit vector):
//   buoyancy   F_b = rho g v u                     at c   (Archimedes, per column)
//   drag       F_d = -rho v (kLin + kQuad |w| / Lb) w,  w = v_body(c)
// with Lb the cube root of the body's volume, so that the quadratic term of a whole submerged
// body is -1/2 rho Cd A |w| w with A = Lb^2 when kQuad = Cd / 2. The drag is relative to
// still water: the height field cannot feel the drag's reaction, so a drag toward the water's
// own vertical speed would hand the bodies energy the water never loses (docs/splash.md:
// with it the default collapse pumped the pool into metre-high spikes).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <span>
#include <vector>

#include "solver/rigid/body.h"

namespace ww::splash {

/// A read-only view of the water surface on the CPU.
struct WaterGrid {
    int nx = 0;
    int ny = 0;
    float cellM = 0.0f;              ///< h
    float restLevelM = 0.0f;         ///< depth of the still water above the floor y = 0
    std::span<const float> eta;      ///< heights above rest, row-major j * nx + i
    std::span<const float> etaPrev;  ///< the previous level (for deta/dt); may be empty
    float dtSeconds = 0.0f;          ///< between etaPrev and eta

    float halfWidthM() const { return 0.5f * static_cast<float>(nx) * cellM; }
    float halfDepthM() const { return 0.5f * static_cast<float>(ny) * cellM; }
    /// True when (x, z) lies over the pool.
    bool inside(float x, float z) const {
        return x >= -halfWidthM() && x <= halfWidthM() && z >= -halfDepthM() && z <= halfDepthM();
    }
    /// Bilinear eta at (x, z) (clamped at the outer half cell), and deta/dt when etaPrev is
    /// given.
    float etaAt(float x, float z, float* rate = nullptr) const;
    /// The water's vertical velocity at p, m/s: deta/dt at the surface, falling linearly to 0
    /// at the floor (the shallow-water profile w(y) = deta/dt y / (d + eta)); 0 where the
    /// column is dry.
    float verticalSpeedAt(const rigid::Vec3& p) const;
};

/// Coefficients of the water -> body forces.
struct ColumnParams {
    float waterDensity = 1000.0f;  ///< kg/m^3
    float gravity = 9.81f;         ///< m/s^2 (magnitude; the surface is horizontal)
    float linearDrag = 1.0f;       ///< kLin, 1/s: per kg of displaced water
    float quadraticDrag = 0.525f;  ///< kQuad = Cd / 2 with a cube's Cd = 1.05
    /// Sample lines per body side: one per `lineSpacingCells` water cells, within
    /// [minSamples, maxSamples]. Two cells: the forces resolve surface features of two cells
    /// and more, as the bodies' sources do (spread over sigma = 2 cells at the default grid),
    /// at a quarter of the lines of one per cell (docs/splash.md).
    float lineSpacingCells = 2.0f;
    int minSamples = 4;
    int maxSamples = 24;
    /// A box is cut along every body axis whose |d.y| lies within `axisBlendBand` of the most
    /// vertical axis', each cut's lines weighted by (|d.y| - (max - band)) over the sum of these
    /// (boxSampling): the sampling, and with it the forces and the displaced volume, are then
    /// continuous in the box's orientation. With one axis alone (band 0) the cut jumps where two
    /// axes tie, and a floating cube of density 500 floats edge-up exactly there: every rock
    /// across the tie moved the displaced volume with the body at rest, and the waves that made
    /// kept it rocking (docs/splash.md, "The cut across a tie").
    float axisBlendBand = 0.2f;
};

/// One submerged sample: its volume (m^3) and centroid, and its share of the body's
/// waterplane (m^2: w / d.y where the surface crosses the line, 0 for a line wholly under
/// water), the rate dV/dS at which its volume changes with the surface level S.
struct SubmergedSample {
    float volume = 0.0f;
    rigid::Vec3 centroid;
    float waterplane = 0.0f;
};

/// What the water does to one body in one step.
struct BodyWater {
    float submergedVolume = 0.0f;  ///< m^3
    float bodyVolume = 0.0f;       ///< m^3
    rigid::Vec3 buoyancyCentre;    ///< centroid of the submerged volume (if any)
    rigid::Vec3 buoyancyForce;     ///< N
    rigid::Vec3 dragForce;         ///< N
    rigid::Vec3 torque;            ///< N m about the body's centre, buoyancy + drag
    rigid::Vec3 dragTorque;        ///< N m, the drag part of torque
    /// sum of the samples' volume times their centroid's height, m^4 (the submerged volume's
    /// first moment: rho g times it is what the body's displacement takes from the water's
    /// potential energy)
    float submergedMomentY = 0.0f;
};

/// Volume of a box or sphere (0 for planes).
float bodyVolume(const rigid::Body& b);

/// Height of the lowest point of `b` (a box's lowest corner, a sphere's bottom), m; +inf for
/// planes.
float lowestPointY(const rigid::Body& b);

/// Sample lines per body side along `extentM`: one per p.lineSpacingCells water cells of side
/// `cellM`, within [p.minSamples, p.maxSamples].
int linesAlong(float extentM, float cellM, const ColumnParams& p);

/// One cut of a box into sample lines: along a body axis (d, d.y > 0, half length L; boxLines:
/// the axis closest to the vertical), the lines at the midpoints of an n1 x n2 grid over its
/// face (axes e1, e2, half extents a1, a2), each of cross-section `weight`. n1 = 0 when the
/// axis does not point up.
struct BoxLines {
    rigid::Vec3 d, e1, e2;
    float halfLength = 0.0f, a1 = 0.0f, a2 = 0.0f, weight = 0.0f;
    int n1 = 0, n2 = 0;
};
BoxLines boxLines(const rigid::Body& b, float cellM, const ColumnParams& p);
/// The cut along body axis k (d = the axis with d.y >= 0), lines of the full cross-section.
BoxLines boxLinesAlong(const rigid::Body& b, int k, float cellM, const ColumnParams& p);

/// How a box is sampled: the cuts along the body axes whose |d.y| lies within
/// p.axisBlendBand of the largest, in axis order, each line's `weight` scaled by the cut's share
/// alpha_k = (|d_k.y| - (m - band)) / sum over the cuts (m the largest |d.y|); alpha sums to 1,
/// so the volume under flat water stays exact, and every alpha is continuous in the
/// orientation. Band 0: boxLines alone.
struct BoxSampling {
    BoxLines cut[3];
    int axis[3] = {0, 0, 0};  ///< the body axis of each cut
    int count = 0;
    int lines() const {
        int n = 0;
        for (int c = 0; c < count; ++c) {
            n += cut[c].n1 * cut[c].n2;
        }
        return n;
    }
};
BoxSampling boxSampling(const rigid::Body& b, float cellM, const ColumnParams& p);

/// The submerged samples of `b` under `water` (appended to `out`); returns their volume.
float submergedSamples(const rigid::Body& b, const WaterGrid& water, const ColumnParams& p,
                       std::vector<SubmergedSample>& out);

/// Buoyancy and drag on `b` from its submerged samples (`water` is not read: the drag is
/// relative to still water).
BodyWater waterForces(const rigid::Body& b, const WaterGrid& water, const ColumnParams& p,
                      std::span<const SubmergedSample> samples);

/// Applies one step's water forces to `b` as velocity changes (dt F / m, dt I_w^-1 tau). Drag
/// may slow the body to rest within the step, not reverse it (explicit drag of a light body at
/// speed would otherwise overshoot): its share of the change is clamped to the body's speed
/// and spin.
void applyWaterForces(rigid::Body& b, const BodyWater& f, float dtSeconds);

/// Kinetic energy of `b`, translation and rotation, J.
double kineticEnergy(const rigid::Body& b);

/// The radiation reaction of one step: the body's displaced volume was moved out of the
/// footprints from the surface level at each cell to the level at its target, which changed
/// the water's potential energy by `energyJ` = rho g sum dv (eta_target - eta_cell) more than
/// the body's motion did to it (SplashWorld, docs/splash.md). A positive `energyJ` is taken
/// from the body's kinetic energy (velocities scaled by sqrt(1 - E / K), to rest at most);
/// zero or negative changes nothing. Returns the energy taken, J.
double chargeRadiation(rigid::Body& b, double energyJ);

/// A point of the grid in sixteenths of a cell (cell i's centre at 16 i), rounded from a
/// position (in double) and clamped to one pool width around the pool; not finite: 0.
struct GridPoint16 {
    int i = 0;
    int j = 0;
};
GridPoint16 gridPoint16(int nx, int ny, float cellM, const rigid::Vec3& p);

/// The walk of a body's moved volume out of the bodies' footprints: from `cell` away from
/// `origin` (the body's centre, GridPoint16), in steps of half a cell along the direction's
/// major axis, to the first cell after `outsideSteps` steps on cells `covered(cell)` says no
/// footprint covers, or the last cell inside the pool. Step s visits the cell nearest (halves
/// rounded away from the start) to (i0, j0) + s/2 D/M, D = 16 (i0, j0) - origin (origin on
/// the cell: D = (1, 0)), M = max(|Dx|, |Dz|):
///   (i0 + sgn(Dx) floor((s |Dx| + M) / 2M), j0 + sgn(Dz) floor((s |Dz| + M) / 2M)),
/// exact integers (a quotient and remainder per axis), so the CPU and splash_distribute.comp
/// take the same steps whatever their float rounding (a float walk split on ties such as a
/// cell straight in line with the centre, where s/2 d lands on k + 1/2).
template <typename Covered>
int walkOutOfFootprints(int nx, int ny, int cell, GridPoint16 origin, int outsideSteps,
                        const Covered& covered) {
    const int i0 = cell % nx;
    const int j0 = cell / nx;
    int dx = 16 * i0 - origin.i;
    const int dz = 16 * j0 - origin.j;
    if (dx == 0 && dz == 0) {
        dx = 1;
    }
    const int ax = std::abs(dx);
    const int az = std::abs(dz);
    const int twoM = 2 * std::max(ax, az);
    const int sx = dx < 0 ? -1 : 1;
    const int sz = dz < 0 ? -1 : 1;
    int qx = 0, rx = twoM / 2, qz = 0, rz = twoM / 2;  // s = 0: M = 0 * 2M + M
    int last = cell;
    int outside = 0;
    for (int step = 1; step < 4 * (nx + ny); ++step) {
        rx += ax;  // ax, az <= M < 2M: one carry at most
        rz += az;
        if (rx >= twoM) {
            rx -= twoM;
            ++qx;
        }
        if (rz >= twoM) {
            rz -= twoM;
            ++qz;
        }
        const int i = i0 + sx * qx;
        const int j = j0 + sz * qz;
        if (i < 0 || j < 0 || i >= nx || j >= ny) {
            return last;
        }
        last = j * nx + i;
        if (!covered(last) && ++outside > outsideSteps) {
            return last;
        }
    }
    return last;
}

/// Adds each sample's volume to the cells around its centroid by bilinear weights (the
/// weights sum to 1, so the total is kept exactly): `volumePerCell` has nx * ny entries.
/// Cells that receive volume are appended to `touched` the first time (`mark` flags them).
/// `sign` -1 subtracts the volumes instead.
void splatVolume(const WaterGrid& water, std::span<const SubmergedSample> samples,
                 std::vector<float>& volumePerCell, std::vector<char>& mark,
                 std::vector<int>& touched, float sign = 1.0f);

}  // namespace ww::splash
