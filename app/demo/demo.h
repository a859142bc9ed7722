// The desktop demo: a GLFW window (GL 4.3 core), the scene-agnostic renderer, an orbit
// camera and a Dear ImGui panel around any number of DemoScenes.
//
// The simulation runs in real time (fixed dt, as many steps as the clock allows, at most a
// few a frame: pacing.h) or a fixed number of steps per frame. Keys and mouse actions are one
// table (key_bindings.h) that the handler and the F1 help overlay both read.
#pragma once

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/demo/demo_scene.h"
#include "app/demo/pacing.h"
#include "app/demo/saved_settings.h"
#include "render/renderer.h"
#include "solver/core/backend.h"

namespace ww::demo {

struct DemoOptions {
    int frames = 0;  ///< frames to render before exiting; 0 = until closed
    /// Unset: kFixed when `frames` > 0 (scripted runs are reproducible), else kRealTime.
    std::optional<Pacing> pacing;
    float stepsPerFrame = 1.0f;                              ///< Pacing::kFixed
    int maxStepsPerFrame = RealTimePacer::kDefaultMaxSteps;  ///< Pacing::kRealTime
    std::string screenshotPath;  ///< written after the last frame (with --frames) or on F12
    int width = 1280;            ///< initial window size, screen pixels
    int height = 800;
    bool vsync = true;
    int msaa =
        render::kAutoMsaa;  ///< offscreen target samples: 0 = off, kAutoMsaa = by GL renderer
    int initialScene = 0;   ///< index into the scene list
    Backend backend = Backend::kCpu;  ///< backend the scenes start on
    /// `--backend auto`: `backend` is ignored; the scenes start where app::chooseAutoBackend
    /// puts the window's GL (the CPU on a software rasterizer); the panel says why.
    bool backendAuto = false;
    /// Shadow map size, water mesh resolution and MSAA (an explicit `msaa` overrides its part).
    render::RenderQuality quality = render::RenderQuality::kAuto;
    bool backendExplicit = false;  ///< the user asked for `backend`: failing to get it is an error
    std::string shaderDir;         ///< override folder for live shader editing
    std::string tracePath;         ///< Chrome trace of frame phases, recorded from the start
    /// Video of the window recorded from the start (video_recorder.h), empty: none. F10 and
    /// the panel start and stop others, named by time in `outputDir`.
    std::string recordPath;
    double recordFps = 60.0;  ///< video frames per simulated second
    std::string ffmpeg;       ///< ffmpeg executable; empty: from PATH; "none": PNG frames
    /// Where F12 screenshots, panel-started traces and videos go (never overwriting).
    std::string outputDir = ".";
    bool showPanel = true;
    bool syncTimings = false;  ///< glFinish after each phase: honest per-phase ms, lower FPS
    bool printReport = false;  ///< print the frame-time split to stdout at exit
    /// Scripted iconify at this frame and restore at restoreAtFrame (-1: never): tests of the
    /// minimized path. Iconifying needs a window manager; without one nothing happens.
    int minimizeAtFrame = -1;
    int restoreAtFrame = -1;
    int cpuThreads = 1;  ///< threads of the scenes' CPU solvers, shown in the panel
    /// "Save as config" (key S) and the preset picker; without them the panel greys both out.
    SettingsHooks settings;
    /// Dear ImGui's layout file (ui_settings.h: layoutIniPath()); empty: none is read or kept.
    std::string layoutIni;
    /// UI scale (fonts and sizes); 0: from the monitor's content scale, followed when the
    /// window moves to a monitor with another scale.
    float uiScale = 0.0f;
    /// Set by a signal handler (the demo command's SIGINT / SIGTERM) to the signal's number:
    /// read once a frame, and when non-zero the loop ends as if the window were closed
    /// (recordings finished, traces written, the report printed). Null: not watched.
    const volatile std::sig_atomic_t* stopSignal = nullptr;
};

/// What a run measured, for the caller (the CLI prints it; tests check it).
struct DemoReport {
    int frames = 0;
    double frameMs = 0.0;  ///< mean per frame
    double simMs = 0.0;
    double renderMs = 0.0;
    double gpuRenderMs = -1.0;
    double uiMs = 0.0;
    double swapMs = 0.0;
    double msPerStep = 0.0;        ///< simulation ms per step
    std::string renderer;          ///< GL renderer string
    std::string quality;           ///< the render quality level in effect (low, high)
    std::string backendNote;       ///< what --backend auto chose and why (empty otherwise)
    double medianFrameMs = 0.0;    ///< over the last FrameTimings::kCapacity frames
    std::string screenshot;        ///< path of the last screenshot written, if any
    std::string video;             ///< the last video file (or PNG folder) written, if any
    int videoFrames = 0;           ///< video frames written, all recordings
    int tracesStarted = 0;         ///< frame traces started (the flag's and the panel's)
    int historyStates = 0;         ///< states in the history at the end
    int historyBack = 0;           ///< how far back the state shown at the end was
    int historyReruns = 0;         ///< runs continued from an older state
    std::string stateHash;         ///< the current scene's state hash at the end
    std::string newestHash;        ///< ... of the newest state in its history
    int minimizedFrames = 0;       ///< frames the window was minimized (nothing drawn)
    int stepsWhileMinimized = 0;   ///< simulation steps taken during those frames
    long steps = 0;                ///< simulation steps taken in all (none while an alarm is up)
    float lensShiftX = 0.0f;       ///< the last frame's view shift beside the panel (Camera)
    float cameraDistanceM = 0.0f;  ///< the orbit camera's distance at the last frame
    std::vector<std::string> sceneBackends;  ///< each scene's backend at the end
    double speed = 1.0;         ///< simulated per wall second at the end (real-time pacing)
    bool paused = false;        ///< at the end
    bool helpShown = false;     ///< the F1 overlay was up at the end
    int grabs = 0;              ///< plain presses that grabbed a body
    int picks = 0;              ///< clicks, ctrl + clicks and shift + clicks handed to the scenes
    int alarmFrames = 0;        ///< frames that showed a scene's alarm banner
    std::string lastAlarm;      ///< the last alarm shown, if any
    std::string savedConfig;    ///< the last config file "Save as config" wrote, if any
    std::string configNote;     ///< the outcome of the last save or preset load (panel line)
    std::string preset;         ///< the last preset loaded, if any
    float uiScale = 1.0f;       ///< the UI scale at the end
    float contentScale = 1.0f;  ///< the monitor's content scale at the end (GLFW)
    float panelX = 0.0f, panelY = 0.0f, panelWidth = 0.0f;  ///< the panel, window pixels
    bool panelCollapsed = false;
    float panelOverflowPx = 0.0f;  ///< PanelState::overflowPx at the last frame (0: all fits)
    std::string layoutNote;        ///< where the layout was kept, or why it was not
};

/// Runs the window until it is closed, `options.frames` frames were shown or
/// `options.stopSignal` is set (which ends it as a close does). Returns the process exit
/// code: 0 success, 2 bad options or a screenshot that could not be written, 3 no display or
/// no GL 4.3 context (the message says how to get one, or to use `wavewall headless`).
int runDemo(const DemoOptions& options, std::vector<std::unique_ptr<DemoScene>> scenes,
            DemoReport* report = nullptr);

}  // namespace ww::demo
