// CPU conjugate gradients and operators against double-precision direct solves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "dense_reference.h"
#include "solver/cg/cg_cpu.h"
#include "solver/cg/operators.h"
#include "support/executor.h"

namespace ww::cg {
namespace {

using test::choleskySolve;
using test::freshSeed;
using test::randomVector;
using test::relativeError;
using test::toDense;

std::vector<double> toDouble(const std::vector<float>& v) {
    return {v.begin(), v.end()};
}

// Fast float operator application vs the double reference: each output sums 5 terms of
// size <= (1 + 4 alpha) |x|, so float rounding is bounded by ~6 ulp of that; 1e-5 relative
// to the largest entry leaves margin.
template <typename Op>
void expectApplyMatchesReference(const Op& op, std::uint64_t seed) {
    const std::vector<float> x = randomVector(op.size(), seed);
    std::vector<float> y(op.size());
    const double dot = op.applyDot(*ww::test::executor(), x.data(), y.data());
    std::vector<double> yRef(op.size());
    op.applyReference(toDouble(x), yRef);
    double scale = 0.0;
    double dotRef = 0.0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        scale = std::max(scale, std::fabs(yRef[i]));
        dotRef += x[i] * yRef[i];
    }
    for (std::size_t i = 0; i < y.size(); ++i) {
        ASSERT_NEAR(y[i], yRef[i], 1e-5 * scale) << "row " << i << " seed " << seed;
    }
    EXPECT_NEAR(dot, dotRef, 1e-5 * std::fabs(dotRef) + 1e-6) << "seed " << seed;
}

TEST(StencilOperator, MatchesReferenceBothBoundaries) {
    const std::uint64_t seed = freshSeed();
    for (Boundary bc : {Boundary::kDirichlet, Boundary::kNeumann}) {
        expectApplyMatchesReference(StencilOperator(7, 5, 0.7f, bc), 11);
        expectApplyMatchesReference(StencilOperator(33, 17, 2.5f, bc), seed);
        // Large enough to run on both cores.
        expectApplyMatchesReference(StencilOperator(300, 130, 1.0f, bc), seed + 1);
    }
}

// The residual passes CG starts and ends with (r = b - A x with r.r and b.b; ||b - A x||^2
// without storing it) against b - A x in double on fresh random x and b. Each r_i is b_i minus
// a 5-term float sum (<= 9 for the banded Q1), so it is within ~1e-5 of the largest |A x| +
// |b| entry; the sums add n such squares in float per row (or block) and in double across
// them: 1e-5 relative.
template <typename Op>
void expectResidualsMatchReference(const Op& op, std::uint64_t seed) {
    const std::size_t n = op.size();
    const std::vector<float> x = randomVector(n, seed);
    const std::vector<float> b = randomVector(n, seed + 7);
    std::vector<double> ax(n);
    op.applyReference(toDouble(x), ax);
    double scale = 0.0;
    double rrRef = 0.0;
    double bbRef = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double ri = b[i] - ax[i];
        scale = std::max(scale, std::fabs(ax[i]) + std::fabs(b[i]));
        rrRef += ri * ri;
        bbRef += double(b[i]) * b[i];
    }
    std::vector<float> r(n, 123.0f);
    std::vector<float> scratch(n);
    const ResidualSums sums = op.residual(*ww::test::executor(), b.data(), x.data(), r.data());
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_NEAR(r[i], b[i] - ax[i], 1e-5 * scale) << "entry " << i << " seed " << seed;
    }
    EXPECT_NEAR(sums.rr, rrRef, 1e-5 * rrRef) << "seed " << seed;
    EXPECT_NEAR(sums.bb, bbRef, 1e-5 * bbRef) << "seed " << seed;
    const double norm = op.residualNorm(*ww::test::executor(), b.data(), x.data(), scratch.data());
    EXPECT_NEAR(norm, rrRef, 1e-5 * rrRef) << "seed " << seed;
}

