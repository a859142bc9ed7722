// Settings the running demo saves and loads: "Save as config" writes the scenes' current
// settings as a JSON config file (the keys `--config` accepts) into the output folder, and the
// preset picker offers the JSON configs of the assets folder. The demo knows no option keys:
// the command line hands it the two hooks (app/cli/demo_config.h) that turn scenes into a
// config text and a config file into scenes.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "app/demo/demo_scene.h"
#include "solver/core/result.h"

namespace ww::demo {

/// Scenes built from one set of settings, and the one to show.
struct SceneSet {
    std::vector<std::unique_ptr<DemoScene>> scenes;
    int current = 0;
};

struct SettingsHooks {
    /// The scenes' current settings (`current` is the one shown) as the text of a JSON config
    /// file that `wavewall demo --config` and `wavewall headless --config` read back.
    std::function<Result<std::string>(std::span<const std::unique_ptr<DemoScene>> scenes,
                                      int current)>
        configText;
    /// Builds the scenes of a config file (on the CPU backend); an error naming the file and key
    /// when it cannot.
    std::function<Result<SceneSet>(const std::string& configPath)> loadConfig;
};

/// dir/wavewall[what]_YYYYmmdd_HHMMSS.ext (local time), with _2, _3, ... when that exists.
std::string timestampedPath(const std::string& dir, const char* what, const char* ext);

/// Writes `text` to a new file dir/wavewall_config_<time>.json (never over an existing file)
/// and returns its path; an error naming the path and the reason when it cannot.
Result<std::string> writeNewConfigFile(const std::string& dir, const std::string& text);

/// The presets folder: $WAVEWALL_ASSETS_DIR if set, else the first of <exe dir>/assets,
/// <exe dir>/../share/wavewall/assets, <exe dir>/../assets and <exe dir>/../../assets (the
/// build tree's app/ folder) that holds a *.json file; empty if none does. `tried` gets the
/// folders looked at, for the message.
std::string findAssetsDir(std::string* tried = nullptr);

/// The *.json files of `dir`, sorted by name.
std::vector<std::string> listPresets(const std::string& dir);

}  // namespace ww::demo
