// The submerged volume and buoyancy of water_column.h against closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "solver/splash/water_column.h"
#include "support/seed.h"

namespace ww::splash {
namespace {

// A flat pool: n x n cells of side h, eta = 0.
struct FlatPool {
    std::vector<float> eta;
    WaterGrid grid;
    FlatPool(int n, float h, float depth) : eta(static_cast<std::size_t>(n) * n, 0.0f) {
        grid.nx = grid.ny = n;
        grid.cellM = h;
        grid.restLevelM = depth;
        grid.eta = eta;
    }
};

// An upright box with a random yaw, size and height under a flat surface: the submerged
// volume is A * clamp(level - bottom, 0, height) and its centroid sits half way between the
// bottom and min(level, top). The lines are exact for a flat surface and the midpoint rule
// covers the upright face exactly, so only float rounding remains: 1e-4 relative (the sum of
// up to 576 float volumes).
TEST(WaterColumn, UprightBoxMatchesClosedForm) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    FlatPool pool(64, 0.1f, 0.6f);
    for (int trial = 0; trial < 50; ++trial) {
        rigid::BodyDesc d;
        d.halfExtents = {0.1f + 0.4f * u01(rng), 0.1f + 0.4f * u01(rng), 0.1f + 0.4f * u01(rng)};
        d.position = {4.0f * u01(rng) - 2.0f, 0.2f + 0.8f * u01(rng), 4.0f * u01(rng) - 2.0f};
        d.orientation = rigid::axisAngle({0.0f, 1.0f, 0.0f}, 6.283f * u01(rng));
        const rigid::Body b = rigid::makeBody(d);
        std::vector<SubmergedSample> samples;
        const float v = submergedSamples(b, pool.grid, ColumnParams{}, samples);
        const float bottom = d.position.y - d.halfExtents.y;
        const float wet = std::clamp(pool.grid.restLevelM - bottom, 0.0f, 2.0f * d.halfExtents.y);
        const float expected = 4.0f * d.halfExtents.x * d.halfExtents.z * wet;
        EXPECT_NEAR(v, expected, 1e-4f * (1.0f + expected)) << "trial " << trial;
        if (expected > 1e-3f) {
            const BodyWater f = waterForces(b, pool.grid, ColumnParams{}, samples);
            EXPECT_NEAR(f.buoyancyCentre.y, bottom + 0.5f * wet, 1e-4f);
            EXPECT_NEAR(f.buoyancyCentre.x, d.position.x, 1e-4f);
            EXPECT_NEAR(f.buoyancyForce.y, 1000.0f * 9.81f * expected, 1e-3f * 9810.0f * expected);
        }
    }
}

// A box tilted about a horizontal axis by theta, its centre on the surface: by symmetry half of
// it is under water and the buoyancy acts at a centroid displaced towards the lower side, so
// the torque turns it back upright (a cube floating corner-down is not what this checks: the
// half-submerged cube is the symmetric case with a closed form volume). Tolerance: 1e-3
// relative, the float rounding of the lines' sum.
TEST(WaterColumn, TiltedBoxHalfSubmergedByPointSymmetry) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    FlatPool pool(64, 0.1f, 0.6f);
    for (int trial = 0; trial < 20; ++trial) {
        rigid::BodyDesc d;
        d.halfExtents = {0.2f + 0.3f * u01(rng), 0.2f + 0.3f * u01(rng), 0.2f + 0.3f * u01(rng)};
        d.position = {u01(rng) - 0.5f, 0.6f, u01(rng) - 0.5f};
        const float angle = 1.2f * u01(rng) - 0.6f;
        d.orientation =
            rigid::axisAngle(rigid::normalize(rigid::Vec3{u01(rng), 0.0f, u01(rng) + 0.1f}), angle);
        const rigid::Body b = rigid::makeBody(d);
        std::vector<SubmergedSample> samples;
        const float v = submergedSamples(b, pool.grid, ColumnParams{}, samples);
        const float full = bodyVolume(b);
        // A box is point-symmetric about its centre; a plane through the centre halves it.
        EXPECT_NEAR(v, 0.5f * full, 1e-3f * full) << "trial " << trial;
    }
}

