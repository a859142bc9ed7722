// `wavewall demo` (the default command): the desktop window over both scenes, wall and water,
// built from the same scene options as `wavewall headless` (flags, config keys, --config). With
// no display it says so and how to get one, then runs a short headless simulation of both
// scenes on the CPU and prints their summaries, so the first command a user types always shows
// something (docs/demo.md).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "app/cli/commands.h"
#include "app/cli/demo_config.h"
#include "app/cli/gpu_session.h"
#include "app/cli/headless_run.h"
#include "app/cli/scene_options.h"
#include "app/cli/scene_registry.h"
#include "app/cli/thread_option.h"
#include "app/demo/demo.h"
#include "app/demo/ui_settings.h"
#include "app/demo/video_recorder.h"
#include "render/capture.h"
#include "solver/io/matrix_market.h"

namespace ww::app {

namespace {

constexpr float kMaxSolveBudgetMs = 86400000.0f;

volatile std::sig_atomic_t g_stopSignal = 0;

extern "C" void onStopSignal(int signal) {
    g_stopSignal = signal;
}

// SIGINT (Ctrl-C) and SIGTERM close the window as its close button does: the handler only
// records the signal, the demo's loop reads it each frame (DemoOptions::stopSignal) and shuts
// down in order (a recording finished, traces written). sigaction also replaces an inherited
// SIG_IGN (a job a non-interactive shell started in the background ignores SIGINT). The
// handler serves once per signal (SA_RESETHAND): the same signal again while shutting down
// has the default action and ends the process at once. SA_RESTART: a frame being written to
// ffmpeg when the signal arrives is written whole, not cut by EINTR. The previous handlers
// come back when the window is gone, so the run without a display that may follow is
// interrupted as usual.
class StopSignals {
  public:
    StopSignals() {
        g_stopSignal = 0;
        struct sigaction action = {};
        action.sa_handler = onStopSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND | SA_RESTART;
        ::sigaction(SIGINT, &action, &m_previousInt);
        ::sigaction(SIGTERM, &action, &m_previousTerm);
    }
    ~StopSignals() {
        ::sigaction(SIGINT, &m_previousInt, nullptr);
        ::sigaction(SIGTERM, &m_previousTerm, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

  private:
    struct sigaction m_previousInt = {};
    struct sigaction m_previousTerm = {};
};

struct DemoValues {
    std::string scene = "wall";
    std::string backend = "auto";
    std::string shaderDir;
    std::string config;
    std::string screenshot;
    std::string trace;
    std::string record;
    double recordFps = 60.0;
    std::string ffmpeg;
    std::string outputDir = ".";
    std::string vsync = "on";
    std::string panel = "on";
    std::string initialDrop = "on";
    std::string minimize = "off";
    std::string pacing = "auto";
    double stepsPerFrame = 1.0;
    int maxStepsPerFrame = demo::RealTimePacer::kDefaultMaxSteps;
    std::vector<std::string> events;
    int frames = 0;
    int width = 1280;
    int height = 800;
    std::string msaa = "auto";
    std::string quality = "auto";
    int fallbackSteps = 120;
    std::uint64_t seed = 1;
    bool report = false;
    bool syncTimings = false;
    bool noIni = false;
    std::string uiScale = "auto";
    float solveBudgetMs = WallDemoScene::kDefaultSolveBudgetMs;
    SceneOptionValues sceneValues;
};

/// A number as the user would write it (-1, 0.5, 1e+09; not -1.000000).
std::string formatBudget(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", ms);
    return text;
}

bool haveDisplay() {
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY"}) {
        const char* v = std::getenv(name);
        if (v != nullptr && *v != '\0') {
            return true;
        }
    }
    return false;
}

// No window: both scenes headless (on the backend --backend picks: auto by the rule of every
// command, through EGL), their summaries, and the
// --screenshot, if one was asked for, rendered offscreen as `wavewall headless` does.
int runWithoutDisplay(const DemoValues& v) {
    std::printf(
        "wavewall demo: running %d steps of each scene without a window instead "
        "(wavewall headless --help for more):\n",
        v.fallbackSteps);
    if (v.frames > 0) {
        std::printf(
            "wavewall demo: --frames %d counts a window's frames: without one each scene runs "
            "--fallback-steps %d steps\n",
            v.frames, v.fallbackSteps);
    }
    std::fflush(stdout);
    GpuSession gpu;
    Result<Backend> backend = selectBackend(v.backend, v.shaderDir, gpu);
    if (!backend) {
        return reportError(backend.error());
    }
    if (!v.screenshot.empty()) {
        if (Status s = ensureGlContext(gpu, "--screenshot"); !s) {
            return reportError(s.error());
        }
    }
    const std::string renderer =
        gpu.available() ? gpu::GpuContext::current()->info().renderer : "none";
    bool clean = true;
    for (const SceneEntry& entry : sceneRegistry()) {
        // The scenes with a preview (wall, water), and the one asked for (--scene splash has
        // none: a shot as the wall's).
        const std::string name = entry.name;
        if (entry.previewEvents.empty() && name != v.scene) {
            continue;
        }
        Result<std::unique_ptr<SimScene>> made = makeScene(name, v.sceneValues, v.seed);
        if (!made) {
            return reportError(made.error());
        }
        SimScene& scene = **made;
        if (Status s = scene.setBackend(*backend, &gpu.shaders); !s) {
            return reportError(s.error());
        }
        const std::vector<std::string> shot = {"20:shoot"};
        const SceneRunStats run = runSceneSteps(
            scene, v.fallbackSteps,
            *EventScript::parse(entry.previewEvents.empty() ? shot : entry.previewEvents));
        printSceneRun("wavewall demo (headless)", scene, run, renderer, v.seed);
        clean = clean && run.violations.empty();
        if (name == v.scene && !v.screenshot.empty()) {
            if (Status s = renderSceneToPng(scene, v.shaderDir, v.width, v.height, v.screenshot);
                !s) {
                return reportError(s.error());
            }
            std::printf("  screenshot %s (offscreen, no panel)\n", v.screenshot.c_str());
        }
    }
    if (!clean) {
        std::fprintf(stderr, "wavewall demo: the headless run reported violations (above)\n");
        return kExitCheckFailed;
    }
    return kExitOk;
}

int runDemoCommand(DemoValues& v, OptionTable& table) {
    if (!v.config.empty()) {
        if (Status s = table.applyConfig(v.config); !s) {
            return reportError(s.error());
        }
    }
    v.sceneValues.given = table.givenKeys();
    // A value the config file gave and a later check refuses is reported at its line.
    const auto fail = [&table](const Error& e) { return reportError(table.locate(e)); };
    if (v.frames < 0) {
        return fail(inputError("--frames must be >= 0 (0 = until the window is closed)"));
    }
    for (const auto& [value, name] :
         {std::pair{v.width, "--width"}, std::pair{v.height, "--height"}}) {
        if (value < 64 || value > 16384) {
            return fail(inputError(std::string(name) + " " + std::to_string(value) +
                                   " must be in [64, 16384] pixels"));
        }
    }
    if (v.msaa != "auto" && v.msaa != "0" && v.msaa != "2" && v.msaa != "4" && v.msaa != "8") {
        return fail(inputError("--msaa '" + v.msaa + "' must be auto, 0, 2, 4 or 8"));
    }
    if (v.fallbackSteps < 1 || v.fallbackSteps > 1000000) {
        return fail(inputError("--fallback-steps must be in [1, 1000000]"));
    }
    if (!(v.stepsPerFrame >= 0.01 && v.stepsPerFrame <= 64.0) || v.maxStepsPerFrame < 1 ||
        v.maxStepsPerFrame > 64) {
        return fail(
            inputError("--steps-per-frame must be in [0.01, 64] and --max-steps-per-frame in "
                       "[1, 64]"));
    }
    // NaN fails both comparisons; a day is far beyond any step worth waiting for.
    if (!(v.solveBudgetMs >= 0.0 && v.solveBudgetMs <= kMaxSolveBudgetMs)) {
        return fail(
            inputError("--solve-budget-ms (config key solve-budget-ms) must be in [0, 86400000] ms "
                       "(0 = no budget), got " +
                       formatBudget(v.solveBudgetMs)));
    }
    Result<float> uiScale = demo::parseUiScale(v.uiScale);
    if (!uiScale) {
        return fail(uiScale.error());
    }
    int minimizeAt = -1;
    int restoreAt = -1;
    if (v.minimize != "off") {
        const auto colon = v.minimize.find(':');
        char* end1 = nullptr;
        char* end2 = nullptr;
        const std::string a = v.minimize.substr(0, colon);
        const std::string b = colon == std::string::npos ? "" : v.minimize.substr(colon + 1);
        const long from = std::strtol(a.c_str(), &end1, 10);
        const long to = std::strtol(b.c_str(), &end2, 10);
        if (a.empty() || b.empty() || *end1 != '\0' || *end2 != '\0' || from < 0 || to <= from ||
            to > 100000000) {
            return fail(inputError("--minimize '" + v.minimize +
                                   "' must be off or FROM:TO, two frame numbers with "
                                   "0 <= FROM < TO, e.g. 10:40"));
        }
        minimizeAt = static_cast<int>(from);
        restoreAt = static_cast<int>(to);
    }
    for (const auto& [path, what] :
         {std::pair{&v.screenshot, "--screenshot"}, std::pair{&v.trace, "--trace"}}) {
        if (!path->empty()) {
            if (Status s = io::checkWritable(*path, what); !s) {
                return fail(s.error());
            }
        }
    }
    if (!v.screenshot.empty()) {
        if (Status s = render::checkPngName(v.screenshot, "--screenshot"); !s) {
            return fail(s.error());
        }
    }
    if (!v.record.empty()) {
        if (Status s = demo::checkVideoOptions({v.record, v.recordFps, v.ffmpeg}, "--record"); !s) {
            return fail(s.error());
        }
    } else if (!(v.recordFps >= 1.0 && v.recordFps <= 240.0)) {
        return fail(inputError("--record-fps must be in [1, 240]"));
    }
    {
        std::error_code ec;
        if (!std::filesystem::is_directory(v.outputDir, ec) ||
            ::access(v.outputDir.c_str(), W_OK) != 0) {
            return fail(Error{ErrorKind::kIo, "--output-dir '" + v.outputDir +
                                                  "' is not a writable folder; create it or choose "
                                                  "another"});
        }
    }
    // As headless decides it: Gauss-Seidel with --backend gpu is a usage error (exit 2), with
    // auto it takes the CPU, with a note.
    Result<std::string> lcpBackend = lcpBackendChoice(v.backend, v.scene, v.sceneValues);
    if (!lcpBackend) {
        return fail(lcpBackend.error());
    }
    v.backend = *lcpBackend;
    Result<gpu::ShaderLibrary> shaders = gpu::ShaderLibrary::create(v.shaderDir);
    if (!shaders) {
        return fail(shaders.error());
    }
    DemoSceneInputs inputs;
    inputs.values = v.sceneValues;
    inputs.scene = v.scene;
    inputs.backend = v.backend;
    inputs.seed = v.seed;
    inputs.initialDrop = v.initialDrop != "off";
    inputs.events = v.events;
    inputs.solveBudgetMs = v.solveBudgetMs;
    Result<demo::SceneSet> made = makeDemoScenes(inputs, &*shaders);
    if (!made) {
        return fail(made.error());
    }

    if (!haveDisplay()) {
        std::fprintf(stderr,
                     "wavewall demo: no display (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
                     "  Run it on a desktop session, under a virtual one "
                     "(xvfb-run -a -s \"-screen 0 1280x800x24\" wavewall demo ...),\n"
                     "  or without a window: wavewall headless --scene wall|water|splash "
                     "[--screenshot F.png]\n");
        if (!v.record.empty()) {
            std::fprintf(stderr,
                         "wavewall demo: no video is recorded without a window (--record %s); "
                         "run the demo under xvfb-run to record one\n",
                         v.record.c_str());
        }
        return runWithoutDisplay(v);
    }

    demo::DemoOptions o;
    o.frames = v.frames;
    o.screenshotPath = v.screenshot;
    o.width = v.width;
    o.height = v.height;
    o.vsync = v.vsync == "on";
    o.msaa = v.msaa == "auto" ? render::kAutoMsaa : std::stoi(v.msaa);
    o.quality = v.quality == "low"    ? render::RenderQuality::kLow
                : v.quality == "high" ? render::RenderQuality::kHigh
                                      : render::RenderQuality::kAuto;
    o.initialScene = made->current;
    o.backend = v.backend == "cpu" ? Backend::kCpu : Backend::kGpu;
    o.backendExplicit = v.backend == "gpu";
    o.backendAuto = v.backend == "auto";
    o.shaderDir = v.shaderDir;
    o.tracePath = v.trace;
    o.recordPath = v.record;
    o.recordFps = v.recordFps;
    o.ffmpeg = v.ffmpeg;
    o.outputDir = v.outputDir;
    o.cpuThreads = resolveThreadCount(v.sceneValues.threads).value();  // checked by the scenes
    o.showPanel = v.panel == "on";
    o.syncTimings = v.syncTimings;
    o.printReport = v.report;
    if (v.pacing != "auto") {
        o.pacing = v.pacing == "fixed" ? demo::Pacing::kFixed : demo::Pacing::kRealTime;
    }
    o.stepsPerFrame = static_cast<float>(v.stepsPerFrame);
    o.maxStepsPerFrame = v.maxStepsPerFrame;
    o.minimizeAtFrame = minimizeAt;
    o.restoreAtFrame = restoreAt;
    o.settings = demoSettingsHooks(inputs, &*shaders);
    o.layoutIni = v.noIni ? std::string() : demo::layoutIniPath();
    o.uiScale = *uiScale;
    o.stopSignal = &g_stopSignal;
    demo::DemoReport report;
    int code = 0;
    {
        const StopSignals stopSignals;
        code = demo::runDemo(o, std::move(made->scenes), &report);
    }
    if (code == kExitNoGpu && report.renderer.empty() && !o.backendExplicit) {
        // No window could be had (GLFW could not reach the display, or no GL 4.3 window):
        // runDemo said why; still show the simulations.
        return runWithoutDisplay(v);
    }
    return code;
}

}  // namespace

CommandAction registerDemoCommand(CLI::App& app) {
    CLI::App* cmd = app.add_subcommand(
        "demo",
        "The desktop window (the default command): both scenes with a control panel, "
        "mouse picking, statistics, screenshots and traces");
    auto v = std::make_shared<DemoValues>();
    auto table = std::make_shared<OptionTable>(*cmd);
    table->add("scene", v->scene, "Scene shown first (switch with the keys 1, 2 and 3)",
               sceneNames());
    table->add("backend", v->backend,
               "Solver backend (auto: the GPU on a hardware GPU, the CPU on a software "
               "rasterizer or without GL; docs/cli.md)",
               {"cpu", "gpu", "auto"});
    table->add("frames", v->frames,
               "Render this many frames and exit (0: until closed); with --pacing auto such a "
               "run takes --steps-per-frame steps every frame, so it is reproducible");
    table->add("pacing", v->pacing,
               "real-time: fixed dt, steps follow the clock (at most --max-steps-per-frame a "
               "frame; slower shows in the view); fixed: --steps-per-frame every frame; auto: "
               "fixed with --frames, else real-time",
               {"auto", "real-time", "fixed"});
    table->add("steps-per-frame", v->stepsPerFrame,
               "Steps per frame with fixed pacing (fractions accumulate)");
    table->add("max-steps-per-frame", v->maxStepsPerFrame,
               "Most steps a frame takes in real-time pacing");
    table->add("screenshot", v->screenshot, "PNG written after the last frame (or on F12)");
    table->add("width", v->width, "Window width, screen pixels");
    table->add("height", v->height, "Window height, screen pixels");
    table->add("vsync", v->vsync, "Wait for the display's refresh", {"on", "off"});
    table->add("msaa", v->msaa,
               "Multisample anti-aliasing samples (auto: from --quality; 0, 2, 4, 8)");
    table->add("quality", v->quality,
               "Render quality: shadow map, water mesh resolution, MSAA (auto: low on a "
               "software rasterizer such as llvmpipe, high otherwise)",
               {"auto", "low", "high"});
    table->add("panel", v->panel, "Show the control panel (H toggles it)", {"on", "off"});
    table->add("trace", v->trace, "Chrome trace of the frames, recorded from the start");
    table->add("record", v->record,
               "Video of the window from the start (.mp4, .mkv, .webm, .mov, .avi) through "
               "ffmpeg, playing at the simulation's rate; numbered PNG frames beside it when "
               "ffmpeg is missing. F10 starts and stops others");
    table->add("record-fps", v->recordFps, "Video frames per simulated second");
    table->add("ffmpeg", v->ffmpeg,
               "The ffmpeg executable for --record (default: from PATH; none: PNG frames)");
    table->add("output-dir", v->outputDir,
               "Folder for F12 screenshots and the traces and videos started from the panel "
               "(named by time, never overwriting)");
    table->add("shader-dir", v->shaderDir, "Load shaders from this folder (live editing)");
    table->add("seed", v->seed, "Random seed (rain)");
    table->add("fallback-steps", v->fallbackSteps,
               "Steps of each scene run headless when there is no display");
    table->add("initial-drop", v->initialDrop, "A drop in the middle of the pool at the start",
               {"on", "off"});
    table->add("minimize", v->minimize,
               "Minimize the window at frame FROM and restore it at frame TO (FROM:TO; tests of "
               "the minimized path, needs a window manager) or off");
    registerSceneOptions(*table, v->sceneValues);
    cmd->add_option("--event", v->events,
                    "STEP:ACTION[:ARGS] applied to the scene that has ACTION, counted from its "
                    "start or reset: 30:shoot, 60:remove:3,0, 0:drop:0.5,0.5, 0:rain:on "
                    "(repeatable)");
    cmd->add_option("--config", v->config, "JSON file with option keys (flags override it)");
    cmd->add_flag("--report", v->report,
                  "Print the frame-time split (simulation, rendering, UI, present) at exit");
    table->add("solve-budget-ms", v->solveBudgetMs,
               "The wall's per-step solve budget, ms: a step whose iterations (2n or fixed) "
               "would take longer at the last step's speed runs fewer (at least 20), so the "
               "window stays responsive; 0 = no budget (iterations do not follow the clock, so "
               "scripted runs repeat exactly)");
    table->add("ui-scale", v->uiScale,
               "Scale of the panel's text and sizes: auto (the monitor's content scale) or 0.5 "
               "to 4");
    cmd->add_flag("--no-ini", v->noIni,
                  "Neither read nor keep the panel layout ($XDG_CONFIG_HOME/wavewall/imgui.ini or "
                  "~/.config/wavewall/imgui.ini; also WAVEWALL_NO_INI=1)");
    cmd->add_flag("--sync-timings", v->syncTimings,
                  "glFinish after each frame phase: honest per-phase ms, lower FPS");
    return [v, table]() { return runDemoCommand(*v, *table); };
}

}  // namespace ww::app