TEST(CgOperators, ResidualPassesMatchTheDoubleReference) {
    const std::uint64_t seed = freshSeed();
    for (Boundary bc : {Boundary::kDirichlet, Boundary::kNeumann, Boundary::kMixed}) {
        expectResidualsMatchReference(StencilOperator(7, 5, 0.7f, bc), seed);
        // Large enough to run on both cores.
        expectResidualsMatchReference(StencilOperator(300, 130, 2.0f, bc), seed + 1);
    }
    expectResidualsMatchReference(BandedOperator::nineBandedQ1(40, 30, 1.5f), seed + 2);
}

// Hand-written 3x3-grid matrices (cells k = 3 j + i), independent of the production
// stencil code: Neumann A = I - alpha L with alpha = 1/2 has diagonal 1 + alpha * (number
// of in-grid neighbours) = 2 (corners), 2.5 (edges), 3 (centre); Dirichlet's diagonal is
// 1 + 4 alpha = 3 everywhere; both have -alpha for each in-grid 4-neighbour. Q1 with
// alpha = 3/2: I + alpha K, K = 8/3 centre and -1/3 for each in-grid 8-neighbour, so
// diagonal 5 and -1/2 off the diagonal (rows truncated at the boundary, no wrap-around
// between grid rows).
constexpr double kNeumann3x3[9][9] = {
    {2.0, -0.5, 0, -0.5, 0, 0, 0, 0, 0},       {-0.5, 2.5, -0.5, 0, -0.5, 0, 0, 0, 0},
    {0, -0.5, 2.0, 0, 0, -0.5, 0, 0, 0},       {-0.5, 0, 0, 2.5, -0.5, 0, -0.5, 0, 0},
    {0, -0.5, 0, -0.5, 3.0, -0.5, 0, -0.5, 0}, {0, 0, -0.5, 0, -0.5, 2.5, 0, 0, -0.5},
    {0, 0, 0, -0.5, 0, 0, 2.0, -0.5, 0},       {0, 0, 0, 0, -0.5, 0, -0.5, 2.5, -0.5},
    {0, 0, 0, 0, 0, -0.5, 0, -0.5, 2.0}};
constexpr double kDirichlet3x3[9][9] = {
    {3.0, -0.5, 0, -0.5, 0, 0, 0, 0, 0},       {-0.5, 3.0, -0.5, 0, -0.5, 0, 0, 0, 0},
    {0, -0.5, 3.0, 0, 0, -0.5, 0, 0, 0},       {-0.5, 0, 0, 3.0, -0.5, 0, -0.5, 0, 0},
    {0, -0.5, 0, -0.5, 3.0, -0.5, 0, -0.5, 0}, {0, 0, -0.5, 0, -0.5, 3.0, 0, 0, -0.5},
    {0, 0, 0, -0.5, 0, 0, 3.0, -0.5, 0},       {0, 0, 0, 0, -0.5, 0, -0.5, 3.0, -0.5},
    {0, 0, 0, 0, 0, -0.5, 0, -0.5, 3.0}};
constexpr double kQ1Alpha15_3x3[9][9] = {{5.0, -0.5, 0, -0.5, -0.5, 0, 0, 0, 0},
                                         {-0.5, 5.0, -0.5, -0.5, -0.5, -0.5, 0, 0, 0},
                                         {0, -0.5, 5.0, 0, -0.5, -0.5, 0, 0, 0},
                                         {-0.5, -0.5, 0, 5.0, -0.5, 0, -0.5, -0.5, 0},
                                         {-0.5, -0.5, -0.5, -0.5, 5.0, -0.5, -0.5, -0.5, -0.5},
                                         {0, -0.5, -0.5, 0, -0.5, 5.0, 0, -0.5, -0.5},
                                         {0, 0, 0, -0.5, -0.5, 0, 5.0, -0.5, 0},
                                         {0, 0, 0, -0.5, -0.5, -0.5, -0.5, 5.0, -0.5},
                                         {0, 0, 0, 0, -0.5, -0.5, 0, -0.5, 5.0}};

