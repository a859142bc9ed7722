// The peers' walls (app/bench/bullet_wall.cpp, ode_wall.cpp, box3d_wall.cpp): a run repeats
// itself bit for bit whatever ran before it in the process, so the table's rows do not depend
// on their order; Box3D's gives the same bits on 1 and 2 threads of its scheduler, so its rows
// at different thread counts simulate the same wall.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/bench/wall_peers.h"

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

}  // namespace
}  // namespace ww
