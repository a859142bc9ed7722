// The double-precision reference solvers agree with each other and satisfy the LCP
// conditions; they are the ground truth of the iterative solvers' tests.
#include <gtest/gtest.h>

#include "lcp_generators.h"
#include "solver/lcp/lcp_reference.h"

namespace ww::lcp {
namespace {

// Checks z >= 0, w = M z + q >= 0, z_i w_i = 0 within tol (scaled by the data).
void expectComplementary(int n, const std::vector<double>& m, const std::vector<double>& q,
                         const std::vector<double>& z, double tol, const std::string& what) {
    const auto un = static_cast<std::size_t>(n);
    for (std::size_t i = 0; i < un; ++i) {
        double w = q[i];
        for (std::size_t j = 0; j < un; ++j) {
            w += m[i * un + j] * z[j];
        }
        EXPECT_GE(z[i], -tol) << what << " row " << i;
        EXPECT_GE(w, -tol) << what << " row " << i;
        EXPECT_LE(std::min(std::abs(z[i]), std::abs(w)), tol) << what << " row " << i;
    }
}

void lemkeAgreesWithEnumeration(unsigned seed) {
    std::mt19937 rng(seed);
    for (int n = 1; n <= 9; ++n) {
        const bool contact = (rng() & 1u) != 0;
        const auto p = contact ? test::contactProblem(n, seed + static_cast<unsigned>(n), false)
                               : test::spdProblem(n, seed + static_cast<unsigned>(n));
        const auto m = test::toDoubleMatrix(p);
        const auto q = test::toDoubleB(p);
        const std::string what = "seed " + std::to_string(seed) + " n " + std::to_string(n);
        auto zl = reference::lemke(n, m, q);
        auto ze = reference::enumerate(n, m, q);
        ASSERT_TRUE(zl.has_value()) << what;
        ASSERT_TRUE(ze.has_value()) << what;
        // Both are exact up to double rounding of O(n) pivots on data of size O(1);
        // the solution of an SPD LCP is unique, so they must coincide.
        for (int i = 0; i < n; ++i) {
            EXPECT_NEAR((*zl)[static_cast<std::size_t>(i)], (*ze)[static_cast<std::size_t>(i)],
                        1e-8)
                << what;
        }
        expectComplementary(n, m, q, *zl, 1e-9, what);
    }
}

TEST(LcpReference, LemkeAgreesWithEnumerationFixedSeeds) {
    for (unsigned seed : {1u, 2u, 3u, 42u}) {
        lemkeAgreesWithEnumeration(seed);
    }
}

TEST(LcpReference, LemkeAgreesWithEnumerationFreshSeed) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    lemkeAgreesWithEnumeration(seed);
}

TEST(LcpReference, LemkeSolvesLargerProblems) {
    for (int n : {50, 200}) {
        const auto p = test::spdProblem(n, 7u);
        const auto m = test::toDoubleMatrix(p);
        const auto q = test::toDoubleB(p);
        auto z = reference::lemke(n, m, q);
        ASSERT_TRUE(z.has_value());
        expectComplementary(n, m, q, *z, 1e-8, "n " + std::to_string(n));
    }
}

TEST(LcpReference, TrivialAndInfeasibleCases) {
    // q >= 0: z = 0 is the solution.
    auto z = reference::lemke(2, {2, 0, 0, 2}, {1, 3});
    ASSERT_TRUE(z.has_value());
    EXPECT_EQ((*z)[0], 0.0);
    // M = -1, q = -1: w = -z - 1 < 0 for every z >= 0, no solution (ray termination).
    EXPECT_FALSE(reference::lemke(1, {-1}, {-1}).has_value());
    EXPECT_FALSE(reference::enumerate(1, {-1}, {-1}).has_value());
}

TEST(LcpReference, BoundedMatchesClosedFormOneRow) {
    // a x + b with a = 2, b = -10, box [0, 3]: unconstrained x = 5, clamped to 3.
    auto p = LcpProblem::plain(1);
    p.a = {2};
    p.b = {-10};
    p.hi = {3};
    auto x = reference::solveBounded(p);
    ASSERT_TRUE(x.has_value());
    EXPECT_NEAR((*x)[0], 3.0, 1e-12);
    p.b = {-4};  // interior: x = 2
    x = reference::solveBounded(p);
    ASSERT_TRUE(x.has_value());
    EXPECT_NEAR((*x)[0], 2.0, 1e-12);
    p.lo = {-1};
    p.b = {6};  // unconstrained x = -3, clamped to -1
    x = reference::solveBounded(p);
    ASSERT_TRUE(x.has_value());
    EXPECT_NEAR((*x)[0], -1.0, 1e-12);
}

}  // namespace
}  // namespace ww::lcp
