#include "app/demo/demo.h"

// clang-format off
#include <GL/glew.h>
#include <GLFW/glfw3.h>
// clang-format on
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <deque>
#include <filesystem>
#include <optional>

#include "app/demo/auto_backend.h"
#include "app/demo/demo_panel.h"
#include "app/demo/frame_timings.h"
#include "app/demo/frame_trace.h"
#include "app/demo/key_bindings.h"
#include "app/demo/ui_settings.h"
#include "app/demo/video_recorder.h"
#include "render/camera.h"
#include "render/capture.h"
#include "render/renderer.h"
#include "solver/core/timer.h"
#include "solver/gpu/gpu_context.h"

namespace ww::demo {

namespace {

// Events GLFW delivers through callbacks, collected until the frame handles them. Reached
// through the window's user pointer (ImGui's backend chains our callbacks; it does not use
// the user pointer).
struct ButtonEvent {
    int button = 0;
    int action = 0;  ///< GLFW_PRESS or GLFW_RELEASE
    int mods = 0;
    glm::vec2 at{0.0f};  ///< cursor, window pixels, when it happened
};

struct InputQueue {
    double scrollY = 0.0;
    std::vector<int> keys;  ///< GLFW key codes pressed since the last frame
    /// Mouse presses and releases since the last frame, in order: a click whose press and
    /// release fall between two frames is kept (polling the button once a frame loses it).
    std::vector<ButtonEvent> buttons;
    /// The same presses and releases for the panel, each at the cursor of its moment (the
    /// cursor callback's last position), handed to Dear ImGui one a frame (feedPanelButton):
    /// its GLFW backend (1.86) reads the cursor once a frame, so on a slow frame a click on a
    /// button followed by a move away landed where the cursor was at the next frame, and the
    /// button never saw it.
    std::deque<ButtonEvent> panelButtons;
    std::optional<glm::vec2> cursor;   ///< window pixels, as of the last cursor event
    bool contentScaleChanged = false;  ///< the window moved to a monitor of another scale
};

// The mouse gesture in progress: a press becomes a click if it ends where it started, an
// orbit or pan if it moves, a wake if ctrl is held.
struct MouseGesture {
    bool active = false;
    int button = -1;
    bool dragged = false;
    bool shift = false;
    bool ctrl = false;
    bool grabbing = false;  ///< the scene grabbed a body at the press: the drag pulls it
    glm::vec2 pressAt{0.0f};
    glm::vec2 last{0.0f};
};

std::string& lastGlfwError() {
    static std::string message;  // GLFW's error callback carries no user pointer
    return message;
}

void onGlfwError(int code, const char* description) {
    lastGlfwError() = std::string(description != nullptr ? description : "") + " (GLFW error " +
                      std::to_string(code) + ")";
}

void onScroll(GLFWwindow* window, double /*dx*/, double dy) {
    static_cast<InputQueue*>(glfwGetWindowUserPointer(window))->scrollY += dy;
}

void onKey(GLFWwindow* window, int key, int /*scancode*/, int action, int /*mods*/) {
    if (action == GLFW_PRESS) {
        static_cast<InputQueue*>(glfwGetWindowUserPointer(window))->keys.push_back(key);
    }
}

void onContentScale(GLFWwindow* window, float /*xScale*/, float /*yScale*/) {
    static_cast<InputQueue*>(glfwGetWindowUserPointer(window))->contentScaleChanged = true;
}

void onMouseButton(GLFWwindow* window, int button, int action, int mods) {
    double x = 0.0;
    double y = 0.0;
    glfwGetCursorPos(window, &x, &y);
    auto* input = static_cast<InputQueue*>(glfwGetWindowUserPointer(window));
    const glm::vec2 now{static_cast<float>(x), static_cast<float>(y)};
    input->buttons.push_back({button, action, mods, now});
    input->panelButtons.push_back({button, action, mods, input->cursor.value_or(now)});
}

void onCursorPos(GLFWwindow* window, double x, double y) {
    static_cast<InputQueue*>(glfwGetWindowUserPointer(window))->cursor =
        glm::vec2{static_cast<float>(x), static_cast<float>(y)};
}

render::OrbitCamera homeCamera(const DemoScene& scene) {
    const CameraHome h = scene.cameraHome();
    return render::OrbitCamera(h.target, h.distanceM, h.yawRadians, h.pitchRadians);
}

// Everything the running demo holds; one instance per runDemo call, no globals.
struct Demo {
    DemoOptions options;
    std::vector<std::unique_ptr<DemoScene>> scenes;
    GLFWwindow* window = nullptr;
    std::unique_ptr<gpu::GpuContext> gpu;
    render::Renderer renderer;
    render::OrbitCamera camera;
    render::DrawData drawData;
    InputQueue input;
    MouseGesture gesture;
    PanelState panel;
    FrameTimings timings;
    std::vector<std::string> gpuWhy;  ///< per scene: why its GPU backend failed, if it did
    FrameTrace trace;
    Stopwatch runClock;
    int current = 0;
    CameraHome shownHome;  ///< the current scene's home when the camera last went there
    double stepAccumulator = 0.0;
    RealTimePacer pacer;
    Stopwatch frameClock;  ///< wall time since the last frame's steps (real-time pacing)
    bool stepOnce = false;
    double simSeconds = 0.0;  ///< simulated time shown, summed over every scene's steps
    std::unique_ptr<VideoRecorder> video;
    History history;         ///< the current scene's recent states (cleared on reset and switch)
    std::string videoError;  ///< why the last recording stopped early, if it did
    DemoReport report;
    bool fontsUploaded = false;  ///< the ImGui renderer holds a font texture (after frame 1)

    // The window's size in screen pixels (the unit of the cursor and of ImGui's layout).
    glm::ivec2 windowPixels() const {
        glm::ivec2 size(0);
        glfwGetWindowSize(window, &size.x, &size.y);
        return size;
    }

