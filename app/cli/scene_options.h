// The scene options of docs/cli.md, registered for the command line and config files from the
// parameter tables of the scenes in the registry (app/cli/scene_registry.h). Each scene turns
// them into its validated settings in its own folder (app/scenes/<scene>/<scene>_options.h).
// Defaults come from the solvers' own parameter structs, so they live in one place.
#pragma once

#include <string>

#include "app/cli/option_table.h"
#include "app/scenes/scene_params.h"

namespace ww::app {

/// One option (flag and config key) per parameter row of every registered scene, in the
/// registry's order (a key two scenes share is registered once), then --dt and --threads. The
/// help of a key names the scenes' own defaults for it (SceneEntry::defaults).
void registerSceneOptions(OptionTable& table, SceneOptionValues& values);

/// The backend to ask for (--backend cpu|gpu|auto) given the scene's LCP method: Gauss-Seidel
/// runs on the CPU only, so with it "gpu" is an input error and "auto" becomes "cpu" (said on
/// stderr). Scenes that do not read --lcp-solver and Jacobi get `choice` back.
Result<std::string> lcpBackendChoice(const std::string& choice, const std::string& scene,
                                     const SceneOptionValues& v);

}  // namespace ww::app