// A sphere half way into the water: 2/3 pi r^3, within the midpoint rule's error on the disc
// (the chords' cross-sections at the rim), 2 % at 24 x 24 lines.
TEST(WaterColumn, SphereHalfSubmerged) {
    FlatPool pool(64, 0.1f, 0.6f);
    rigid::BodyDesc d;
    d.kind = rigid::BodyKind::kSphere;
    d.radius = 0.4f;
    d.position = {0.3f, 0.6f, -0.2f};
    const rigid::Body b = rigid::makeBody(d);
    std::vector<SubmergedSample> samples;
    const float v = submergedSamples(b, pool.grid, ColumnParams{}, samples);
    EXPECT_NEAR(v, 0.5f * bodyVolume(b), 0.02f * bodyVolume(b));
}

// Outside the pool there is no water.
TEST(WaterColumn, NoWaterOutsideThePool) {
    FlatPool pool(16, 0.1f, 0.6f);
    rigid::BodyDesc d;
    d.position = {3.0f, 0.2f, 0.0f};
    std::vector<SubmergedSample> samples;
    EXPECT_EQ(submergedSamples(rigid::makeBody(d), pool.grid, ColumnParams{}, samples), 0.0f);
}

// The water's vertical velocity under a surface rising uniformly (random level, rate and
// heights): deta/dt y / (d + eta), so 0 at the floor and the surface's rate at the surface,
// linear between and clamped above; a dry column moves no water. Against the closed form in
// double, 1e-5 relative.
TEST(WaterColumn, VerticalSpeedFallsLinearlyToTheFloor) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (int trial = 0; trial < 50; ++trial) {
        const int n = 8;
        const float depth = 0.2f + unit(rng);
        const float etaNow = (unit(rng) - 0.5f) * depth;
        const float rate = (unit(rng) - 0.5f) * 10.0f;
        const float dt = 1.0f / 60.0f;
        std::vector<float> now(static_cast<std::size_t>(n) * n, etaNow);
        std::vector<float> before(now.size(), etaNow - rate * dt);
        WaterGrid g;
        g.nx = g.ny = n;
        g.cellM = 0.1f;
        g.restLevelM = depth;
        g.eta = now;
        g.etaPrev = before;
        g.dtSeconds = dt;
        const double level = static_cast<double>(depth) + etaNow;
        const double measuredRate = (static_cast<double>(etaNow) - before[0]) / dt;
        const float y = unit(rng) * 1.2f * static_cast<float>(level);
        const rigid::Vec3 p{(unit(rng) - 0.5f) * 0.7f, y, (unit(rng) - 0.5f) * 0.7f};
        const double expected = measuredRate * std::min(static_cast<double>(y) / level, 1.0);
        EXPECT_NEAR(g.verticalSpeedAt(p), expected, 1e-5 * std::abs(measuredRate) + 1e-6)
            << "depth " << depth << " eta " << etaNow << " y " << y;
        EXPECT_EQ(g.verticalSpeedAt({p.x, 0.0f, p.z}), 0.0f);
        EXPECT_NEAR(g.verticalSpeedAt({p.x, static_cast<float>(level), p.z}), measuredRate,
                    1e-5 * std::abs(measuredRate) + 1e-6);
        std::vector<float> dry(now.size(), -depth - 0.01f);
        g.eta = dry;
        EXPECT_EQ(g.verticalSpeedAt(p), 0.0f);
    }
}

// The splat keeps the total volume: the bilinear weights sum to 1 (random centroids, 1e-5
// relative for the float sums).
TEST(WaterColumn, SplatKeepsTheVolume) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    FlatPool pool(32, 0.1f, 0.6f);
    std::vector<SubmergedSample> samples(200);
    double total = 0.0;
    for (SubmergedSample& s : samples) {
        s.volume = 0.01f * (u(rng) + 2.0f);
        s.centroid = {u(rng), 0.3f, u(rng)};
        total += s.volume;
    }
    std::vector<float> field(32 * 32, 0.0f);
    std::vector<char> mark(field.size(), 0);
    std::vector<int> touched;
    splatVolume(pool.grid, samples, field, mark, touched);
    double sum = 0.0;
    for (float f : field) {
        sum += f;
    }
    EXPECT_NEAR(sum, total, 1e-5 * total);
    for (int c : touched) {
        EXPECT_EQ(mark[static_cast<std::size_t>(c)], 1);
    }
}

