// lambda_max(D^-1 A) of a matrix-free operator by Lanczos (lanczos.h), against Eigen's dense
// eigenvalues of D^-1/2 A D^-1/2 in double and a closed form.
#include <gtest/gtest.h>

#include <cmath>
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
// 1e-4 relative). After 60 steps it is within 2 % of the exact value (fresh seeds gave
// 0.999-1.0), and after the world's 12 steps the omega it sets keeps omega lambda_max < 2.
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
// caller alone and on three threads (an operator of 3000 rows, above the parallel threshold).
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

}  // namespace
}  // namespace ww::lcp
