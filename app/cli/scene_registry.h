// The scenes wavewall knows, in one table: name, description, the options they read (their
// parameter rows), how to build each from validated option values and how to put it in the
// demo's panel (its adapter's wrap, app/demo/demo_adapter.h). `wavewall headless`, the demo (its
// scene list, its no-display run, the events each takes), the command line's scene options
// (app/cli/scene_options.h) and the tests all go through it. Each scene's code is one folder,
// app/scenes/<scene>/ (docs/design.md, "Adding a scene"); this table is the one place that
// names it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/demo/demo_adapter.h"
#include "app/scenes/scene_params.h"
#include "app/scenes/sim_scene.h"

namespace ww::app {

/// What a scene is built from.
struct SceneBuild {
    SceneOptionValues values;
    std::uint64_t seed = 1;
    bool recordHistory = false;  ///< keep each solve's residual per iteration (the panel's plot)
    bool initialDrop = true;     ///< water: a drop in the middle at the start
    /// Steps between the diagnostics that cost a pass over the whole state (the water's
    /// energy): 1 evaluates them every step (--check, the demo's plots); the first step and
    /// the summary always have them.
    int diagnosticsEvery = 1;
};

struct SceneEntry {
    const char* name;         ///< --scene value
    const char* description;  ///< one line, for help texts
    const char* options;      ///< which scene options it reads (docs/cli.md's groups)
    /// Every parameter row it reads, its own and those it shares with other scenes (each key
    /// becomes one --flag and config key, registered once in the registry's order).
    std::vector<ParamInfo> params;
    /// Its own defaults for keys of `params` it shares with other scenes (applied by
    /// sceneValues() where the user gave the key no value).
    std::vector<SceneDefault> defaults;
    Result<std::unique_ptr<SimScene>> (*make)(const SceneBuild& build);
    /// Events of the demo's short no-display run (something happens within its first steps);
    /// empty: that run leaves the scene out.
    std::vector<std::string> previewEvents;
    /// Why the scene cannot run on the GPU, or null when it can.
    const char* cpuOnly = nullptr;
    /// The demo leaves the scene out (instead of failing) when its options do not fit, unless
    /// it is the scene asked for.
    bool optionalInDemo = false;
    /// Its panel adapter (null: the demo does not show it).
    DemoWrap wrap = nullptr;
    /// Whether its adapter runs an event script (--event); events go to the scenes that do.
    bool takesEvents = false;
};

/// Every scene, in the demo's order (keys 1, 2, 3, ...).
std::span<const SceneEntry> sceneRegistry();
/// The entry named `name`, or null.
const SceneEntry* findScene(std::string_view name);
/// The names, in order (for --scene's accepted values).
std::vector<std::string> sceneNames();

/// `v` with the scene's own defaults (SceneEntry::defaults) for the keys the user did not give.
SceneOptionValues sceneValues(const SceneEntry& entry, SceneOptionValues v);
/// Builds the entry's scene from sceneValues(entry, build.values).
Result<std::unique_ptr<SimScene>> makeScene(const SceneEntry& entry, SceneBuild build);
/// Builds the scene `name`; an input error naming the scenes when there is none of that name.
Result<std::unique_ptr<SimScene>> makeScene(const std::string& name, const SceneBuild& build);
Result<std::unique_ptr<SimScene>> makeScene(const std::string& name, const SceneOptionValues& v,
                                            std::uint64_t seed, int diagnosticsEvery = 1);

}  // namespace ww::app
