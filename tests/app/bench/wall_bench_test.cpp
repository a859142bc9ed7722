// The paper wall's frictionless LCP (app/bench/wall_bench.h): the normal rows and columns of a
// block assembled with friction 0 are the LCP Moravanszky poses, checked by solving them with
// a double-precision pivoting solver and putting the solution into the full block.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "app/bench/wall_bench.h"
#include "solver/lcp/lcp_reference.h"
#include "solver/rigid/scenes.h"
#include "support/executor.h"
#include "support/seed.h"

namespace ww::rigid {
namespace {

// A jittered 3x3 wall of random brick masses whose columns touch (side contacts too), with
// friction 0 and a small cfm, posed as one dense block with three rows per contact (friction rows
// bounded by
// +-0 x_n). The normal-only problem is solved by Lemke in double; extended by zeros on the
// friction rows it must solve the world's block: the block's natural-map residual (which
// applies the friction bounds) is then float rounding of x and A x, ~1e-7 of the impulses'
// scale; 1e-5 of the largest |b| (N s) leaves a wide margin. Entries of A or b taken from the
// wrong rows make it O(|b|) (or leave A indefinite, and Lemke finds no solution).
TEST(PaperWall, NormalOnlyProblemSolvesTheFrictionlessBlock) {
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mass(0.5f, 2.0f);
    WallParams wall;
    wall.cols = 3;
    wall.rows = 3;
    wall.columnGapM = 0.0f;
    wall.jitterM = 0.01f;
    wall.seed = seed;
    wall.brickMassKg = mass(rng);
    WorldParams params;
    params.mode = LcpMode::kDense;
    params.friction = 0.0f;
    // 4 coplanar points per face make J M^-1 J^T singular, and Lemke then may stop on a ray or
    // return huge impulses that cancel (float rounding of them is not small): a compliance of
    // 1e-3 s/kg on the diagonal makes A definite, so the solution is unique and bounded.
    params.cfm = 1.0e-3f;
    World w = makeWallWorld(test::executor(), wall, params);
    (void)w.step();
    ASSERT_EQ(w.lcpBlocks().size(), 1u);
    const lcp::LcpProblem& full = w.lcpBlocks()[0];
    ASSERT_TRUE(full.hasFriction());

    const lcp::LcpProblem normal = paperNormalOnlyProblem(full);
    ASSERT_EQ(normal.n * 3, full.n) << "seed " << seed;
    ASSERT_FALSE(normal.hasFriction());
    const auto xNormal = lcp::reference::solveBounded(normal);
    ASSERT_TRUE(xNormal.has_value()) << "seed " << seed;

    std::vector<float> x(static_cast<std::size_t>(full.n), 0.0f);
    double xMax = 0.0;
    for (int i = 0, r = 0; i < full.n; ++i) {
        if (full.frictionNormal[static_cast<std::size_t>(i)] < 0) {
            x[static_cast<std::size_t>(i)] =
                static_cast<float>((*xNormal)[static_cast<std::size_t>(r++)]);
            xMax = std::max(xMax, double(x[static_cast<std::size_t>(i)]));
        }
    }
    ASSERT_GT(xMax, 0.0) << "the wall must press on its contacts; seed " << seed;
    double scale = 0.0;
    for (float b : full.b) {
        scale = std::max(scale, std::fabs(double(b)));
    }
    EXPECT_LT(lcp::naturalResidual(full, x), 1e-5 * scale) << "seed " << seed;
}

}  // namespace
}  // namespace ww::rigid
