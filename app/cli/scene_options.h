// The scene options of CLI.md, registered for the command line and config files from the
// scenes' parameter tables (app/scenes/scene_params.h), and turned into validated scene
// settings. Defaults come from the solver's own parameter structs, so they live in one place.
#pragma once

#include <string>

#include "app/cli/option_table.h"
#include "app/scenes/scene_params.h"
#include "app/scenes/splash_scene.h"
#include "app/scenes/wall_scene.h"
#include "app/scenes/water_scene.h"

namespace ww::app {

void registerSceneOptions(OptionTable& table, SceneOptionValues& values);

/// Validates the wall options; errors name the option and the accepted range. The settings
/// get the executor of the resolved thread count (thread_option.h).
Result<WallSceneSettings> makeWallSettings(const SceneOptionValues& v);

/// Validates the water options; errors name the option and the accepted range.
Result<WaterSceneSettings> makeWaterSettings(const SceneOptionValues& v, std::uint64_t seed);

/// Validates the splash options (pool against wall, density, depth); errors name the option.
Result<SplashSceneSettings> makeSplashSettings(const SceneOptionValues& v);

/// The backend to ask for (--backend cpu|gpu|auto) given the scene's LCP method: Gauss-Seidel
/// runs on the CPU only, so with it "gpu" is an input error and "auto" becomes "cpu" (said on
/// stderr). Other scenes and Jacobi get `choice` back.
Result<std::string> lcpBackendChoice(const std::string& choice, const std::string& scene,
                                     const SceneOptionValues& v);

}  // namespace ww::app