// The lowest point of a box at a random orientation against its eight corners, rotated in
// double from the quaternion (not from the body's float rotation matrix); a sphere's bottom.
// Tolerance 1e-6 m: the float rounding of the body's rotation matrix and sums (~1e-7 m for
// metre-sized bodies); a bound that missed a tilt (e.g. the vertical half extent alone) is off
// by centimetres.
TEST(WaterColumn, LowestPointIsTheLowestCorner) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    for (int trial = 0; trial < 100; ++trial) {
        rigid::BodyDesc d;
        d.halfExtents = {0.05f + 0.5f * u01(rng), 0.05f + 0.5f * u01(rng), 0.05f + 0.5f * u01(rng)};
        d.position = {4.0f * u01(rng) - 2.0f, 2.0f * u01(rng), 4.0f * u01(rng) - 2.0f};
        const rigid::Vec3 axis = rigid::normalize(
            rigid::Vec3{u01(rng) - 0.5f, u01(rng) - 0.5f, u01(rng) - 0.5f + 1e-3f});
        d.orientation = rigid::axisAngle(axis, 6.283f * u01(rng));
        const rigid::Body b = rigid::makeBody(d);
        const double w = b.orientation.w, x = b.orientation.x, y = b.orientation.y,
                     z = b.orientation.z;
        const double norm = std::sqrt(w * w + x * x + y * y + z * z);
        // Row y of the rotation matrix of the unit quaternion (w, x, y, z).
        const double ry[3] = {2.0 * (x * y + w * z) / (norm * norm),
                              (w * w - x * x + y * y - z * z) / (norm * norm),
                              2.0 * (y * z - w * x) / (norm * norm)};
        double lowest = 1e30;
        for (int corner = 0; corner < 8; ++corner) {
            double cy = d.position.y;
            for (int a = 0; a < 3; ++a) {
                cy += ((corner >> a) & 1 ? 1.0 : -1.0) * ry[a] * d.halfExtents[a];
            }
            lowest = std::min(lowest, cy);
        }
        EXPECT_NEAR(lowestPointY(b), lowest, 1e-6) << "trial " << trial;
    }
    rigid::BodyDesc sphere;
    sphere.kind = rigid::BodyKind::kSphere;
    sphere.radius = 0.3f + 0.5f * u01(rng);
    sphere.position = {0.2f, 1.5f, -0.4f};
    EXPECT_FLOAT_EQ(lowestPointY(rigid::makeBody(sphere)), 1.5f - sphere.radius);
}

