// The splash coupling on the GPU against the CPU path (the reference, itself checked against
// closed forms in splash_world_test.cpp): the per-body forces of one step from the same state,
// the displacement that step adds to the water, and a short run of a floating brick.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "solver/gpu/shader_library.h"
#include "solver/rigid/scenes.h"
#include "solver/splash/splash_gpu.h"
#include "solver/splash/splash_world.h"
#include "solver/splash/water_column.h"
#include "support/gpu_fixture.h"
#include "support/seed.h"

namespace ww::splash {
namespace {

using rigid::Vec3;

SplashParams pool(int n, float sizeM) {
    SplashParams p;
    p.wave.nx = p.wave.ny = n;
    p.wave.poolSizeM = sizeM;
    p.wave.damping = 0.5f;
    p.waterDepthM = 0.6f;
    return p;
}

// A rough surface in motion: a few random plane waves for u^n, u^n-1 a step earlier.
void roughWater(SplashWorld& s, std::mt19937& rng) {
    const wave::WaveParams& p = s.water().params();
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    std::vector<float> u(static_cast<std::size_t>(p.nx * p.ny), 0.0f), uPrev = u;
    for (int w = 0; w < 4; ++w) {
        const float amp = 0.005f + 0.015f * unit(rng);
        const float kx = 6.0f * unit(rng) - 3.0f;
        const float ky = 6.0f * unit(rng) - 3.0f;
        const float phase = 6.28f * unit(rng);
        const float omega = 8.0f * unit(rng);
        for (int j = 0; j < p.ny; ++j) {
            for (int i = 0; i < p.nx; ++i) {
                const float x = static_cast<float>(i) * p.cellSize();
                const float y = static_cast<float>(j) * p.cellSize();
                const auto k = static_cast<std::size_t>(j * p.nx + i);
                u[k] += amp * std::sin(kx * x + ky * y + phase);
                uPrev[k] += amp * std::sin(kx * x + ky * y + phase - omega * p.dt());
            }
        }
    }
    ASSERT_TRUE(s.water().setState(u, uPrev));
}

// Boxes of random shape, pose and motion straddling the surface, one wholly under it, one
// above it, and a sphere: every branch of the sampling (axis choice, partly and wholly
// submerged, dry).
void addRandomBodies(SplashWorld& s, std::mt19937& rng) {
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const auto sym = [&](float a) { return a * (2.0f * unit(rng) - 1.0f); };
    for (int b = 0; b < 7; ++b) {
        rigid::BodyDesc d;
        d.halfExtents = {0.08f + 0.2f * unit(rng), 0.08f + 0.2f * unit(rng),
                         0.08f + 0.2f * unit(rng)};
        d.massKg = 700.0f * 8.0f * d.halfExtents.x * d.halfExtents.y * d.halfExtents.z;
        const float lift = b == 5 ? -0.45f : (b == 6 ? 0.9f : sym(0.15f));
        d.position = {-1.2f + 0.4f * static_cast<float>(b), 0.6f + lift, sym(1.0f)};
        d.orientation = rigid::axisAngle(
            rigid::normalize(Vec3{sym(1.0f), sym(1.0f), sym(1.0f)} + Vec3{0.0f, 0.0f, 0.01f}),
            sym(3.1f));
        d.linearVelocity = {sym(1.5f), sym(1.5f), sym(1.5f)};
        d.angularVelocity = {sym(2.0f), sym(2.0f), sym(2.0f)};
        s.world().addBody(d);
    }
    rigid::BodyDesc ball;
    ball.kind = rigid::BodyKind::kSphere;
    ball.radius = 0.15f + 0.1f * unit(rng);
    ball.massKg = 600.0f * 4.19f * ball.radius * ball.radius * ball.radius;
    ball.position = {1.6f, 0.6f + sym(0.1f), sym(1.0f)};
    ball.linearVelocity = {sym(2.0f), -1.0f, sym(2.0f)};
    s.world().addBody(ball);
}

void randomBodies(SplashWorld& s, std::mt19937& rng) {
    rigid::addGround(s.world());
    addRandomBodies(s, rng);
}

// A brick in the water turning about z through 45 degrees within the step, listed first: the
// body axis closest to the vertical (which carries its sampling lines) switches from y to x,
// so its line count changes, and so does where every later body's lines start in the samples.
void brickTurningFirst(SplashWorld& s, std::mt19937& rng) {
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    rigid::addGround(s.world());
    rigid::BodyDesc d;
    d.halfExtents = {0.1f + 0.03f * unit(rng), 0.25f + 0.03f * unit(rng), 0.17f};
    d.massKg = 700.0f * 8.0f * d.halfExtents.x * d.halfExtents.y * d.halfExtents.z;
    d.position = {-1.4f + 0.2f * unit(rng), 0.55f, 1.4f};
    // Tilted about z to 1.1 degrees short of where its x axis enters the band of the cuts
    // (BoxSampling: |c_x.y| = |c_y.y| - band, cos t - sin t = band), turning into it.
    const float band = ColumnParams{}.axisBlendBand;
    const float entry = std::acos(band / std::sqrt(2.0f)) - 0.7853982f;  // 36.9 deg at 0.2
    d.orientation = rigid::axisAngle(Vec3{0.0f, 0.0f, 1.0f}, entry - 0.02f);
    d.angularVelocity = {0.0f, 0.0f, 3.0f + unit(rng)};  // 2.9-3.8 degrees a step
    s.world().addBody(d);
    addRandomBodies(s, rng);
}

struct Pair {
    SplashWorld cpu, gpu;
};

Pair makePair(const SplashParams& p, unsigned seed, void (*bodies)(SplashWorld&, std::mt19937&),
              bool rough, const gpu::ShaderLibrary& shaders) {
    std::vector<SplashWorld> made;
    for (int k = 0; k < 2; ++k) {
        Result<SplashWorld> w = SplashWorld::create(p);
        EXPECT_TRUE(w) << w.error().message;
        made.push_back(std::move(w).value());
        std::mt19937 rng(seed);  // the same state in both
        if (rough) {
            roughWater(made.back(), rng);
        }
        bodies(made.back(), rng);
    }
    Status gpu = made[1].setBackend(Backend::kGpu, &shaders);
    EXPECT_TRUE(gpu) << gpu.error().message;
    for (SplashWorld& w : made) {
        w.start();
    }
    return {std::move(made[0]), std::move(made[1])};
}

float maxAbsDiff(Vec3 a, Vec3 b) {
    return std::max({std::abs(a.x - b.x), std::abs(a.y - b.y), std::abs(a.z - b.z)});
}

// Tolerance: each body's sums run over up to 24 x 24 lines, on the CPU in line order and on
// the GPU strided over 64 invocations then a tree, so they differ by the float rounding of the
// sums: at most n eps = 576 x 6e-8 = 3.5e-5 of the sum of the terms' sizes; the lines'
// crossings may also differ in the last bit (the GPU may fuse multiply-adds). 1e-4 of the
// body's full buoyancy rho g V (of its volume rho V for the volume, of rho g V times its
// half-diagonal for torques) covers that and is ~100 times below any change of a line.
TEST(SplashGpu, ForcesOfOneStepMatchTheCpu) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const gpu::ShaderLibrary shaders;
    Pair w = makePair(pool(96, 4.0f), seed, randomBodies, true, shaders);
    ASSERT_EQ(w.gpu.backend(), Backend::kGpu);
    w.cpu.step();
    w.gpu.step();
    const auto fc = w.cpu.lastForces();
    const auto fg = w.gpu.lastForces();
    ASSERT_EQ(fc.size(), fg.size());
    int wet = 0, dry = 0;
    for (std::size_t i = 0; i < fc.size(); ++i) {
        const rigid::Body& b = w.cpu.world().bodies()[i];
        if (b.isStatic()) {
            continue;
        }
        SCOPED_TRACE("body " + std::to_string(i));
        const float rho = w.cpu.params().column.waterDensity;
        const float v = bodyVolume(b);
        const float fTol = 1e-4f * rho * w.cpu.params().column.gravity * v;
        const float reach = b.kind == rigid::BodyKind::kSphere ? b.radius : length(b.halfExtents);
        EXPECT_NEAR(fc[i].submergedVolume, fg[i].submergedVolume, 1e-4f * v);
        EXPECT_LE(maxAbsDiff(fc[i].buoyancyForce, fg[i].buoyancyForce), fTol);
        EXPECT_LE(maxAbsDiff(fc[i].dragForce, fg[i].dragForce), fTol);
        EXPECT_LE(maxAbsDiff(fc[i].torque, fg[i].torque), fTol * reach);
        EXPECT_LE(maxAbsDiff(fc[i].dragTorque, fg[i].dragTorque), fTol * reach);
        (fc[i].submergedVolume > 0.0f ? wet : dry) += 1;
    }
    // The state covers wet and dry bodies (not a comparison of zeros).
    EXPECT_GE(wet, 6);
    EXPECT_GE(dry, 1);
    // The same water volume W from the GPU's sum of eta (double on the CPU, float tree on the
    // GPU: 1e-7 of W is ~1e3 float roundings of the pool's mean level).
    EXPECT_NEAR(w.cpu.lastStats().waterVolume, w.gpu.lastStats().waterVolume,
                1e-7 * w.cpu.lastStats().waterVolume);
}

// One step of moving bodies: the water's heights after it on both backends. The displacement
// the step adds (sources moved out of the footprints, and the level correction) is a few mm
// here; the GPU sums it in units of 1e-8 m (rounding <= 0.5e-8 m per line and cell) and the
// water's CG solves to its relative tolerance on each backend. Tolerance: 1e-3 of the largest
// height change plus 1e-6 m, far below a source misplaced by one cell (the full change there).
void expectSameDisplacementAfterOneStep(Pair& w) {
    w.cpu.step();
    w.gpu.step();
    const std::vector<float> hc = w.cpu.water().heights();
    const std::vector<float> hg = w.gpu.water().heights();
    ASSERT_EQ(hc.size(), hg.size());
    float largest = 0.0f, diff = 0.0f;
    double diffSum = 0.0;
    for (std::size_t k = 0; k < hc.size(); ++k) {
        largest = std::max(largest, std::abs(hc[k]));
        diff = std::max(diff, std::abs(hc[k] - hg[k]));
        diffSum += std::abs(static_cast<double>(hc[k]) - hg[k]);
    }
    EXPECT_GT(largest, 1e-4f);  // the bodies moved the water (the water started at rest)
    EXPECT_LE(diff, 1e-3f * largest + 1e-6f) << "largest change " << largest;
    // The level correction after the water's step (W0 - W) / A_pool: the GPU's comes back with
    // the next step's forces. The bodies' submerged volumes in W are read under the heights
    // just compared, so the two differ by at most sum |hc - hg| h^2 / A_pool = the mean
    // height difference (all cells: a bound on those under the bodies); and the GPU forms
    // W - W0 in float from small terms: 1e-3 of the correction (measured up to 1.4e-4 of it)
    // + 1e-9 m. Measured: 1.8e-9 m apart at a correction of 6.8e-7 m (seed 287497097).
    const double cpuCorrection = w.cpu.lastStats().levelCorrectionM;
    const double meanDiff = diffSum / static_cast<double>(hc.size());
    w.gpu.step();
    // The bodies' entry changed W this step: a correction ten times the comparison's absolute
    // slack (seed 1537928127 drew 8.5e-8 m, a body barely entering the water).
    EXPECT_GT(std::abs(cpuCorrection), 1e-8);
    EXPECT_NEAR(w.gpu.lastStats().levelCorrectionM, cpuCorrection,
                1e-9 + 1e-3 * std::abs(cpuCorrection) + meanDiff)
        << "mean height difference " << meanDiff;
}

TEST(SplashGpu, DisplacementOfOneStepMatchesTheCpu) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const gpu::ShaderLibrary shaders;
    Pair w = makePair(pool(96, 4.0f), seed, randomBodies, false, shaders);
    expectSameDisplacementAfterOneStep(w);
}

