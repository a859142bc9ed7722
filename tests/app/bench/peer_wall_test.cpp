// The peers' walls (app/bench/bullet_wall.cpp, ode_wall.cpp, box3d_wall.cpp): a run repeats
// itself bit for bit whatever ran before it in the process, so the table's rows do not depend
// on their order; Box3D's gives the same bits on 1 and 2 threads of its scheduler, so its rows
// at different thread counts simulate the same wall; each engine's poses agree with its own
// transform of a brick point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "app/bench/wall_peers.h"
#include "solver/rigid/narrow_phase.h"
#include "support/seed.h"

namespace ww {
namespace {

bench::PeerWallSetup wall10x6() {
    bench::PeerWallSetup s;
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 10; ++c) {
            s.brickCentres.push_back(
                {static_cast<float>(c) - 4.5f, 0.5f + static_cast<float>(r), 0.0f});
        }
    }
    return s;
}

/// Brick centres after one second (60 steps) of the wall, shot at its middle at step 0.
std::vector<rigid::Vec3> oneSecond(bench::PeerWall& wall) {
    bench::PeerShot shot;
    shot.from = {0.0f, 3.0f, 8.0f};
    shot.velocityMps = {0.0f, 0.0f, -20.0f};
    wall.shoot(shot);
    for (int s = 0; s < 60; ++s) {
        wall.step();
    }
    std::vector<rigid::Vec3> out;
    wall.brickCentres(out);
    return out;
}

void expectBitwiseEqual(const std::vector<rigid::Vec3>& a, const std::vector<rigid::Vec3>& b) {
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(rigid::Vec3)), 0);
}

TEST(PeerWall, OdeRunRepeatsAfterOtherOdeRuns) {
#if WW_HAVE_ODE
    const std::vector<rigid::Vec3> first = oneSecond(*bench::makeOdeWall(wall10x6()));
    const std::vector<rigid::Vec3> second = oneSecond(*bench::makeOdeWall(wall10x6()));
    expectBitwiseEqual(first, second);
#else
    GTEST_SKIP() << "this build has no ODE";
#endif
}

// ODE stops on its internal assertions by calling a handler that must not return (by default
// it aborts the process, which ended a 100 x 100 bench run). The peer's handler throws
// PeerFailure out of the step instead, so that the bench reports the engine as failed and runs
// on. A brick whose centre is not a number trips one in the first step's collision.
TEST(PeerWall, OdeInternalErrorIsAPeerFailureNotAnAbort) {
#if WW_HAVE_ODE
    bench::PeerWallSetup setup = wall10x6();
    setup.brickCentres[7].y = std::numeric_limits<float>::quiet_NaN();
    std::unique_ptr<bench::PeerWall> wall = bench::makeOdeWall(setup);
    try {
        for (int s = 0; s < 3; ++s) {
            wall->step();
        }
        FAIL() << "three steps with a NaN brick and no ODE error";
    } catch (const bench::PeerFailure& e) {
        EXPECT_NE(std::string(e.what()).find("ODE internal error"), std::string::npos) << e.what();
    }
    wall.reset();  // abandoned, not destroyed: no second error on the way out
    // A fresh wall still runs.
    const std::vector<rigid::Vec3> after = oneSecond(*bench::makeOdeWall(wall10x6()));
    EXPECT_EQ(after.size(), wall10x6().brickCentres.size());
#else
    GTEST_SKIP() << "this build has no ODE";
#endif
}

TEST(PeerWall, BulletRunRepeatsAfterOtherBulletRuns) {
#if WW_HAVE_BULLET
    const std::vector<rigid::Vec3> first = oneSecond(*bench::makeBulletWall(wall10x6()));
    const std::vector<rigid::Vec3> second = oneSecond(*bench::makeBulletWall(wall10x6()));
    expectBitwiseEqual(first, second);
#else
    GTEST_SKIP() << "this build has no Bullet";
#endif
}

TEST(PeerWall, Box3dRunRepeatsAndIsTheSameOnOneAndTwoThreads) {
#if WW_HAVE_BOX3D
    const std::vector<rigid::Vec3> first = oneSecond(*bench::makeBox3dWall(wall10x6(), 1));
    const std::vector<rigid::Vec3> second = oneSecond(*bench::makeBox3dWall(wall10x6(), 1));
    expectBitwiseEqual(first, second);
    const std::vector<rigid::Vec3> twoThreads = oneSecond(*bench::makeBox3dWall(wall10x6(), 2));
    expectBitwiseEqual(first, twoThreads);
    // The shot reached the wall: a brick moved (a sphere with no mass or speed leaves all of
    // them within millimetres of their start in Box3D's soft contacts).
    const bench::PeerWallSetup start = wall10x6();
    float moved = 0.0f;
    for (std::size_t i = 0; i < first.size(); ++i) {
        moved = std::max(moved, rigid::length(first[i] - start.brickCentres[i]));
    }
    EXPECT_GT(moved, 0.2f);
#else
    GTEST_SKIP() << "this build has no Box3D (WW_BOX3D_ROOT)";
#endif
}

