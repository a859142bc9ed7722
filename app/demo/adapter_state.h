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

/// Restores the simulation part of an AdapterState into `scene`. Returns the state, or null
/// with the reason in *why (if given) when `state` is not one this scene saved.
inline const AdapterState* restoreAdapterScene(const demo::SavedState& state, const char* sceneName,
                                               SimScene& scene, std::string* why) {
    const auto* s = dynamic_cast<const AdapterState*>(&state);
    Status ok = s != nullptr && s->scene
                    ? scene.restoreState(*s->scene)
                    : Status{inputError(std::string(sceneName) + ": not a state this scene saved")};
    if (!ok) {
        if (why != nullptr) {
            *why = ok.error().message;
        }
        return nullptr;
    }
    return s;
}

/// Restores an AdapterState into `scene` and the adapter's step index and script position;
/// false, with the reason in *why (if given), when `state` is not one this scene saved.
inline bool restoreAdapterState(const demo::SavedState& state, const char* sceneName,
                                SimScene& scene, long& stepIndex, EventScript& script,
                                std::string* why) {
    const AdapterState* s = restoreAdapterScene(state, sceneName, scene, why);
    if (s == nullptr) {
        return false;
    }
    stepIndex = s->stepIndex;
    script.seek(s->scriptPosition);
    return true;
}

}  // namespace ww::app
