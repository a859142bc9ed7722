// GPU projected Jacobi against the CPU one (same iteration, different summation order) and
// against the pivoting reference; dispatch and readback counts; batches of islands;
// divergence. Sizes are modest because the GL here is llvmpipe (software).
//
// CPU/GPU tolerance: both run the same contraction in float; summation order differs, so
// each iterate differs by a few ulps of |A||x| per step, and the contraction keeps that
// from growing: 1e-4 * (1 + max|x|) is ~100x the observed gap and far below solution changes.
#include <gtest/gtest.h>

#include "lcp_generators.h"
#include "lcp_gpu_support.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_gpu_layout.h"
#include "solver/lcp/lcp_reference.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"
#include "support/lcp_stall.h"

namespace ww::lcp {
namespace {

float goodOmega(const LcpProblem& p) {
    const auto s = test::spectrum(p);
    return static_cast<float>(2.0 / (s.minScaled + s.maxScaled));
}

void expectClose(std::span<const float> a, std::span<const float> b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size());
    float scale = 1.0f;
    for (float v : a) {
        scale = std::max(scale, 1.0f + std::abs(v));
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_NEAR(a[i], b[i], 1e-4f * scale) << what << " i " << i;
    }
}

// Every test: GpuLcpTest (lcp_gpu_support.h): a GPU context, the GPU and CPU solvers, a fresh
// seed that failures report.
using LcpGpu = GpuLcpTest;

TEST_F(LcpGpu, SingleDispatchMatchesCpu) {
    const unsigned fresh = m_seed;
    int k = 0;
    for (int n : {1, 2, 5, 33, 120, 300}) {  // 300: the 256-invocation variant
        for (bool contact : {false, true}) {
            const unsigned seed =
                (k++ % 2 == 0) ? 300u + static_cast<unsigned>(n) : fresh + static_cast<unsigned>(n);
            const auto p = contact ? test::contactProblem(std::max(1, n / 3), seed, true)
                                   : test::spdProblem(n, seed);
            LcpOptions o;
            o.omega = goodOmega(p);
            o.maxIterations = 60;
            o.recordHistory = true;
            std::vector<float> xc(static_cast<std::size_t>(p.n), 0.1f), xg = xc;
            const auto rc = m_cpu->solve(p, xc, o);
            const auto rg = m_gpu->solve(p, xg, o);
            const std::string what = std::string(contact ? "contact" : "spd") + " n " +
                                     std::to_string(p.n) + " seed " + std::to_string(seed);
            ASSERT_TRUE(rg.error.empty()) << rg.error;
            EXPECT_EQ(rg.dispatches, 1) << what;
            EXPECT_LE(rg.readbacks, 3) << what;
            EXPECT_GT(rg.gpuMs, 0.0) << what;
            EXPECT_LE(rg.gpuMs, rg.solveMs) << what;
            EXPECT_EQ(rg.iterations, rc.iterations) << what;
            EXPECT_EQ(rg.status, rc.status) << what;
            ASSERT_EQ(rg.history.size(), rc.history.size()) << what;
            expectClose(xc, xg, what);
            expectClose(rc.history, rg.history, what + " history");
            // The per-iteration path (many workgroups) on the same problem.
            o.gpuSingleDispatch = false;
            std::vector<float> xs(xc.size(), 0.1f);
            const auto rs = m_gpu->solve(p, xs, o);
            EXPECT_EQ(rs.dispatches, o.maxIterations + 1) << what;
            EXPECT_EQ(rs.iterations, rc.iterations) << what;
            expectClose(xc, xs, what + " per-iteration path");
            expectClose(rc.history, rs.history, what + " per-iteration history");
        }
    }
}

// Long single-workgroup solves. llvmpipe silently ends a shader loop after 65535 trips per
// invocation; a whole solve in one dispatch at n = 720 with 2n iterations would stop after 91
// iterations and report garbage as converged. Solves longer than the bound must take the
// per-iteration path and still agree with the CPU iterate for iterate; solves just under it
// stay in one dispatch. Both checked against the CPU's residual and iterations.
TEST_F(LcpGpu, LongSolvesStayCorrectOnEitherPath) {
    const unsigned seed = m_seed;
    const int n = 96;  // 24 column trips + 3 copy trips + 8 per iteration
    const auto p = test::spdProblem(n, seed);
    for (int iterations : {1500, 3000}) {
        const bool oneDispatch = gpu_layout::fitsOneDispatch(n, iterations);
        EXPECT_EQ(oneDispatch, iterations == 1500) << "(1501 * 35 < 60000 < 3001 * 35)";
        LcpOptions o;
        o.omega = goodOmega(p) * 0.25f;  // slow, so the iterates still move at the end
        o.maxIterations = iterations;
        std::vector<float> xc(static_cast<std::size_t>(n), 0.0f), xg = xc;
        const auto rc = m_cpu->solve(p, xc, o);
        const auto rg = m_gpu->solve(p, xg, o);
        ASSERT_TRUE(rg.error.empty()) << rg.error;
        EXPECT_EQ(rg.dispatches, oneDispatch ? 1 : iterations + 1);
        EXPECT_EQ(rg.iterations, rc.iterations);
        EXPECT_EQ(rg.status, rc.status);
        EXPECT_NEAR(rg.residual, rc.residual, 1e-4f * (1.0f + rc.residual));
        expectClose(xc, xg, "iterations " + std::to_string(iterations));
    }
}

// Chebyshev acceleration on both GPU paths follows the CPU iterate for iterate (the same
// weights, the same restart rule on the residuals): SPD and contact problems with friction.
TEST_F(LcpGpu, ChebyshevMatchesCpuOnBothPaths) {
    const unsigned fresh = m_seed;
    for (int n : {33, 120, 300}) {
        for (bool contact : {false, true}) {
            const unsigned seed = fresh + static_cast<unsigned>(n) + (contact ? 7u : 0u);
            const auto p =
                contact ? test::contactProblem(n / 3, seed, true) : test::spdProblem(n, seed);
            const auto sp = test::spectrum(p);
            LcpOptions o;
            o.omega = goodOmega(p);
            o.chebyshevRho =
                static_cast<float>((sp.maxScaled - sp.minScaled) / (sp.maxScaled + sp.minScaled));
            o.maxIterations = 60;
            o.recordHistory = true;
            const std::string what = std::string(contact ? "contact" : "spd") + " n " +
                                     std::to_string(p.n) + " seed " + std::to_string(seed);
            std::vector<float> xc(static_cast<std::size_t>(p.n), 0.0f), xg = xc, xs = xc;
            const auto rc = m_cpu->solve(p, xc, o);
            const auto rg = m_gpu->solve(p, xg, o);
            ASSERT_TRUE(rg.error.empty()) << rg.error;
            EXPECT_EQ(rg.dispatches, 1) << what;
            EXPECT_EQ(rg.status, rc.status) << what;
            o.gpuSingleDispatch = false;
            const auto rs = m_gpu->solve(p, xs, o);
            EXPECT_EQ(rs.dispatches, o.maxIterations + 1) << what;
            ASSERT_EQ(rg.history.size(), rc.history.size()) << what;
            ASSERT_EQ(rs.history.size(), rc.history.size()) << what;
            // Where rounding decides the restart rule differently the schedules part: compare
            // the histories up to there, and x when they never part.
            const std::size_t sharedG = sharedScheduleEnd(rc.history, rg.history);
            const std::size_t sharedS = sharedScheduleEnd(rc.history, rs.history);
            const auto head = [](const std::vector<float>& h, std::size_t k) {
                return std::span<const float>(h).first(k);
            };
            expectClose(head(rc.history, sharedG), head(rg.history, sharedG),
                        what + " single-dispatch history");
            expectClose(head(rc.history, sharedS), head(rs.history, sharedS),
                        what + " per-iteration history");
            if (sharedG == rc.history.size()) {
                expectClose(xc, xg, what + " single dispatch");
            }
            if (sharedS == rc.history.size()) {
                expectClose(xc, xs, what + " per-iteration path");
            }
        }
    }
}

// The disc friction cone on both GPU paths (pairs permuted into one vec4 at upload). A
// contact sliding in a random direction (test::slipProblem) ends at the closed form
// mu x_n (cos, sin): O(1) floats after a few operations, so 1e-5 (~100 ulps). Random contact
// problems solved to a tolerance lie in the cone and have a small double-precision disc
// residual; the floor is the CPU test's (lcp_cpu_test.cpp, expectFrictionSolved) for |x| = O(1).
TEST_F(LcpGpu, DiscConeOnBothPaths) {
    for (bool single : {true, false}) {
        const std::string path = single ? "single dispatch" : "per-iteration";
        for (unsigned k = 0; k < 4; ++k) {
            const auto c = test::slipProblem(m_seed + k);
            LcpOptions o;
            o.omega = 0.7f;
            o.tolerance = 1e-6f;
            o.checkEvery = 1;
            o.maxIterations = 200;
            o.gpuSingleDispatch = single;
            std::vector<float> x(3, 0.0f);
            const auto rep = m_gpu->solve(c.p, x, o);
            EXPECT_EQ(rep.status, LcpStatus::kConverged) << path;
            EXPECT_LE(test::maxAbsDiff(x, c.disc), 1e-5) << path << " case " << k;
        }
        for (int contacts : {5, 40}) {
            const auto p =
                test::contactProblem(contacts, m_seed + static_cast<unsigned>(contacts), true);
            const auto s = test::spectrum(p);
            LcpOptions o;
            o.omega = static_cast<float>(1.0 / s.maxScaled);  // as lcp_cpu_test.cpp's friction
            o.tolerance = 3e-5f;
            // The rate is problem-dependent: fresh 40-contact problems took 900 to 7040
            // iterations (seed 1308476720) to reach 3e-5; the CPU test's limit, robust there.
            o.maxIterations = 40000;
            o.gpuSingleDispatch = single;
            std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
            const auto rep = m_gpu->solve(p, x, o);
            const std::string what = path + " contacts " + std::to_string(contacts);
            ASSERT_TRUE(rep.error.empty()) << rep.error;
            // Converged, or stalled where float stops moving (support/lcp_stall.h): seed
            // 4042459584 + 40 stays at 3.8e-5 on both paths until the iteration limit.
            const double floor = test::stallFloor(p, x, o.omega);
            EXPECT_TRUE(rep.status == LcpStatus::kConverged || rep.residual <= floor)
                << what << " residual " << rep.residual << " float floor " << floor;
            EXPECT_LE(naturalResidual(p, x), 1e-4) << what;
            EXPECT_LE(test::discConeExcess(p, x), 1e-4) << what;
        }
    }
}

TEST_F(LcpGpu, ToleranceStopMatchesReference) {
    for (int n : {7, 90}) {
        const auto p = test::spdProblem(n, 77u + static_cast<unsigned>(n));
        LcpOptions o;
        o.omega = goodOmega(p);
        o.tolerance = 1e-5f;
        o.checkEvery = 4;
        o.maxIterations = 4000;
        std::vector<float> x(static_cast<std::size_t>(n), 0.0f);
        const auto rep = m_gpu->solve(p, x, o);
        EXPECT_EQ(rep.status, LcpStatus::kConverged);
        EXPECT_EQ(rep.iterations % 4, 0);
        // The GPU's float residual and the double one differ by float rounding of A x + b.
        EXPECT_LE(naturalResidual(p, x), 2e-5);
        const auto ref = reference::solveBounded(p);
        ASSERT_TRUE(ref.has_value());
        const auto s = test::spectrum(p);
        // Natural-map error bound (see lcp_cpu_test.cpp) at residual 2e-5.
        EXPECT_LE(test::maxAbsDiff(x, *ref),
                  (1 + s.maxEig) / s.minEig * std::sqrt(double(n)) * 2e-5 + 1e-6);
    }
}

TEST_F(LcpGpu, LargeProblemOneDispatchPerIterationNoReadbackInLoop) {
    const int n = gpu_layout::kBlockMaxN + 37;
    auto p = test::contactProblem(n / 3, 5u, true);
    const float omega = 0.3f;  // contact rows couple few others: well inside the range
    LcpOptions o;
    o.omega = omega;
    o.maxIterations = 24;
    o.recordHistory = true;
    std::vector<float> xc(static_cast<std::size_t>(p.n), 0.0f), xg = xc;
    const auto rc = m_cpu->solve(p, xc, o);
    const auto rg = m_gpu->solve(p, xg, o);
    ASSERT_TRUE(rg.error.empty()) << rg.error;
    EXPECT_EQ(rg.dispatches, o.maxIterations + 1);  // + the final residual
    EXPECT_LE(rg.readbacks, 4);
    // The time to the dispatches' completion: positive, and part of the solve's time, which
    // goes on to the readbacks.
    EXPECT_GT(rg.gpuMs, 0.0);
    EXPECT_LE(rg.gpuMs, rg.solveMs);
    EXPECT_EQ(rc.gpuMs, 0.0);
    EXPECT_EQ(rg.iterations, rc.iterations);
    EXPECT_EQ(rg.status, rc.status);
    expectClose(xc, xg, "large");
    expectClose(rc.history, rg.history, "large history");
    // With a tolerance, the GPU-side stop leaves the iterate at a check point.
    o.tolerance = rc.history[12] * 1.0001f;
    o.checkEvery = 4;
    std::fill(xg.begin(), xg.end(), 0.0f);
    const auto rt = m_gpu->solve(p, xg, o);
    EXPECT_EQ(rt.status, LcpStatus::kConverged);
    EXPECT_LE(rt.iterations, 12);
    EXPECT_EQ(rt.iterations % 4, 0);
    EXPECT_NEAR(naturalResidual(p, xg), rt.residual, 1e-4 * (1 + rt.residual));
}

TEST_F(LcpGpu, BatchOfIslandsInOneDispatch) {
    std::vector<LcpProblem> blocks;
    std::size_t total = 0;
    for (int k = 0; k < 14; ++k) {
        blocks.push_back(
            k % 2 == 0 ? test::spdProblem(1 + 9 * k, 60u + static_cast<unsigned>(k))
                       : test::contactProblem(1 + 3 * k, 70u + static_cast<unsigned>(k), true));
        total += static_cast<std::size_t>(blocks.back().n);
    }
    LcpOptions o;
    o.omega = 0.25f;
    o.maxIterations = 0;  // 2n per block: different counts in the same dispatch
    std::vector<float> xc(total, 0.0f), xg(total, 0.0f);
    const auto rc = m_cpu->solveBatch(blocks, xc, o);
    const auto rg = m_gpu->solveBatch(blocks, xg, o);
    ASSERT_EQ(rg.size(), blocks.size());
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        ASSERT_TRUE(rg[k].error.empty()) << rg[k].error;
        EXPECT_EQ(rg[k].dispatches, 1);
        EXPECT_EQ(rg[k].iterations, 2 * blocks[k].n) << "block " << k;
        EXPECT_EQ(rg[k].status, rc[k].status) << "block " << k;
    }
    expectClose(xc, xg, "batch");
}