    // The orbit camera with its view centred in what the panel leaves free of a window
    // `windowWidth` pixels wide (panel coordinates are window pixels).
    render::Camera view(float windowWidth) const {
        render::Camera c = camera.camera();
        c.lensShiftX = panelLensShift(panel, windowWidth);
        return c;
    }

    void switchScene(int index) {
        if (index < 0 || index >= static_cast<int>(scenes.size()) || index == current) {
            return;
        }
        if (gesture.grabbing) {
            scenes[current]->endGrab();
            gesture.active = false;
        }
        current = index;
        goHome();
        panel.gpuUnavailable = gpuWhy[current];
        panel.message.clear();
    }

    void goHome() {
        shownHome = scenes[current]->cameraHome();
        camera = homeCamera(*scenes[current]);
    }

    // A rebuild that moves the scene's home (a new wall size, pool size or grid) re-frames
    // the view.
    void followHome() {
        const CameraHome h = scenes[current]->cameraHome();
        if (h.target != shownHome.target || h.distanceM != shownHome.distanceM) {
            goHome();
        }
    }

    // The backend is one choice for the whole demo: every scene switches (keeping its state),
    // so a scene switched to later runs where the panel says.
    void switchBackend(Backend backend) {
        std::string failed;
        for (std::size_t i = 0; i < scenes.size(); ++i) {
            if (scenes[i]->backend() == backend) {
                continue;
            }
            const Status s = scenes[i]->setBackend(backend);
            if (s) {
                continue;
            }
            failed += std::string(failed.empty() ? "" : "; ") + scenes[i]->name() + ": " +
                      s.error().message;
            if (backend == Backend::kGpu) {
                gpuWhy[i] = s.error().message;
            }
        }
        panel.gpuUnavailable = gpuWhy[static_cast<std::size_t>(current)];
        panel.message =
            failed.empty()
                ? std::string("backend: ") + backendName(backend) + " (all scenes)"
                : std::string("could not switch to ") + backendName(backend) + ": " + failed;
    }

    void takeScreenshot(const std::string& path, int fbWidth, int fbHeight) {
        const render::Image image = render::readFramebuffer(0, fbWidth, fbHeight);
        Status s = render::writePng(image, path);
        panel.message = s ? "saved " + path : s.error().message;
        if (s) {
            report.screenshot = path;
        }
    }

    void toggleRecording() {
        if (trace.recording()) {
            const std::string path = trace.path();
            Status s = trace.stop();
            panel.message = s ? "trace written to " + path : s.error().message;
            panel.recording = false;
            return;
        }
        if (options.tracePath.empty() || report.tracesStarted > 0) {
            panel.tracePath = timestampedPath(panel.outputDir, "_trace", ".json");
        }
        ++report.tracesStarted;
        Status s = trace.start(panel.tracePath, scenes[current]->name());
        panel.recording = s.ok();
        panel.message = s ? "recording " + panel.tracePath : s.error().message;
    }

    // Starts a video (to `path`, or a fresh name in the output folder) or finishes the one
    // being recorded.
    void toggleVideo(int fbWidth, int fbHeight, std::string path = {}) {
        if (video) {
            finishVideo();
            return;
        }
        VideoRecorderOptions vo;
        vo.path = path.empty() ? timestampedPath(panel.outputDir, "", ".mp4") : path;
        vo.fps = options.recordFps;
        vo.ffmpeg = options.ffmpeg;
        auto opened = VideoRecorder::open(vo, fbWidth, fbHeight);
        if (!opened) {
            videoError = opened.error().message;
            panel.message = videoError;
            return;
        }
        video = std::move(*opened);
        panel.videoRecording = true;
        panel.message = "recording: " + video->note();
        std::fprintf(stderr, "wavewall demo: recording: %s\n", video->note().c_str());
    }

    void finishVideo() {
        if (!video) {
            return;
        }
        Status s = video->close();
        report.videoFrames += video->framesWritten();
        report.video = video->output();
        if (s) {
            panel.message = "recorded " + std::to_string(video->framesWritten()) + " frames to " +
                            video->output();
        } else {
            videoError = s.error().message;
            panel.message = videoError;
        }
        std::fprintf(stderr, "wavewall demo: %s\n", panel.message.c_str());
        video.reset();
        panel.videoRecording = false;
    }

    // Adds the frame just drawn (view and panel) to the video at the simulated time it shows.
    void captureVideoFrame(int fbWidth, int fbHeight) {
        if (!video) {
            return;
        }
        const render::Image image = render::readFramebuffer(0, fbWidth, fbHeight);
        if (Status s = video->addFrame(image, simSeconds); !s) {
            videoError = s.error().message;
            finishVideo();
            panel.message = videoError;
        }
    }

