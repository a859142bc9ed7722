// The scene adapters' step records: what the panel plots and the trace records.
#include <gtest/gtest.h>

#include <cmath>

#include "app/cli/scene_registry.h"

namespace ww {
namespace {

TEST(SceneRecords, WaterCarriesTheLastCgHistory) {
    app::SceneOptionValues v;
    v.grid = "48x48";
    auto settings = app::makeWaterSettings(v, 5);
    ASSERT_TRUE(settings.ok());
    settings->wave.cg.recordHistory = true;
    auto scene = app::WaterScene::create(std::move(settings).value());
    ASSERT_TRUE(scene.ok()) << scene.error().message;
    app::StepRecord rec;
    (*scene)->step(rec);
    const double iterations = rec.values[0].second;
    ASSERT_EQ(rec.values[0].first, "iterations");
    ASSERT_GT(iterations, 0);
    // CG's history: the residual before the first iteration, then one per iteration; the
    // last entry is the residual the step reports.
    ASSERT_EQ(rec.residualHistory.size(), static_cast<std::size_t>(iterations) + 1);
    EXPECT_FLOAT_EQ(rec.residualHistory.back(), static_cast<float>(rec.values[1].second));
    EXPECT_LT(rec.residualHistory.back(), rec.residualHistory.front());
}

TEST(SceneRecords, WallCarriesTheLargestBlocksLcpHistoryOnlyWhenAsked) {
    app::SceneOptionValues v;
    v.wall = "4x3";
    auto settings = app::makeWallSettings(v);
    ASSERT_TRUE(settings.ok());
    app::WallScene quiet(*settings);
    app::StepRecord rec;
    quiet.step(rec);
    EXPECT_TRUE(rec.residualHistory.empty());

    settings->world.lcp.recordHistory = true;
    // From zero impulses (the resting-load guess would start at the exact static solution of
    // this wall, whose residual is already 0).
    settings->world.restingLoadGuess = false;
    app::WallScene recorded(*settings);
    recorded.step(rec);
    ASSERT_FALSE(rec.residualHistory.empty());
    for (float r : rec.residualHistory) {
        EXPECT_TRUE(std::isfinite(r));
        EXPECT_GE(r, 0.0f);
    }
    // Projected Jacobi from the cold start converges: the last residual is below the first.
    EXPECT_LT(rec.residualHistory.back(), rec.residualHistory.front());
}

}  // namespace
}  // namespace ww