TEST_F(LcpGpu, OmegaTooLargeIsReportedAsDivergence) {
    for (int n : {40, gpu_layout::kBlockMaxN + 3}) {
        auto p = test::spdProblem(n, 31u);
        std::fill(p.lo.begin(), p.lo.end(), -kInfinity);
        // For large n, D ~ 1.5 I and lambda_max(A) ~ 4.5 (Marchenko-Pastur edge 4 plus c),
        // so lambda_max(D^-1 A) ~ 3 and omega = 1 > 2 / 3 is outside the convergent range
        // for free rows (a linear Jacobi iteration, error growing ~2x per step).
        LcpOptions o;
        o.omega = n < 100 ? static_cast<float>(2.6 / test::spectrum(p).maxScaled) : 1.0f;
        o.maxIterations = n < 100 ? 5000 : 200;
        std::vector<float> x(static_cast<std::size_t>(n), 0.0f);
        const auto rep = m_gpu->solve(p, x, o);
        EXPECT_EQ(rep.status, LcpStatus::kDiverged) << "n " << n;
        EXPECT_LT(rep.iterations, o.maxIterations);
        for (float v : x) {
            ASSERT_TRUE(std::isfinite(v));
        }
        EXPECT_TRUE(std::isfinite(rep.residual));
    }
}