    void handleKeys(PanelRequests& requests) {
        const bool typing = ImGui::GetIO().WantCaptureKeyboard;
        for (int key : input.keys) {
            const KeyBinding* binding = bindingForKey(key);
            if (binding == nullptr || (typing && binding->command != KeyCommand::kScreenshot)) {
                continue;
            }
            switch (binding->command) {
                case KeyCommand::kHelp:
                    panel.showHelp = !panel.showHelp;
                    break;
                case KeyCommand::kPause:
                    panel.paused = !panel.paused;
                    break;
                case KeyCommand::kStep:
                    requests.step = true;
                    break;
                case KeyCommand::kReset:
                    requests.reset = true;
                    break;
                case KeyCommand::kScene:
                    requests.scene = key - binding->firstKey;
                    break;
                case KeyCommand::kScreenshot:
                    ++requests.screenshot;
                    break;
                case KeyCommand::kVideo:
                    requests.toggleVideo = true;
                    break;
                case KeyCommand::kHistoryBack:
                    --requests.historyMove;
                    break;
                case KeyCommand::kHistoryForward:
                    ++requests.historyMove;
                    break;
                case KeyCommand::kBackend:
                    requests.backend =
                        scenes[current]->backend() == Backend::kCpu ? Backend::kGpu : Backend::kCpu;
                    break;
                case KeyCommand::kPanel:
                    panel.visible = !panel.visible;
                    break;
                case KeyCommand::kSaveConfig:
                    requests.saveConfig = true;
                    break;
                case KeyCommand::kVsync:
                    panel.vsync = !panel.vsync;
                    requests.vsyncChanged = true;
                    break;
                case KeyCommand::kContactPoints:
                    panel.overlay.points = !panel.overlay.points;
                    break;
                case KeyCommand::kContactNormals:
                    panel.overlay.normals = !panel.overlay.normals;
                    break;
                case KeyCommand::kContactFriction:
                    panel.overlay.friction = !panel.overlay.friction;
                    break;
                case KeyCommand::kBodyColouring:
                    panel.overlay.bodies = static_cast<BodyColouring>(
                        (static_cast<int>(panel.overlay.bodies) + 1) % kBodyColouringCount);
                    break;
                case KeyCommand::kQuit:
                    glfwSetWindowShouldClose(window, GLFW_TRUE);
                    break;
            }
        }
        input.keys.clear();
    }

    // Moves the gesture in progress to `cursor`: orbit, pan or a wake segment.
    void dragGestureTo(glm::vec2 cursor, glm::ivec2 windowSize) {
        const glm::vec2 delta = cursor - gesture.last;
        gesture.last = cursor;
        // A few pixels of jitter still count as a click.
        if (glm::length(cursor - gesture.pressAt) > 4.0f) {
            gesture.dragged = true;
        }
        if (delta == glm::vec2(0.0f) &&
            !(gesture.ctrl && gesture.button == GLFW_MOUSE_BUTTON_LEFT)) {
            return;
        }
        DemoScene& scene = *scenes[current];
        if (gesture.grabbing) {
            scene.moveGrab(rayAt(cursor, windowSize));
            return;
        }
        if (gesture.button == GLFW_MOUSE_BUTTON_LEFT) {
            if (gesture.ctrl) {
                scene.onPick(rayAt(cursor, windowSize), PickAction::kDrag);
            } else if (gesture.dragged) {
                camera.orbit(delta.x, delta.y);
            }
        } else {
            camera.pan(delta.x, delta.y, static_cast<float>(windowSize.y));
        }
    }

    // The spring of a grab, from the point on the body to where the cursor pulls it, over
    // the 3D view and under the panel.
    void drawGrabLine(glm::vec2 windowSize) {
        const auto line = scenes[current]->grabLine();
        if (!line) {
            return;
        }
        const render::Camera cam = view(windowSize.x);
        const glm::ivec2 size(windowSize);
        const glm::vec3 a = cam.project(line->first, size);
        const glm::vec3 b = cam.project(line->second, size);
        ImDrawList* draw = ImGui::GetBackgroundDrawList();
        const ImU32 colour = IM_COL32(255, 235, 80, 255);
        draw->AddLine(ImVec2(a.x, a.y), ImVec2(b.x, b.y), colour, 2.5f);
        draw->AddCircleFilled(ImVec2(a.x, a.y), 4.0f, colour);
        draw->AddCircle(ImVec2(b.x, b.y), 6.0f, colour, 0, 2.0f);
    }

    render::Ray rayAt(glm::vec2 cursor, glm::ivec2 windowSize) const {
        return view(static_cast<float>(windowSize.x)).pickRay(cursor, windowSize);
    }

    // Replays the frame's button events in order, then follows the cursor while a button
    // is held. A press that ImGui wants (over the panel) starts no gesture.
    void handleMouse() {
        const ImGuiIO& io = ImGui::GetIO();
        const glm::ivec2 windowSize = windowPixels();
        if (!io.WantCaptureMouse && input.scrollY != 0.0) {
            camera.zoom(static_cast<float>(input.scrollY));
        }
        input.scrollY = 0.0;

        for (const ButtonEvent& e : input.buttons) {
            if (e.action == GLFW_PRESS) {
                if (gesture.active || io.WantCaptureMouse ||
                    (e.button != GLFW_MOUSE_BUTTON_LEFT && e.button != GLFW_MOUSE_BUTTON_RIGHT &&
                     e.button != GLFW_MOUSE_BUTTON_MIDDLE)) {
                    continue;
                }
                const bool shift = (e.mods & GLFW_MOD_SHIFT) != 0;
                const bool ctrl = (e.mods & GLFW_MOD_CONTROL) != 0;
                gesture = {true, e.button, false, shift, ctrl, false, e.at, e.at};
                // A plain left press on a body grabs it; elsewhere it orbits or clicks.
                gesture.grabbing = e.button == GLFW_MOUSE_BUTTON_LEFT && !shift && !ctrl &&
                                   scenes[current]->beginGrab(rayAt(e.at, windowSize));
                report.grabs += gesture.grabbing ? 1 : 0;
                continue;
            }
            if (!gesture.active || e.button != gesture.button) {
                continue;
            }
            dragGestureTo(e.at, windowSize);
            if (gesture.grabbing) {
                scenes[current]->endGrab();
            } else if (gesture.button == GLFW_MOUSE_BUTTON_LEFT && !gesture.dragged) {
                ++report.picks;
                scenes[current]->onPick(rayAt(e.at, windowSize), gesture.ctrl ? PickAction::kRemove
                                                                 : gesture.shift
                                                                     ? PickAction::kShoot
                                                                     : PickAction::kClick);
            }
            gesture.active = false;
        }
        input.buttons.clear();
        if (gesture.active) {
            double cx = 0.0;
            double cy = 0.0;
            glfwGetCursorPos(window, &cx, &cy);
            dragGestureTo({static_cast<float>(cx), static_cast<float>(cy)}, windowSize);
        }
    }

