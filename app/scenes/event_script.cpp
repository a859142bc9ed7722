#include "app/scenes/event_script.h"

#include <algorithm>

#include "app/scenes/sim_scene.h"

namespace ww::app {

EventScript::EventScript(std::vector<SceneEvent> events) : m_events(std::move(events)) {
    std::stable_sort(m_events.begin(), m_events.end(),
                     [](const SceneEvent& a, const SceneEvent& b) { return a.step < b.step; });
}

Result<EventScript> EventScript::parse(const std::vector<std::string>& texts) {
    std::vector<SceneEvent> events;
    events.reserve(texts.size());
    for (const std::string& text : texts) {
        Result<SceneEvent> e = parseEvent(text);
        if (!e) {
            return e.error();
        }
        events.push_back(std::move(e).value());
    }
    return EventScript(std::move(events));
}

Status EventScript::validate(const SimScene& scene, const SceneEvent& e) {
    if (e.action == kReset) {
        if (!e.args.empty()) {
            return inputError("--event " + e.text + ": reset takes no arguments");
        }
        return {};
    }
    return scene.validateEvent(e);
}

Status EventScript::validate(const SimScene& scene) const {
    for (const SceneEvent& e : m_events) {
        if (Status s = validate(scene, e); !s) {
            return s;
        }
    }
    return {};
}

std::vector<std::string> EventScript::apply(SimScene& scene, long step, const ScriptHooks& hooks) {
    std::vector<std::string> errors;
    for (; m_next < m_events.size() && m_events[m_next].step <= step; ++m_next) {
        const SceneEvent& e = m_events[m_next];
        if (e.action == kReset) {
            if (hooks.beforeReset) {
                hooks.beforeReset();
            }
            scene.reset();
            if (hooks.afterReset) {
                hooks.afterReset();
            }
        } else if (Status s = scene.applyEvent(e); !s) {
            errors.push_back(s.error().message);
            continue;
        }
        if (hooks.applied) {
            hooks.applied(e);
        }
    }
    return errors;
}

}  // namespace ww::app
