// lambda_max(D^-1 A) of a matrix-free operator by Lanczos (lanczos.h), against Eigen's dense
// eigenvalues of D^-1/2 A D^-1/2 in double and a closed form.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "lcp_generators.h"
#include "row_operator_generators.h"
#include "solver/exec/executor.h"
#include "solver/lcp/lanczos.h"
#include "support/executor.h"

namespace ww::lcp {
namespace {

using test::freshSeed;

// T = tridiag(-1, 2, -1) of size k: eigenvalues 2 - 2 cos(j pi / (k + 1)), the largest
// 2 + 2 cos(pi / (k + 1)); bisection to 1e-12 of the bound.
TEST(Lanczos, TridiagonalEigenvalueClosedForm) {
    for (int k : {1, 2, 7, 30}) {
        const std::vector<double> alpha(static_cast<std::size_t>(k), 2.0);
        const std::vector<double> beta(static_cast<std::size_t>(k - 1), -1.0);
        const double exact = 2.0 + 2.0 * std::cos(std::numbers::pi / (k + 1));
        EXPECT_NEAR(largestTridiagonalEigenvalue(alpha, beta), exact, 1e-10) << "k " << k;
    }
    EXPECT_EQ(largestTridiagonalEigenvalue({}, {}), 0.0);
}

// Random contact operators (bodies of random mass and inertia, contacts with and without
// friction, some against the static world, some naming one body twice; row_operator_generators.h)
// on fresh seeds. The Ritz value of k steps is the largest eigenvalue of the leading k x k
// block of the same tridiagonal, so it does not decrease with k (Cauchy interlacing; the
// bisection's 1e-12 aside) and never exceeds lambda_max (float rounding of the products:
// 1e-4 relative). After 60 steps it is within 2 % of the exact value, and after the world's
// 12 steps the omega it sets keeps omega lambda_max < 2. The shapes with cfm take the row-space
// steps, the third (no cfm) the body-space ones.
TEST(Lanczos, RitzValuesRiseTowardLambdaMaxFromBelow) {
    const unsigned seed = freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    int shape = 0;
    for (const test::RowOperatorShape& s :
         {test::RowOperatorShape{40, true}, test::RowOperatorShape{120, true, 0.6f, true},
          test::RowOperatorShape{90, false, 0.6f, false, 0.0f}}) {
        SCOPED_TRACE("shape " + std::to_string(shape));
        const LcpProblem p = test::rowOperatorProblem(s, seed + static_cast<unsigned>(shape++));
        const double exact = test::spectrum(test::densified(p)).maxScaled;
        LanczosScratch scratch;
        double previous = 0.0;
        for (int k : {1, 2, 3, 5, 8, 12, 20, 60}) {
            const double estimate = lanczosLambdaMax(p.op, k, scratch);
            EXPECT_LE(estimate, exact * (1 + 1e-4)) << k << " steps";
            EXPECT_GE(estimate, previous * (1 - 1e-9)) << k << " steps";
            previous = estimate;
        }
        EXPECT_NEAR(previous, exact, 0.02 * exact);
        const double twelve = lanczosLambdaMax(p.op, 12, scratch);
        EXPECT_LT(0.85 * 2.0 / (1.03 * twelve) * exact, 2.0) << "12 steps: " << twelve;
    }
}

// The steps run in fixed chunks with sums combined in chunk order: the same bits on the
// caller alone and on three threads (an operator of 3000 rows, above the parallel threshold;
// with cfm: the row-space steps).
TEST(Lanczos, ResultDoesNotDependOnTheThreadCount) {
    const unsigned seed = freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const LcpProblem p = test::rowOperatorProblem(test::RowOperatorShape{1000, true}, seed);
    LanczosScratch a, b;
    const exec::Executor one(1);
    const float alone = lanczosLambdaMax(p.op, 12, a, &one);
    const float threaded = lanczosLambdaMax(p.op, 12, b, test::executor().get());
    EXPECT_GT(alone, 0.0f);
    EXPECT_EQ(alone, threaded);
    EXPECT_EQ(alone, lanczosLambdaMax(p.op, 12, a, nullptr));
}

// The top eigenvector of tridiag(-1, 2, -1) of size k: component i (from 1) is
// (-1)^(i+1) sin(i pi / (k + 1)), normalised; the inverse iteration matches it up to sign.
TEST(Lanczos, TridiagonalTopEigenvectorClosedForm) {
    for (int k : {1, 2, 7, 12}) {
        const std::vector<double> alpha(static_cast<std::size_t>(k), 2.0);
        const std::vector<double> beta(static_cast<std::size_t>(k - 1), -1.0);
        const double theta = largestTridiagonalEigenvalue(alpha, beta);
        const std::vector<double> z = tridiagonalTopEigenvector(alpha, beta, theta);
        ASSERT_EQ(z.size(), static_cast<std::size_t>(k));
        std::vector<double> exact(static_cast<std::size_t>(k));
        double norm = 0.0;
        for (int i = 1; i <= k; ++i) {
            exact[static_cast<std::size_t>(i - 1)] =
                (i % 2 == 1 ? 1.0 : -1.0) * std::sin(i * std::numbers::pi / (k + 1));
            norm += exact[static_cast<std::size_t>(i - 1)] * exact[static_cast<std::size_t>(i - 1)];
        }
        const double sign = z[0] * exact[0] >= 0.0 ? 1.0 : -1.0;
        for (std::size_t i = 0; i < z.size(); ++i) {
            EXPECT_NEAR(sign * z[i], exact[i] / std::sqrt(norm), 1e-9) << "k " << k << " i " << i;
        }
    }
}

// The Ritz vector (LanczosOptions::ritzVector) of the returned value y has its Rayleigh
// quotient (J y)^T D^-1 (J y) / y^T M y, in double through J and the masses, equal to the value
// (the shape without cfm: 1e-4 relative), and unit M norm. Started from it, the estimate on the
// same operator (stopping once a step raises it by 0.2 % or less, after 4 steps) ends within
// 0.5 % below the cold 12-step value it came from or above it, never above lambda_max; a given
// start of zero norm is the hash start, bit for bit.
TEST(Lanczos, RitzVectorIsAnEigenvectorEstimateAndAWarmStart) {
    const unsigned seed = freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const LcpProblem p =
        test::rowOperatorProblem(test::RowOperatorShape{150, true, 0.6f, false, 0.0f, false}, seed);
    const double exact = test::spectrum(test::densified(p)).maxScaled;
    LanczosScratch s;
    LanczosOptions cold;
    cold.ritzVector = true;
    const LanczosResult c = lanczosLambdaMax(p.op, cold, s);
    EXPECT_EQ(c.steps, 12);
    const std::vector<float> y = s.ritz;
    ASSERT_EQ(y.size(), 6 * static_cast<std::size_t>(p.op.bodies()));
    double num = 0.0, den = 0.0;
    for (int i = 0; i < p.op.rows(); ++i) {
        double jy = 0.0;
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = p.op.body(i, side);
            for (int k = 0; b >= 0 && k < 6; ++k) {
                jy +=
                    static_cast<double>(p.op.jacobian(i)[6 * static_cast<std::size_t>(side) + k]) *
                    y[6 * static_cast<std::size_t>(b) + k];
            }
        }
        num += jy * jy / p.op.computeDiagonal(i);
    }
    for (int b = 0; b < p.op.bodies(); ++b) {
        const float* m = p.op.bodyMass(b).data();
        const float* v = y.data() + 6 * static_cast<std::size_t>(b);
        const double inertia[3][3] = {{m[1], m[2], m[3]}, {m[2], m[4], m[5]}, {m[3], m[5], m[6]}};
        den += m[0] * (double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]);
        for (int r = 0; r < 3; ++r) {
            for (int q = 0; q < 3; ++q) {
                den += double(v[3 + r]) * inertia[r][q] * v[3 + q];
            }
        }
    }
    EXPECT_NEAR(den, 1.0, 1e-5);
    EXPECT_NEAR(num / den, c.lambda, 1e-4 * c.lambda);