TEST_F(LcpGpu, RejectsGaussSeidelAndBadSizes) {
    auto p = test::spdProblem(4, 1u);
    std::vector<float> x(4, 0.0f);
    LcpOptions o;
    o.method = LcpMethod::kGaussSeidel;
    EXPECT_NE(m_gpu->solve(p, x, o).error.find("Jacobi only"), std::string::npos);
    x.resize(5);
    EXPECT_NE(m_gpu->solve(p, x, {}).error.find("x has 5"), std::string::npos);
}

TEST_F(LcpGpu, EmptyAndZeroSizeProblemsMatchCpu) {
    std::vector<float> none;
    EXPECT_TRUE(m_gpu->solveBatch({}, none, {}).empty());
    EXPECT_TRUE(m_cpu->solveBatch({}, none, {}).empty());
    const auto empty = LcpProblem::plain(0);
    EXPECT_EQ(m_gpu->solve(empty, none, {}).status, LcpStatus::kConverged);
    EXPECT_EQ(m_cpu->solve(empty, none, {}).status, LcpStatus::kConverged);
    // A zero-size island between two real ones.
    std::vector<LcpProblem> blocks = {test::spdProblem(3, 1u), empty, test::spdProblem(5, 2u)};
    std::vector<float> xg(8, 0.0f), xc(8, 0.0f);
    LcpOptions o;
    o.omega = 0.3f;
    const auto rg = m_gpu->solveBatch(blocks, xg, o);
    const auto rc = m_cpu->solveBatch(blocks, xc, o);
    ASSERT_EQ(rg.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(rg[k].status, rc[k].status) << "block " << k;
        EXPECT_EQ(rg[k].iterations, rc[k].iterations) << "block " << k;
    }
    expectClose(xc, xg, "zero-size island");
}

}  // namespace
}  // namespace ww::lcp