    // The oldest press or release the panel has not seen, with the cursor where it happened
    // (after the backend's once-a-frame reading, which it overrides): one a frame, so a press
    // and its release in one slow frame are a click on the next two.
    void feedPanelButton() {
        if (input.panelButtons.empty()) {
            return;
        }
        const ButtonEvent e = input.panelButtons.front();
        input.panelButtons.pop_front();
        ImGuiIO& io = ImGui::GetIO();
        if (e.button >= 0 && e.button < IM_ARRAYSIZE(io.MouseDown)) {
            io.MousePos = ImVec2(e.at.x, e.at.y);
            io.MouseDown[e.button] = e.action == GLFW_PRESS;
        }
    }

    // After a frame's steps: the state they reached joins the history (when kept).
    void recordHistory(int steps) {
        if (steps > 0 && panel.keepHistory) {
            history.push(scenes[current]->saveState(),
                         history.shownSeconds() + steps * scenes[current]->dtSeconds());
        } else if (!panel.keepHistory && history.size() > 0) {
            history.clear();
        }
    }

    // Shows a saved state (pausing the run): the arrow keys and the panel's slider.
    void moveInHistory(const PanelRequests& requests) {
        if (requests.historyMove == 0 && requests.historyMoveTo < 0) {
            return;
        }
        panel.paused = true;
        const SavedState* state = requests.historyMoveTo >= 0
                                      ? history.moveTo(requests.historyMoveTo)
                                      : history.move(requests.historyMove);
        if (state == nullptr) {
            return;
        }
        if (Status s = scenes[current]->restoreState(*state); !s) {
            panel.message = "history: " + s.error().message;
            history.clear();
        }
    }

    void showHistoryInPanel() {
        panel.historySize = history.size();
        panel.historyPosition = history.position();
        panel.historySpanSeconds = history.spanSeconds();
        panel.historyBackSeconds = history.backSeconds();
        panel.historyBytes = history.bytes();
    }

    void applyRequests(const PanelRequests& requests) {
        moveInHistory(requests);
        if (requests.scene >= 0 && requests.scene != current) {
            history.clear();
        }
        if (requests.scene >= 0) {
            switchScene(requests.scene);
        }
        if (requests.backend) {
            switchBackend(*requests.backend);
        }
        if (requests.reset) {
            scenes[current]->reset();
            history.clear();
        }
        if (requests.step) {
            stepOnce = true;
        }
        if (requests.resetView) {
            goHome();
        }
        followHome();
        if (requests.vsyncChanged) {
            glfwSwapInterval(panel.vsync ? 1 : 0);
        }
        if (requests.qualityChanged) {
            applyQuality();
        }
        if (requests.msaaChanged) {
            renderer.setMsaaSamples(panel.msaaSamples);
        }
        if (requests.reloadShaders) {
            Status s = renderer.reloadShaders();
            panel.message = s ? "shaders reloaded" : s.error().message;
        }
        if (requests.toggleRecording) {
            toggleRecording();
        }
        if (requests.saveConfig) {
            saveConfig();
        }
        if (requests.loadPreset >= 0 &&
            requests.loadPreset < static_cast<int>(panel.presets.size())) {
            loadPreset(requests.loadPreset);
        }
    }

    // "Save as config": the scenes' settings as a new JSON file in the output folder.
    void saveConfig() {
        if (!options.settings.configText) {
            return;
        }
        Result<std::string> text = options.settings.configText(scenes, current);
        Result<std::string> path =
            text ? writeNewConfigFile(panel.outputDir, *text) : Result<std::string>(text.error());
        if (path) {
            report.savedConfig = *path;
            report.configNote = "config saved to " + *path;
        } else {
            report.configNote = path.error().message;
        }
        panel.message = report.configNote;
    }

    // Rebuilds the scenes from a preset, on the backend in use; a preset that fails leaves
    // the scenes as they are and says why.
    void loadPreset(int index) {
        const std::string& path = panel.presets[static_cast<std::size_t>(index)];
        Result<SceneSet> made = options.settings.loadConfig
                                    ? options.settings.loadConfig(path)
                                    : Result<SceneSet>(inputError("presets are not available"));
        if (made && (made->scenes.empty() || made->current < 0 ||
                     made->current >= static_cast<int>(made->scenes.size()))) {
            made = inputError(path + ": the preset's scene is not available here");
        }
        if (!made) {
            report.configNote = "preset " + path + ": " + made.error().message;
            panel.message = report.configNote;
            return;
        }
        if (gesture.active && gesture.grabbing) {
            scenes[current]->endGrab();
        }
        gesture.active = false;
        const Backend backend = scenes[current]->backend();
        history.clear();
        scenes = std::move(made->scenes);
        current = made->current;
        gpuWhy.assign(scenes.size(), {});
        if (backend != Backend::kCpu) {
            switchBackend(backend);
        }
        panel.gpuUnavailable = gpuWhy[static_cast<std::size_t>(current)];
        panel.presetIndex = index;
        goHome();
        report.preset = path;
        report.configNote = "preset " + path + " loaded";
        panel.message = report.configNote;
    }

    // Re-creates the renderer's targets for the panel's quality level (MSAA follows it).
    void applyQuality() {
        render::RendererOptions ro = render::rendererOptionsFor(panel.quality, report.renderer);
        ro.shaderDir = options.shaderDir;
        renderer.shutdown();
        if (Status s = renderer.init(ro); !s) {
            panel.message = "quality: " + s.error().message;
            return;
        }
        panel.msaaSamples = renderer.options().msaaSamples;
        report.quality = render::toString(render::resolveQuality(panel.quality, report.renderer));
        panel.qualityInEffect = report.quality;
    }

