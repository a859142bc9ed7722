// The demo's settings hooks (app/demo/saved_settings.h) over the scene options: the live
// settings of the wall, water and splash demo scenes turned back into option values and written
// as a config file that `wavewall demo --config` and `wavewall headless --config` read, and a
// config file (a preset) turned into the demo's scenes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/scene_options.h"
#include "app/demo/saved_settings.h"
#include "app/scenes/splash/splash_scene.h"
#include "app/scenes/wall/wall_demo_scene.h"
#include "solver/gpu/shader_library.h"
#include "solver/wave/wave_params.h"

namespace ww::app {

/// What the demo builds its scenes from (flags and config keys, already parsed).
struct DemoSceneInputs {
    SceneOptionValues values;
    std::string scene = "wall";    ///< shown first: wall, water or splash
    std::string backend = "auto";  ///< cpu, gpu or auto
    std::uint64_t seed = 1;
    bool initialDrop = true;
    std::vector<std::string> events;  ///< --event texts, each sent to the scene that has it
    /// The wall's per-step solve budget, ms (--solve-budget-ms; 0 = none: iterations do not
    /// follow the clock, so a scripted run repeats exactly).
    float solveBudgetMs = WallDemoScene::kDefaultSolveBudgetMs;
};

/// The wall, water and (when its options fit) splash demo scenes, on
/// the CPU backend; errors name the option or event.
Result<demo::SceneSet> makeDemoScenes(const DemoSceneInputs& in, const gpu::ShaderLibrary* shaders);

/// Option values that rebuild the given live settings: `base` with every value a scene holds
/// set from it (a null scene leaves its values as in `base`). One key, `dt`, is both the
/// wall's step and (when set) the water's, so it follows the scene shown (`shown`, a registry
/// name); `damping` is both the water's and the splash's, each with its own default: while
/// both hold their own default it is not marked given (the file leaves it out, and each scene
/// keeps its default), else the scene shown decides. `notes` says what a config file cannot
/// hold.
SceneOptionValues optionValuesOf(SceneOptionValues base, const WallSceneSettings* wall,
                                 const wave::WaveParams* water, const SplashSceneSettings* splash,
                                 const std::string& shown, std::vector<std::string>* notes);

/// The config document: "scene", "backend", "seed" and every scene option ("threads" only
/// when a count was given; a key with a scene's own default only when `v` marks it given).
nlohmann::json sceneConfigJson(const SceneOptionValues& v, const std::string& scene,
                               const std::string& backend, std::uint64_t seed);

/// Reads a config file over `base` as `wavewall demo --config F` would with no other flags:
/// scene, backend, seed and the scene options (others are errors naming the key). The thread
/// count, the initial drop and the solve budget stay as in `base`; events are dropped.
Result<DemoSceneInputs> readDemoConfig(const std::string& path, const DemoSceneInputs& base);

/// The hooks for demo::DemoOptions::settings; `base` is what the demo started with, `shaders`
/// must outlive the demo.
demo::SettingsHooks demoSettingsHooks(const DemoSceneInputs& base,
                                      const gpu::ShaderLibrary* shaders);

}  // namespace ww::app
