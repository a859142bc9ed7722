// Snapshot files of a scene's state (`headless --snapshot-save F`, `--snapshot-load F`):
//
//   magic "WWSTATE\n" | version (u32) | checksum (u64) | scene name (u64 length, bytes) |
//   payload size (u64) | payload (SceneState::serialize())
//
// The checksum is 64-bit FNV-1a over every byte after it (name, size and payload), so any
// changed byte there is found (FNV-1a's steps are bijections of its state: two inputs that
// differ in one byte never meet again). Loading checks all of it, so a file of another scene,
// another version, a truncated or a corrupted one is a clear input error (exit 2). Files of
// versions 1 and 2 carried no checksum and are refused, naming both versions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "app/scenes/sim_scene.h"
#include "solver/core/result.h"

namespace ww::app {

/// Writes `scene`'s current state to `path` (atomically: a .partial file renamed).
Status saveStateFile(const SimScene& scene, const std::string& path);
/// Reads `path` and restores it into `scene` (of the same kind: the error says which scene
/// the file holds otherwise).
Status loadStateFile(SimScene& scene, const std::string& path);

/// The bytes of a state file holding `payload` for the scene `sceneName` (what saveStateFile
/// writes).
std::string encodeStateFile(std::string_view sceneName, std::string_view payload);
/// Checks the bytes of a state file and restores them into `scene`; errors begin with
/// `--snapshot-load <source>`. Refused input leaves `scene` as it was.
Status loadStateBytes(SimScene& scene, std::string_view bytes, const std::string& source);

/// 64-bit FNV-1a of `bytes`, continuing from `h` (the offset basis by default); the state
/// file's checksum is this over the version's bytes, then everything after the checksum.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h = 0xcbf29ce484222325ull);

}  // namespace ww::app
