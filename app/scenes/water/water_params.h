// The water scene's parameter table (app/scenes/scene_params.h): the grid, the wave equation and
// its CG solver. The splash scene reads these rows too.
#pragma once

#include <vector>

#include "app/scenes/scene_params.h"
#include "solver/wave/wave_params.h"

namespace ww::app {

/// The water scene's parameters.
const std::vector<ParamRow<wave::WaveParams>>& waterParams();

}  // namespace ww::app
