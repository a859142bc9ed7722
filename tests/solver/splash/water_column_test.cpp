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
