#include "app/demo/key_bindings.h"

#include <GLFW/glfw3.h>

namespace ww::demo {

namespace {

constexpr KeyBinding kKeys[] = {
    {GLFW_KEY_F1, GLFW_KEY_F1, "F1", "this help", KeyCommand::kHelp},
    {GLFW_KEY_SPACE, GLFW_KEY_SPACE, "space", "pause / run", KeyCommand::kPause},
    {GLFW_KEY_PERIOD, GLFW_KEY_PERIOD, ".", "one step (while paused)", KeyCommand::kStep},
    {GLFW_KEY_LEFT, GLFW_KEY_LEFT, "left", "back in the history (pauses)",
     KeyCommand::kHistoryBack},
    {GLFW_KEY_RIGHT, GLFW_KEY_RIGHT, "right", "forward in the history",
     KeyCommand::kHistoryForward},
    {GLFW_KEY_R, GLFW_KEY_R, "R", "reset the scene", KeyCommand::kReset},
    {GLFW_KEY_1, GLFW_KEY_9, "1 ... 9", "switch scene (the panel's list, in order)",
     KeyCommand::kScene},
    {GLFW_KEY_G, GLFW_KEY_G, "G", "solver backend CPU / GPU (all scenes)", KeyCommand::kBackend},
    {GLFW_KEY_F12, GLFW_KEY_F12, "F12", "screenshot (PNG)", KeyCommand::kScreenshot},
    {GLFW_KEY_F10, GLFW_KEY_F10, "F10", "record a video / stop", KeyCommand::kVideo},
    {GLFW_KEY_S, GLFW_KEY_S, "S", "save the settings as a config file (output folder)",
     KeyCommand::kSaveConfig},
    {GLFW_KEY_H, GLFW_KEY_H, "H", "hide / show the panel", KeyCommand::kPanel},
    {GLFW_KEY_V, GLFW_KEY_V, "V", "vsync on / off", KeyCommand::kVsync},
    {GLFW_KEY_C, GLFW_KEY_C, "C", "contact points (wall)", KeyCommand::kContactPoints},
    {GLFW_KEY_N, GLFW_KEY_N, "N", "contact normals x normal impulse (wall)",
     KeyCommand::kContactNormals},
    {GLFW_KEY_F, GLFW_KEY_F, "F", "friction impulses (wall)", KeyCommand::kContactFriction},
    {GLFW_KEY_B, GLFW_KEY_B, "B", "colour bodies: material / island / sleep / not converged",
     KeyCommand::kBodyColouring},
    {GLFW_KEY_ESCAPE, GLFW_KEY_ESCAPE, "Esc", "quit", KeyCommand::kQuit},
};

constexpr MouseBinding kMouse[] = {
    {"left-drag on a brick", "pull it along (a spring to the cursor)"},
    {"left-drag elsewhere", "orbit the camera"},
    {"right- or middle-drag", "pan"},
    {"wheel", "zoom"},
    {"ctrl + click (wall)", "remove the brick under the cursor"},
    {"click (water)", "a drop where the ray meets the water"},
    {"ctrl + drag (water)", "a wake along the path"},
    {"shift + click", "shoot a sphere along the ray (wall)"},
};

}  // namespace

std::span<const KeyBinding> keyBindings() {
    return kKeys;
}

std::span<const MouseBinding> mouseBindings() {
    return kMouse;
}

const KeyBinding* bindingForKey(int glfwKey) {
    for (const KeyBinding& b : kKeys) {
        if (glfwKey >= b.firstKey && glfwKey <= b.lastKey) {
            return &b;
        }
    }
    return nullptr;
}

}  // namespace ww::demo
