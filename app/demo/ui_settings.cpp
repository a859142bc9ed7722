#include "app/demo/ui_settings.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace ww::demo {

std::string layoutIniPath() {
    const auto env = [](const char* name) {
        const char* v = std::getenv(name);
        return std::string(v != nullptr ? v : "");
    };
    const std::string off = env("WAVEWALL_NO_INI");
    if (!off.empty() && off != "0") {
        return {};
    }
    const std::string xdg = env("XDG_CONFIG_HOME");
    // The XDG spec ignores a relative XDG_CONFIG_HOME; so does this (never the working dir).
    if (!xdg.empty() && xdg.front() == '/') {
        return (std::filesystem::path(xdg) / "wavewall" / "imgui.ini").string();
    }
    const std::string home = env("HOME");
    if (!home.empty() && home.front() == '/') {
        return (std::filesystem::path(home) / ".config" / "wavewall" / "imgui.ini").string();
    }
    return {};
}

Status writeLayoutIni(const std::string& path, const std::string& text) {
    const std::filesystem::path file(path);
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) {
        return Error{ErrorKind::kIo,
                     "cannot create " + file.parent_path().string() + ": " + ec.message()};
    }
    const std::string temporary = path + ".tmp";
    std::FILE* f = std::fopen(temporary.c_str(), "w");
    if (f == nullptr) {
        return Error{ErrorKind::kIo, "cannot write " + temporary + ": " + std::strerror(errno)};
    }
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (std::fclose(f) != 0 || !written) {
        std::remove(temporary.c_str());
        return Error{ErrorKind::kIo, "cannot write " + temporary + ": " + std::strerror(errno)};
    }
    std::filesystem::rename(temporary, file, ec);
    if (ec) {
        std::remove(temporary.c_str());
        return Error{ErrorKind::kIo, "cannot replace " + path + ": " + ec.message()};
    }
    return {};
}

Result<float> parseUiScale(const std::string& text) {
    if (text == "auto") {
        return 0.0f;
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end == nullptr || *end != '\0' || !(v >= kMinUiScale) ||
        !(v <= kMaxUiScale)) {
        char range[64];
        std::snprintf(range, sizeof range, "[%g, %g]", static_cast<double>(kMinUiScale),
                      static_cast<double>(kMaxUiScale));
        return inputError("--ui-scale '" + text + "' must be auto or a number in " + range +
                          " (e.g. 1.5 for a 144 dpi screen)");
    }
    return static_cast<float>(v);
}

float uiScaleFor(float contentScale, float framebufferPerWindowPixel, float override) {
    if (override > 0.0f) {
        return override;
    }
    if (!(contentScale > 0.0f) || !std::isfinite(contentScale)) {
        return 1.0f;
    }
    const float perPixel =
        framebufferPerWindowPixel >= 1.0f && std::isfinite(framebufferPerWindowPixel)
            ? framebufferPerWindowPixel
            : 1.0f;
    return std::clamp(contentScale / perPixel, kMinUiScale, kMaxUiScale);
}

}  // namespace ww::demo