// A body whose lowest point is above the highest water has no submerged sample (the coupling
// skips such bodies without sampling them, splash_world.cpp): random boxes and spheres over a
// random rough surface (eta uniform in +-5 cm), their lowest point 0.1 mm above the highest
// cell. Lowered by 30 cm (three times the roughness; the lowest line ends within a sample
// cell of the lowest corner, a few cm higher on a tilted box), the same bodies are wet, so the
// surface does reach them.
TEST(WaterColumn, NothingSubmergedAboveTheHighestWater) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u01(0.0f, 1.0f);
    FlatPool pool(64, 0.1f, 0.6f);
    float etaMax = -1.0f;
    for (float& e : pool.eta) {
        e = 0.1f * u01(rng) - 0.05f;
        etaMax = std::max(etaMax, e);
    }
    for (int trial = 0; trial < 50; ++trial) {
        rigid::BodyDesc d;
        if (trial % 5 == 0) {
            d.kind = rigid::BodyKind::kSphere;
            d.radius = 0.1f + 0.4f * u01(rng);
        } else {
            d.halfExtents = {0.1f + 0.4f * u01(rng), 0.1f + 0.4f * u01(rng),
                             0.1f + 0.4f * u01(rng)};
            d.orientation = rigid::axisAngle(
                rigid::normalize(rigid::Vec3{u01(rng) - 0.5f, u01(rng), u01(rng) - 0.5f}),
                6.283f * u01(rng));
        }
        d.position = {4.0f * u01(rng) - 2.0f, 2.0f, 4.0f * u01(rng) - 2.0f};
        rigid::Body b = rigid::makeBody(d);
        b.position.y += pool.grid.restLevelM + etaMax + 1e-4f - lowestPointY(b);
        std::vector<SubmergedSample> samples;
        EXPECT_EQ(submergedSamples(b, pool.grid, ColumnParams{}, samples), 0.0f)
            << "trial " << trial;
        EXPECT_TRUE(samples.empty());
        b.position.y -= 0.3f;
        EXPECT_GT(submergedSamples(b, pool.grid, ColumnParams{}, samples), 0.0f)
            << "trial " << trial;
    }
}

// The walk out of the footprints against the ray it follows, on random grids, cells and
// centres: with nothing covered it ends after outsideSteps + 1 half-cell steps along the
// direction's major axis, so the target is floor((K + 2) / 2) cells along that axis (K + 1 =
// steps) and within half a cell of the ray across it (closed form in double); with a covered
// disc around the centre, the target lies outside the disc and no farther than that beyond
// the disc's edge along the ray.
TEST(WaterColumn, WalkOutOfFootprintsFollowsTheRayFromTheCentre) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    int checked = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const int nx = std::uniform_int_distribution<int>(40, 200)(rng);
        const int ny = std::uniform_int_distribution<int>(40, 200)(rng);
        const float h = std::uniform_real_distribution<float>(0.01f, 0.2f)(rng);
        const float x =
            std::uniform_real_distribution<float>(-0.3f, 0.3f)(rng) * static_cast<float>(nx) * h;
        const float z =
            std::uniform_real_distribution<float>(-0.3f, 0.3f)(rng) * static_cast<float>(ny) * h;
        const GridPoint16 o = gridPoint16(nx, ny, h, {x, 0.0f, z});
        // The centre in cells, as rounded: within 1/32 cell of the exact coordinate.
        EXPECT_NEAR(o.i / 16.0, x / h + 0.5 * (nx - 1), 1.0 / 32.0 + 1e-9 * nx);
        EXPECT_NEAR(o.j / 16.0, z / h + 0.5 * (ny - 1), 1.0 / 32.0 + 1e-9 * ny);
        const int i0 = std::uniform_int_distribution<int>(nx / 4, 3 * nx / 4)(rng);
        const int j0 = std::uniform_int_distribution<int>(ny / 4, 3 * ny / 4)(rng);
        const int cell = j0 * nx + i0;
        const int k = std::uniform_int_distribution<int>(0, 8)(rng);
        const double dx = 16.0 * i0 - o.i;
        const double dz = 16.0 * j0 - o.j;
        if (dx == 0.0 && dz == 0.0) {
            continue;
        }
        // The ray's point after s half-cell steps along the major axis: (i0, j0) + s/2 D / M.
        const double m = std::max(std::abs(dx), std::abs(dz));
        const auto rayAt = [&](int s, double& ri, double& rj) {
            ri = i0 + 0.5 * s * dx / m;
            rj = j0 + 0.5 * s * dz / m;
        };
        // The target of step s is the cell nearest the ray's point (within half a cell on each
        // axis); with nothing covered the walk ends at step k + 1.
        const int free = walkOutOfFootprints(nx, ny, cell, o, k, [](int) { return false; });
        double ri = 0.0, rj = 0.0;
        rayAt(k + 1, ri, rj);
        EXPECT_LE(std::abs(free % nx - ri), 0.5 + 1e-9) << "trial " << trial;
        EXPECT_LE(std::abs(free / nx - rj), 0.5 + 1e-9) << "trial " << trial;
        // Ties round away from the start: on the major axis, step k + 1 is floor((k + 2) / 2)
        // cells out whichever way the ray points.
        const int majorOut =
            std::abs(dx) >= std::abs(dz) ? std::abs(free % nx - i0) : std::abs(free / nx - j0);
        EXPECT_EQ(majorOut, (k + 2) / 2) << "trial " << trial;
        // A covered disc of radius r cells around the centre (the cell inside it): the target is
        // outside it, the nearest cell to the ray's point of some step, and that step is at most
        // k + 1 past the first step that left the disc.
        const double r =
            std::hypot(dx, dz) / 16.0 + std::uniform_real_distribution<double>(0.5, 6.0)(rng);
        const auto covered = [&](int c) {
            return std::hypot(16.0 * (c % nx) - o.i, 16.0 * (c / nx) - o.j) / 16.0 < r;
        };
        const int out = walkOutOfFootprints(nx, ny, cell, o, k, covered);
        EXPECT_FALSE(covered(out)) << "trial " << trial;
        int stepOfOut = -1;
        for (int s = 1; s < 4 * (nx + ny) && stepOfOut < 0; ++s) {
            rayAt(s, ri, rj);
            if (std::abs(out % nx - ri) <= 0.5 && std::abs(out / nx - rj) <= 0.5) {
                stepOfOut = s;
            }
        }
        ASSERT_GT(stepOfOut, 0) << "trial " << trial << ": the target is on no step's cell";
        // The ray leaves the disc at distance r from the centre: the step after that at the
        // latest (cell rounding), then k more uncovered steps.
        const double toEdge = (r - std::hypot(dx, dz) / 16.0) * m / std::hypot(dx, dz) * 2.0;
        EXPECT_LE(stepOfOut, std::ceil(toEdge) + 2 + k) << "trial " << trial;
        ++checked;
    }
    EXPECT_GT(checked, 390);
}

}  // namespace
}  // namespace ww::splash

