// The demo's Dear ImGui panel: scene choice, run controls, backend switch, the current
// scene's own controls and statistics, frame timings with plots, capture and key help.
// The panel only edits PanelState and raises PanelRequests; demo.cpp acts on them, so the
// same actions are reachable from keys and from the panel.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "app/demo/demo_scene.h"
#include "app/demo/frame_timings.h"
#include "app/demo/pacing.h"
#include "render/renderer.h"

namespace ww::demo {

/// The outcome of the last action ("saved F.png", a range error): shown in one fixed line of
/// the panel for kSeconds after it was set, so it neither outlives its cause nor moves the
/// controls below it.
class StatusNote {
  public:
    static constexpr double kSeconds = 5.0;
    StatusNote& operator=(std::string text);
    const std::string& text() const { return m_text; }
    bool empty() const { return m_text.empty(); }
    const char* c_str() const { return m_text.c_str(); }
    void clear() { m_text.clear(); }
    /// Whether the note is still shown `nowSeconds` (steady clock, as now()) after its start.
    bool visibleAt(double nowSeconds) const {
        return !m_text.empty() && nowSeconds - m_setAtSeconds < kSeconds;
    }
    static double now();
    /// Draws the note's line: its text while visible (cut with "..." to the panel's width, the
    /// whole text in its tooltip), else an empty line of the same height.
    void draw() const;

  private:
    std::string m_text;
    double m_setAtSeconds = 0.0;
};

/// Settings the panel shows and edits.
struct PanelState {
    bool visible = true;
    bool paused = false;
    bool showHelp = false;  ///< the F1 overlay
    Pacing pacing = Pacing::kRealTime;
    float stepsPerFrame = 1.0f;  ///< Pacing::kFixed: steps per rendered frame
    int maxStepsPerFrame = RealTimePacer::kDefaultMaxSteps;  ///< Pacing::kRealTime
    double speed = 1.0;  ///< simulated seconds per wall second (real time), for the view
    bool vsync = true;
    bool syncTimings = false;
    bool recording = false;
    std::string tracePath = "wavewall_demo_trace.json";
    std::string outputDir = ".";  ///< screenshots, traces and videos started here
    bool videoRecording = false;
    /// The history (history.h) as the panel shows it; the demo fills these every frame.
    bool keepHistory = true;
    int historySize = 0;
    int historyPosition = -1;
    double historySpanSeconds = 0.0;
    double historyBackSeconds = 0.0;
    std::size_t historyBytes = 0;
    std::string gpuUnavailable;  ///< why the GPU backend cannot be used; empty if it can
    int cpuThreads = 1;          ///< threads of the CPU solvers (--threads)
    StatusNote message;          ///< last action's outcome (saved file, backend failure)
    std::string rendererName;
    int msaaSamples = 0;
    render::RenderQuality quality = render::RenderQuality::kAuto;  ///< as chosen (auto or not)
    std::string qualityInEffect;                                   ///< auto resolved: low / high
    ContactOverlay overlay;  ///< what the view draws over scenes that solve contacts
    /// The panel's horizontal extent in window pixels as last drawn; empty (left >= right)
    /// when it is hidden or collapsed. The view is centred in what it leaves free.
    float coverLeftPx = 0.0f;
    float coverRightPx = 0.0f;
    float sizedForWidth = 0.0f;  ///< the window width the panel's width was last set for
    float uiScale = 1.0f;        ///< fonts and sizes (HiDPI)
    float panelX = 0.0f, panelY = 0.0f, panelWidth = 0.0f;  ///< as last drawn, window pixels
    /// How far the panel's widest row (a widget with its label, a line of text) reached past
    /// the panel's content region when last drawn, pixels; > 0: something was clipped.
    float overflowPx = 0.0f;
    bool panelCollapsed = false;
    std::vector<float> plotScratch[2];  ///< frame-time plot buffers, reused every frame
    bool canSaveConfig = false;         ///< "Save as config" is wired up
    std::vector<std::string> presets;   ///< the preset picker's files (assets/*.json)
    int presetIndex = -1;               ///< the preset last loaded, -1: the start's settings
    std::string presetsWhere;           ///< the presets folder, or where it was looked for
};

/// The camera's lens shift (render::Camera::lensShiftX) that centres the view in the wider
/// part of a window `windowWidth` pixels wide that the panel leaves free; 0 without a panel.
float panelLensShift(const PanelState& state, float windowWidth);

/// What the user asked for this frame.
struct PanelRequests {
    bool reset = false;
    bool step = false;
    int screenshot = 0;  ///< screenshots asked for (F12 presses and clicks)
    bool resetView = false;
    bool reloadShaders = false;
    bool toggleRecording = false;
    bool toggleVideo = false;
    int historyMove = 0;     ///< entries to move in the history (< 0: back), pausing
    int historyMoveTo = -1;  ///< history entry to show (the slider), pausing
    bool vsyncChanged = false;
    bool msaaChanged = false;
    bool qualityChanged = false;
    int scene = -1;
    std::optional<Backend> backend;
    bool saveConfig = false;  ///< "Save as config" (key S)
    int loadPreset = -1;      ///< index into PanelState::presets
};

/// Draws the panel (inside the current ImGui frame).
/// The panel's width for a window `windowWidth` pixels wide: 440 px times the UI scale, at
/// most 55 % of the window.
float panelWidthFor(float windowWidth, float uiScale = 1.0f);

void drawPanel(PanelState& state, PanelRequests& requests,
               std::span<const std::unique_ptr<DemoScene>> scenes, int currentScene,
               const FrameTimings& timings, const render::RenderStats& renderStats);

/// Draws `message` as a red banner at the top of the view (the part of a `windowWidth` wide
/// window the panel leaves free) with a Reset button; returns true when it was pressed.
bool drawAlarmBanner(const PanelState& state, const std::string& message, float windowWidth);

/// The view's own lines, bottom left of the part the panel leaves free: "paused" and, in real
/// time, "slower than real time x0.30" when the simulation cannot keep up.
void drawViewStatus(const PanelState& state, float windowWidth, float windowHeight);

/// The F1 overlay: every key and mouse action (app/demo/key_bindings.h), over the view.
void drawHelpOverlay(const PanelState& state, float windowWidth);

/// The slow-down readout for `speed` (simulated per wall second): "x0.30".
std::string speedText(double speed);

/// A statistic for display: `value` printed with `format` (one double conversion, e.g.
/// "%.2e"), or `fallback` when it is not finite or its magnitude exceeds `limit` (a diverged
/// simulation's values say nothing and overflow the line).
std::string finiteOr(double value, const char* format, double limit, const char* fallback);

/// For scenes' drawStats(): plots a residual history on a log10 scale with its first and
/// last values in the overlay. Non-positive entries are drawn at the smallest positive one.
void plotResidualLog(const char* label, std::span<const float> residuals,
                     float heightPixels = 70.0f);

}  // namespace ww::demo