    int stepsThisFrame() {
        const double wallSeconds = frameClock.elapsedMs() / 1000.0;
        frameClock.restart();
        if (panel.paused) {
            const int n = stepOnce ? 1 : 0;
            stepOnce = false;
            pacer.restart();  // no burst of steps when it runs again
            return n;
        }
        stepOnce = false;
        if (panel.pacing == Pacing::kRealTime) {
            const int n =
                pacer.stepsFor(wallSeconds, scenes[current]->dtSeconds(), panel.maxStepsPerFrame);
            panel.speed = pacer.speed();
            return n;
        }
        pacer.restart();
        panel.speed = 1.0;
        stepAccumulator += panel.stepsPerFrame;
        const int n = static_cast<int>(std::floor(stepAccumulator));
        stepAccumulator -= n;
        return n;
    }

    void recordTrace(int frame, double frameStartUs, const FrameTiming& t) {
        if (!trace.recording()) {
            return;
        }
        std::vector<std::pair<std::string, double>> phases;
        std::vector<std::pair<std::string, double>> values;
        scenes[current]->traceValues(phases, values);
        for (auto& [name, ms] : phases) {
            values.emplace_back(name + "_ms", ms);
        }
        trace.record(frame, frameStartUs, t, values);
    }

    // Fonts and sizes for the monitor's content scale (or --ui-scale): the default font
    // rasterized at 13 px times the scale (sharp, not stretched) and the style's sizes scaled.
    void applyUiScale() {
        float xScale = 1.0f;
        float yScale = 1.0f;
        glfwGetWindowContentScale(window, &xScale, &yScale);
        int fbWidth = 0;
        int fbHeight = 0;
        glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
        const glm::ivec2 size = windowPixels();
        const float perPixel = size.x > 0 && fbWidth > 0
                                   ? static_cast<float>(fbWidth) / static_cast<float>(size.x)
                                   : 1.0f;
        const float scale = uiScaleFor(xScale, perPixel, options.uiScale);
        report.contentScale = xScale;
        if (fontsUploaded && scale == report.uiScale) {
            return;
        }
        report.uiScale = scale;
        ImGuiIO& io = ImGui::GetIO();
        io.Fonts->Clear();
        ImFontConfig font;
        font.SizePixels = std::round(13.0f * scale);
        io.Fonts->AddFontDefault(&font);
        ImGuiStyle& style = ImGui::GetStyle();
        style = ImGuiStyle();
        ImGui::StyleColorsDark(&style);
        style.WindowRounding = 4.0f;
        style.ScaleAllSizes(scale);
        if (fontsUploaded) {
            ImGui_ImplOpenGL3_DestroyFontsTexture();
            ImGui_ImplOpenGL3_CreateFontsTexture();
            panel.sizedForWidth = -1.0f;  // resize the panel for the new scale
        }
        panel.uiScale = scale;
    }

    // The saved panel layout, if there is one (a missing file is a first run).
    void loadLayout() {
        report.layoutNote = options.layoutIni.empty() ? "not kept" : options.layoutIni;
        std::error_code ec;
        if (!options.layoutIni.empty() && std::filesystem::exists(options.layoutIni, ec)) {
            ImGui::LoadIniSettingsFromDisk(options.layoutIni.c_str());
        }
    }

    // Writes the layout when ImGui has changes (it asks at most every few seconds) or at the
    // end; a location that cannot be written is said once and not tried again.
    void saveLayout(bool atExit) {
        ImGuiIO& io = ImGui::GetIO();
        if (options.layoutIni.empty() || (!io.WantSaveIniSettings && !atExit)) {
            return;
        }
        io.WantSaveIniSettings = false;
        std::size_t size = 0;
        const char* text = ImGui::SaveIniSettingsToMemory(&size);
        if (Status s = writeLayoutIni(options.layoutIni, std::string(text, size)); !s) {
            report.layoutNote = "not kept: " + s.error().message;
            std::fprintf(stderr,
                         "wavewall demo: warning: the panel layout is not kept (%s); --no-ini or "
                         "WAVEWALL_NO_INI=1 stops trying\n",
                         s.error().message.c_str());
            options.layoutIni.clear();
        }
    }