// The operator's float apply, double reference and triplets against the literal matrix on
// a fresh random vector. Entries are exact in float (halves and small integers), so apply
// differs from the double product only by rounding of <= 9 terms of size <= 5: 1e-5.
template <typename Op>
void expectEqualsLiteral(const Op& op, const double (&m)[9][9], std::uint64_t seed) {
    ASSERT_EQ(op.size(), 9u);
    const std::vector<float> x = randomVector(9, seed);
    std::vector<float> y(9);
    op.apply(*ww::test::executor(), x, y);
    std::vector<double> yRef(9);
    op.applyReference(toDouble(x), yRef);
    for (int i = 0; i < 9; ++i) {
        double want = 0.0;
        for (int j = 0; j < 9; ++j) {
            want += m[i][j] * x[static_cast<std::size_t>(j)];
        }
        EXPECT_NEAR(y[static_cast<std::size_t>(i)], want, 1e-5) << "row " << i << " seed " << seed;
        EXPECT_NEAR(yRef[static_cast<std::size_t>(i)], want, 1e-12) << "row " << i;
    }
    const std::vector<double> dense = toDense(9, op.triplets());
    for (int i = 0; i < 9; ++i) {
        for (int j = 0; j < 9; ++j) {
            EXPECT_EQ(dense[static_cast<std::size_t>(i) * 9 + j], m[i][j]) << i << "," << j;
        }
    }
}

TEST(StencilOperator, EqualsHandWritten3x3Matrices) {
    const std::uint64_t seed = freshSeed();
    expectEqualsLiteral(StencilOperator(3, 3, 0.5f, Boundary::kNeumann), kNeumann3x3, seed);
    expectEqualsLiteral(StencilOperator(3, 3, 0.5f, Boundary::kDirichlet), kDirichlet3x3, seed);
    expectEqualsLiteral(
        BandedOperator::fromStencil(StencilOperator(3, 3, 0.5f, Boundary::kDirichlet)),
        kDirichlet3x3, seed);
}

TEST(BandedOperator, NineBandedQ1EqualsHandWritten3x3Matrix) {
    expectEqualsLiteral(BandedOperator::nineBandedQ1(3, 3, 1.5f), kQ1Alpha15_3x3, freshSeed());
}

TEST(StencilOperator, TripletsAreSymmetricAndMatchApply) {
    const StencilOperator op(9, 6, 1.3f, Boundary::kNeumann);
    auto csr = CsrMatrix::fromTriplets(static_cast<int>(op.size()), op.triplets());
    ASSERT_TRUE(csr.ok());
    EXPECT_TRUE(csr->isSymmetric());
    const std::vector<float> x = randomVector(op.size(), freshSeed());
    std::vector<float> y1(op.size()), y2(op.size());
    op.apply(*ww::test::executor(), x, y1);
    csr->apply(*ww::test::executor(), x, y2);
    for (std::size_t i = 0; i < x.size(); ++i) {
        EXPECT_NEAR(y1[i], y2[i], 1e-5f) << i;
    }
}

TEST(BandedOperator, FromStencilAndNineBandedMatchReference) {
    const std::uint64_t seed = freshSeed();
    const StencilOperator s(40, 23, 0.9f, Boundary::kDirichlet);
    expectApplyMatchesReference(BandedOperator::fromStencil(s), seed);
    expectApplyMatchesReference(BandedOperator::nineBandedQ1(50, 31, 1.5f), seed + 7);
    expectApplyMatchesReference(BandedOperator::nineBandedQ1(256, 200, 1.5f), seed + 8);
}

TEST(CsrMatrix, FromTripletsSumsDuplicatesAndRejectsBadIndices) {
    const std::vector<int> rows = {0, 1, 0, 1, 0};
    const std::vector<int> cols = {0, 1, 1, 0, 0};
    const std::vector<float> vals = {1.0f, 2.0f, 3.0f, 3.0f, 4.0f};
    auto m = CsrMatrix::fromTriplets(2, rows, cols, vals);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->nonZeros(), 4u);
    EXPECT_EQ(m->values()[0], 5.0f);  // (0,0): 1 + 4
    EXPECT_TRUE(m->isSymmetric());
    const std::vector<int> badRows = {0, 2};
    const std::vector<int> badCols = {0, 0};
    const std::vector<float> badVals = {1.0f, 1.0f};
    auto bad = CsrMatrix::fromTriplets(2, badRows, badCols, badVals);
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("(2, 0)"), std::string::npos);
}

