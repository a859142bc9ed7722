// The demo's own user interface settings, apart from the scenes': where the panel layout
// (Dear ImGui's ini: window positions, sizes, collapsed state) is kept between runs, and the
// UI scale for high-DPI screens.
#pragma once

#include <string>

#include "solver/core/result.h"

namespace ww::demo {

/// The layout file: $XDG_CONFIG_HOME/wavewall/imgui.ini, else ~/.config/wavewall/imgui.ini
/// ($HOME); empty (none kept) when WAVEWALL_NO_INI is set to anything but "" or "0", or when
/// neither variable is set. Never the working directory.
std::string layoutIniPath();

/// Writes `text` to `path` (creating its folder), through a temporary file renamed over it so
/// a crash never leaves half a layout; an error says why it cannot.
Status writeLayoutIni(const std::string& path, const std::string& text);

/// `--ui-scale`: "auto" (0: from the monitor's content scale) or a factor in
/// [kMinUiScale, kMaxUiScale]; an input error naming the flag otherwise.
inline constexpr float kMinUiScale = 0.5f;
inline constexpr float kMaxUiScale = 4.0f;
Result<float> parseUiScale(const std::string& text);

/// The UI scale for a window whose monitor reports `contentScale` (glfwGetWindowContentScale)
/// and whose framebuffer has `framebufferPerWindowPixel` pixels per window unit: the part of
/// the content scale the framebuffer does not already provide (1 on macOS and Wayland, where
/// window units are logical points; the content scale on X11 and Windows), clamped to the
/// range above. `override` > 0 wins.
float uiScaleFor(float contentScale, float framebufferPerWindowPixel, float override);

}  // namespace ww::demo