    int run();
    int start();
    int runFrame(int frame, FrameTiming& t, bool& lastFrameMinimized);
    int drawFrame(int frame, FrameTiming& t, int fbWidth, int fbHeight);
    int finish(int frame, bool lastFrameMinimized);
    void fillReport(int frame);
    void printReport();
    int stopSignal() const { return options.stopSignal != nullptr ? *options.stopSignal : 0; }
};

int Demo::run() {
    if (const int code = start(); code != 0) {
        return code;
    }
    int frame = 0;
    bool lastFrameMinimized = false;
    double frameStartMs = runClock.elapsedMs();
    while (!glfwWindowShouldClose(window) && (options.frames <= 0 || frame < options.frames) &&
           stopSignal() == 0) {
        FrameTiming t;
        if (const int code = runFrame(frame, t, lastFrameMinimized); code != 0) {
            return code;
        }
        const double now = runClock.elapsedMs();
        t.frameMs = now - frameStartMs;
        recordTrace(frame, frameStartMs * 1000.0, t);
        frameStartMs = now;
        timings.push(t);
        ++frame;
    }
    if (const int code = finish(frame, lastFrameMinimized); code != 0) {
        return code;
    }
    fillReport(frame);
    if (options.printReport) {
        printReport();
    }
    if (const std::string alarm = scenes[current]->alarm(); !alarm.empty()) {
        std::fprintf(stderr,
                     "wavewall demo: the %s scene ended broken down, held since it broke (alarm "
                     "shown in %d frames): %s\n",
                     scenes[current]->name(), report.alarmFrames, alarm.c_str());
        return 1;
    }
    return 0;
}

// The scenes on the starting backend, the panel set from the options, the trace and video
// asked for on the command line started; an exit code when something cannot start.
int Demo::start() {
    const int nScenes = static_cast<int>(scenes.size());
    if (nScenes == 0 || options.initialScene < 0 || options.initialScene >= nScenes) {
        std::fprintf(stderr, "wavewall demo: scene index %d out of range (%d scenes)\n",
                     options.initialScene, nScenes);
        return 2;
    }
    current = options.initialScene;
    report.renderer = gpu->info().renderer;
    gpuWhy.assign(scenes.size(), {});
    Backend startBackend = options.backend;
    if (options.backendAuto) {
        // The rule of every command (auto_backend.h), for the window's GL.
        const app::AutoBackendChoice chosen = app::chooseAutoBackend(report.renderer);
        startBackend = chosen.backend;
        report.backendNote = chosen.reason;
        panel.message = chosen.reason;
        std::fprintf(stderr, "wavewall: %s\n", chosen.reason.c_str());
    }
    for (int i = 0; i < nScenes; ++i) {
        if (startBackend == Backend::kCpu) {
            continue;
        }
        if (Status s = scenes[i]->setBackend(startBackend); !s) {
            if (options.backendExplicit) {
                std::fprintf(stderr, "wavewall demo: scene %s cannot use the %s backend: %s\n",
                             scenes[i]->name(), backendName(options.backend),
                             s.error().message.c_str());
                return 3;
            }
            gpuWhy[i] = s.error().message;
        }
    }
    goHome();
    panel.visible = options.showPanel;
    panel.pacing = options.pacing.value_or(options.frames > 0 ? Pacing::kFixed : Pacing::kRealTime);
    panel.stepsPerFrame = options.stepsPerFrame;
    panel.maxStepsPerFrame = options.maxStepsPerFrame;
    panel.vsync = options.vsync;
    panel.syncTimings = options.syncTimings;
    panel.cpuThreads = options.cpuThreads;
    panel.gpuUnavailable = gpuWhy[current];
    panel.msaaSamples = renderer.options().msaaSamples;
    panel.quality = options.quality;
    panel.qualityInEffect = report.quality;
    panel.rendererName = gpu->info().renderer;
    panel.outputDir = options.outputDir;
    panel.canSaveConfig = static_cast<bool>(options.settings.configText);
    loadLayout();
    applyUiScale();
    if (options.settings.loadConfig) {
        std::string tried;
        const std::string assets = findAssetsDir(&tried);
        panel.presets = listPresets(assets);
        panel.presetsWhere = assets.empty() ? tried : assets;
    }
    if (!options.tracePath.empty()) {
        panel.tracePath = options.tracePath;
        toggleRecording();
        if (!trace.recording()) {
            std::fprintf(stderr, "wavewall demo: %s\n", panel.message.c_str());
            return 2;
        }
    }
    if (!options.recordPath.empty()) {
        int fbWidth = 0;
        int fbHeight = 0;
        glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
        toggleVideo(fbWidth, fbHeight, options.recordPath);
        if (!video) {
            std::fprintf(stderr, "wavewall demo: %s\n", videoError.c_str());
            return 2;
        }
    }
    return 0;
}

// One frame: input, the steps it takes, and (unless minimized) the scene, the panel, captures
// and the swap; `t` gets the phases' times. An exit code when rendering or a capture asked
// for on the command line failed.
int Demo::runFrame(int frame, FrameTiming& t, bool& lastFrameMinimized) {
    if (frame == options.minimizeAtFrame) {
        glfwIconifyWindow(window);
    } else if (frame == options.restoreAtFrame) {
        glfwRestoreWindow(window);
    }
    glfwPollEvents();
    if (input.contentScaleChanged) {
        input.contentScaleChanged = false;
        applyUiScale();
    }
    int fbWidth = 0;
    int fbHeight = 0;
    glfwGetFramebufferSize(window, &fbWidth, &fbHeight);
    // Minimized: a 0×0 framebuffer on Windows; on X11 the window keeps its size but is
    // unmapped (iconified), and drawing to it would be wasted.
    const bool minimized =
        fbWidth <= 0 || fbHeight <= 0 || glfwGetWindowAttrib(window, GLFW_ICONIFIED) == GLFW_TRUE;
    lastFrameMinimized = minimized;

    Stopwatch phase;
    // A scene whose simulation broke down (its alarm is up) is held where it broke, for the
    // user to look at, until Reset: stepping on would only pile garbage (NaN, bricks flung
    // away) on the picture of what went wrong.
    const int asked = stepsThisFrame();
    t.steps = 0;
    while (t.steps < asked && scenes[current]->alarm().empty()) {
        scenes[current]->step();
        ++t.steps;
    }
    report.steps += t.steps;
    simSeconds += t.steps * scenes[current]->dtSeconds();
    recordHistory(t.steps);
    if (panel.syncTimings) {
        glFinish();
    }
    t.simMs = phase.elapsedMs();

    if (minimized) {
        // Nothing to draw, nothing to resize; keep the simulation going without spinning
        // the CPU.
        input.keys.clear();
        input.buttons.clear();
        input.panelButtons.clear();
        ++report.minimizedFrames;
        report.stepsWhileMinimized += t.steps;
        glfwWaitEventsTimeout(0.05);
    } else if (const int code = drawFrame(frame, t, fbWidth, fbHeight); code != 0) {
        return code;
    }
    return 0;
}

// The scene, the panel and overlays drawn, captures taken, the panel's requests acted on and
// the frame presented; an exit code when rendering or the last frame's screenshot failed.
int Demo::drawFrame(int frame, FrameTiming& t, int fbWidth, int fbHeight) {
    Stopwatch phase;
    drawData.boxes.clear();
    drawData.spheres.clear();
    drawData.water = {};
    drawData.groundPlane = true;
    drawData.lines.clear();
    drawData.points.clear();
    scenes[current]->setContactOverlay(panel.overlay);
    scenes[current]->fillDrawData(drawData);
    renderer.beginFrame();
    const render::Camera cam = view(static_cast<float>(windowPixels().x));
    report.lensShiftX = cam.lensShiftX;
    report.cameraDistanceM = camera.distance();
    Status s = renderer.render(drawData, cam, {0, 0, fbWidth, fbHeight, 0});
    if (!s) {
        std::fprintf(stderr, "wavewall demo: rendering failed: %s\n", s.error().message.c_str());
        return 3;
    }
    if (panel.syncTimings) {
        glFinish();
    }
    t.renderMs = phase.elapsedMs();
    t.gpuRenderMs = renderer.stats().gpuMs;

    phase.restart();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    feedPanelButton();
    ImGui::NewFrame();
    PanelRequests requests;
    handleKeys(requests);
    handleMouse();
    showHistoryInPanel();
    drawPanel(panel, requests, scenes, current, timings, renderer.stats());
    const glm::vec2 windowSize(windowPixels());
    drawViewStatus(panel, windowSize.x, windowSize.y);
    drawHelpOverlay(panel, windowSize.x);
    drawGrabLine(windowSize);
    if (const std::string alarm = scenes[current]->alarm(); !alarm.empty()) {
        requests.reset |= drawAlarmBanner(panel, alarm, static_cast<float>(windowPixels().x));
        ++report.alarmFrames;
        report.lastAlarm = alarm;
    }
    ImGui::Render();
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fbWidth, fbHeight);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    fontsUploaded = true;
    saveLayout(false);
    if (panel.syncTimings) {
        glFinish();
    }
    t.uiMs = phase.elapsedMs();

