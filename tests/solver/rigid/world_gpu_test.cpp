// CPU and GPU backends of the world agree (the GPU solves the same LCP blocks).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "solver/gpu/shader_library.h"
#include "solver/rigid/scenes.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"

namespace ww::rigid {
namespace {

// Plain Jacobi (no Chebyshev): with the wall's default rho 0.99 the restart rule, a discrete
// decision on residuals that differ by rounding between the backends, parts the two runs by
// centimetres within 100 steps (3.2 cm measured), which would hide a real kernel error; the
// accelerated iteration's agreement is tested per solve (lcp_gpu_test.cpp,
// lcp_gpu_matrix_free_test.cpp). No shock propagation either: it runs on the CPU after either
// backend's solve, and its resting test is a discrete decision on speeds that differ by
// rounding (3.4 mm apart after 100 steps with it); it is tested on its own (shock_test.cpp).
// No kept manifolds: whether a pair rests (and keeps its points) is the same kind of decision
// (5 mm apart after 100 steps with them); they are tested on their own (contacts_test.cpp).
World smallWall() {
    WorldParams p;
    p.keepManifolds = false;
    p.lcp.tolerance = 0.0f;  // a fixed iteration count: both backends do the same work
    p.lcp.maxIterations = 30;
    p.lcp.chebyshevRho = 0.0f;
    p.shockSweeps = 0;
    return makeWallWorld(test::executor(), WallParams{3, 3}, p);
}

std::string joined(const std::vector<float>& v) {
    std::string out;
    for (float f : v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.6g", out.empty() ? "" : " ", static_cast<double>(f));
        out += buf;
    }
    return out;
}

void runSteps(World& w, int steps) {
    for (int s = 0; s < steps; ++s) {
        if (w.stepCount() == 20) {
            pushBrick(w, 1, 2, {0.0f, 0.0f, -4.0f});  // the top brick slides off
        }
        const StepStats& st = w.step();
        ASSERT_EQ(st.nonFiniteBodies, 0);
        ASSERT_EQ(st.divergedBlocks, 0) << st.lcpError;
    }
}

// 100 steps of a small wall whose top brick is pushed off. Float Jacobi in a different
// summation order differs by ~1e-6 N s per step; over 100 steps of mostly resting contact
// that stays far below 1 mm, while a wrong GPU result (e.g. a missed friction bound) moves
// bricks by centimetres (halving the GPU kernel's friction bound: 0.69 m). Measured: 1.2e-5 m,
// 1e-5 in quaternion components, 8e-5 m/s (rad/s); bounds 1 mm, 1e-3 and 5e-3 (60x or more).
TEST(WorldGpu, CpuAndGpuAgreeForHundredSteps) {
    WW_REQUIRE_GPU();
    gpu::ShaderLibrary shaders;
    World cpu = smallWall();
    World gpuWorld = smallWall();
    const Status s = gpuWorld.setBackend(Backend::kGpu, &shaders);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(gpuWorld.backend(), Backend::kGpu);
    const DriftMonitor cpuStart(cpu);
    const DriftMonitor gpuStart(gpuWorld);
    runSteps(cpu, 100);
    runSteps(gpuWorld, 100);
    // Both really moved bricks: the comparison is not one of two walls at rest.
    EXPECT_GT(cpuStart.measure(cpu).maxDriftM, 0.5f);
    EXPECT_GT(gpuStart.measure(gpuWorld).maxDriftM, 0.5f);
    float maxPos = 0.0f, maxVel = 0.0f, maxQuat = 0.0f;
    for (int i = 0; i < cpu.bodyCount(); ++i) {
        const Body& a = cpu.bodies()[i];
        const Body& b = gpuWorld.bodies()[i];
        maxPos = std::max(maxPos, length(a.position - b.position));
        maxVel = std::max(maxVel, length(a.linearVelocity - b.linearVelocity));
        maxVel = std::max(maxVel, length(a.angularVelocity - b.angularVelocity));
        const Quat& qa = a.orientation;
        const Quat& qb = b.orientation;
        maxQuat = std::max({maxQuat, std::fabs(qa.w - qb.w), std::fabs(qa.x - qb.x),
                            std::fabs(qa.y - qb.y), std::fabs(qa.z - qb.z)});
    }
    EXPECT_LT(maxPos, 1e-3f);
    EXPECT_LT(maxQuat, 1e-3f);
    EXPECT_LT(maxVel, 5e-3f);
    const Body& top = cpu.bodies()[*findBrick(cpu, 1, 2)];
    EXPECT_LT(top.position.z, -0.5f) << "the pushed brick moved: the comparison is not trivial";
}

TEST(WorldGpu, SwitchingBackendsKeepsTheState) {
    WW_REQUIRE_GPU();
    gpu::ShaderLibrary shaders;
    World w = smallWall();
    runSteps(w, 10);
    const std::uint64_t before = w.stateHash();
    ASSERT_TRUE(w.setBackend(Backend::kGpu, &shaders).ok());
    EXPECT_EQ(w.stateHash(), before);
    runSteps(w, 10);
    ASSERT_TRUE(w.setBackend(Backend::kCpu).ok());
    runSteps(w, 10);
    EXPECT_EQ(w.stepCount(), 30);
    EXPECT_FALSE(w.setBackend(Backend::kGpu, nullptr).ok()) << "no shader library: an error";
    EXPECT_EQ(w.backend(), Backend::kCpu);
}

// The GPU backend runs projected Jacobi only. Asking for it with Gauss-Seidel is refused;
// switching the method of a GPU world (as the panel does) solves that step on the CPU and
// says so, with exactly the CPU world's result: never the unsolved warm-start guess.
TEST(WorldGpu, GaussSeidelIsNeverLeftUnsolvedOnTheGpuBackend) {
    WW_REQUIRE_GPU();
    gpu::ShaderLibrary shaders;
    World refused = smallWall();
    refused.params().lcp.method = lcp::LcpMethod::kGaussSeidel;
    const Status s = refused.setBackend(Backend::kGpu, &shaders);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("Jacobi"), std::string::npos) << s.error().message;
    EXPECT_EQ(refused.backend(), Backend::kCpu);