namespace ww::splash {
namespace {

// The righting moment of a floating box tilted by theta about its body x axis (horizontal), on
// flat water, as applyWaterForces hands it to the body: the angular velocity change
// dt tau_x / I_xx (x is a principal axis of the tilted box, I_xx = m ((2L)^2 + (2 a1)^2) / 12).
//
// The closed form of the model: the box is cut along its y axis d = (0, cos t, sin t) into
// n1 x n2 lines at the midpoints u_s = a1 ((2s + 1) / n1 - 1) along e1 = (0, -sin t, cos t)
// (a1 the half extent along body z) and v along body x, each of cross-section
// w = 4 a1 a2 / (n1 n2). On flat water at level S a line is wet for t < ts = (S - c.y +
// u sin t) / cos t, so its wet length is l(u) = l0 + u tan t, l0 = (S - c.y) / cos t + L (all
// lines partly wet), and its buoyancy rho g w l acts at r = u e1 + v e2 + (l - 2L) / 2 d. The
// v terms cancel in pairs; with sum_s u_s = 0 and sum_s u_s^2 = n1 I,
//   I = a1^2 (1 - 1/n1^2) / 3      (the midpoint rule's second moment: a1^2 / 3 continuous),
//   tau_x = -sum rho g w l r_z = -rho g V sin t [I (1 + tan^2 t / 2) / l0 - (L - l0 / 2)],
// V = 4 a1 a2 l0: the wall-sided formula GZ = sin t (GM + BM tan^2 t / 2) with the
// metacentric radius BM = I / l0 (b^2 / (12 d) for the continuous waterplane of width b = 2 a1
// and draft d = l0) and BG = L - l0 / 2 (the centre of gravity at the box's centre). The sign:
// GM > 0 turns the box back (tau_x opposes theta).
// Tolerance: 1e-4 of rho g V sin t (BM (1 + tan^2 t / 2) + BG), the two terms' size: the sums
// of up to 576 float line volumes and moments (n eps ~ 3.5e-5 relative), positions rounded to
// float. The boxes are drawn with |GM| above 2 % of those terms, so a missing righting moment
// misses by at least 200 times the tolerance.
TEST(WaterColumn, TiltedBoxRightingMomentMatchesMetacentricHeight) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    FlatPool pool(128, 0.04f, 0.6f);
    const ColumnParams params;
    const double rhoG = static_cast<double>(params.waterDensity) * params.gravity;
    const float dt = 1.0f / 60.0f;
    int checked = 0;
    for (int trial = 0; checked < 40 && trial < 2000; ++trial) {
        const double a1 = 0.1 + 0.4 * u01(rng);  // half extent along body z (tilts)
        const double a2 = 0.1 + 0.4 * u01(rng);  // along body x (the tilt axis)
        const double L = 0.1 + 0.4 * u01(rng);   // along body y (the lines)
        const double theta = (u01(rng) < 0.5 ? -1.0 : 1.0) * (0.03 + 0.23 * u01(rng));
        const double reach = a1 * std::tan(std::abs(theta));
        const double lo = reach + 0.05 * 2.0 * L;
        const double hi = 0.95 * 2.0 * L - reach;
        if (!(hi > lo)) {
            continue;
        }
        const double l0 = lo + (hi - lo) * u01(rng);
        const int n1 = linesAlong(static_cast<float>(2.0 * a1), pool.grid.cellM, params);
        const double inertia = a1 * a1 * (1.0 - 1.0 / (double(n1) * n1)) / 3.0;
        const double tan2 = std::tan(theta) * std::tan(theta);
        const double bm = inertia * (1.0 + 0.5 * tan2) / l0;
        const double bg = L - 0.5 * l0;
        if (std::abs(bm - bg) < 0.02 * (bm + bg)) {
            continue;  // nearly neutral: a missing moment would hide in the tolerance
        }
        const double volume = 4.0 * a1 * a2 * l0;
        const double density = 200.0 + 1600.0 * u01(rng);  // any: the pose is imposed
        const double mass = density * 8.0 * a1 * a2 * L;
        rigid::BodyDesc d;
        d.halfExtents = {static_cast<float>(a2), static_cast<float>(L), static_cast<float>(a1)};
        d.massKg = static_cast<float>(mass);
        const double level = pool.grid.restLevelM;
        d.position = {static_cast<float>(2.0 * u01(rng) - 1.0),
                      static_cast<float>(level - (l0 - L) * std::cos(theta)),
                      static_cast<float>(2.0 * u01(rng) - 1.0)};
        d.orientation = rigid::axisAngle({1.0f, 0.0f, 0.0f}, static_cast<float>(theta));
        rigid::Body b = rigid::makeBody(d);
        std::vector<SubmergedSample> samples;
        (void)submergedSamples(b, pool.grid, params, samples);
        const BodyWater f = waterForces(b, pool.grid, params, samples);
        applyWaterForces(b, f, dt);

        const double torque = -rhoG * volume * std::sin(theta) * (bm - bg);
        const double ixx = mass * (4.0 * L * L + 4.0 * a1 * a1) / 12.0;
        const double tol = 1e-4 * rhoG * volume * std::abs(std::sin(theta)) * (bm + bg);
        SCOPED_TRACE("trial " + std::to_string(trial) + ": a1 " + std::to_string(a1) + ", a2 " +
                     std::to_string(a2) + ", L " + std::to_string(L) + ", theta " +
                     std::to_string(theta) + ", l0 " + std::to_string(l0) + ", n1 " +
                     std::to_string(n1) + ", GM " + std::to_string(bm - bg) + " m");
        EXPECT_NEAR(b.angularVelocity.x, dt * torque / ixx, dt * tol / ixx);
        EXPECT_NEAR(b.angularVelocity.y, 0.0, dt * tol / ixx);
        EXPECT_NEAR(b.angularVelocity.z, 0.0, dt * tol / ixx);
        EXPECT_NEAR(f.submergedVolume, volume, 1e-4 * volume);
        ++checked;
    }
    EXPECT_EQ(checked, 40);
}

}  // namespace
}  // namespace ww::splash
