// The splash scene's own parameter table (app/scenes/scene_params.h): the bricks, the water's
// depth and where the wall stands in the pool. Its wall and water take the wall's and the
// water's tables (app/scenes/wall/wall_params.h, app/scenes/water/water_params.h).
#pragma once

#include <vector>

#include "app/scenes/scene_params.h"
#include "app/scenes/splash/splash_scene.h"

namespace ww::app {

/// The splash scene's own parameters.
const std::vector<ParamRow<SplashSceneSettings>>& splashParams();
/// The splash's own defaults for keys it shares with the water: --damping
/// (SplashSceneSettings::kDefaultWaveDampingPerS).
std::vector<SceneDefault> splashDefaults();
/// Whether the splash's wall stands inside its pool; an error naming the option to change.
Status checkSplashFit(const SplashSceneSettings& s);

}  // namespace ww::app
