// The water scene from option values (app/cli/scene_options.h): its settings validated
// (errors name the option and the accepted range) and the scene its registry row builds
// (app/cli/scene_registry.cpp).
#pragma once

#include <memory>

#include "app/cli/scene_registry.h"
#include "app/scenes/water/water_scene.h"

namespace ww::app {

/// Validates the water options; errors name the option and the accepted range.
Result<WaterSceneSettings> makeWaterSettings(const SceneOptionValues& v, std::uint64_t seed);

/// The scene of the registry row "water".
Result<std::unique_ptr<SimScene>> makeWaterScene(const SceneBuild& build);

}  // namespace ww::app
