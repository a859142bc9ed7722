// The wall scene from option values (app/cli/scene_options.h): its settings validated
// (errors name the option and the accepted range) and the scene its registry row builds
// (app/cli/scene_registry.cpp).
#pragma once

#include <memory>

#include "app/cli/scene_registry.h"
#include "app/scenes/wall/wall_scene.h"

namespace ww::app {

/// Validates the wall options; errors name the option and the accepted range. The settings
/// get the executor of the resolved thread count (app/cli/thread_option.h).
Result<WallSceneSettings> makeWallSettings(const SceneOptionValues& v);

/// The scene of the registry row "wall".
Result<std::unique_ptr<SimScene>> makeWallScene(const SceneBuild& build);

}  // namespace ww::app
