// app/bench/poisson3d.h: Bajaj et al.'s Table 3 matrix, the Gauss–Seidel sweep and the
// tolerance bookkeeping, against references built another way, on fresh random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "app/bench/poisson3d.h"
#include "bench_test_support.h"
#include "support/executor.h"

namespace ww::bench {
namespace {

// -Laplacian from its definition: for each of the six directions, x_c - x_neighbour, where a
// missing x neighbour is 0 (Dirichlet) and a missing y or z neighbour equals x_c (Neumann
// mirror, so the term vanishes). In double.
std::vector<double> laplacianByDefinition(const std::vector<float>& x, int nx, int ny, int nz) {
    std::vector<double> y(x.size());
    const auto at = [&](int i, int j, int k) {
        return double(x[(static_cast<std::size_t>(k) * ny + j) * nx + i]);
    };
    for (int k = 0; k < nz; ++k) {
        for (int j = 0; j < ny; ++j) {
            for (int i = 0; i < nx; ++i) {
                const double c = at(i, j, k);
                double s = 0.0;
                s += c - (i > 0 ? at(i - 1, j, k) : 0.0);
                s += c - (i + 1 < nx ? at(i + 1, j, k) : 0.0);
                s += c - (j > 0 ? at(i, j - 1, k) : c);
                s += c - (j + 1 < ny ? at(i, j + 1, k) : c);
                s += c - (k > 0 ? at(i, j, k - 1) : c);
                s += c - (k + 1 < nz ? at(i, j, k + 1) : c);
                y[(static_cast<std::size_t>(k) * ny + j) * nx + i] = s;
            }
        }
    }
    return y;
}

TEST(Poisson3d, MatrixIsTheLaplacianWithDirichletXAndNeumannYZ) {
    std::mt19937 rng(freshSeed());
    for (int trial = 0; trial < 3; ++trial) {
        const int nx = std::uniform_int_distribution<int>(2, 9)(rng);
        const int ny = std::uniform_int_distribution<int>(2, 9)(rng);
        const int nz = std::uniform_int_distribution<int>(2, 9)(rng);
        const cg::BandedOperator a = poisson3d(nx, ny, nz);
        const std::vector<float> x = randomVector(a.size(), rng);
        const std::vector<double> expect = laplacianByDefinition(x, nx, ny, nz);
        std::vector<double> xd(x.begin(), x.end());
        std::vector<double> got(x.size());
        a.applyReference(xd, got);
        for (std::size_t i = 0; i < x.size(); ++i) {
            // Both in double from the same float inputs: small integer coefficients, at most
            // 13 terms of magnitude <= 6, so 1e-12 allows only summation-order rounding.
            ASSERT_NEAR(got[i], expect[i], 1e-12) << nx << "x" << ny << "x" << nz << " i " << i;
        }
    }
}

// One float sweep against the same sweep in double from the same start. Row i's rounding
// (7 terms, a division) is at most 9 u (|b_i| + sum_j |a_ij x_j|) / a_ii; rows updated earlier
// in the sweep carry their error e_j in with weight |a_ij| / a_ii. The bound e_i below is that
// recursion (first order in u), computed along the sweep; a factor 2 covers second-order terms.
TEST(Poisson3d, GaussSeidelSweepMatchesADoubleSweepWithinItsErrorBound) {
    std::mt19937 rng(freshSeed());
    const int nx = std::uniform_int_distribution<int>(3, 12)(rng);
    const int ny = std::uniform_int_distribution<int>(3, 12)(rng);
    const int nz = std::uniform_int_distribution<int>(3, 12)(rng);
    const cg::BandedOperator a = poisson3d(nx, ny, nz);
    const std::size_t n = a.size();
    const std::vector<float> b = randomVector(n, rng);
    std::vector<float> x = randomVector(n, rng);
    std::vector<double> xd(x.begin(), x.end());
    std::vector<double> bound(n, 0.0);
    const std::vector<int>& off = a.offsets();
    const int dBand = a.diagonalBand();
    for (std::size_t i = 0; i < n; ++i) {
        double s = b[i];
        double mag = std::abs(double(b[i]));
        double carried = 0.0;
        for (std::size_t d = 0; d < off.size(); ++d) {
            const long j = static_cast<long>(i) + off[d];
            if (static_cast<int>(d) == dBand || j < 0 || j >= static_cast<long>(n)) {
                continue;
            }
            const double aij = a.band(d)[i];
            s -= aij * xd[static_cast<std::size_t>(j)];
            mag += std::abs(aij * xd[static_cast<std::size_t>(j)]);
            if (j < static_cast<long>(i)) {
                carried += std::abs(aij) * bound[static_cast<std::size_t>(j)];
            }
        }
        const double aii = a.band(static_cast<std::size_t>(dBand))[i];
        xd[i] = s / aii;
        bound[i] = (9.0 * kU * mag + carried) / aii;
    }
    gaussSeidelSweep(a, b, x);
    for (std::size_t i = 0; i < n; ++i) {
        ASSERT_NEAR(x[i], xd[i], 2.0 * bound[i] + kU * std::abs(xd[i])) << "i " << i;
    }
}

TEST(Poisson3d, RelativeResidualOfZeroIsOneAndOfAnExactProductIsTiny) {
    std::mt19937 rng(freshSeed());
    const cg::BandedOperator a = poisson3d(5, 6, 7);
    const std::vector<float> b = randomVector(a.size(), rng);
    EXPECT_NEAR(relativeResidual(a, b, std::vector<float>(a.size(), 0.0f)), 1.0, 1e-15);
    // b' = A x in float for random x: the residual is the float rounding of A x, at most
    // 7 u (6 + 6) |x|_max per entry against a ||b'|| of order one: below 1e-5.
    const std::vector<float> x = randomVector(a.size(), rng);
    std::vector<float> ax(a.size());
    a.apply(*test::executor(), x, ax);
    const double r = relativeResidual(a, ax, x);
    EXPECT_LT(r, 1e-5);
    EXPECT_GE(r, 0.0);
}

// A fake iteration whose residual halves every sweep (0.5^s after s sweeps): the first sweep
// meeting tolerance t is ceil(log2(1/t)), rounded up to the next check.
TEST(Poisson3d, SweepToTolerancesRecordsTheFirstCheckedSweepMeetingEachTolerance) {
    std::mt19937 rng(freshSeed());
    const int checkEvery = std::uniform_int_distribution<int>(1, 5)(rng);
    const std::vector<double> tolerances = {1e-1, 1e-2, 1e-3};
    int sweeps = 0;
    const std::vector<Crossing> c = sweepToTolerances(
        [&] { ++sweeps; }, [&] { return std::pow(0.5, sweeps); }, tolerances, checkEvery, 1000);
    ASSERT_EQ(c.size(), 3u);
    const int first[3] = {4, 7, 10};  // 0.5^4 = 0.0625, 0.5^7 = 0.0078, 0.5^10 = 0.00098
    for (int k = 0; k < 3; ++k) {
        const int expect = (first[k] + checkEvery - 1) / checkEvery * checkEvery;
        EXPECT_EQ(c[k].iterations, expect) << "checkEvery " << checkEvery << " tol " << k;
        EXPECT_GE(c[k].ms, 0.0);
    }
    EXPECT_EQ(sweeps, c[2].iterations);  // stops once the last tolerance is met

    // A cap below the last crossing leaves it unreached (0 iterations).
    sweeps = 0;
    const std::vector<Crossing> capped = sweepToTolerances(
        [&] { ++sweeps; }, [&] { return std::pow(0.5, sweeps); }, tolerances, 1, 8);
    EXPECT_EQ(capped[0].iterations, 4);
    EXPECT_EQ(capped[1].iterations, 7);
    EXPECT_EQ(capped[2].iterations, 0);
    EXPECT_EQ(sweeps, 8);
}

}  // namespace
}  // namespace ww::bench
