// What the demo's history keeps of a scene adapter (WallDemoScene, WaterDemoScene): the
// simulation's state and where the adapter's event script stood, so that stepping back
// before a scripted event replays it.
#pragma once

#include <cstddef>
#include <memory>

#include "app/demo/history.h"
#include "app/scenes/sim_scene.h"

namespace ww::app {

struct AdapterState final : demo::SavedState {
    std::unique_ptr<SceneState> scene;
    long stepIndex = 0;
    std::size_t scriptPosition = 0;  ///< EventScript::position()
    std::size_t bytes() const override { return sizeof(*this) + (scene ? scene->bytes() : 0); }
};

}  // namespace ww::app
