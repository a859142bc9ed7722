// The demo's keys and mouse actions, in one table: the key handler looks keys up here and the
// help overlay (F1) and the panel's "Keys and mouse" list are printed from it, so what the
// help says is what the keys do.
#pragma once

#include <span>

namespace ww::demo {

enum class KeyCommand {
    kHelp,             ///< show / hide the help overlay
    kPause,            ///< pause / run
    kStep,             ///< one step (while paused)
    kReset,            ///< rebuild the scene
    kScene,            ///< switch to scene (key - firstKey)
    kBackend,          ///< CPU / GPU for all scenes
    kScreenshot,       ///< write a PNG
    kVideo,            ///< start / stop a video recording
    kHistoryBack,      ///< pause and show the previous saved state
    kHistoryForward,   ///< show the next saved state
    kPanel,            ///< show / hide the panel
    kVsync,            ///< vsync on / off
    kSaveConfig,       ///< write the current settings as a config file
    kContactPoints,    ///< contact overlay: points on / off
    kContactNormals,   ///< contact overlay: normal impulses on / off
    kContactFriction,  ///< contact overlay: friction impulses on / off
    kBodyColouring,    ///< contact overlay: next body colouring (material, island, ...)
    kQuit,             ///< last: tests count the commands up to it
};

struct KeyBinding {
    int firstKey;  ///< GLFW key code
    int lastKey;   ///< last of a range (1…9), else firstKey
    const char* keys;
    const char* action;
    KeyCommand command;
};

struct MouseBinding {
    const char* gesture;
    const char* action;
};

std::span<const KeyBinding> keyBindings();
std::span<const MouseBinding> mouseBindings();
/// The binding of a GLFW key code, or nullptr.
const KeyBinding* bindingForKey(int glfwKey);

}  // namespace ww::demo
