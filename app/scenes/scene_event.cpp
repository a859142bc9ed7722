#include "app/scenes/scene_event.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace ww::app {

namespace {

bool toNumber(const std::string& s, double& out) {
    if (s.empty()) {
        return false;
    }
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

Result<double> SceneEvent::number(std::size_t i) const {
    if (i >= args.size()) {
        return inputError("--event " + text + ": " + action + " needs at least " +
                          std::to_string(i + 1) + " argument(s)");
    }
    double v = 0;
    if (!toNumber(args[i], v)) {
        return inputError("--event " + text + ": argument '" + args[i] + "' is not a number");
    }
    return v;
}

Result<double> SceneEvent::numberOr(std::size_t i, double fallback) const {
    return i < args.size() ? number(i) : Result<double>(fallback);
}

Result<SceneEvent> parseEvent(const std::string& text) {
    const std::string form = " (expected STEP:ACTION[:ARGS], e.g. 60:shoot or 120:remove:3,0)";
    const auto c1 = text.find(':');
    if (c1 == std::string::npos) {
        return inputError("--event '" + text + "' has no ':'" + form);
    }
    SceneEvent e;
    e.text = text;
    double step = 0;
    const std::string stepText = text.substr(0, c1);
    if (!toNumber(stepText, step) || step < 0 || step != std::floor(step) || step > 1e9) {
        return inputError("--event '" + text + "': step '" + stepText +
                          "' is not a non-negative integer" + form);
    }
    e.step = static_cast<int>(step);
    const auto c2 = text.find(':', c1 + 1);
    e.action = text.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1);
    if (e.action.empty()) {
        return inputError("--event '" + text + "' names no action" + form);
    }
    if (c2 != std::string::npos) {
        std::stringstream ss(text.substr(c2 + 1));
        for (std::string a; std::getline(ss, a, ',');) {
            e.args.push_back(a);
        }
    }
    return e;
}

}  // namespace ww::app