// Each engine's brickPoses read through its own transform. A wrong quaternion component order
// (Bullet x,y,z,w; ODE w first; Box3D {v, s}) leaves a brick at rest looking right, as a cube's
// rotations by quarter turns map it onto itself; after a collapse the bricks are tipped by
// arbitrary angles and a point off the brick's symmetry axes lands elsewhere.
void expectPosesMatchTheEnginesTransform(bench::PeerWall& wall) {
    oneSecond(wall);
    std::vector<bench::BrickPose> poses;
    wall.brickPoses(poses);
    ASSERT_EQ(poses.size(), wall10x6().brickCentres.size());
    const rigid::Vec3 locals[] = {{0.31f, -0.17f, 0.45f}, {-0.5f, 0.5f, 0.5f}, {0.0f, 0.0f, 0.0f}};
    float worst = 0.0f;
    float mostTipped = 0.0f;
    for (std::size_t i = 0; i < poses.size(); ++i) {
        const rigid::Quat& q = poses[i].rotation;
        mostTipped = std::max(mostTipped, 2.0f * std::acos(std::min(1.0f, std::abs(q.w))));
        for (const rigid::Vec3& local : locals) {
            const rigid::Vec3 ours = poses[i].centre + rigid::toMat3(q) * local;
            worst = std::max(worst, rigid::length(ours - wall.brickWorldPoint(i, local)));
        }
    }
    // float poses a few metres from the origin: ~1e-6 m of rounding.
    EXPECT_LT(worst, 1e-4f) << "brickPoses disagrees with the engine's own transform";
    // The check means something only if some brick turned well off a cube symmetry.
    EXPECT_GT(mostTipped, 0.2f) << "no brick turned: the shot missed";
}

TEST(PeerWall, PosesAgreeWithEachEnginesOwnTransform) {
    {
        SCOPED_TRACE("wavewall");
        expectPosesMatchTheEnginesTransform(
            *bench::makeOurWall(std::make_shared<const exec::Executor>(1), bench::WallSize{10, 6}));
    }
#if WW_HAVE_BULLET
    {
        SCOPED_TRACE("Bullet");
        expectPosesMatchTheEnginesTransform(*bench::makeBulletWall(wall10x6()));
    }
#endif
#if WW_HAVE_ODE
    {
        SCOPED_TRACE("ODE");
        expectPosesMatchTheEnginesTransform(*bench::makeOdeWall(wall10x6()));
    }
#endif
#if WW_HAVE_BOX3D
    {
        SCOPED_TRACE("Box3D");
        expectPosesMatchTheEnginesTransform(*bench::makeBox3dWall(wall10x6(), 1));
    }
#endif
}

// The overlap measure of the peer table: closed forms for a face overlap and a corner in the
// ground, at random poses.
rigid::Quat randomRotation(std::mt19937& rng) {
    std::normal_distribution<float> n;
    return rigid::normalize(rigid::Quat{n(rng), n(rng), n(rng), n(rng)});
}

TEST(DeepestOverlap, IsTheClosedFormOfAFaceOverlapAndOfACornerInTheGround) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " (WAVEWALL_TEST_SEED replays it)");
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> depth(0.01f, 0.3f), xz(-20.0f, 20.0f), y(10.0f, 30.0f);
    bench::PeerWallSetup setup;
    setup.brickHalfExtents = {0.5f, 0.5f, 0.5f};
    for (int trial = 0; trial < 50; ++trial) {
        // Two bricks of one rotation, the second moved from the first along one of its face
        // normals by 2 h - d: their faces overlap by d, high above the ground.
        const rigid::Quat q = randomRotation(rng);
        const rigid::Mat3 r = rigid::toMat3(q);
        const int axis = static_cast<int>(rng() % 3);
        const float sign = rng() % 2 == 0 ? 1.0f : -1.0f;
        const float d = depth(rng);
        const rigid::Vec3 a{xz(rng), y(rng), xz(rng)};
        const rigid::Vec3 b = a + r.c[axis] * (sign * (1.0f - d));
        std::vector<bench::BrickPose> poses{{a, q}, {b, q}};
        // (Float coordinates up to ~35 m carry ~4e-6 m of rounding each; the rotation and the
        // clipping add a few such: 1e-4 m leaves a margin of ten and more.)
        EXPECT_NEAR(bench::deepestOverlapM(setup, poses), d, 1e-4)
            << "face overlap, trial " << trial;
        // A pose that is not finite is left out.
        poses.push_back({{std::nanf(""), 1.0f, 0.0f}, q});
        EXPECT_NEAR(bench::deepestOverlapM(setup, poses), d, 1e-4);

        // One brick at a random rotation whose lowest corner is d below the ground y = 0.
        const rigid::Quat t = randomRotation(rng);
        const rigid::Mat3 rt = rigid::toMat3(t);
        float reachDown = 0.0f;  // the centre's height over the lowest corner
        for (int k = 0; k < 3; ++k) {
            reachDown += 0.5f * std::abs(rt.c[k].y);
        }
        const float e = depth(rng);
        const std::vector<bench::BrickPose> ground{{{xz(rng), reachDown - e, xz(rng)}, t}};
        EXPECT_NEAR(bench::deepestOverlapM(setup, ground), e, 1e-4) << "corner, trial " << trial;
    }
}

