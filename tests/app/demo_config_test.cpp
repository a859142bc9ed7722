// "Save as config" (app/cli/demo_config.h, app/demo/saved_settings.h): live settings of the
// wall, water and splash scenes written as a config file and read back the way `--config`
// reads it give the same settings, field by field, on fresh random settings; a folder that
// cannot be written is an error naming the path, and a second save never replaces the first.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "app/cli/demo_config.h"
#include "app/cli/scene_registry.h"
#include "app/demo/saved_settings.h"
#include "app/scenes/splash/splash_options.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/water/water_options.h"
#include "support/seed.h"

namespace ww::app {
namespace {

namespace fs = std::filesystem;

fs::path freshDir(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() /
                         ("ww_demo_config_" + name + "_" + std::to_string(ww::test::freshSeed()));
    fs::create_directories(dir);
    return dir;
}

// Random option values inside every documented range, drawn as arbitrary floats (not round
// decimals) so that the file's number formatting is exercised.
SceneOptionValues randomValues(std::mt19937& rng) {
    const auto uniform = [&](float lo, float hi) {
        return std::uniform_real_distribution<float>(lo, hi)(rng);
    };
    const auto integer = [&](int lo, int hi) {
        return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    const auto onOff = [&] { return integer(0, 1) == 1 ? std::string("on") : std::string("off"); };
    SceneOptionValues v;
    v.wall = std::to_string(integer(1, 12)) + "x" + std::to_string(integer(1, 8));
    const char* layouts[] = {"wall", "pyramid", "stack", "slide"};
    // Half the draws the wall layout, which the splash scene needs (the others it refuses).
    v.layout = integer(0, 1) == 0 ? layouts[0] : layouts[integer(1, 3)];
    v.slideSpeed = uniform(0.0f, 20.0f);
    v.slideAngle = uniform(-180.0f, 180.0f);
    v.omega = uniform(0.05f, 1.9f);
    v.iterations = integer(0, 1) == 1 ? "2n" : std::to_string(integer(1, 500));
    v.tolerance = integer(0, 1) == 1 ? 0.0f : uniform(1e-7f, 1e-3f);
    v.warmStart = onOff();
    v.adaptiveOmega = onOff();
    v.chebyshevRho = integer(0, 1) == 1 ? 0.0f : uniform(0.0f, 0.99f);
    v.restingLoadGuess = onOff();
    v.shockSweeps = integer(0, 30);
    v.sleep = onOff();
    v.keepManifolds = onOff();
    v.friction = uniform(0.0f, 2.0f);
    v.lcpMode = integer(0, 1) == 1 ? "dense" : "islands";
    v.lcpSolver = integer(0, 1) == 1 ? "jacobi" : "gauss-seidel";
    const char* operators[] = {"dense", "matrix-free", "auto"};
    v.lcpOperator = operators[integer(0, 2)];
    v.columnGap = integer(0, 1) == 1 ? 0.0f : uniform(0.0f, 0.5f);
    v.iterationBudget = integer(0, 1) == 1 ? 0.0 : std::ldexp(uniform(0.5f, 1.0f), 30);
    v.erp = uniform(0.0f, 1.0f);
    v.substeps = integer(1, 8);
    v.dt = integer(0, 1) == 1 ? 0.0f : uniform(0.001f, 0.05f);
    v.grid = std::to_string(integer(8, 300)) + "x" + std::to_string(integer(8, 300));
    v.poolSize = uniform(8.0f, 60.0f);
    v.waveSpeed = uniform(0.1f, 5.0f);
    v.dtRatio = uniform(0.1f, 20.0f);
    v.damping = uniform(0.0f, 2.0f);
    v.scheme = integer(0, 1) == 1 ? "cn" : "explicit";
    const char* boundaries[] = {"neumann", "dirichlet", "mixed"};
    v.boundary = boundaries[integer(0, 2)];
    v.cgTolerance = std::pow(10.0f, uniform(-8.0f, -2.0f));
    v.cgMaxIterations = integer(1, 2000);
    v.cgCheckEvery = integer(1, 32);
    v.brickDensity = uniform(100.0f, 3000.0f);
    v.brickSize = uniform(0.2f, 0.6f);
    v.waterDepth = uniform(0.1f, 2.0f);
    return v;
}

void expectSameWall(const WallSceneSettings& a, const WallSceneSettings& b) {
    EXPECT_EQ(a.wall.cols, b.wall.cols);
    EXPECT_EQ(a.wall.rows, b.wall.rows);
    EXPECT_EQ(a.layout, b.layout);
    EXPECT_EQ(a.slide.speedMps, b.slide.speedMps);
    EXPECT_EQ(a.slide.angleDeg, b.slide.angleDeg);
    EXPECT_EQ(a.wall.columnGapM, b.wall.columnGapM);
    const rigid::WorldParams& p = a.world;
    const rigid::WorldParams& q = b.world;
    EXPECT_EQ(p.lcp.omega, q.lcp.omega);
    EXPECT_EQ(p.lcp.maxIterations, q.lcp.maxIterations);
    EXPECT_EQ(p.lcp.tolerance, q.lcp.tolerance);
    EXPECT_EQ(p.lcp.chebyshevRho, q.lcp.chebyshevRho);
    EXPECT_EQ(p.lcp.method, q.lcp.method);
    EXPECT_EQ(p.warmStart, q.warmStart);
    EXPECT_EQ(p.adaptiveOmega, q.adaptiveOmega);
    EXPECT_EQ(p.restingLoadGuess, q.restingLoadGuess);
    EXPECT_EQ(p.shockSweeps, q.shockSweeps);
    EXPECT_EQ(p.sleep, q.sleep);
    EXPECT_EQ(p.keepManifolds, q.keepManifolds);
    EXPECT_EQ(p.lcpOperator, q.lcpOperator);
    EXPECT_EQ(p.iterationBudgetMacs, q.iterationBudgetMacs);
    EXPECT_EQ(p.friction, q.friction);
    EXPECT_EQ(p.mode, q.mode);
    EXPECT_EQ(p.erp, q.erp);
    EXPECT_EQ(p.substeps, q.substeps);
    EXPECT_EQ(p.dtSeconds, q.dtSeconds);
}

void expectSameWaterButDt(const wave::WaveParams& p, const wave::WaveParams& q) {
    EXPECT_EQ(p.nx, q.nx);
    EXPECT_EQ(p.ny, q.ny);
    EXPECT_EQ(p.poolSizeM, q.poolSizeM);
    EXPECT_EQ(p.waveSpeed, q.waveSpeed);
    EXPECT_EQ(p.damping, q.damping);
    EXPECT_EQ(p.scheme, q.scheme);
    EXPECT_EQ(p.boundary, q.boundary);
    EXPECT_EQ(p.cg.tolerance, q.cg.tolerance);
    EXPECT_EQ(p.cg.maxIterations, q.cg.maxIterations);
    EXPECT_EQ(p.cg.checkEvery, q.cg.checkEvery);
}

// Exact equality throughout: every value is a float written as the shortest decimal that
// reads back as that float, so nothing may change on the way.
TEST(DemoConfig, LiveSettingsRoundTripThroughAConfigFile) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const fs::path dir = freshDir("roundtrip");
    int splashChecked = 0;
    for (int trial = 0; trial < 40; ++trial) {
        SCOPED_TRACE("trial " + std::to_string(trial));
        const SceneOptionValues drawn = randomValues(rng);
        Result<WallSceneSettings> wall = makeWallSettings(drawn);
        ASSERT_TRUE(wall.ok()) << wall.error().message;
        const std::uint64_t waterSeed = rng();
        Result<WaterSceneSettings> water = makeWaterSettings(drawn, waterSeed);
        ASSERT_TRUE(water.ok()) << water.error().message;
        // What the panel edits on the live scenes, beyond what the options said.
        wall->world.lcp.omega = std::uniform_real_distribution<float>(0.05f, 1.9f)(rng);
        wall->world.friction = std::uniform_real_distribution<float>(0.0f, 2.0f)(rng);
        water->wave.dtRatio = std::uniform_real_distribution<float>(0.1f, 20.0f)(rng);
        Result<SplashSceneSettings> splash = makeSplashSettings(drawn);
        const bool waterShown = (trial % 2) == 1;

        // Written over the defaults: everything in the file must come from the settings.
        std::vector<std::string> notes;
        const SceneOptionValues v =
            optionValuesOf(SceneOptionValues{}, &*wall, &water->wave,
                           splash.ok() ? &*splash : nullptr, waterShown ? "water" : "wall", &notes);
        const fs::path file = dir / ("config_" + std::to_string(trial) + ".json");
        std::ofstream(file)
            << sceneConfigJson(v, waterShown ? "water" : "wall", "cpu", waterSeed).dump(2);

        Result<DemoSceneInputs> read = readDemoConfig(file.string(), DemoSceneInputs{});
        ASSERT_TRUE(read.ok()) << read.error().message;
        EXPECT_EQ(read->scene, waterShown ? "water" : "wall");
        EXPECT_EQ(read->backend, "cpu");
        EXPECT_EQ(read->seed, waterSeed);
        Result<WallSceneSettings> wall2 = makeWallSettings(read->values);
        ASSERT_TRUE(wall2.ok()) << wall2.error().message;
        Result<WaterSceneSettings> water2 = makeWaterSettings(read->values, read->seed);
        ASSERT_TRUE(water2.ok()) << water2.error().message;
        EXPECT_EQ(water2->seed, waterSeed);
        expectSameWaterButDt(water->wave, water2->wave);
        // `dt` is one key for both scenes: the scene shown keeps its step, and a note says
        // when the other's cannot be kept; without a note both are kept.
        const bool wallDtKept = wall2->world.dtSeconds == wall->world.dtSeconds;
        const bool waterDtKept = water2->wave.dt() == water->wave.dt();
        EXPECT_TRUE(waterShown ? waterDtKept : wallDtKept);
        EXPECT_EQ(notes.empty(), wallDtKept && waterDtKept);
        if (wallDtKept) {
            expectSameWall(*wall, *wall2);
        } else {
            WallSceneSettings w = *wall2;
            w.world.dtSeconds = wall->world.dtSeconds;
            expectSameWall(*wall, w);
        }
        if (splash.ok()) {
            Result<SplashSceneSettings> splash2 = makeSplashSettings(read->values);
            ASSERT_TRUE(splash2.ok()) << splash2.error().message;
            EXPECT_EQ(splash->brickDensityKgM3, splash2->brickDensityKgM3);
            EXPECT_EQ(splash->wall.brickHalfExtents.x, splash2->wall.brickHalfExtents.x);
            EXPECT_EQ(splash->splash.waterDepthM, splash2->splash.waterDepthM);
            EXPECT_EQ(splash->wallXM, splash2->wallXM);
            EXPECT_EQ(splash->wallZM, splash2->wallZM);
            ++splashChecked;
        }
    }
    // Most draws fit the wall in the pool (wall width <= 12 * 0.6 m, pool >= 8 m).
    EXPECT_GT(splashChecked, 0);
    fs::remove_all(dir);
}

// `damping` is one key for the water (default 0) and the splash (its own default, 0.1 /s): a
// file saved while both hold their own default leaves it out, so each keeps its own when the
// file is read; a value set in the scene shown is written (0 included) and then holds in both,
// with a note for the other scene's value.
// The splash scene stands a wall in the pool: the wall scene's other layouts are refused with
// the key named (they used to be dropped without a word), the wall layout is taken.
TEST(DemoConfig, TheSplashRefusesTheWallScenesOtherLayouts) {
    for (const char* layout : {"pyramid", "stack", "slide"}) {
        SceneOptionValues v;
        v.layout = layout;
        ASSERT_TRUE(makeWallSettings(v).ok()) << layout;
        const Result<SplashSceneSettings> splash = makeSplashSettings(v);
        ASSERT_FALSE(splash.ok()) << layout;
        EXPECT_NE(splash.error().message.find("--layout"), std::string::npos)
            << splash.error().message;
        EXPECT_NE(splash.error().message.find(layout), std::string::npos) << splash.error().message;
    }
    SceneOptionValues v;
    v.layout = "wall";
    EXPECT_TRUE(makeSplashSettings(v).ok());
}

TEST(DemoConfig, ASharedKeyWithSceneDefaultsIsSavedOnlyWhenASceneLeftItsDefault) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const fs::path dir = freshDir("damping");
    const SceneEntry& splashEntry = *findScene("splash");
    SceneOptionValues start;
    start.wall = "4x3";
    Result<WaterSceneSettings> water = makeWaterSettings(start, 1);
    Result<SplashSceneSettings> splash = makeSplashSettings(sceneValues(splashEntry, start));
    ASSERT_TRUE(water.ok() && splash.ok());
    ASSERT_EQ(water->wave.damping, 0.0f);
    ASSERT_EQ(splash->splash.wave.damping, SplashSceneSettings::kDefaultWaveDampingPerS);
    // Saved and read back: the damping each scene is built with.
    const auto roundTrip = [&](const std::string& shown, std::vector<std::string>& notes,
                               nlohmann::json& doc) {
        const SceneOptionValues v =
            optionValuesOf(start, nullptr, &water->wave, &*splash, shown, &notes);
        doc = sceneConfigJson(v, shown, "cpu", 1);
        const fs::path file = dir / (shown + ".json");
        std::ofstream(file) << doc.dump(2);
        Result<DemoSceneInputs> read = readDemoConfig(file.string(), DemoSceneInputs{});
        EXPECT_TRUE(read.ok()) << read.error().message;
        return std::pair<float, float>{sceneValues(*findScene("water"), read->values).damping,
                                       sceneValues(splashEntry, read->values).damping};
    };
    std::vector<std::string> notes;
    nlohmann::json doc;
    EXPECT_EQ(roundTrip("splash", notes, doc),
              (std::pair<float, float>{0.0f, SplashSceneSettings::kDefaultWaveDampingPerS}));
    EXPECT_FALSE(doc.contains("damping")) << doc.dump();
    EXPECT_TRUE(notes.empty());