// The GPU's before pass once read each body's lines at the after pose's offsets: right only
// while no body's line count changed in the step (CI's seed 1947831630 caught a tumbling
// brick). Here one always changes: the first brick gains a second cut (BoxSampling).
TEST(SplashGpu, DisplacementMatchesTheCpuWhenABodysLineCountChanges) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const gpu::ShaderLibrary shaders;
    Pair w = makePair(pool(96, 4.0f), seed, brickTurningFirst, false, shaders);
    const float cellM = w.cpu.grid().cellM;
    const auto lines = [&](const rigid::Body& b) {
        return boxSampling(b, cellM, w.cpu.params().column).lines();
    };
    const int before = lines(w.cpu.world().bodies()[1]);
    expectSameDisplacementAfterOneStep(w);
    EXPECT_NE(lines(w.cpu.world().bodies()[1]), before);  // the case this test is for
}

// A floating brick dropped on calm water (no collapse: a collapse is chaotic and separates
// any two float orders). Tolerance 1 mm over 1 s: the forces agree to ~1e-5 of the buoyancy
// each step (above), which over 60 steps of a damped bob moves the brick by microns.
void floatingBrick(SplashWorld& s, std::mt19937& rng) {
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    rigid::addGround(s.world());
    rigid::BodyDesc d;
    d.halfExtents = {0.25f, 0.1f, 0.25f};
    d.massKg = (500.0f + 400.0f * unit(rng)) * 8.0f * 0.25f * 0.1f * 0.25f;
    d.position = {0.2f * unit(rng), 0.6f + 0.1f + 0.05f * unit(rng), 0.2f * unit(rng)};
    d.orientation = rigid::axisAngle({1.0f, 0.0f, 0.0f}, 0.1f * unit(rng));
    s.world().addBody(d);
}