// The measure pairs bricks by a sweep along x: it finds the deepest overlap the test of every
// pair finds, in random piles where bricks overlap at any rotation.
TEST(DeepestOverlap, SweepFindsWhatEveryPairFinds) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed) + " (WAVEWALL_TEST_SEED replays it)");
    std::mt19937 rng(seed);
    bench::PeerWallSetup setup;
    setup.brickHalfExtents = {0.5f, 0.5f, 0.5f};
    rigid::NarrowPhaseParams np;
    np.margin = 0.0f;
    np.reuseDistance = 0.0f;
    np.reuseAngle = 0.0f;
    np.axisTolerance = 0.0f;  // as the measure: the least penetrating axis
    int overlapping = 0;
    for (int trial = 0; trial < 20; ++trial) {
        // Random piles (about a dozen overlapping pairs each, the deepest nearly always two
        // close bricks; the corner-to-corner case below is the one at the largest reach).
        // (1 m up at least: no corner reaches the ground, which would hide a missed pair.)
        std::uniform_real_distribution<float> x(-15.0f, 15.0f), y(1.0f, 3.0f), z(-1.5f, 1.5f);
        std::vector<bench::BrickPose> poses(40);
        for (bench::BrickPose& p : poses) {
            p = {{x(rng), y(rng), z(rng)}, randomRotation(rng)};
        }
        std::vector<rigid::Body> boxes;
        for (const bench::BrickPose& p : poses) {
            rigid::BodyDesc d;
            d.kind = rigid::BodyKind::kBox;
            d.position = p.centre;
            d.orientation = p.rotation;
            d.halfExtents = setup.brickHalfExtents;
            boxes.push_back(rigid::makeBody(d));
        }
        rigid::BodyDesc g;
        g.kind = rigid::BodyKind::kPlane;
        g.massKg = 0.0f;
        const rigid::Body ground = rigid::makeBody(g);
        double expected = 0.0;
        std::vector<rigid::ContactPoint> points;
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            rigid::collideBoxPlane(boxes[i], ground, np, points);
            for (std::size_t j = 0; j < boxes.size(); ++j) {
                // The pair in the order the sweep takes it (the lower x first): the same bits.
                if (boxes[i].position.x < boxes[j].position.x) {
                    rigid::collideBoxBox(boxes[i], boxes[j], np, points);
                }
            }
        }
        for (const rigid::ContactPoint& p : points) {
            expected = std::max(expected, -static_cast<double>(p.separation));
        }
        EXPECT_EQ(bench::deepestOverlapM(setup, poses), expected) << "trial " << trial;
        overlapping += expected > 0.0 ? 1 : 0;
    }
    EXPECT_GE(overlapping, 10) << "too few piles had an overlap to compare";

    // Two bricks as far apart as two bricks can touch: each body diagonal along x, corner
    // into corner, centres 2 sqrt(3) h - delta apart, each turned at random about x.
    const rigid::Vec3 diagonal = rigid::normalize(rigid::Vec3{1.0f, 1.0f, 1.0f});
    const rigid::Vec3 ex{1.0f, 0.0f, 0.0f};
    const rigid::Quat toX = rigid::axisAngle(rigid::normalize(rigid::cross(diagonal, ex)),
                                             std::acos(rigid::dot(diagonal, ex)));
    const rigid::Quat flip = rigid::axisAngle({0.0f, 1.0f, 0.0f}, 3.14159265f);
    std::uniform_real_distribution<float> roll(0.0f, 6.2831853f), delta(0.01f, 0.1f);
    for (int trial = 0; trial < 10; ++trial) {
        const float gap = std::sqrt(3.0f) - delta(rng);
        const std::vector<bench::BrickPose> poses{
            {{0.0f, 5.0f, 0.0f}, rigid::axisAngle(ex, roll(rng)) * toX},
            {{gap, 5.0f, 0.0f}, flip * rigid::axisAngle(ex, roll(rng)) * toX}};
        rigid::BodyDesc d;
        d.kind = rigid::BodyKind::kBox;
        std::vector<rigid::Body> boxes;
        for (const bench::BrickPose& p : poses) {
            d.position = p.centre;
            d.orientation = p.rotation;
            boxes.push_back(rigid::makeBody(d));
        }
        std::vector<rigid::ContactPoint> points;
        rigid::collideBoxBox(boxes[0], boxes[1], np, points);
        double expected = 0.0;
        for (const rigid::ContactPoint& p : points) {
            expected = std::max(expected, -static_cast<double>(p.separation));
        }
        EXPECT_GT(expected, 0.0) << "the corners should overlap, trial " << trial;
        EXPECT_EQ(bench::deepestOverlapM(setup, poses), expected) << "corners, trial " << trial;
    }
}

}  // namespace
}  // namespace ww