    for (const float changed : {0.0f, std::uniform_real_distribution<float>(0.2f, 2.0f)(rng)}) {
        SCOPED_TRACE("the splash's damping set to " + std::to_string(changed));
        splash->splash.wave.damping = changed;
        notes.clear();
        EXPECT_EQ(roundTrip("splash", notes, doc), (std::pair<float, float>{changed, changed}));
        ASSERT_TRUE(doc.contains("damping")) << doc.dump();
        EXPECT_EQ(doc["damping"].get<float>(), changed);
        // The water's 0 is lost unless the splash's value is 0 too.
        EXPECT_EQ(notes.size(), changed == 0.0f ? 0u : 1u);
    }
    fs::remove_all(dir);
}

// `iterations` likewise for the wall (default 30) and the splash (its own, 100): left out while
// both hold their defaults, so each keeps its own; a cap set in the wall shown is written and
// holds in both, with a note for the splash's.
TEST(DemoConfig, TheIterationCapIsSavedOnlyWhenASceneLeftItsDefault) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const fs::path dir = freshDir("iterations");
    const SceneEntry& splashEntry = *findScene("splash");
    const SceneEntry& wallEntry = *findScene("wall");
    SceneOptionValues start;
    start.wall = "4x3";
    Result<WallSceneSettings> wall = makeWallSettings(sceneValues(wallEntry, start));
    Result<SplashSceneSettings> splash = makeSplashSettings(sceneValues(splashEntry, start));
    ASSERT_TRUE(wall.ok() && splash.ok());
    ASSERT_EQ(wall->world.lcp.maxIterations, rigid::WorldParams{}.lcp.maxIterations);
    ASSERT_EQ(splash->splash.world.lcp.maxIterations, SplashSceneSettings::kDefaultLcpIterations);
    const auto roundTrip = [&](std::vector<std::string>& notes, nlohmann::json& doc) {
        const SceneOptionValues v =
            optionValuesOf(start, &*wall, nullptr, &*splash, "wall", &notes);
        doc = sceneConfigJson(v, "wall", "cpu", 1);
        const fs::path file = dir / "wall.json";
        std::ofstream(file) << doc.dump(2);
        Result<DemoSceneInputs> read = readDemoConfig(file.string(), DemoSceneInputs{});
        EXPECT_TRUE(read.ok()) << read.error().message;
        return std::pair<std::string, std::string>{
            sceneValues(wallEntry, read->values).iterations,
            sceneValues(splashEntry, read->values).iterations};
    };
    std::vector<std::string> notes;
    nlohmann::json doc;
    EXPECT_EQ(roundTrip(notes, doc),
              (std::pair<std::string, std::string>{
                  std::to_string(rigid::WorldParams{}.lcp.maxIterations),
                  std::to_string(SplashSceneSettings::kDefaultLcpIterations)}));
    EXPECT_FALSE(doc.contains("iterations")) << doc.dump();
    EXPECT_TRUE(notes.empty());

