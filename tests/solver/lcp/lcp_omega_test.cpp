// omega from the matrix (lcp_omega.h): the Rayleigh estimate against Eigen's dense eigenvalues
// and a closed form, the Gershgorin fallback, and Jacobi at the chosen omega.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "lcp_generators.h"
#include "solver/lcp/lcp_omega.h"
#include "support/executor.h"
#include "support/lcp_stall.h"

namespace ww::lcp {
namespace {

using test::freshSeed;

// The D-weighted Rayleigh quotient is a lower bound of lambda_max(D^-1 A) for symmetric A, and
// does not decrease for positive semidefinite A. "Exact" is Eigen's largest eigenvalue of
// D^-1/2 A D^-1/2 (double) from the float matrix, so the only slack is double rounding:
// 1e-9 relative. How fast the quotient approaches depends on the gap between the two largest
// eigenvalues: after 50 iterations fresh seeds gave 0.88-1.0 of the exact value, so closeness is
// checked after 1000 (error ~ (lambda_2 / lambda_1)^2000, negligible unless the two coincide, and
// then the quotient sits on lambda_max anyway): within 2 %.
TEST(LcpOmega, RayleighQuotientsRiseTowardLambdaMaxFromBelow) {
    for (unsigned seed : {5u, freshSeed()}) {
        for (const LcpProblem& p :
             {test::contactProblem(40, seed, true), test::contactProblem(60, seed + 1, false),
              test::spdProblem(80, seed + 2)}) {
            const double exact = test::spectrum(p).maxScaled;
            const std::vector<double> rho = rayleighLambdaMax(p, 50);
            ASSERT_EQ(rho.size(), 50u) << "seed " << seed;
            for (std::size_t k = 0; k < rho.size(); ++k) {
                EXPECT_LE(rho[k], exact * (1 + 1e-9)) << "seed " << seed << " iterate " << k;
                if (k > 0) {
                    EXPECT_GE(rho[k], rho[k - 1] * (1 - 1e-12)) << "seed " << seed << " k " << k;
                }
            }
            EXPECT_GT(rayleighLambdaMax(p, 1000).back(), 0.98 * exact) << "seed " << seed;
        }
    }
}

// A = tridiag(-1, 2, -1): lambda_max(D^-1 A) = 1 + cos(pi / (n + 1)) exactly. The start vector
// is not the top eigenvector, and the gap is small (n = 30: lambda_2 / lambda_1 = 0.99), so
// the quotient approaches slowly but must stay below; 2000 iterations reach 1e-4.
TEST(LcpOmega, TridiagonalClosedForm) {
    const int n = 30;
    LcpProblem p = LcpProblem::plain(n);
    for (int i = 0; i < n; ++i) {
        p.a[static_cast<std::size_t>(i) * n + i] = 2.0f;
        if (i + 1 < n) {
            p.a[static_cast<std::size_t>(i) * n + i + 1] = -1.0f;
            p.a[static_cast<std::size_t>(i + 1) * n + i] = -1.0f;
        }
    }
    const double exact = 1.0 + std::cos(std::numbers::pi / (n + 1));
    const std::vector<double> rho = rayleighLambdaMax(p, 2000);
    for (double r : rho) {
        ASSERT_LE(r, exact * (1 + 1e-9));
    }
    EXPECT_NEAR(rho.back(), exact, 1e-4 * exact);
    EXPECT_DOUBLE_EQ(gershgorinBound(p), 2.0);  // rows 2..n-1: (1 + 2 + 1) / 2
    const OmegaEstimate e = autoOmega(p, LcpMethod::kJacobi);
    EXPECT_TRUE(e.symmetric);
    EXPECT_NEAR(e.omega, kAutoOmegaSafety * 2.0 / std::min(kRayleighMargin * e.rayleigh, 2.0),
                1e-6);
}

// The chosen omega keeps omega * lambda_max < 2 (Jacobi's convergence bound on SPD A) with the
// 0.85 margin largely intact, and projected Jacobi at it converges on contact LCPs with
// friction to 1e-5 within 20 000 iterations (n = 300 here; the 1152-row wall LCPs of
// docs/lcp.md need ~1700).
TEST(LcpOmega, AutoOmegaIsSafeAndJacobiConvergesAtIt) {
    const unsigned seed = freshSeed();
    const LcpProblem p = test::contactProblem(100, seed, true);
    const OmegaEstimate e = autoOmega(p, LcpMethod::kJacobi);
    const double exact = test::spectrum(p).maxScaled;
    EXPECT_TRUE(e.symmetric) << "seed " << seed;
    EXPECT_LT(e.omega * exact, 2.0 * 0.95) << "seed " << seed;
    EXPECT_GT(e.omega * exact, 2.0 * 0.5) << "seed " << seed << ": needlessly small";

    LcpOptions o;
    o.omega = e.omega;
    o.tolerance = 1e-5f;
    o.maxIterations = 20000;
    std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
    const LcpReport r = makeCpuLcpSolver(test::executor())->solve(p, x, o);
    // Converged, or stalled where float stops moving (support/lcp_stall.h; seeds 1837019838
    // and 330781567 stall at 2.3e-5 and 1.5e-5).
    const double floor = test::stallFloor(p, x, o.omega);
    EXPECT_TRUE(r.status == LcpStatus::kConverged || r.residual <= floor)
        << "seed " << seed << " residual " << r.residual << " float floor " << floor;
    EXPECT_LT(naturalResidual(p, x), 1e-4) << "seed " << seed;
}

// A matrix that is not symmetric has no Rayleigh bound: Gershgorin alone sets omega.
TEST(LcpOmega, NonSymmetricMatrixFallsBackToGershgorin) {
    LcpProblem p = test::spdProblem(20, freshSeed());
    p.a[1] += 0.5f;  // A_01 != A_10
    const OmegaEstimate e = autoOmega(p, LcpMethod::kJacobi);
    EXPECT_FALSE(e.symmetric);
    EXPECT_EQ(e.rayleigh, 0.0);
    EXPECT_DOUBLE_EQ(e.lambda, gershgorinBound(p));
    EXPECT_NEAR(e.omega, kAutoOmegaSafety * 2.0 / gershgorinBound(p), 1e-6);
}

TEST(LcpOmega, EachMethodHasItsOwnDefault) {
    EXPECT_EQ(defaultOmega(LcpMethod::kJacobi), kPaperOmega);
    EXPECT_EQ(defaultOmega(LcpMethod::kGaussSeidel), 1.0f);
    EXPECT_EQ(autoOmega(test::spdProblem(10, 3u), LcpMethod::kGaussSeidel).omega, 1.0f);
}

}  // namespace
}  // namespace ww::lcp