    World cpu = smallWall();
    World gpuWorld = smallWall();
    ASSERT_TRUE(gpuWorld.setBackend(Backend::kGpu, &shaders).ok());
    for (World* w : {&cpu, &gpuWorld}) {
        w->params().lcp.method = lcp::LcpMethod::kGaussSeidel;
        w->params().lcp.omega = defaultWallOmega(lcp::LcpMethod::kGaussSeidel);
        pushBrick(*w, 1, 2, {0.0f, 0.0f, -4.0f});
    }
    for (int k = 0; k < 20; ++k) {
        const StepStats& c = cpu.step();
        EXPECT_FALSE(c.solvedOnCpuFallback);
        const StepStats& g = gpuWorld.step();
        ASSERT_TRUE(g.solvedOnCpuFallback) << "step " << k;
        ASSERT_EQ(g.divergedBlocks, 0) << g.lcpError;
        ASSERT_EQ(cpu.stateHash(), gpuWorld.stateHash()) << "step " << k;
    }
    const Body& top = gpuWorld.bodies()[*findBrick(gpuWorld, 1, 2)];
    EXPECT_LT(top.position.z, -0.1f) << "the pushed brick moved: the comparison is not trivial";
}

// A 100 x 100 wall (10 000 bricks, one island of ~380 000 rows posed matrix-free) pushed at
// three places: for three steps the GPU batch's residual history matches the CPU's iterate by
// iterate, and the bricks' velocities agree. The GPU sums each body's rows in another order
// (lanes and a tree, lcp_mf_gather.comp), so the iterates differ by float rounding: measured
// 1.4e-5 relative in the histories and 5.9e-5 m/s (rad/s) in the velocities after the three
// steps; bounds 1e-3 relative (plus 1e-6 N s absolute) and 1e-3 m/s. A wrong kernel is off by
// far more (the gather's reduction tree cut to one lane: 16x the CPU's residual at iterate 1).
TEST(WorldGpu, HundredByHundredWallMatchesTheCpuIterateByIterate) {
    WW_REQUIRE_GPU();
    gpu::ShaderLibrary shaders;
    WorldParams p;
    p.lcp.tolerance = 0.0f;
    p.lcp.maxIterations = 12;
    p.coldStartIterations = 0;
    p.iterationBudgetMacs = 0.0;
    p.lcp.chebyshevRho = 0.0f;
    p.lcp.recordHistory = true;
    p.shockSweeps = 0;
    World cpu = makeWallWorld(test::executor(), WallParams{100, 100}, p);
    World gpuWorld = makeWallWorld(test::executor(), WallParams{100, 100}, p);
    const Status s = gpuWorld.setBackend(Backend::kGpu, &shaders);
    ASSERT_TRUE(s.ok()) << s.error().message;
    for (World* w : {&cpu, &gpuWorld}) {
        ASSERT_TRUE(pushBrick(*w, 50, 99, {0.0f, 0.0f, -3.0f}));
        ASSERT_TRUE(pushBrick(*w, 0, 0, {-2.0f, 0.0f, 0.0f}));
        ASSERT_TRUE(pushBrick(*w, 70, 40, {0.0f, 0.0f, 2.0f}));
    }
    for (int step = 0; step < 3; ++step) {
        const StepStats a = cpu.step();
        const StepStats b = gpuWorld.step();
        // Each failure says enough to tell a GPU error from a numerical disagreement.
        SCOPED_TRACE("step " + std::to_string(step) + ": CPU residuals " +
                     joined(a.residualHistory) + "; GPU " + joined(b.residualHistory));
        ASSERT_EQ(a.divergedBlocks, 0) << a.lcpError;
        ASSERT_EQ(b.divergedBlocks, 0) << b.lcpError;
        ASSERT_FALSE(b.solvedOnCpuFallback);
        ASSERT_GE(a.lcpNMax, 300000) << "one island of the whole wall";
        ASSERT_EQ(a.lcpNMax, b.lcpNMax)
            << "blocks: " << a.islands << " CPU, " << b.islands << " GPU";
        ASSERT_EQ(a.residualHistory.size(), 13u);
        ASSERT_EQ(b.residualHistory.size(), a.residualHistory.size());
        for (std::size_t t = 0; t < a.residualHistory.size(); ++t) {
            const float ra = a.residualHistory[t];
            // Measured agreement on llvmpipe: 1e-7 to 1e-5 relative.
            EXPECT_NEAR(b.residualHistory[t], ra, 1e-3f * ra + 1e-6f) << "iterate " << t;
        }
        EXPECT_GT(a.residualHistory[1], 1e-3f) << "the pushes give the solve work";
    }
    float maxVel = 0.0f;
    for (int i = 0; i < cpu.bodyCount(); ++i) {
        const Body& a = cpu.bodies()[i];
        const Body& b = gpuWorld.bodies()[i];
        maxVel = std::max(maxVel, length(a.linearVelocity - b.linearVelocity));
        maxVel = std::max(maxVel, length(a.angularVelocity - b.angularVelocity));
    }
    EXPECT_LT(maxVel, 1e-3f);
}

}  // namespace
}  // namespace ww::rigid