// CG stops at relative residual tol; the error then satisfies
// ||x - x*|| / ||x*|| <= cond(A) * tol. For I - alpha L with alpha <= 2 (Dirichlet),
// cond <= 1 + 8 alpha = 17, so tol = 1e-6 bounds the error by 1.7e-5; float rounding in the
// recursive residual adds a few 1e-7 * cond. 5e-5 covers both.
template <typename Op>
void expectMatchesDirect(const Op& op, std::uint64_t seed, double tolerance) {
    const int n = static_cast<int>(op.size());
    const std::vector<float> b = randomVector(op.size(), seed);
    const std::vector<double> xStar = choleskySolve(n, toDense(n, op.triplets()), toDouble(b));
    ASSERT_FALSE(xStar.empty()) << "reference matrix not SPD";
    std::vector<float> x = randomVector(op.size(), seed + 1);  // a non-trivial start
    CgOptions options;
    options.tolerance = 1e-6f;
    options.recordHistory = true;
    const CgReport report = solveCpu(ww::test::executor(), op, b, std::span<float>(x), options);
    EXPECT_EQ(report.status, CgStatus::kConverged) << "seed " << seed;
    EXPECT_LE(report.residual, 1e-6f);
    EXPECT_EQ(report.history.size(), static_cast<std::size_t>(report.iterations) + 1);
    EXPECT_LT(relativeError(x, xStar), tolerance) << "seed " << seed;

    std::vector<double> xRef = toDouble(randomVector(op.size(), seed + 1));
    const CgReport ref = solveReference(op, toDouble(b), std::span<double>(xRef), options);
    EXPECT_EQ(ref.status, CgStatus::kConverged);
    // Same algorithm in float and double: float rounding perturbs the Krylov sequence a
    // little, so the iteration counts agree to within a few.
    EXPECT_NEAR(report.iterations, ref.iterations, 3) << "seed " << seed;
    EXPECT_LT(relativeError(xRef, xStar), tolerance);
}

TEST(CgCpu, StencilMatchesDirectSolve) {
    const std::uint64_t seed = freshSeed();
    for (Boundary bc : {Boundary::kDirichlet, Boundary::kNeumann}) {
        expectMatchesDirect(StencilOperator(12, 9, 1.0f, bc), 3, 5e-5);
        expectMatchesDirect(StencilOperator(17, 14, 2.0f, bc), seed, 5e-5);
    }
}

TEST(CgCpu, BandedMatchesDirectSolve) {
    // Q1: cond <= (1 + 16 alpha / 3) / 1 = 9 for alpha = 1.5, see the stencil bound above.
    expectMatchesDirect(BandedOperator::nineBandedQ1(13, 11, 1.5f), freshSeed(), 5e-5);
}

TEST(CgCpu, RandomSparseSpdMatchesDirectSolve) {
    // Strict dominance margin 1 and at most ~8 off-diagonals in [-1, 1] per row give
    // cond <= (2 * 8 + 1) / 1 = 17: the same 5e-5 bound.
    for (std::uint64_t seed : {std::uint64_t{42}, freshSeed()}) {
        const auto t = test::randomSparseSpd(80, 8, 1.0f, seed);
        auto a = CsrMatrix::fromTriplets(80, t);
        ASSERT_TRUE(a.ok());
        ASSERT_TRUE(a->isSymmetric());
        expectMatchesDirect(a.value(), seed, 5e-5);
    }
}

TEST(CgCpu, DenseSpdMatchesDirectSolve) {
    const std::uint64_t seed = freshSeed();
    const int n = 40;
    const std::vector<float> m = randomVector(static_cast<std::size_t>(n) * n, seed);
    std::vector<float> a(static_cast<std::size_t>(n) * n);
    // A = M^T M / n + I: SPD with cond <= 1 + ||M||^2 / n, about 5 for uniform [-1, 1].
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k) {
                s += double(m[k * n + i]) * m[k * n + j];
            }
            a[static_cast<std::size_t>(i) * n + j] = static_cast<float>(s / n + (i == j));
        }
    }
    auto op = DenseOperator::create(n, a);
    ASSERT_TRUE(op.ok());
    expectMatchesDirect(op.value(), seed, 5e-5);
}