    // Any cap in 10-90 but the wall's own default (50): that one is no change, which the file
    // rightly leaves out (drawn, it would fail the checks below: 1 seed in 81).
    const int wallDefault = rigid::WorldParams{}.lcp.maxIterations;
    int changed = std::uniform_int_distribution<int>(10, 89)(rng);
    if (changed >= wallDefault) {
        ++changed;
    }
    SCOPED_TRACE("the wall's cap set to " + std::to_string(changed));
    wall->world.lcp.maxIterations = changed;
    notes.clear();
    EXPECT_EQ(roundTrip(notes, doc), (std::pair<std::string, std::string>{
                                         std::to_string(changed), std::to_string(changed)}));
    ASSERT_TRUE(doc.contains("iterations")) << doc.dump();
    EXPECT_EQ(notes.size(), 1u);
    fs::remove_all(dir);
}

// A demo started without a thread count saves none: the key is left out rather than written
// as "" (which no reader means); a count that was given is kept, and both files read back.
TEST(DemoConfig, ThreadsAreSavedOnlyWhenGiven) {
    const fs::path dir = freshDir("threads");
    for (const std::string threads : {"", "3"}) {
        SCOPED_TRACE("threads '" + threads + "'");
        SceneOptionValues v;
        v.threads = threads;
        const nlohmann::json doc = sceneConfigJson(v, "wall", "cpu", 7);
        if (threads.empty()) {
            EXPECT_FALSE(doc.contains("threads")) << doc.dump();
        } else {
            EXPECT_EQ(doc.value("threads", ""), threads) << doc.dump();
        }
        const fs::path file = dir / ("threads_" + threads + ".json");
        std::ofstream(file) << doc.dump(2);
        DemoSceneInputs base;
        base.values.threads = "2";  // what the reading demo was started with
        Result<DemoSceneInputs> read = readDemoConfig(file.string(), base);
        ASSERT_TRUE(read.ok()) << read.error().message;
        EXPECT_EQ(read->values.threads, threads.empty() ? "2" : threads);
    }
    fs::remove_all(dir);
}

