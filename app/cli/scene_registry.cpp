#include "app/cli/scene_registry.h"

#include <initializer_list>

#include "app/scenes/splash/splash_demo_scene.h"
#include "app/scenes/splash/splash_options.h"
#include "app/scenes/splash/splash_params.h"
#include "app/scenes/wall/wall_demo_scene.h"
#include "app/scenes/wall/wall_options.h"
#include "app/scenes/wall/wall_params.h"
#include "app/scenes/water/water_demo_scene.h"
#include "app/scenes/water/water_options.h"
#include "app/scenes/water/water_params.h"

// The table names only the fields a row sets (designated initializers); the rest keep their
// defaults, which is what GCC's missing-field-initializers warning would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace ww::app {

namespace {

std::vector<ParamInfo> concat(std::initializer_list<std::vector<ParamInfo>> lists) {
    std::vector<ParamInfo> all;
    for (const std::vector<ParamInfo>& list : lists) {
        all.insert(all.end(), list.begin(), list.end());
    }
    return all;
}

const std::vector<SceneEntry>& entries() {
    // The splash reads the wall's and the water's rows besides its own.
    static const std::vector<SceneEntry> table = {
        {.name = "wall",
         .description = "a brick wall on the ground; contacts as a dense LCP by projected Jacobi",
         .options = "wall and LCP options",
         .params = paramInfos(wallParams()),
         .make = makeWallScene,
         .previewEvents = {"20:shoot"},
         .wrap = WallDemoScene::wrap,
         .takesEvents = true},
        {.name = "water",
         .description = "a square pool; the wave equation by Crank-Nicolson and CG",
         .options = "water options",
         .params = paramInfos(waterParams()),
         .make = makeWaterScene,
         .previewEvents = {"0:drop:0.3,0.6", "40:drop:0.7,0.35"},
         .wrap = WaterDemoScene::wrap,
         .takesEvents = true},
        {.name = "splash",
         .description = "the wall falling into the pool: LCP and CG coupled in one step",
         .options = "wall, LCP and water options, and the splash options",
         .params = concat(
             {paramInfos(wallParams()), paramInfos(waterParams()), paramInfos(splashParams())}),
         .defaults = splashDefaults(),
         .make = makeSplashScene,
         // the coupled step runs on either backend (docs/splash.md, "GPU path"): no cpuOnly
         .optionalInDemo = true,
         .wrap = SplashDemoScene::wrap,
         .takesEvents = true},
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
    return makeScene(*entry, build);
}

SceneOptionValues sceneValues(const SceneEntry& entry, SceneOptionValues v) {
    for (const SceneDefault& d : entry.defaults) {
        if (v.given.count(d.key) > 0) {
            continue;
        }
        for (const ParamInfo& info : entry.params) {
            if (info.key == d.key) {
                // A number the scene wrote itself (SceneRegistry.SceneDefaultsAreRowsTheyAccept).
                (void)setParamText(info, v, d.value);
            }
        }
    }
    return v;
}

Result<std::unique_ptr<SimScene>> makeScene(const SceneEntry& entry, SceneBuild build) {
    build.values = sceneValues(entry, std::move(build.values));
    return entry.make(build);
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