    LanczosOptions warm;
    warm.minSteps = 4;
    warm.stopRise = 0.002;
    warm.start = y;
    const LanczosResult w = lanczosLambdaMax(p.op, warm, s);
    EXPECT_GE(w.steps, 4);
    EXPECT_LE(w.steps, 12);
    EXPECT_GE(w.lambda, c.lambda * (1 - 5e-3));
    EXPECT_LE(w.lambda, exact * (1 + 1e-4));

    const std::vector<float> zero(y.size(), 0.0f);
    LanczosOptions none;
    none.start = zero;
    EXPECT_EQ(lanczosLambdaMax(p.op, none, s).lambda, lanczosLambdaMax(p.op, 12, s));
}

// A warm-started body-space estimate with its Ritz vector: the same bits on the caller alone
// and on three threads (fixed chunks, sums in chunk order).
TEST(Lanczos, WarmStartDoesNotDependOnTheThreadCount) {
    const unsigned seed = freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    const LcpProblem p = test::rowOperatorProblem(
        test::RowOperatorShape{1000, true, 0.6f, false, 0.0f, false}, seed);
    const exec::Executor one(1);
    LanczosScratch a, b;
    LanczosOptions o;
    o.ritzVector = true;
    lanczosLambdaMax(p.op, o, a, &one);
    const std::vector<float> start = a.ritz;
    ASSERT_EQ(start.size(), 6 * static_cast<std::size_t>(p.op.bodies()));
    o.start = start;
    o.minSteps = 4;
    o.stopRise = 0.002;
    const LanczosResult alone = lanczosLambdaMax(p.op, o, a, &one);
    const LanczosResult threaded = lanczosLambdaMax(p.op, o, b, test::executor().get());
    EXPECT_EQ(alone.lambda, threaded.lambda);
    EXPECT_EQ(alone.steps, threaded.steps);
    EXPECT_EQ(a.ritz, b.ritz);
}

// Without masses (RowOperator::bodyMass empty) the steps run in row space: 60 of them within
// 2 % of lambda_max from below, as in body space, and no Ritz vector.
TEST(Lanczos, WithoutMassesTheStepsRunInRowSpace) {
    const unsigned seed = freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    LcpProblem p =
        test::rowOperatorProblem(test::RowOperatorShape{60, true, 0.6f, false, 0.0f, false}, seed);
    const double exact = test::spectrum(test::densified(p)).maxScaled;
    LanczosScratch s;
    const float withMasses = lanczosLambdaMax(p.op, 60, s);
    p.op.clearBodyMasses();
    LanczosOptions o;
    o.maxSteps = 60;
    o.ritzVector = true;
    const LanczosResult rows = lanczosLambdaMax(p.op, o, s);
    EXPECT_EQ(rows.steps, 60);
    EXPECT_TRUE(s.ritz.empty());
    for (const double estimate :
         {static_cast<double>(withMasses), static_cast<double>(rows.lambda)}) {
        EXPECT_LE(estimate, exact * (1 + 1e-4));
        EXPECT_NEAR(estimate, exact, 0.02 * exact);
    }
}

}  // namespace
}  // namespace ww::lcp