TEST(CgCpu, WarmStartCutsIterations) {
    const StencilOperator op(64, 48, 2.0f, Boundary::kNeumann);
    const std::uint64_t seed = freshSeed();
    std::vector<float> b = randomVector(op.size(), seed);
    std::vector<float> x(op.size(), 0.0f);
    const CgReport first = solveCpu(ww::test::executor(), op, b, std::span<float>(x));
    ASSERT_TRUE(first.converged());
    // A nearby right-hand side, as between two time steps.
    const std::vector<float> db = randomVector(op.size(), seed + 1, -1e-3f, 1e-3f);
    for (std::size_t i = 0; i < b.size(); ++i) {
        b[i] += db[i];
    }
    std::vector<float> cold(op.size(), 0.0f);
    const CgReport coldReport = solveCpu(ww::test::executor(), op, b, std::span<float>(cold));
    const CgReport warmReport = solveCpu(ww::test::executor(), op, b, std::span<float>(x));
    ASSERT_TRUE(coldReport.converged());
    ASSERT_TRUE(warmReport.converged());
    EXPECT_LT(warmReport.iterations, coldReport.iterations / 2) << "seed " << seed;
}

TEST(CgCpu, IndefiniteMatrixBreaksDown) {
    std::vector<float> a = {1.0f, 0.0f, 0.0f, -1.0f};
    auto op = DenseOperator::create(2, a);
    ASSERT_TRUE(op.ok());
    const std::vector<float> b = {1.0f, 1.0f};
    std::vector<float> x = {0.0f, 0.0f};
    const CgReport report = solveCpu(ww::test::executor(), op.value(), b, std::span<float>(x));
    EXPECT_EQ(report.status, CgStatus::kBreakdown);
}

// At alpha = 500 (cond ~ 4000, the wave system at ~60x the explicit limit) float CG's
// recursive residual passes 1e-7 while ||b - Ax|| / ||b|| stalls near 1e-5 (measured
// 7e-6 .. 2e-5): more than kTrueResidualSlack = 10x the tolerance, so not converged. At
// alpha = 2 and tolerance 1e-5 the two agree and the solve stays converged. The reported
// true residual is computed in float: it matches the double one within float rounding of
// b - Ax (~1e-7 of ||b||) plus 5 %.
TEST(CgCpu, TrueResidualIsReportedAndDemotesAStalledSolve) {
    const std::uint64_t seed = freshSeed();
    for (Boundary bc : {Boundary::kDirichlet, Boundary::kNeumann}) {
        for (const auto& [alpha, tol] : {std::pair{500.0f, 1e-7f}, std::pair{2.0f, 1e-5f}}) {
            const StencilOperator op(64, 64, alpha, bc);
            const std::vector<float> b = randomVector(op.size(), seed);
            std::vector<float> x(op.size(), 0.0f);
            CgOptions options;
            options.tolerance = tol;
            options.maxIterations = 5000;
            const CgReport r = solveCpu(ww::test::executor(), op, b, std::span<float>(x), options);
            const double truth = test::trueResidual(op, b, x);
            EXPECT_NEAR(r.trueResidual, truth, 0.05 * truth + 3e-7) << "seed " << seed;
            EXPECT_LE(r.residual, tol);
            if (alpha > 100.0f) {
                EXPECT_GT(truth, kTrueResidualSlack * tol) << "seed " << seed;
                EXPECT_EQ(r.status, CgStatus::kInaccurate) << "seed " << seed;
            } else {
                EXPECT_EQ(r.status, CgStatus::kConverged) << "seed " << seed;
            }
            std::vector<double> xd(op.size(), 0.0);
            const CgReport ref = solveReference(op, toDouble(b), std::span<double>(xd), options);
            EXPECT_EQ(ref.status, CgStatus::kConverged);  // double does not stall at 1e-7
            EXPECT_LT(ref.trueResidual, 2.0f * tol);
        }
    }
}

