// The scene registry (app/cli/scene_registry.h): every row builds its scene, wraps it in its
// panel adapter, and its preview events are valid for it.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>

#include "app/cli/demo_config.h"
#include "app/cli/scene_options.h"
#include "app/cli/scene_registry.h"
#include "app/scenes/splash/splash_demo_scene.h"
#include "app/scenes/wall/wall_demo_scene.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/water/water_demo_scene.h"
#include "app/small_scenes.h"
#include "support/seed.h"

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

// Every scene's own default names a key the scene reads and is a value that key accepts.
TEST(SceneRegistry, SceneDefaultsAreValuesOfTheRowsTheyName) {
    for (const SceneEntry& e : sceneRegistry()) {
        for (const SceneDefault& d : e.defaults) {
            SCOPED_TRACE(std::string(e.name) + " " + d.key);
            const auto row = std::find_if(e.params.begin(), e.params.end(),
                                          [&](const ParamInfo& i) { return i.key == d.key; });
            ASSERT_NE(row, e.params.end());
            SceneOptionValues v;
            ASSERT_TRUE(setParamText(*row, v, d.value).ok());
            EXPECT_TRUE(checkParam(*row, v).ok());
            EXPECT_EQ(paramText(*row, v), d.value);
        }
    }
}

float splashDamping(SimScene& scene) {
    return dynamic_cast<SplashScene&>(scene).settings().splash.wave.damping;
}
float waterDamping(SimScene& scene) {
    return dynamic_cast<WaterScene&>(scene).settings().wave.damping;
}

// --damping is the water's and the splash's, each with its own default (0, lossless; the
// splash's 0.1 /s): where the user gave none each scene takes its own, in headless runs and in
// the demo; a value given (flag or config key, 0 included) holds in both. Exact comparisons:
// the values are copied, never computed.
TEST(SceneRegistry, ASharedKeyTakesEachScenesOwnDefaultUnlessGiven) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    SceneOptionValues v = smallScenes();
    ASSERT_EQ(v.given.count("damping"), 0u);
    auto splash = makeScene("splash", v, 1);
    auto water = makeScene("water", v, 1);
    ASSERT_TRUE(splash.ok() && water.ok());
    EXPECT_EQ(splashDamping(**splash), SplashSceneSettings::kDefaultWaveDampingPerS);
    EXPECT_EQ(waterDamping(**water), 0.0f);

    DemoSceneInputs in;
    in.values = v;
    in.backend = "cpu";
    Result<demo::SceneSet> set = makeDemoScenes(in, nullptr);
    ASSERT_TRUE(set.ok()) << set.error().message;
    for (const auto& shown : set->scenes) {
        if (auto* s = dynamic_cast<SplashDemoScene*>(shown.get()); s != nullptr) {
            EXPECT_EQ(s->scene().settings().splash.wave.damping,
                      SplashSceneSettings::kDefaultWaveDampingPerS);
        } else if (auto* w = dynamic_cast<WaterDemoScene*>(shown.get()); w != nullptr) {
            EXPECT_EQ(w->scene().settings().wave.damping, 0.0f);
        }
    }

    for (const float given : {0.0f, std::uniform_real_distribution<float>(0.2f, 2.0f)(rng)}) {
        SCOPED_TRACE("--damping " + std::to_string(given));
        v.damping = given;
        v.given.insert("damping");
        splash = makeScene("splash", v, 1);
        water = makeScene("water", v, 1);
        ASSERT_TRUE(splash.ok() && water.ok());
        EXPECT_EQ(splashDamping(**splash), given);
        EXPECT_EQ(waterDamping(**water), given);
    }
}

// --iterations is the wall's and the splash's: the splash caps its LCP at its own default (100,
// bricks landing on each other in water) where the user gave none, the wall at the world's
// (50); a count given holds in both.
TEST(SceneRegistry, TheSplashTakesItsOwnIterationCapUnlessGiven) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    SceneOptionValues v = smallScenes();
    ASSERT_EQ(v.given.count("iterations"), 0u);
    auto splash = makeScene("splash", v, 1);
    auto wall = makeScene("wall", v, 1);
    ASSERT_TRUE(splash.ok() && wall.ok());
    const auto splashCap = [](SimScene& s) {
        return dynamic_cast<SplashScene&>(s).settings().splash.world.lcp.maxIterations;
    };
    const auto wallCap = [](SimScene& s) {
        return dynamic_cast<WallScene&>(s).settings().world.lcp.maxIterations;
    };
    EXPECT_EQ(splashCap(**splash), SplashSceneSettings::kDefaultLcpIterations);
    EXPECT_EQ(wallCap(**wall), rigid::WorldParams{}.lcp.maxIterations);
    const int given = std::uniform_int_distribution<int>(10, 90)(rng);
    v.iterations = std::to_string(given);
    v.given.insert("iterations");
    splash = makeScene("splash", v, 1);
    wall = makeScene("wall", v, 1);
    ASSERT_TRUE(splash.ok() && wall.ok());
    EXPECT_EQ(splashCap(**splash), given);
    EXPECT_EQ(wallCap(**wall), given);
}

// --help (and the man page, written from the same table) names the scene's own default.
TEST(SceneRegistry, TheHelpNamesEachScenesOwnDefault) {
    CLI::App app("test");
    OptionTable table(app);
    SceneOptionValues v;
    registerSceneOptions(table, v);
    const std::string help = app.help();
    EXPECT_NE(help.find("the splash scene's default: 0.1"), std::string::npos) << help;
    EXPECT_NE(help.find("the splash scene's default: 100"), std::string::npos) << help;
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