TEST(DemoConfig, SavingNeverReplacesAFileAndNamesAnUnwritablePath) {
    const fs::path dir = freshDir("write");
    Result<std::string> first = demo::writeNewConfigFile(dir.string(), "{\"a\": 1}\n");
    Result<std::string> second = demo::writeNewConfigFile(dir.string(), "{\"b\": 2}\n");
    ASSERT_TRUE(first.ok()) << first.error().message;
    ASSERT_TRUE(second.ok()) << second.error().message;
    EXPECT_NE(*first, *second);
    std::ifstream a(*first);
    std::string text((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "{\"a\": 1}\n");

    const fs::path gone = dir / "no_such_folder";
    Result<std::string> bad = demo::writeNewConfigFile(gone.string(), "{}\n");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().kind, ErrorKind::kIo);
    EXPECT_NE(bad.error().message.find(gone.string()), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("No such file"), std::string::npos) << bad.error().message;
    fs::remove_all(dir);
}

TEST(DemoConfig, ABrokenPresetIsAnErrorNamingTheKey) {
    const fs::path dir = freshDir("broken");
    const fs::path file = dir / "broken.json";
    // A key a demo config does not have: the reader names it.
    std::ofstream(file) << "{\n  \"scene\": \"water\",\n  \"grdi\": \"64x64\"\n}\n";
    Result<DemoSceneInputs> read = readDemoConfig(file.string(), DemoSceneInputs{});
    ASSERT_FALSE(read.ok());
    EXPECT_NE(read.error().message.find("grdi"), std::string::npos) << read.error().message;
    // A value the scenes refuse: building them names the option.
    std::ofstream(file, std::ios::trunc) << "{\"scene\": \"water\", \"grid\": \"4x4\"}\n";
    read = readDemoConfig(file.string(), DemoSceneInputs{});
    ASSERT_TRUE(read.ok()) << read.error().message;
    Result<demo::SceneSet> made = makeDemoScenes(*read, nullptr);
    ASSERT_FALSE(made.ok());
    EXPECT_NE(made.error().message.find("--grid"), std::string::npos) << made.error().message;
    // A good one shows its scene.
    std::ofstream(file, std::ios::trunc) << "{\"scene\": \"water\", \"grid\": \"16x12\"}\n";
    read = readDemoConfig(file.string(), DemoSceneInputs{});
    ASSERT_TRUE(read.ok()) << read.error().message;
    made = makeDemoScenes(*read, nullptr);
    ASSERT_TRUE(made.ok()) << made.error().message;
    EXPECT_STREQ(made->scenes[static_cast<std::size_t>(made->current)]->name(), "water");
    fs::remove_all(dir);
}

