#include "app/cli/scene_registry.h"

#include "app/demo/splash_demo_scene.h"
#include "app/demo/wall_demo_scene.h"
#include "app/demo/water_demo_scene.h"

namespace ww::app {

namespace {

Result<std::unique_ptr<SimScene>> makeWall(const SceneBuild& b) {
    Result<WallSceneSettings> s = makeWallSettings(b.values);
    if (!s) {
        return s.error();
    }
    s->world.lcp.recordHistory = s->world.lcp.recordHistory || b.recordHistory;
    return std::unique_ptr<SimScene>(std::make_unique<WallScene>(std::move(s).value()));
}

Result<std::unique_ptr<SimScene>> makeWater(const SceneBuild& b) {
    Result<WaterSceneSettings> s = makeWaterSettings(b.values, b.seed);
    if (!s) {
        return s.error();
    }
    s->initialDrop = b.initialDrop;
    s->energyEvery = b.diagnosticsEvery;
    s->wave.cg.recordHistory = s->wave.cg.recordHistory || b.recordHistory;
    Result<std::unique_ptr<WaterScene>> scene = WaterScene::create(std::move(s).value());
    if (!scene) {
        return scene.error();
    }
    return std::unique_ptr<SimScene>(std::move(scene).value());
}

Result<std::unique_ptr<SimScene>> makeSplash(const SceneBuild& b) {
    Result<SplashSceneSettings> s = makeSplashSettings(b.values);
    if (!s) {
        return s.error();
    }
    Result<std::unique_ptr<SplashScene>> scene = SplashScene::create(std::move(s).value());
    if (!scene) {
        return scene.error();
    }
    return std::unique_ptr<SimScene>(std::move(scene).value());
}

const std::vector<SceneEntry>& entries() {
    static const std::vector<SceneEntry> table = {
        {"wall",
         "a brick wall on the ground; contacts as a dense LCP by projected Jacobi",
         "wall and LCP options",
         makeWall,
         {"20:shoot"},
         nullptr,
         false,
         WallDemoScene::wrap,
         true},
        {"water",
         "a square pool; the wave equation by Crank-Nicolson and CG",
         "water options",
         makeWater,
         {"0:drop:0.3,0.6", "40:drop:0.7,0.35"},
         nullptr,
         false,
         WaterDemoScene::wrap,
         true},
        {"splash",
         "the wall falling into the pool: LCP and CG coupled in one step",
         "wall, LCP and water options, and the splash options",
         makeSplash,
         {},
         nullptr,  // the coupled step runs on either backend (docs/splash.md, "GPU path")
         true,
         SplashDemoScene::wrap,
         true},
    };
    return table;
}

}  // namespace

std::span<const SceneEntry> sceneRegistry() {
    return entries();
}

const SceneEntry* findScene(std::string_view name) {
    for (const SceneEntry& e : entries()) {
        if (name == e.name) {
            return &e;
        }
    }
    return nullptr;
}

std::vector<std::string> sceneNames() {
    std::vector<std::string> names;
    for (const SceneEntry& e : entries()) {
        names.emplace_back(e.name);
    }
    return names;
}

Result<std::unique_ptr<SimScene>> makeScene(const std::string& name, const SceneBuild& build) {
    const SceneEntry* entry = findScene(name);
    if (entry == nullptr) {
        std::string list;
        for (const std::string& n : sceneNames()) {
            list += (list.empty() ? "" : ", ") + n;
        }
        return inputError("--scene '" + name + "' is not a scene (use one of " + list + ")");
    }
    return entry->make(build);
}

Result<std::unique_ptr<SimScene>> makeScene(const std::string& name, const SceneOptionValues& v,
                                            std::uint64_t seed, int diagnosticsEvery) {
    SceneBuild build;
    build.values = v;
    build.seed = seed;
    build.diagnosticsEvery = diagnosticsEvery;
    return makeScene(name, build);
}

}  // namespace ww::app
