// The CgSolver interface on both backends: solutions against a double-precision Cholesky
// solve on fresh random SPD systems, and each error reported as its documented kind.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "dense_reference.h"
#include "solver/cg/cg_gpu.h"
#include "solver/cg/cg_solver.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"

namespace ww::cg {
namespace {

using test::choleskySolve;
using test::freshSeed;
using test::randomVector;
using test::relativeError;
using test::toDense;

const gpu::ShaderLibrary& library() {
    static gpu::ShaderLibrary lib;
    return lib;
}

// Gershgorin's bound on cond(A) for a symmetric matrix with a_ii > R_i = sum_j!=i |a_ij|:
// every eigenvalue lies in [min(a_ii - R_i), max(a_ii + R_i)].
double gershgorinCondition(int n, const std::vector<Triplet>& t) {
    std::vector<double> diag(static_cast<std::size_t>(n), 0.0), off(diag);
    for (const Triplet& e : t) {
        (e.row == e.col ? diag : off)[static_cast<std::size_t>(e.row)] +=
            e.row == e.col ? e.value : std::fabs(e.value);
    }
    double lo = std::numeric_limits<double>::infinity();
    double hi = 0.0;
    for (std::size_t i = 0; i < diag.size(); ++i) {
        lo = std::min(lo, diag[i] - off[i]);
        hi = std::max(hi, diag[i] + off[i]);
    }
    return hi / lo;
}

// Solves A x = b from a random start and compares x with the Cholesky solution x*. For any
// x, ||x - x*|| / ||x*|| <= cond(A) ||b - A x|| / ||b|| exactly; the test takes cond from
// Gershgorin and ||b - A x|| in double, so the only slack is 1e-6 relative for the double
// arithmetic of both sides. A converged report promises ||b - A x|| / ||b|| <=
// kTrueResidualSlack x tolerance, and that is checked too.
template <typename Op>
void expectMatchesDirect(CgSolver& solver, const Op& op, std::uint64_t seed) {
    const int n = static_cast<int>(op.size());
    const std::vector<Triplet> t = op.triplets();
    const std::vector<float> b = randomVector(op.size(), seed);
    const std::vector<double> xStar = choleskySolve(n, toDense(n, t), {b.begin(), b.end()});
    ASSERT_FALSE(xStar.empty()) << "reference matrix not SPD, seed " << seed;
    std::vector<float> x = randomVector(op.size(), seed + 1);
    CgOptions options;
    options.tolerance = 1e-6f;
    Result<CgReport> report = solver.solve(op, b, std::span<float>(x), options);
    ASSERT_TRUE(report.ok()) << report.error().message << " seed " << seed;
    EXPECT_EQ(report->status, CgStatus::kConverged) << "seed " << seed;
    const double residual = test::trueResidual(op, b, x);
    EXPECT_LE(residual, kTrueResidualSlack * options.tolerance) << "seed " << seed;
    const double cond = gershgorinCondition(n, t);
    EXPECT_LE(relativeError(x, xStar), cond * residual * (1.0 + 1e-6))
        << solver.backendName() << " cond <= " << cond << " seed " << seed;
}

// Random operators of every kind: a sparse SPD matrix as CSR and as dense storage, and the
// CN stencil (on a random grid and alpha) matrix-free and banded.
void expectAllOperatorsMatchDirect(CgSolver& solver) {
    const std::uint64_t seed = freshSeed();
    std::mt19937_64 rng(seed);
    const int n = std::uniform_int_distribution<int>(150, 300)(rng);
    const auto t = test::randomSparseSpd(n, 6, 1.0f, seed + 2);
    auto csr = CsrMatrix::fromTriplets(n, t);
    ASSERT_TRUE(csr.ok());
    expectMatchesDirect(solver, csr.value(), seed + 3);
    auto dense = DenseOperator::create(static_cast<std::size_t>(n), [&] {
        const std::vector<double> d = toDense(n, t);
        return std::vector<float>(d.begin(), d.end());
    }());
    ASSERT_TRUE(dense.ok());
    expectMatchesDirect(solver, dense.value(), seed + 4);
    const int nx = std::uniform_int_distribution<int>(8, 20)(rng);
    const int ny = std::uniform_int_distribution<int>(8, 20)(rng);
    const float alpha = std::uniform_real_distribution<float>(0.1f, 2.0f)(rng);
    for (Boundary bc : {Boundary::kDirichlet, Boundary::kNeumann, Boundary::kMixed}) {
        const StencilOperator stencil(nx, ny, alpha, bc);
        expectMatchesDirect(solver, stencil, seed + 5);
        expectMatchesDirect(solver, BandedOperator::fromStencil(stencil), seed + 6);
    }
}

// Size and option errors are kInput and leave x untouched; a negated SPD matrix (p.Ap < 0 at
// the first iteration, for any b != 0) is the kNumerical breakdown error.
void expectErrorKinds(CgSolver& solver) {
    const std::uint64_t seed = freshSeed();
    const int n = 120;
    auto t = test::randomSparseSpd(n, 6, 1.0f, seed);
    auto a = CsrMatrix::fromTriplets(n, t);
    ASSERT_TRUE(a.ok());
    const std::vector<float> b = randomVector(n, seed + 1);
    const std::vector<float> x0 = randomVector(n, seed + 2);
    std::vector<float> x = x0;
    std::vector<float> shortVector(n - 1, 0.0f);
    const CgOptions good;
    auto badB = solver.solve(a.value(), shortVector, std::span<float>(x), good);
    ASSERT_FALSE(badB.ok());
    EXPECT_EQ(badB.error().kind, ErrorKind::kInput);
    EXPECT_NE(badB.error().message.find("b has 119"), std::string::npos) << badB.error().message;
    auto badX = solver.solve(a.value(), b, std::span<float>(shortVector), good);
    ASSERT_FALSE(badX.ok());
    EXPECT_EQ(badX.error().kind, ErrorKind::kInput);
    for (CgOptions o : {CgOptions{-1e-3f}, CgOptions{std::nanf("")}, CgOptions{1e-5f, -1},
                        CgOptions{1e-5f, 100, 0}}) {
        auto bad = solver.solve(a.value(), b, std::span<float>(x), o);
        ASSERT_FALSE(bad.ok()) << o.tolerance << " " << o.maxIterations << " " << o.checkEvery;
        EXPECT_EQ(bad.error().kind, ErrorKind::kInput);
    }
    EXPECT_EQ(x, x0) << "a rejected solve must not touch x";

    for (Triplet& e : t) {
        e.value = -e.value;
    }
    auto negative = CsrMatrix::fromTriplets(n, t);
    ASSERT_TRUE(negative.ok());
    auto broken = solver.solve(negative.value(), b, std::span<float>(x), good);
    ASSERT_FALSE(broken.ok()) << "seed " << seed;
    EXPECT_EQ(broken.error().kind, ErrorKind::kNumerical);
    EXPECT_NE(broken.error().message.find("not symmetric positive definite"), std::string::npos)
        << broken.error().message;
}

TEST(CgSolverCpu, MatchesDirectSolveOnEveryOperator) {
    const auto solver = makeCpuCgSolver(ww::test::executor());
    EXPECT_EQ(solver->backend(), Backend::kCpu);
    expectAllOperatorsMatchDirect(*solver);
}

TEST(CgSolverCpu, ReportsEachErrorAsItsKind) {
    const auto solver = makeCpuCgSolver(ww::test::executor());
    expectErrorKinds(*solver);
}

TEST(CgSolverGpu, MatchesDirectSolveOnEveryOperator) {
    WW_REQUIRE_GPU();
    auto solver = makeGpuCgSolver(library());
    ASSERT_TRUE(solver.ok()) << solver.error().message;
    EXPECT_EQ(solver.value()->backend(), Backend::kGpu);
    expectAllOperatorsMatchDirect(*solver.value());
}

TEST(CgSolverGpu, ReportsEachErrorAsItsKind) {
    WW_REQUIRE_GPU();
    auto solver = makeGpuCgSolver(library());
    ASSERT_TRUE(solver.ok()) << solver.error().message;
    expectErrorKinds(*solver.value());
}

// The on-GPU solve checks its buffers against the operator: too short is kInput.
TEST(CgSolverGpu, DeviceSolveChecksBufferSizes) {
    WW_REQUIRE_GPU();
    auto solver = makeGpuCgSolver(library());
    ASSERT_TRUE(solver.ok()) << solver.error().message;
    const StencilOperator op(16, 12, 0.5f, Boundary::kNeumann);
    const GpuOperator gop = GpuOperator::fromStencil(op);
    auto full = gpu::Buffer::create(op.size() * sizeof(float), nullptr, "test b");
    auto shorter = gpu::Buffer::create((op.size() - 1) * sizeof(float), nullptr, "test x");
    ASSERT_TRUE(full.ok() && shorter.ok());
    auto r = solver.value()->solve(gop, full.value(), shorter.value(), CgOptions{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
}

}  // namespace
}  // namespace ww::cg
