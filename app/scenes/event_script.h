// A scene's scripted events (`--event STEP:ACTION[:ARGS]`), parsed, checked against the scene
// and sorted by step, and the one place they are applied: `wavewall headless`, the demo's
// no-display run and the demo's scene adapters all step through an EventScript, so an event
// (reset included) does the same thing everywhere.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "app/scenes/scene_event.h"
#include "solver/core/result.h"

namespace ww::app {

class SimScene;

/// What the owner of a scene does around the script's events (the demo's adapters keep their
/// panel state in step with the simulation); every hook is optional.
struct ScriptHooks {
    std::function<void()> beforeReset;               ///< e.g. keep settings edited live
    std::function<void()> afterReset;                ///< e.g. clear plots, re-apply panel toggles
    std::function<void(const SceneEvent&)> applied;  ///< after each event that succeeded
};

class EventScript {
  public:
    /// The action every scene has: rebuild the scene from its settings (SimScene::reset(),
    /// the backend kept). Later events keep their step numbers.
    static constexpr const char* kReset = "reset";

    EventScript() = default;
    /// Events in any order; they are sorted by step (events of one step keep their order).
    explicit EventScript(std::vector<SceneEvent> events);
    /// Parses `--event` texts; the error names the first malformed one.
    static Result<EventScript> parse(const std::vector<std::string>& texts);

    /// Checks every event against `scene` (reset: no arguments; others: validateEvent).
    Status validate(const SimScene& scene) const;
    /// Whether `scene` can apply `e` (what validate() checks for one event).
    static Status validate(const SimScene& scene, const SceneEvent& e);

    /// Applies, in order, every event not yet applied whose step is <= `step`. A failing event
    /// is skipped; its message is returned (empty when all succeeded).
    std::vector<std::string> apply(SimScene& scene, long step, const ScriptHooks& hooks = {});

    /// Back to the first event (the scene restarted).
    void rewind() { m_next = 0; }
    /// How many events have been applied; restore with seek() (the demo's history).
    std::size_t position() const { return m_next; }
    void seek(std::size_t position) {
        m_next = position < m_events.size() ? position : m_events.size();
    }

    const std::vector<SceneEvent>& events() const { return m_events; }
    bool empty() const { return m_events.empty(); }

  private:
    std::vector<SceneEvent> m_events;  ///< sorted by step
    std::size_t m_next = 0;
};

}  // namespace ww::app
