// The scene adapters' step records: what the panel plots and the trace records.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "app/cli/scene_options.h"
#include "app/cli/scene_registry.h"
#include "app/scenes/splash/splash_options.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/wall/wall_scene.h"
#include "app/scenes/water/water_options.h"
#include "app/scenes/water/water_scene.h"

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
    ASSERT_TRUE(rec.stats.iterations.has_value());
    const double iterations = *rec.stats.iterations;
    ASSERT_GT(iterations, 0);
    // CG's history: the residual before the first iteration, then one per iteration; the
    // last entry is the residual the step reports.
    ASSERT_EQ(rec.residualHistory.size(), static_cast<std::size_t>(iterations) + 1);
    EXPECT_FLOAT_EQ(rec.residualHistory.back(), static_cast<float>(rec.stats.residual.value()));
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

namespace ww {
namespace {

// The typed record lists its statistics by name in the order the CSV columns, the trace's args
// and the summary have always had (docs/cli.md); each scene reports exactly these.
TEST(SceneRecords, TypedStatisticsKeepTheirNamesAndOrder) {
    app::SceneOptionValues v;
    v.wall = "4x3";
    v.grid = "32x32";
    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        {"wall",
         {"collide", "assemble", "solve", "integrate", "n", "n_block_max", "contacts", "islands",
          "iterations", "residual", "penetration", "max_speed", "max_drift", "omega",
          "lambda_max"}},
        {"water",
         {"rhs", "solve", "diagnostics", "iterations", "residual", "true_residual", "energy",
          "drops"}},
        {"splash",
         {"collide", "assemble", "solve", "integrate", "coupling", "water_rhs", "water_solve", "n",
          "contacts", "islands", "lcp_iterations", "lcp_residual", "cg_iterations", "cg_residual",
          "penetration", "max_speed", "submerged_m3", "volume_drift_rel", "level_correction_m"}}};
    for (const auto& [name, names] : expected) {
        auto scene = app::makeScene(name, v, 2);
        ASSERT_TRUE(scene.ok()) << scene.error().message;
        app::StepRecord rec;
        (*scene)->step(rec);
        std::vector<std::string> got;
        app::forEachPhase(rec.phases, [&](const char* n, double) { got.push_back(n); });
        app::forEachStat(rec.stats,
                         [&](const app::StatDescriptor& d, double) { got.push_back(d.name); });
        EXPECT_EQ(got, names) << name;
    }
}

// The water's energy evaluated every k steps (headless without --check) instead of every step:
// the same surface, the statistic on exactly the evaluating steps, and the growth check still
// catching an unstable surface at an evaluation - before the surface overflows to Inf/NaN.
std::unique_ptr<app::WaterScene> water(const std::string& scheme, float dtRatio, int every) {
    app::SceneOptionValues v;
    v.grid = "48x40";
    v.scheme = scheme;
    v.dtRatio = dtRatio;
    auto s = app::makeWaterSettings(v, 3);
    EXPECT_TRUE(s.ok()) << s.error().message;
    s->energyEvery = every;
    auto scene = app::WaterScene::create(std::move(s).value());
    EXPECT_TRUE(scene.ok()) << scene.error().message;
    return std::move(scene).value();
}

TEST(WaterEnergy, SampledEvaluationsMatchEveryStep) {
    const int every = 7;
    auto sampled = water("cn", 2.0f, every);
    auto full = water("cn", 2.0f, 1);
    app::StepRecord a, b;
    for (int step = 0; step < 50; ++step) {
        sampled->step(a);
        full->step(b);
        ASSERT_TRUE(b.stats.energy.has_value());
        ASSERT_EQ(a.stats.energy.has_value(), step % every == 0) << "step " << step;
        if (a.stats.energy) {
            EXPECT_EQ(*a.stats.energy, *b.stats.energy) << "step " << step;
        }
    }
    EXPECT_EQ(sampled->stateHash(), full->stateHash());
    // The summary's final energy is evaluated when read, whatever the sampling.
    EXPECT_EQ(sampled->summary()["energy"]["final"], full->summary()["energy"]["final"]);
}

// A penetration reported in a step whose iterations the work budget cut names the cut and the
// flag that lifts it; without the budget the same report does not. The wall steps once within
// its bound, then the bound is set below any depth so that the next step reports. Fails when
// the hint is dropped, or added whatever the budget did.
TEST(WallChecks, APenetrationUnderTheIterationBudgetNamesItsCut) {
    for (const double budget : {1.0, 0.0}) {
        SCOPED_TRACE(budget);
        app::SceneOptionValues v;
        v.wall = "4x3";
        auto settings = app::makeWallSettings(v);
        ASSERT_TRUE(settings.ok());
        settings->world.iterationBudgetMacs = budget;  // 1: the floor of 10 iterations
        app::WallScene scene(*settings);
        app::StepRecord rec;
        std::vector<std::string> violations;
        scene.step(rec);
        scene.checkInvariants(rec, violations);
        ASSERT_TRUE(violations.empty()) << violations.front();
        scene.settings().maxPenetrationM = -1.0f;
        scene.step(rec);
        scene.checkInvariants(rec, violations);
        ASSERT_EQ(violations.size(), 1u);
        EXPECT_NE(violations.front().find("penetration"), std::string::npos) << violations.front();
        const std::string hint = "held this step to 10 of the " +
                                 std::to_string(settings->world.lcp.maxIterations) +
                                 " iterations asked for: try --iteration-budget 0";
        if (budget > 0.0) {
            EXPECT_NE(violations.front().find(hint), std::string::npos) << violations.front();
        } else {
            EXPECT_EQ(violations.front().find("iteration budget"), std::string::npos)
                << violations.front();
        }
    }
}

TEST(WaterEnergy, GrowthCheckFiresBetweenSampledEvaluations) {
    const int every = 16;
    // The explicit scheme 10 % beyond its stability limit: the energy grows step by step, slowly
    // enough that it stays finite for hundreds of steps.
    auto scene = water("explicit", 1.1f, every);
    app::StepRecord rec;
    std::vector<std::string> violations;
    int firedAt = -1;
    for (int step = 0; step < 2000 && firedAt < 0; ++step) {
        scene->step(rec);
        scene->checkInvariants(rec, violations);
        if (!violations.empty()) {
            firedAt = step;
        }
    }
    ASSERT_GE(firedAt, 0) << "the unstable surface was never reported";
    EXPECT_NE(violations.front().find("energy grew"), std::string::npos) << violations.front();
    EXPECT_EQ(firedAt % every, 0) << "reported between evaluations: " << violations.front();
}

}  // namespace
}  // namespace ww
