// What the demo's history keeps of a scene adapter (WallDemoScene, WaterDemoScene,
// SplashDemoScene): the simulation's state and where the adapter's event script stood (if it
// runs one), so that stepping back before a scripted event replays it.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "app/demo/history.h"
#include "app/scenes/event_script.h"
#include "app/scenes/sim_scene.h"

namespace ww::app {

struct AdapterState final : demo::SavedState {
    std::unique_ptr<SceneState> scene;
    long stepIndex = 0;
    std::size_t scriptPosition = 0;  ///< EventScript::position()
    std::size_t bytes() const override { return sizeof(*this) + (scene ? scene->bytes() : 0); }
};

/// An adapter's state: `scene`'s and where its script stands; null when the scene keeps none.
inline std::unique_ptr<demo::SavedState> saveAdapterState(const SimScene& scene, long stepIndex,
                                                          const EventScript& script) {
    auto s = std::make_unique<AdapterState>();
    s->scene = scene.saveState();
    if (!s->scene) {
        return nullptr;
    }
    s->stepIndex = stepIndex;
    s->scriptPosition = script.position();
    return s;
}

/// Restores an AdapterState into `scene` and the adapter's step index and script position; an
/// error when `state` is not one this scene saved.
inline Status restoreAdapterState(const demo::SavedState& state, const char* sceneName,
                                  SimScene& scene, long& stepIndex, EventScript& script) {
    const auto* s = dynamic_cast<const AdapterState*>(&state);
    if (s == nullptr || !s->scene) {
        return inputError(std::string(sceneName) + ": not a state this scene saved");
    }
    if (Status ok = scene.restoreState(*s->scene); !ok) {
        return ok;
    }
    stepIndex = s->stepIndex;
    script.seek(s->scriptPosition);
    return {};
}

}  // namespace ww::app
