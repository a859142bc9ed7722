// Snapshot files of a scene's state (`headless --snapshot-save F`, `--snapshot-load F`): a
// header (magic, format version, the scene's name, the payload's size) and the payload of
// SceneState::serialize(). Loading checks all of it, so a file of another scene, another
// version, or a truncated one is a clear input error (exit 2).
#pragma once

#include <string>

#include "app/scenes/sim_scene.h"
#include "solver/core/result.h"

namespace ww::app {

/// Writes `scene`'s current state to `path` (atomically: a .partial file renamed).
Status saveStateFile(const SimScene& scene, const std::string& path);
/// Reads `path` and restores it into `scene` (of the same kind: the error says which scene
/// the file holds otherwise).
Status loadStateFile(SimScene& scene, const std::string& path);

}  // namespace ww::app
