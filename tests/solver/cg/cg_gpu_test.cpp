// GPU conjugate gradients and Jacobi against the CPU path and double direct solves.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "dense_reference.h"
#include "solver/cg/cg_cpu.h"
#include "solver/cg/cg_gpu.h"
#include "solver/cg/cg_solver.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"

namespace ww::cg {
namespace {

using test::freshSeed;
using test::randomVector;
using test::relativeError;

const gpu::ShaderLibrary& library() {
    static gpu::ShaderLibrary lib;
    return lib;
}

struct GpuRun {
    CgReport report;
    std::vector<float> x;
};

GpuRun solveGpu(const GpuOperator& op, const std::vector<float>& b, std::vector<float> x,
                const CgOptions& options, bool recompute = false) {
    auto solver = GpuCgSolver::create(library(), op, recompute);
    EXPECT_TRUE(solver.ok()) << (solver.ok() ? "" : solver.error().message);
    if (!solver) {
        return {};
    }
    auto report = solver->solve(op, b, std::span<float>(x), options);
    EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.error().message);
    return {report.ok() ? report.value() : CgReport{}, x};
}

// CPU and GPU run the same float algorithm with differently ordered sums (rows vs
// workgroup trees), so iterates drift apart by rounding: both stop at relative residual
// 1e-6 and cond <= 17 bounds each one's error by 1.7e-5 (see cg_cpu_test.cpp); 5e-5
// between them leaves margin. Iteration counts agree to within a few.
template <typename Op>
void expectGpuMatchesCpu(const Op& op, const GpuOperator& gop, std::uint64_t seed,
                         bool recompute = false) {
    const std::vector<float> b = randomVector(op.size(), seed);
    const std::vector<float> x0 = randomVector(op.size(), seed + 1, -0.1f, 0.1f);
    CgOptions options;
    options.tolerance = 1e-6f;
    options.recordHistory = true;
    std::vector<float> xCpu = x0;
    const CgReport cpu = solveCpu(ww::test::executor(), op, b, std::span<float>(xCpu), options);
    const GpuRun gpu = solveGpu(gop, b, x0, options, recompute);
    ASSERT_EQ(gpu.report.status, CgStatus::kConverged) << "seed " << seed;
    EXPECT_LE(gpu.report.residual, 1e-6f);
    EXPECT_NEAR(gpu.report.iterations, cpu.iterations, 3) << "seed " << seed;
    ASSERT_EQ(gpu.report.history.size(), static_cast<std::size_t>(gpu.report.iterations) + 1);
    EXPECT_NEAR(gpu.report.history[0], cpu.history[0], 1e-5f * cpu.history[0]);
    EXPECT_LT(relativeError(gpu.x, xCpu), 5e-5) << "seed " << seed;
    // The true residual of the GPU solution, in double.
    std::vector<double> ax(op.size());
    op.applyReference(std::vector<double>(gpu.x.begin(), gpu.x.end()), ax);
    EXPECT_LT(relativeError(ax, b), 1e-5) << "seed " << seed;
}

TEST(CgGpu, StencilMatchesCpu) {
    WW_REQUIRE_GPU();
    const std::uint64_t seed = freshSeed();
    for (Boundary bc : {Boundary::kDirichlet, Boundary::kNeumann}) {
        const StencilOperator op(45, 37, 2.0f, bc);
        expectGpuMatchesCpu(op, GpuOperator::fromStencil(op), seed);
        expectGpuMatchesCpu(op, GpuOperator::fromStencil(op), seed, /*recompute=*/true);
    }
}

TEST(CgGpu, BandedCsrAndDenseMatchCpu) {
    WW_REQUIRE_GPU();
    const std::uint64_t seed = freshSeed();
    const BandedOperator banded = BandedOperator::nineBandedQ1(31, 29, 1.5f);
    auto gb = GpuOperator::upload(banded);
    ASSERT_TRUE(gb.ok());
    expectGpuMatchesCpu(banded, gb.value(), seed);

    auto csr = CsrMatrix::fromTriplets(500, test::randomSparseSpd(500, 8, 1.0f, seed));
    ASSERT_TRUE(csr.ok());
    auto gc = GpuOperator::upload(csr.value());
    ASSERT_TRUE(gc.ok());
    expectGpuMatchesCpu(csr.value(), gc.value(), seed);

    auto dense = DenseOperator::create(60, [&] {
        const auto t = test::toDense(60, test::randomSparseSpd(60, 10, 1.0f, seed + 5));
        return std::vector<float>(t.begin(), t.end());
    }());
    ASSERT_TRUE(dense.ok());
    auto gd = GpuOperator::upload(dense.value());
    ASSERT_TRUE(gd.ok());
    expectGpuMatchesCpu(dense.value(), gd.value(), seed);
}

TEST(CgGpu, RepeatsBitForBitAndReadbackPeriodDoesNotChangeResult) {
    WW_REQUIRE_GPU();
    const StencilOperator op(130, 70, 3.0f, Boundary::kNeumann);
    const GpuOperator gop = GpuOperator::fromStencil(op);
    const std::vector<float> b = randomVector(op.size(), freshSeed());
    const std::vector<float> x0(op.size(), 0.0f);
    CgOptions options;
    options.checkEvery = 1;
    const GpuRun a = solveGpu(gop, b, x0, options);
    options.checkEvery = 16;
    const GpuRun c = solveGpu(gop, b, x0, options);
    ASSERT_TRUE(a.report.converged());
    // After convergence the kernels return at once: a late readback adds no iterations.
    EXPECT_EQ(a.report.iterations, c.report.iterations);
    EXPECT_EQ(std::memcmp(a.x.data(), c.x.data(), a.x.size() * sizeof(float)), 0);
}

TEST(CgGpu, WarmStartCutsIterationsAndLimitIsReported) {
    WW_REQUIRE_GPU();
    const StencilOperator op(64, 64, 2.0f, Boundary::kDirichlet);
    const GpuOperator gop = GpuOperator::fromStencil(op);
    const std::uint64_t seed = freshSeed();
    const std::vector<float> b = randomVector(op.size(), seed);
    const GpuRun cold = solveGpu(gop, b, std::vector<float>(op.size(), 0.0f), {});
    ASSERT_TRUE(cold.report.converged());
    std::vector<float> b2 = b;
    const std::vector<float> db = randomVector(op.size(), seed + 1, -1e-3f, 1e-3f);
    for (std::size_t i = 0; i < b2.size(); ++i) {
        b2[i] += db[i];
    }
    const GpuRun warm = solveGpu(gop, b2, cold.x, {});
    ASSERT_TRUE(warm.report.converged());
    EXPECT_LT(warm.report.iterations, cold.report.iterations / 2);

    CgOptions limited;
    limited.maxIterations = 5;
    const GpuRun capped = solveGpu(gop, b, std::vector<float>(op.size(), 0.0f), limited);
    EXPECT_EQ(capped.report.status, CgStatus::kIterationLimit);
    EXPECT_EQ(capped.report.iterations, 5);
}

// The GPU's true residual (one reduction after the loop) against the double one, and the
// same demotion as on the CPU (cg_cpu_test.cpp, TrueResidualIsReportedAndDemotesAStalledSolve).
TEST(CgGpu, TrueResidualIsReportedAndDemotesAStalledSolve) {
    WW_REQUIRE_GPU();
    const std::uint64_t seed = freshSeed();
    for (const auto& [alpha, tol] : {std::pair{500.0f, 1e-7f}, std::pair{2.0f, 1e-5f}}) {
        const StencilOperator op(64, 64, alpha, Boundary::kNeumann);
        const std::vector<float> b = randomVector(op.size(), seed);
        CgOptions options;
        options.tolerance = tol;
        options.maxIterations = 5000;
        const GpuRun run =
            solveGpu(GpuOperator::fromStencil(op), b, std::vector<float>(op.size(), 0.0f), options);
        const double truth = test::trueResidual(op, b, run.x);
        EXPECT_NEAR(run.report.trueResidual, truth, 0.05 * truth + 3e-7) << "seed " << seed;
        if (alpha > 100.0f) {
            EXPECT_GT(truth, kTrueResidualSlack * tol) << "seed " << seed;
            EXPECT_EQ(run.report.status, CgStatus::kInaccurate) << "seed " << seed;
        } else {
            EXPECT_EQ(run.report.status, CgStatus::kConverged) << "seed " << seed;
        }
    }
}

TEST(CgGpu, IndefiniteMatrixBreaksDown) {
    WW_REQUIRE_GPU();
    auto op = DenseOperator::create(2, {1.0f, 0.0f, 0.0f, -1.0f});
    ASSERT_TRUE(op.ok());
    auto gop = GpuOperator::upload(op.value());
    ASSERT_TRUE(gop.ok());
    const GpuRun run = solveGpu(gop.value(), {1.0f, 1.0f}, {0.0f, 0.0f}, {});
    EXPECT_EQ(run.report.status, CgStatus::kBreakdown);
}

TEST(CgGpu, SizeMismatchIsAnInputError) {
    WW_REQUIRE_GPU();
    const StencilOperator op(10, 10, 1.0f, Boundary::kDirichlet);
    const GpuOperator gop = GpuOperator::fromStencil(op);
    auto solver = GpuCgSolver::create(library(), gop);
    ASSERT_TRUE(solver.ok());
    std::vector<float> b(50, 1.0f), x(50, 0.0f);
    auto r = solver->solve(gop, b, std::span<float>(x), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
    const StencilOperator other(8, 8, 1.0f, Boundary::kDirichlet);
    std::vector<float> b64(64, 1.0f), x64(64, 0.0f);
    EXPECT_FALSE(
        solver->solve(GpuOperator::fromStencil(other), b64, std::span<float>(x64), {}).ok());
}

TEST(CgSolverBackends, CsrOnBothBackendsAgreeAndSizesAreChecked) {
    WW_REQUIRE_GPU();
    const std::uint64_t seed = freshSeed();
    auto a = CsrMatrix::fromTriplets(300, test::randomSparseSpd(300, 6, 1.0f, seed));
    ASSERT_TRUE(a.ok());
    const std::vector<float> b = randomVector(300, seed + 1);
    std::vector<float> xc(300, 0.0f), xg(300, 0.0f);
    CgOptions o;
    o.tolerance = 1e-6f;
    const auto cpu = makeCpuCgSolver(ww::test::executor());
    auto gpuSolver = makeGpuCgSolver(library());
    ASSERT_TRUE(gpuSolver.ok()) << gpuSolver.error().message;
    auto c = cpu->solve(a.value(), b, std::span<float>(xc), o);
    auto g = gpuSolver.value()->solve(a.value(), b, std::span<float>(xg), o);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE(g.ok()) << g.error().message;
    EXPECT_TRUE(c->converged());
    EXPECT_TRUE(g->converged());
    EXPECT_GT(g->uploadMs, 0.0);
    // Both at relative residual 1e-6 with cond <= 13 (see cg_cpu_test.cpp): 5e-5 apart at most.
    EXPECT_LT(relativeError(xg, xc), 5e-5) << "seed " << seed;
    std::vector<float> wrong(299, 0.0f);
    EXPECT_EQ(cpu->solve(a.value(), b, std::span<float>(wrong), o).error().kind, ErrorKind::kInput);
    EXPECT_EQ(gpuSolver.value()->solve(a.value(), b, std::span<float>(wrong), o).error().kind,
              ErrorKind::kInput);
}

TEST(JacobiGpu, MatchesCpuSweeps) {
    WW_REQUIRE_GPU();
    const BandedOperator op = BandedOperator::nineBandedQ1(70, 50, 1.0f);
    const std::uint64_t seed = freshSeed();
    const std::vector<float> b = randomVector(op.size(), seed);
    const std::vector<float> x0 = randomVector(op.size(), seed + 1);
    auto jacobi = GpuJacobi::create(library(), op, b, x0);
    ASSERT_TRUE(jacobi.ok()) << jacobi.error().message;
    ASSERT_TRUE(jacobi->run(30).ok());
    std::vector<float> xCpu = x0;
    (void)jacobiCpu(*ww::test::executor(), op, b, xCpu, 30);
    // Jacobi is a contraction (factor <= 0.73, see cg_cpu_test.cpp): per-sweep rounding
    // differences (~1e-7 relative) do not accumulate beyond ~1e-6.
    EXPECT_LT(relativeError(jacobi->solution(), xCpu), 1e-5) << "seed " << seed;
}

}  // namespace
}  // namespace ww::cg
