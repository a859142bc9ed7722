// Running a SimScene for a number of fixed steps with scripted events, and printing what the
// run measured: the loop and the text summary shared by `wavewall demo`'s no-display fallback
// and (the same shape as) `wavewall headless`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/bench/stats.h"
#include "app/scenes/event_script.h"
#include "app/scenes/sim_scene.h"

namespace ww::app {

/// What a run of a scene measured.
struct SceneRunStats {
    int steps = 0;
    std::vector<double> stepMs;                ///< per step
    std::vector<std::string> phaseNames;       ///< in the order the scene reports them
    std::vector<std::vector<double>> phaseMs;  ///< [phase][step]
    std::vector<std::string> violations;       ///< invariant violations and failed events
};

/// Linear-interpolated quantile q in [0, 1] of `v` (0 when empty).
using bench::quantile;

/// Steps `scene` `steps` times; each event of `script` is applied before the step it names
/// (reset included, as `wavewall headless` does). Invariants are checked after every step;
/// with `stopAtViolation` the run ends at the first one.
SceneRunStats runSceneSteps(SimScene& scene, int steps, EventScript script,
                            bool stopAtViolation = false);

/// Prints the run as `wavewall headless` does: scene, backend, step-time quantiles, per-phase
/// medians, the scene's summary() keys and the state hash.
/// Renders the scene's current state offscreen from a camera framing viewBounds() and writes
/// a PNG (needs a current GL context).
Status renderSceneToPng(const SimScene& scene, const std::string& shaderDir, int width, int height,
                        const std::string& path);

void printSceneRun(const char* command, SimScene& scene, const SceneRunStats& run,
                   const std::string& renderer, std::uint64_t seed);

}  // namespace ww::app