TEST(CgCpu, IterationLimitIsReported) {
    const StencilOperator op(32, 32, 4.0f, Boundary::kDirichlet);
    const std::vector<float> b = randomVector(op.size(), freshSeed());
    std::vector<float> x(op.size(), 0.0f);
    CgOptions options;
    options.maxIterations = 3;
    const CgReport report = solveCpu(ww::test::executor(), op, b, std::span<float>(x), options);
    EXPECT_EQ(report.status, CgStatus::kIterationLimit);
    EXPECT_EQ(report.iterations, 3);
}

// Every operator's fused CG passes cut their sums into chunks fixed by the size, never by the
// thread count: the iterates are the same bits on 1, 2, 3 and 8 threads.
TEST(CgCpu, ResultDoesNotDependOnThreadCount) {
    const std::uint64_t seed = freshSeed();
    const StencilOperator stencil(256, 160, 2.0f, Boundary::kNeumann);  // above the serial size
    const BandedOperator banded = BandedOperator::nineBandedQ1(200, 180, 1.0f);
    const std::vector<float> b = randomVector(stencil.size(), seed);
    const std::vector<float> bb = randomVector(banded.size(), seed + 1);
    CgOptions o;
    o.maxIterations = 60;
    std::vector<float> first, firstBanded;
    int firstIterations = -1;
    for (int threads : {1, 2, 3, 8}) {
        const auto ex = std::make_shared<const exec::Executor>(threads);
        std::vector<float> x(stencil.size(), 0.0f), xb(banded.size(), 0.0f);
        const CgReport r = solveCpu(ex, stencil, b, std::span<float>(x), o);
        (void)solveCpu(ex, banded, bb, std::span<float>(xb), o);
        if (first.empty()) {
            first = x;
            firstBanded = xb;
            firstIterations = r.iterations;
        }
        EXPECT_EQ(r.iterations, firstIterations) << threads << " threads, seed " << seed;
        EXPECT_EQ(std::memcmp(x.data(), first.data(), x.size() * sizeof(float)), 0)
            << threads << " threads, seed " << seed;
        EXPECT_EQ(std::memcmp(xb.data(), firstBanded.data(), xb.size() * sizeof(float)), 0)
            << threads << " threads, seed " << seed;
    }
}

TEST(JacobiCpu, NineBandedConvergesToDirectSolve) {
    const BandedOperator op = BandedOperator::nineBandedQ1(15, 12, 1.0f);
    const int n = static_cast<int>(op.size());
    const std::uint64_t seed = freshSeed();
    const std::vector<float> b = randomVector(op.size(), seed);
    const std::vector<double> xStar = choleskySolve(n, toDense(n, op.triplets()), toDouble(b));
    std::vector<float> x(op.size(), 0.0f);
    // Jacobi contracts by at most rho(I - D^-1 A) <= (8/3) / (1 + 8/3) = 0.73 per sweep;
    // 80 sweeps give 0.73^80 ~ 1e-11, float rounding (~1e-6) dominates.
    const double residual = jacobiCpu(*ww::test::executor(), op, b, x, 80);
    EXPECT_LT(residual, 1e-5);
    EXPECT_LT(relativeError(x, xStar), 1e-5) << "seed " << seed;

    // One fast sweep against the scalar reference sweep.
    const std::vector<float> x0 = randomVector(op.size(), seed + 3);
    std::vector<float> fast(op.size()), ref(op.size());
    const std::vector<float> inv = op.inverseDiagonal();
    op.jacobiSweep(*ww::test::executor(), b.data(), inv.data(), x0.data(), fast.data());
    op.jacobiSweepReference(b.data(), x0.data(), ref.data());
    for (std::size_t i = 0; i < fast.size(); ++i) {
        ASSERT_NEAR(fast[i], ref[i], 1e-5f) << i;
    }
}

}  // namespace
}  // namespace ww::cg
