// Builds the scene a command asked for from validated option values; shared by headless runs,
// benchmarks and the desktop demo.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "app/cli/scene_options.h"
#include "app/scenes/sim_scene.h"

namespace ww::app {

Result<std::unique_ptr<SimScene>> makeScene(const std::string& name, const SceneOptionValues& v,
                                            std::uint64_t seed);

}  // namespace ww::app
