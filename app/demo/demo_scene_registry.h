// The demo's side of the scene registry (app/cli/scene_registry.h): for each scene name, how
// to wrap the built SimScene in its panel adapter. Kept here because only app/demo knows
// ImGui; the names are the registry's.
#pragma once

#include <memory>
#include <span>
#include <string_view>

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

struct DemoSceneEntry {
    const char* name;  ///< as in the scene registry
    /// Wraps `scene` (built by the scene registry's entry of the same name).
    Result<std::unique_ptr<demo::DemoScene>> (*wrap)(std::unique_ptr<SimScene> scene,
                                                     DemoAdapterInputs inputs);
    /// Whether the adapter runs an event script (--event); events go to the scenes that do.
    bool takesEvents = false;
};

std::span<const DemoSceneEntry> demoSceneRegistry();
/// The adapter entry for `name`, or null.
const DemoSceneEntry* findDemoScene(std::string_view name);

}  // namespace ww::app
