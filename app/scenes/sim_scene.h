// The scenes as the app sees them: one interface shared by the headless runner, the benchmark
// traces and the desktop demo, so all of them build and step the very same objects.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app/scenes/scene_event.h"
#include "app/scenes/step_record.h"
#include "render/draw_data.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"

namespace ww::gpu {
class ShaderLibrary;
}

namespace ww::app {

/// A scene's simulation state at one step, opaque: the demo's history keeps these. Only the
/// scene that saved one can restore it.
class SceneState {
  public:
    virtual ~SceneState() = default;
    /// Memory held, for the history's budget.
    virtual std::size_t bytes() const = 0;
    /// The state as bytes (a snapshot file's payload; state_bytes.h); the scene's
    /// readState() reads them back.
    virtual std::string serialize() const = 0;
};

class SimScene {
  public:
    virtual ~SimScene() = default;
    virtual const char* name() const = 0;

    /// Advances one fixed time step and describes it in `out`.
    virtual void step(StepRecord& out) = 0;
    /// Rebuilds the scene from its settings (keeps the backend).
    virtual void reset() = 0;
    /// Checks an event against this scene before the run starts (kind and arguments).
    virtual Status validateEvent(const SceneEvent& e) const = 0;
    virtual Status applyEvent(const SceneEvent& e) = 0;

    /// Switches solver backend keeping the state; on failure nothing changes.
    virtual Status setBackend(Backend backend, const gpu::ShaderLibrary* shaders) = 0;
    virtual Backend backend() const = 0;

    /// Appends the invariant violations of the step just taken (NaN/Inf, penetration,
    /// residuals, energy); empty when the step was clean.
    virtual void checkInvariants(const StepRecord& step, std::vector<std::string>& out) const = 0;

    /// The state later steps depend on (not the settings); null if the scene cannot save it.
    virtual std::unique_ptr<SceneState> saveState() const { return nullptr; }
    /// Restores a state this scene saved (with the same grid or wall); stepping then
    /// repeats the saved run bit for bit on the same backend. Settings changed since stay
    /// changed: that is how a run is re-run from a state with other settings.
    virtual Status restoreState(const SceneState& state) {
        (void)state;
        return inputError(std::string(name()) + ": this scene keeps no history");
    }

    /// Reads bytes serialize() wrote; an input error when they are not such bytes.
    virtual Result<std::unique_ptr<SceneState>> readState(std::string_view bytes) const {
        (void)bytes;
        return inputError(std::string(name()) + ": this scene cannot read saved states");
    }

    /// Hash of the full simulation state (hex), equal for equal runs on one device.
    virtual std::string stateHash() const = 0;
    /// The final state as JSON (--snapshot).
    virtual nlohmann::json snapshot() const = 0;
    /// Scene-specific part of --summary-json (statistics accumulated since the start).
    virtual nlohmann::json summary() const = 0;
    /// Describes the current state for the renderer.
    virtual void fillDrawData(render::DrawData& out) const = 0;
    /// A sphere (centre, radius in m) holding what a camera should frame at the start.
    virtual std::pair<glm::vec3, float> viewBounds() const = 0;
};

}  // namespace ww::app
