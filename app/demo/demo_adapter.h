// What the scene registry (app/cli/scene_registry.h) needs to put a built scene in the demo:
// each scene's panel adapter (app/demo/*_demo_scene.h) has a static `wrap` of this type, named
// in the scene's registry row.
#pragma once

#include <memory>

#include "app/demo/demo_scene.h"
#include "app/scenes/event_script.h"
#include "app/scenes/sim_scene.h"
#include "solver/core/result.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::app {

/// What an adapter is built with besides its scene.
struct DemoAdapterInputs {
    const gpu::ShaderLibrary* shaders = nullptr;  ///< must outlive the adapter
    EventScript script;                           ///< the --event texts this scene takes
    float solveBudgetMs = 0.0f;                   ///< the wall's per-step solve budget
};

/// Wraps `scene` (built by the same registry row) in its panel adapter; an error when the scene
/// is not the adapter's kind.
using DemoWrap = Result<std::unique_ptr<demo::DemoScene>> (*)(std::unique_ptr<SimScene> scene,
                                                              DemoAdapterInputs inputs);

}  // namespace ww::app