    const bool lastFrame = options.frames > 0 && frame + 1 == options.frames;
    if (lastFrame && !options.screenshotPath.empty()) {
        takeScreenshot(options.screenshotPath, fbWidth, fbHeight);
        if (report.screenshot.empty()) {
            std::fprintf(stderr, "wavewall demo: %s\n", panel.message.c_str());
            return 2;
        }
    } else {
        // Every press is a file, even two in one frame (or in one second).
        for (int k = 0; k < requests.screenshot; ++k) {
            takeScreenshot(options.screenshotPath.empty()
                               ? timestampedPath(panel.outputDir, "", ".png")
                               : options.screenshotPath,
                           fbWidth, fbHeight);
        }
    }
    captureVideoFrame(fbWidth, fbHeight);
    if (requests.toggleVideo) {
        toggleVideo(fbWidth, fbHeight);
    }
    applyRequests(requests);

    phase.restart();
    glfwSwapBuffers(window);
    t.swapMs = phase.elapsedMs();
    return 0;
}

int Demo::finish(int frame, bool lastFrameMinimized) {
    if (const int signal = stopSignal(); signal != 0) {
        std::fprintf(stderr,
                     "wavewall demo: %s: closing as if the window were closed (recording "
                     "finished, traces written); a second one quits at once\n",
                     signal == SIGINT    ? "SIGINT (Ctrl-C)"
                     : signal == SIGTERM ? "SIGTERM"
                                         : "signal");
    }
    if (trace.recording()) {
        toggleRecording();
    }
    finishVideo();
    // A recording asked for on the command line that failed (ffmpeg quit, the disk filled,
    // the window was resized) is a failed run.
    if (!options.recordPath.empty() && !videoError.empty()) {
        return 2;
    }
    if (lastFrameMinimized && frame == options.frames && !options.screenshotPath.empty()) {
        std::fprintf(stderr,
                     "wavewall demo: the window was minimized at the last frame: no screenshot "
                     "written to %s\n",
                     options.screenshotPath.c_str());
        return 2;
    }
    return 0;
}

// The run's report: backends, history, hashes, panel placement and the mean timings.
void Demo::fillReport(int frame) {
    for (const auto& scene : scenes) {
        report.sceneBackends.emplace_back(backendName(scene->backend()));
    }
    report.historyStates = history.size();
    report.historyBack = history.stepsBack();
    report.historyReruns = history.reruns();
    report.stateHash = scenes[current]->stateHash();
    report.newestHash = report.stateHash;
    if (const SavedState* newest = history.moveTo(history.size() - 1); newest != nullptr) {
        // The run ends on an older state: hash the newest too (the scene is not used again).
        if (scenes[current]->restoreState(*newest).ok()) {
            report.newestHash = scenes[current]->stateHash();
        }
    }
    const FrameTiming mean = timings.totalMean();
    report.frames = frame;
    report.panelX = panel.panelX;
    report.panelY = panel.panelY;
    report.panelWidth = panel.panelWidth;
    report.panelCollapsed = panel.panelCollapsed;
    report.panelOverflowPx = panel.overflowPx;
    report.speed = panel.speed;
    report.paused = panel.paused;
    report.helpShown = panel.showHelp;
    report.frameMs = mean.frameMs;
    report.simMs = mean.simMs;
    report.renderMs = mean.renderMs;
    report.gpuRenderMs = mean.gpuRenderMs;
    report.uiMs = mean.uiMs;
    report.swapMs = mean.swapMs;
    report.msPerStep = timings.meanMsPerStep();
    report.medianFrameMs = timings.medianFrameMs();
}

// The --report lines.
void Demo::printReport() {
    std::printf(
        "demo: %d frames, %ld steps, %.2f ms/frame: sim %.2f (%.3f ms/step), render %.2f (GPU "
        "%.2f), ui %.2f, present %.2f ms | %s%s\n",
        report.frames, report.steps, report.frameMs, report.simMs, report.msPerStep,
        report.renderMs, report.gpuRenderMs, report.uiMs, report.swapMs, report.renderer.c_str(),
        panel.syncTimings ? " | synced" : "");
    std::printf(
        "demo: median %.2f ms/frame (%.1f fps) over the last %zu frames | quality %s, MSAA "
        "%dx, %s backend\n",
        report.medianFrameMs, report.medianFrameMs > 0.0 ? 1000.0 / report.medianFrameMs : 0.0,
        timings.size(), report.quality.c_str(), panel.msaaSamples,
        backendName(scenes[current]->backend()));
    if (!report.backendNote.empty()) {
        std::printf("demo: %s\n", report.backendNote.c_str());
    }
    if (panel.pacing == Pacing::kRealTime) {
        std::printf("demo: real time, at most %d steps a frame: speed %s\n", panel.maxStepsPerFrame,
                    speedText(panel.speed).c_str());
    }
    if (!report.stateHash.empty()) {
        std::printf(
            "demo: history %d states (%.2f s, %.1f MB), %d back, %d re-runs; state hash %s "
            "(newest %s)\n",
            report.historyStates, history.spanSeconds(),
            static_cast<double>(history.bytes()) / (1024.0 * 1024.0), report.historyBack,
            report.historyReruns, report.stateHash.c_str(), report.newestHash.c_str());
    }
    if (const std::string line = scenes[current]->reportLine(); !line.empty()) {
        std::printf("demo: %s\n", line.c_str());
    }
    std::printf(
        "demo: ui scale %.2f (monitor content scale %.2f), panel at (%.0f, %.0f) %.0f px "
        "wide%s, %s; layout %s\n",
        static_cast<double>(report.uiScale), static_cast<double>(report.contentScale),
        static_cast<double>(report.panelX), static_cast<double>(report.panelY),
        static_cast<double>(report.panelWidth), report.panelCollapsed ? ", collapsed" : "",
        report.panelOverflowPx > 0.0f
            ? ("content clipped by " + std::to_string(std::lround(report.panelOverflowPx)) + " px")
                  .c_str()
            : "content fits",
        report.layoutNote.c_str());
    if (!report.configNote.empty()) {
        std::printf("demo: %s\n", report.configNote.c_str());
    }
    std::printf("demo: scene %s shown at the end\n", scenes[current]->name());
    if (report.alarmFrames > 0) {
        std::printf("demo: alarm shown in %d frames: %s\n", report.alarmFrames,
                    report.lastAlarm.c_str());
    }
    if (report.minimizedFrames > 0) {
        std::printf("demo: minimized for %d frames, %d steps taken meanwhile\n",
                    report.minimizedFrames, report.stepsWhileMinimized);
    }
}

}  // namespace

