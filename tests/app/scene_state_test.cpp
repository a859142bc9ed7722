// Saved scene states (the demo's history): restoring a state and stepping repeats the saved
// run bit for bit (equal state hashes after the same steps), for the collapsing wall (a shot,
// a removed brick, friction, sleeping) and the water (rain, whose random state is part of the
// state, and drops), at fresh random points of fresh runs; a state of one scene is refused
// by the other, and a water state by a pool of another grid.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "app/cli/scene_factory.h"
#include "app/scenes/scene_event.h"

namespace ww::app {
namespace {

SceneEvent event(int step, const std::string& action, std::vector<std::string> args = {}) {
    SceneEvent e;
    e.step = step;
    e.action = action;
    e.args = std::move(args);
    return e;
}

// Steps `scene` n times.
void run(SimScene& scene, int n) {
    StepRecord rec;
    for (int i = 0; i < n; ++i) {
        scene.step(rec);
    }
}

// Saves after `before` steps, takes `after` more (hash A), restores, takes them again (hash
// B == A), restores once more after wandering further (hash C == A).
void expectRepeatsBitForBit(SimScene& scene, int before, int after) {
    run(scene, before);
    const auto saved = scene.saveState();
    ASSERT_TRUE(saved);
    EXPECT_GT(saved->bytes(), 0u);
    const std::string atSave = scene.stateHash();
    run(scene, after);
    const std::string a = scene.stateHash();
    ASSERT_NE(a, atSave) << "the run must move for the check to mean anything";
    ASSERT_TRUE(scene.restoreState(*saved));
    EXPECT_EQ(scene.stateHash(), atSave);
    run(scene, after);
    EXPECT_EQ(scene.stateHash(), a)
        << "restored after " << before << " steps, " << after << " more";
    run(scene, 17);
    ASSERT_TRUE(scene.restoreState(*saved));
    run(scene, after);
    EXPECT_EQ(scene.stateHash(), a);
}

TEST(SceneState, WallRepeatsBitForBitFromARestoredState) {
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    SceneOptionValues v;
    v.wall = "6x4";
    auto settings = makeWallSettings(v);
    ASSERT_TRUE(settings.ok());
    WallScene scene(*settings);
    ASSERT_TRUE(scene.applyEvent(event(0, "shoot")));
    run(scene, std::uniform_int_distribution<int>(1, 20)(rng));
    ASSERT_TRUE(scene.applyEvent(event(0, "remove", {"2", "1"})));
    expectRepeatsBitForBit(scene, std::uniform_int_distribution<int>(5, 40)(rng),
                           std::uniform_int_distribution<int>(10, 40)(rng));
}

TEST(SceneState, WaterRepeatsBitForBitIncludingTheRain) {
    const unsigned seed = std::random_device{}();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    SceneOptionValues v;
    v.grid = "40x40";
    auto settings = makeWaterSettings(v, seed);
    ASSERT_TRUE(settings.ok());
    auto scene = WaterScene::create(std::move(settings).value());
    ASSERT_TRUE(scene.ok()) << scene.error().message;
    ASSERT_TRUE((*scene)->applyEvent(event(0, "rain", {"on", "40"})));
    ASSERT_TRUE((*scene)->applyEvent(event(0, "drop", {"0.3", "0.6"})));
    expectRepeatsBitForBit(**scene, std::uniform_int_distribution<int>(3, 30)(rng),
                           std::uniform_int_distribution<int>(10, 30)(rng));
}

TEST(SceneState, AStateIsRestoredOnlyWhereItFits) {
    SceneOptionValues v;
    v.wall = "3x2";
    auto wallSettings = makeWallSettings(v);
    ASSERT_TRUE(wallSettings.ok());
    WallScene wall(*wallSettings);
    v.grid = "24x24";
    auto water = WaterScene::create(*makeWaterSettings(v, 1));
    ASSERT_TRUE(water.ok());
    const auto wallState = wall.saveState();
    const auto waterState = (*water)->saveState();
    const Status intoWater = (*water)->restoreState(*wallState);
    ASSERT_FALSE(intoWater.ok());
    EXPECT_NE(intoWater.error().message.find("not saved by a water scene"), std::string::npos)
        << intoWater.error().message;
    EXPECT_FALSE(wall.restoreState(*waterState).ok());

    v.grid = "32x24";
    auto other = WaterScene::create(*makeWaterSettings(v, 1));
    ASSERT_TRUE(other.ok());
    const std::string before = (*other)->stateHash();
    const Status s = (*other)->restoreState(*waterState);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("grid"), std::string::npos) << s.error().message;
    EXPECT_EQ((*other)->stateHash(), before) << "a refused state changes nothing";
}

}  // namespace
}  // namespace ww::app