TEST(SplashGpu, FloatingBrickRunMatchesTheCpu) {
    WW_REQUIRE_GPU();
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const gpu::ShaderLibrary shaders;
    Pair w = makePair(pool(96, 6.0f), seed, floatingBrick, false, shaders);
    const Vec3 start = w.cpu.world().bodies()[1].position;
    float apart = 0.0f;
    for (int k = 0; k < 60; ++k) {
        w.cpu.step();
        w.gpu.step();
        apart = std::max(
            apart, length(w.cpu.world().bodies()[1].position - w.gpu.world().bodies()[1].position));
    }
    EXPECT_LE(apart, 1e-3f);
    // It fell into the water and bobbed (the comparison is of a motion, not of a brick at rest).
    EXPECT_GT(length(w.cpu.world().bodies()[1].position - start), 0.02f);
}

// A grid or a wall the GPU's storage blocks cannot hold is an input error naming the option
// (checked before anything is allocated; GL 4.3 guarantees 16 MiB blocks, llvmpipe has 128).
TEST(SplashGpu, WhatDoesNotFitNamesTheOption) {
    const std::int64_t sixteenMiB = std::int64_t{1} << 24;
    SplashParams p = pool(4096, 100.0f);
    Status grid = gpuFits(p, 60, sixteenMiB);
    ASSERT_FALSE(grid);
    EXPECT_EQ(grid.error().kind, ErrorKind::kGpuLimit);
    EXPECT_NE(grid.error().message.find("--grid 4096x4096"), std::string::npos)
        << grid.error().message;
    EXPECT_TRUE(gpuFits(p, 60, std::int64_t{1} << 27));  // 64 MiB of heights in 128 MiB
    p = pool(256, 10.0f);
    // 300 x 2 passes x 3 cuts x 576 lines x 16 bytes = 15.8 MiB
    EXPECT_TRUE(gpuFits(p, 300, sixteenMiB));
    Status wall = gpuFits(p, 320, sixteenMiB);
    ASSERT_FALSE(wall);
    EXPECT_NE(wall.error().message.find("--wall"), std::string::npos) << wall.error().message;
}

}  // namespace
}  // namespace ww::splash
