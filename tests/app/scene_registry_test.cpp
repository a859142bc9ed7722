// The scene registry (app/cli/scene_registry.h): every row builds its scene, wraps it in its
// panel adapter, and its preview events are valid for it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "app/cli/demo_config.h"
#include "app/cli/scene_registry.h"
#include "app/scenes/wall/wall_demo_scene.h"
#include "app/scenes/wall/wall_options.h"
#include "app/small_scenes.h"

namespace ww::app {
namespace {

using test::smallScenes;

TEST(SceneRegistry, EveryEntryBuildsTheSceneItNamesAndHasADemoAdapter) {
    std::set<std::string> names;
    for (const SceneEntry& e : sceneRegistry()) {
        EXPECT_TRUE(names.insert(e.name).second) << "twice: " << e.name;
        Result<std::unique_ptr<SimScene>> scene = makeScene(e.name, smallScenes(), 3);
        ASSERT_TRUE(scene.ok()) << e.name << ": " << scene.error().message;
        EXPECT_EQ(std::string((*scene)->name()), e.name);
        // The row's adapter takes the scene the row builds.
        ASSERT_NE(e.wrap, nullptr) << e.name;
        Result<std::unique_ptr<SimScene>> again = makeScene(e.name, smallScenes(), 3);
        ASSERT_TRUE(again.ok()) << again.error().message;
        Result<std::unique_ptr<demo::DemoScene>> shown = e.wrap(std::move(again).value(), {});
        ASSERT_TRUE(shown.ok()) << e.name << ": " << shown.error().message;
        EXPECT_EQ(std::string((*shown)->name()), e.name);
        // The preview events are valid for the scene they are run on.
        Result<EventScript> preview = EventScript::parse(e.previewEvents);
        ASSERT_TRUE(preview.ok()) << preview.error().message;
        EXPECT_TRUE(preview->validate(**scene).ok()) << e.name;
    }
}

TEST(SceneRegistry, AnUnknownSceneIsAnInputErrorListingTheScenes) {
    Result<std::unique_ptr<SimScene>> r = makeScene("lava", smallScenes(), 1);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::kInput);
    for (const std::string& name : sceneNames()) {
        EXPECT_NE(r.error().message.find(name), std::string::npos) << r.error().message;
    }
}

// The demo's scene list is the registry's, in its order, and the scene asked for is shown.
TEST(SceneRegistry, TheDemoListsTheRegisteredScenesInOrder) {
    DemoSceneInputs in;
    in.values = smallScenes();
    in.backend = "cpu";
    for (const std::string& shown : sceneNames()) {
        in.scene = shown;
        Result<demo::SceneSet> set = makeDemoScenes(in, nullptr);
        ASSERT_TRUE(set.ok()) << set.error().message;
        ASSERT_EQ(set->scenes.size(), sceneRegistry().size());
        for (std::size_t i = 0; i < set->scenes.size(); ++i) {
            EXPECT_EQ(std::string(set->scenes[i]->name()), sceneRegistry()[i].name);
        }
        EXPECT_EQ(set->scenes[static_cast<std::size_t>(set->current)]->name(), shown);
    }
}

// The demo's wall adapter applies a scripted reset through the same EventScript: after a shot
// and a reset at step 10, ten more steps leave the state of a fresh wall run ten steps.
TEST(SceneRegistry, TheWallAdapterAppliesAScriptedReset) {
    Result<WallSceneSettings> settings = makeWallSettings(smallScenes());
    ASSERT_TRUE(settings.ok()) << settings.error().message;
    WallDemoScene scripted(*settings, nullptr);
    scripted.setSolveBudgetMs(0.0f);  // iterations must not follow the clock
    scripted.setScript(*EventScript::parse({"3:shoot", "10:reset"}));
    WallDemoScene fresh(*settings, nullptr);
    fresh.setSolveBudgetMs(0.0f);
    for (int i = 0; i < 20; ++i) {
        scripted.step();
    }
    for (int i = 0; i < 10; ++i) {
        fresh.step();
    }
    EXPECT_EQ(scripted.stateHash(), fresh.stateHash());
}

}  // namespace
}  // namespace ww::app
