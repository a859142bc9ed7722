#include "app/scenes/scene_params.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "app/scenes/param_rows.h"
#include "app/scenes/splash/splash_params.h"
#include "app/scenes/wall/wall_params.h"
#include "app/scenes/water/water_params.h"

namespace ww::app {

namespace {

std::string formatNumber(double x) {
    char text[32];
    if (std::abs(x) < 1e15 && x == std::floor(x)) {
        std::snprintf(text, sizeof text, "%.0f", x);
    } else {
        std::snprintf(text, sizeof text, "%g", x);
    }
    return text;
}

std::string rangeText(const ParamInfo& info) {
    const ParamRange& r = info.range;
    if (r.lo == -kNoBound && r.hi == kNoBound) {
        return "must be a finite number";
    }
    std::string text =
        r.hi == kNoBound
            ? std::string(r.loOpen ? "must be > " : "must be >= ") + formatNumber(r.lo)
            : std::string("must be in ") + (r.loOpen ? "(" : "[") + formatNumber(r.lo) + ", " +
                  formatNumber(r.hi) + (r.hiOpen ? ")" : "]");
    if (!info.unit.empty()) {
        text += " " + info.unit;
    }
    if (!r.note.empty()) {
        text += " " + r.note;
    }
    return text;
}

}  // namespace

// The built-in scenes' defaults; a scene's own values struct holds its own.
SceneOptionValues::SceneOptionValues() {
    readParams(wallParams(), WallSceneSettings{}, *this);
    omega = 0.0f;  // the method's default, resolved when the settings are made
    readParams(waterParams(), wave::WaveParams{}, *this);
    readParams(splashParams(), SplashSceneSettings{}, *this);
}

Error paramError(const std::string& key, const std::string& what) {
    return inputError("--" + key + " (config key \"" + key + "\") " + what);
}

Status checkParam(const ParamInfo& info, const SceneOptionValues& v) {
    return visitParam(info.field, v, [&](const auto& value) -> Status {
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
            if (info.choices.empty()) {
                return {};
            }
            std::string list;
            for (const std::string& c : info.choices) {
                if (c == value) {
                    return {};
                }
                list += (list.empty() ? "" : ", ") + c;
            }
            return paramError(info.key, "'" + value + "' must be one of " + list);
        } else {
            const double x = static_cast<double>(value);
            const ParamRange& r = info.range;
            const bool above = r.loOpen ? x > r.lo : x >= r.lo;
            const bool below = r.hiOpen ? x < r.hi : x <= r.hi;
            return above && below ? Status{} : Status{paramError(info.key, rangeText(info))};
        }
    });
}

std::string paramText(const ParamInfo& info, const SceneOptionValues& v) {
    return visitParam(info.field, v, [&](const auto& value) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
            return value;
        } else {
            char text[32];
            std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
            return text;
        }
    });
}

Status setParamText(const ParamInfo& info, SceneOptionValues& v, const std::string& text) {
    return visitParam(info.field, v, [&](auto& value) -> Status {
        using T = std::decay_t<decltype(value)>;
        if constexpr (std::is_same_v<T, std::string>) {
            value = text;
        } else {
            char* end = nullptr;
            const double x = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0') {
                return paramError(info.key, "'" + text + "' is not a number");
            }
            value = static_cast<T>(x);
        }
        return {};
    });
}

Status parseSize(const std::string& text, const char* option, int& a, int& b) {
    const auto x = text.find('x');
    char* end1 = nullptr;
    char* end2 = nullptr;
    if (x != std::string::npos) {
        const std::string sa = text.substr(0, x);
        const std::string sb = text.substr(x + 1);
        const long va = std::strtol(sa.c_str(), &end1, 10);
        const long vb = std::strtol(sb.c_str(), &end2, 10);
        const bool integers = !sa.empty() && !sb.empty() && *end1 == '\0' && *end2 == '\0';
        if (integers && va > 0 && vb > 0 && va <= 1 << 16 && vb <= 1 << 16) {
            a = static_cast<int>(va);
            b = static_cast<int>(vb);
            return {};
        }
        if (integers && va > 0 && vb > 0) {
            return inputError(std::string("--") + option + " '" + text +
                              "': each side must be at most 65536 (the scene's own limit on "
                              "the product is checked after)");
        }
    }
    return inputError(std::string("--") + option + " '" + text +
                      "' must be AxB with two positive integers, e.g. 10x6");
}

}  // namespace ww::app
