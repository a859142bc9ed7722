// The wall scene's parameter table (app/scenes/scene_params.h): geometry, layout and the rigid
// world's solver settings. The splash scene reads these rows too.
#pragma once

#include <string>
#include <vector>

#include "app/scenes/scene_params.h"
#include "app/scenes/wall/wall_scene.h"

namespace ww::app {

/// The wall scene's parameters.
const std::vector<ParamRow<WallSceneSettings>>& wallParams();

/// The most bricks --wall accepts (512 x 512); below it the memory rule decides.
inline constexpr long long kMaxWallBricks = 262144;
/// Bytes a wall scene of `bricks` bricks needs at its peak (a collapse), from measured runs.
double wallMemoryBytes(long long bricks);
/// An error naming what --wall `wall` would need when that exceeds 80 % of physicalBytes.
Status checkWallMemory(const std::string& wall, long long bricks, double physicalBytes);

}  // namespace ww::app