// The preset picker's list: every shipped preset (assets/*.json, found through
// WAVEWALL_ASSETS_DIR as the demo finds it) reads as a demo config and gives valid settings.
TEST(DemoConfig, EveryShippedPresetLoads) {
    const char* source = std::getenv("WAVEWALL_SOURCE_DIR");
    ASSERT_NE(source, nullptr) << "ctest sets WAVEWALL_SOURCE_DIR";
    const std::string assets = (fs::path(source) / "assets").string();
    ::setenv("WAVEWALL_ASSETS_DIR", assets.c_str(), 1);
    const std::string found = demo::findAssetsDir();
    ::unsetenv("WAVEWALL_ASSETS_DIR");
    EXPECT_EQ(fs::path(found), fs::path(assets).lexically_normal());
    const std::vector<std::string> presets = demo::listPresets(found);
    EXPECT_GE(presets.size(), 5u);
    for (const std::string& path : presets) {
        SCOPED_TRACE(path);
        Result<DemoSceneInputs> read = readDemoConfig(path, DemoSceneInputs{});
        ASSERT_TRUE(read.ok()) << read.error().message;
        Result<WallSceneSettings> wall = makeWallSettings(read->values);
        EXPECT_TRUE(wall.ok()) << wall.error().message;
        Result<WaterSceneSettings> water = makeWaterSettings(read->values, read->seed);
        EXPECT_TRUE(water.ok()) << water.error().message;
    }
}

}  // namespace
}  // namespace ww::app
