// The splash scene from option values (app/cli/scene_options.h): its settings validated
// (errors name the option and the accepted range) and the scene its registry row builds
// (app/cli/scene_registry.cpp).
#pragma once

#include <memory>

#include "app/cli/scene_registry.h"
#include "app/scenes/splash/splash_scene.h"

namespace ww::app {

/// Validates the splash options (its wall's and water's, then pool against wall, density,
/// depth); errors name the option.
Result<SplashSceneSettings> makeSplashSettings(const SceneOptionValues& v);

/// The scene of the registry row "splash".
Result<std::unique_ptr<SimScene>> makeSplashScene(const SceneBuild& build);

}  // namespace ww::app