int runDemo(const DemoOptions& options, std::vector<std::unique_ptr<DemoScene>> scenes,
            DemoReport* report) {
    glfwSetErrorCallback(onGlfwError);
    if (glfwInit() == GLFW_FALSE) {
        std::fprintf(stderr,
                     "wavewall demo: no display (%s).\n"
                     "  Run it on a desktop session, under a virtual one "
                     "(xvfb-run -a -s \"-screen 0 1280x800x24\" wavewall demo ...),\n"
                     "  or without a window: wavewall headless --scene wall|water|splash "
                     "--screenshot F.png\n",
                     lastGlfwError().c_str());
        return 3;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, 0);  // MSAA happens in the renderer's offscreen target
    GLFWwindow* window = glfwCreateWindow(std::max(options.width, 64), std::max(options.height, 64),
                                          "wavewall", nullptr, nullptr);
    if (window == nullptr) {
        std::fprintf(stderr,
                     "wavewall demo: could not create a GL 4.3 core window (%s).\n"
                     "  Use wavewall headless, or a driver with GL 4.3 (Mesa llvmpipe works).\n",
                     lastGlfwError().c_str());
        glfwTerminate();
        return 3;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(options.vsync ? 1 : 0);

    int code = 0;
    {
        Demo demo;
        demo.options = options;
        demo.window = window;
        demo.scenes = std::move(scenes);  // released below while the context is current
        glfwSetWindowUserPointer(window, &demo.input);
        glfwSetScrollCallback(window, onScroll);
        glfwSetKeyCallback(window, onKey);
        glfwSetMouseButtonCallback(window, onMouseButton);
        glfwSetCursorPosCallback(window, onCursorPos);
        glfwSetWindowContentScaleCallback(window, onContentScale);

        auto gpu = gpu::GpuContext::adoptCurrent();
        if (!gpu) {
            std::fprintf(stderr, "wavewall demo: %s\n", gpu.error().message.c_str());
            code = 3;
        } else {
            demo.gpu = std::move(gpu).value();
            render::RendererOptions ro =
                render::rendererOptionsFor(options.quality, demo.gpu->info().renderer);
            if (options.msaa != render::kAutoMsaa) {
                ro.msaaSamples = options.msaa;
            }
            ro.shaderDir = options.shaderDir;
            demo.report.quality = render::toString(
                render::resolveQuality(options.quality, demo.gpu->info().renderer));
            Status s = demo.renderer.init(ro);
            if (!s) {
                std::fprintf(stderr, "wavewall demo: renderer: %s\n", s.error().message.c_str());
                code = s.error().kind == ErrorKind::kInput ? 2 : 3;
            }
        }
        if (code == 0) {
            IMGUI_CHECKVERSION();
            ImGui::CreateContext();
            // Never an imgui.ini in the working directory: the layout is read and written
            // by the demo (loadLayout, saveLayout) at options.layoutIni.
            ImGui::GetIO().IniFilename = nullptr;
            // Installed after ours: ImGui 1.86 keeps the callbacks it finds and calls them from its
            // own (scroll, key, mouse button), so both see every event.
            ImGui_ImplGlfw_InitForOpenGL(window, true);
            ImGui_ImplOpenGL3_Init("#version 430");
            code = demo.run();
            demo.saveLayout(true);
            ImGui_ImplOpenGL3_Shutdown();
            ImGui_ImplGlfw_Shutdown();
            ImGui::DestroyContext();
        }
        if (report != nullptr) {
            *report = demo.report;
        }
        // Scenes may own GL buffers: release them while the context is alive.
        demo.scenes.clear();
        demo.renderer.shutdown();
    }
    glfwDestroyWindow(window);
    glfwTerminate();
    return code;
}

}  // namespace ww::demo
