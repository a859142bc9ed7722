#include "app/demo/demo_panel.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/demo/key_bindings.h"

namespace ww::demo {

namespace {

// The history: a slider over the saved states (dragging it pauses and shows them), what it
// holds, and the re-run note when an older state is shown.
void drawHistory(PanelState& state, PanelRequests& requests) {
    ImGui::Checkbox("history", &state.keepHistory);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Keep the last %.0f s of states (at most %zu MB): left / right arrows or the slider "
            "step through them while paused; running or stepping from an older state re-runs "
            "from there with the current settings",
            History::kDefaultMaxSeconds, History::kDefaultMaxMegabytes);
    }
    if (state.historySize <= 0) {
        return;
    }
    ImGui::SameLine();
    int position = state.historyPosition;
    ImGui::SetNextItemWidth(-1.0f);
    char label[96];
    char back[32] = "now";  // at the newest state (not "-0.00 s")
    if (state.historyBackSeconds > 0.0) {
        std::snprintf(back, sizeof back, "-%.2f s", state.historyBackSeconds);
    }
    std::snprintf(label, sizeof label, "%.1f s, %.1f MB | %s", state.historySpanSeconds,
                  static_cast<double>(state.historyBytes) / (1024.0 * 1024.0), back);
    if (ImGui::SliderInt("##history", &position, 0, state.historySize - 1, label)) {
        requests.historyMoveTo = position;
    }
    if (state.historyBackSeconds > 0.0) {
        ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f),
                           "showing %.2f s ago: Run or Step re-runs from here",
                           state.historyBackSeconds);
    }
}

// The preset picker (assets/*.json) and "Save as config".
void settingsFiles(PanelState& state, PanelRequests& requests) {
    const auto stem = [](const std::string& path) {
        const std::size_t slash = path.find_last_of('/');
        const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
        return name.substr(0, name.rfind('.'));
    };
    const std::string shown =
        state.presetIndex >= 0 && state.presetIndex < static_cast<int>(state.presets.size())
            ? stem(state.presets[state.presetIndex])
            : std::string("(as started)");
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.45f);
    ImGui::BeginDisabled(state.presets.empty());
    if (ImGui::BeginCombo("preset", shown.c_str())) {
        for (int i = 0; i < static_cast<int>(state.presets.size()); ++i) {
            if (ImGui::Selectable(stem(state.presets[i]).c_str(), i == state.presetIndex)) {
                requests.loadPreset = i;
            }
        }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        ImGui::SetTooltip(state.presets.empty() ? "No presets found (looked in %s)"
                                                : "Scene presets from %s: picking one rebuilds "
                                                  "the scenes with its settings",
                          state.presetsWhere.c_str());
    }
    ImGui::SameLine();
    ImGui::BeginDisabled(!state.canSaveConfig);
    if (ImGui::Button("Save as config...")) {
        requests.saveConfig = true;
    }
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        ImGui::SetTooltip(
            "Write the scene and solver settings as a JSON config file (key S) in %s; "
            "wavewall demo --config F or wavewall headless --config F reads it back",
            state.outputDir.c_str());
    }
}

void runControls(PanelState& state, PanelRequests& requests,
                 std::span<const std::unique_ptr<DemoScene>> scenes, int currentScene) {
    for (int i = 0; i < static_cast<int>(scenes.size()); ++i) {
        if (i > 0) {
            ImGui::SameLine();
        }
        char label[64];
        std::snprintf(label, sizeof label, "%d %s", i + 1, scenes[i]->name());
        if (ImGui::RadioButton(label, i == currentScene)) {
            requests.scene = i;
        }
    }
    if (ImGui::Button(state.paused ? "Run" : "Pause")) {
        state.paused = !state.paused;
    }
    ImGui::SameLine();
    if (ImGui::Button("Step")) {
        requests.step = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Reset")) {
        requests.reset = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Reset view")) {
        requests.resetView = true;
    }
    drawHistory(state, requests);
    settingsFiles(state, requests);
    ImGui::TextUnformatted("Pacing");
    ImGui::SameLine();
    if (ImGui::RadioButton("real time", state.pacing == Pacing::kRealTime)) {
        state.pacing = Pacing::kRealTime;
    }
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Steps follow the clock (fixed dt), at most the cap a frame");
    }
    ImGui::SameLine();
    if (ImGui::RadioButton("fixed steps/frame", state.pacing == Pacing::kFixed)) {
        state.pacing = Pacing::kFixed;
    }
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("The same number of steps every frame, whatever the clock (--frames)");
    }
    if (state.pacing == Pacing::kFixed) {
        ImGui::SliderFloat("steps/frame", &state.stepsPerFrame, 0.1f, 8.0f, "%.2f",
                           ImGuiSliderFlags_Logarithmic);
    } else {
        // The speed readout shares the row: the slider takes what it and the label leave.
        ImGui::SetNextItemWidth(std::max(
            ImGui::GetFontSize() * 4.0f,
            ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("max steps/frame").x -
                ImGui::CalcTextSize("speed x00.00").x - 2.0f * ImGui::GetStyle().ItemSpacing.x));
        ImGui::SliderInt("max steps/frame", &state.maxStepsPerFrame, 1, 16);
        ImGui::SameLine();
        ImGui::TextDisabled("speed %s", speedText(state.speed).c_str());
    }

    const DemoScene& scene = *scenes[currentScene];
    ImGui::TextUnformatted("Backend");
    ImGui::SameLine();
    if (ImGui::RadioButton("CPU", scene.backend() == Backend::kCpu)) {
        requests.backend = Backend::kCpu;
    }
    ImGui::SameLine();
    const bool gpuOk = state.gpuUnavailable.empty();
    ImGui::BeginDisabled(!gpuOk);
    if (ImGui::RadioButton("GPU", scene.backend() == Backend::kGpu)) {
        requests.backend = Backend::kGpu;
    }
    ImGui::EndDisabled();
    if (!gpuOk && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) {
        ImGui::SetTooltip("GPU unavailable: %s", state.gpuUnavailable.c_str());
    }
    ImGui::SameLine();
    ImGui::TextDisabled(gpuOk ? "(all scenes)" : "(unavailable)");
    ImGui::SameLine();
    ImGui::TextDisabled("CPU threads %d", state.cpuThreads);
}

void timingSection(PanelState& state, const FrameTimings& timings,
                   const render::RenderStats& renderStats) {
    constexpr std::size_t kRecent = 60;
    const double frameMs =
        timings.recentMean(kRecent, [](const FrameTiming& t) { return t.frameMs; });
    ImGui::Text("%.1f FPS  %.2f ms/frame", frameMs > 0.0 ? 1000.0 / frameMs : 0.0, frameMs);
    ImGui::Text("sim %.2f  render %.2f  ui %.2f  present %.2f ms",
                timings.recentMean(kRecent, [](const FrameTiming& t) { return t.simMs; }),
                timings.recentMean(kRecent, [](const FrameTiming& t) { return t.renderMs; }),
                timings.recentMean(kRecent, [](const FrameTiming& t) { return t.uiMs; }),
                timings.recentMean(kRecent, [](const FrameTiming& t) { return t.swapMs; }));
    if (renderStats.gpuMs >= 0.0) {
        ImGui::Text("render on GPU %.2f ms (timer query), %d draw calls", renderStats.gpuMs,
                    renderStats.drawCalls);
    } else {
        ImGui::Text("%d draw calls", renderStats.drawCalls);
    }
    if (renderStats.waterVertices > 0) {
        ImGui::Text("water mesh %d vertices, heights %s", renderStats.waterVertices,
                    renderStats.waterFromSolverBuffer ? "bound from solver buffer" : "uploaded");
    }

    std::vector<float>& frameMsPlot = state.plotScratch[0];
    std::vector<float>& simMsPlot = state.plotScratch[1];
    frameMsPlot.resize(FrameTimings::kCapacity);
    simMsPlot.resize(FrameTimings::kCapacity);
    const int n = static_cast<int>(timings.size());
    float maxMs = 1.0f;
    float maxSimMs = 0.01f;
    for (int i = 0; i < n; ++i) {
        frameMsPlot[i] = static_cast<float>(timings.at(static_cast<std::size_t>(i)).frameMs);
        simMsPlot[i] = static_cast<float>(timings.at(static_cast<std::size_t>(i)).simMs);
        maxMs = std::max(maxMs, frameMsPlot[i]);
        maxSimMs = std::max(maxSimMs, simMsPlot[i]);
    }
    const float width = ImGui::GetContentRegionAvail().x;
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "frame ms (max %.1f)", maxMs);
    ImGui::PlotLines("##frame", frameMsPlot.data(), n, 0, overlay, 0.0f, maxMs * 1.1f,
                     ImVec2(width, 50));
    std::snprintf(overlay, sizeof overlay, "simulation ms (max %.2f)", maxSimMs);
    ImGui::PlotLines("##sim", simMsPlot.data(), n, 0, overlay, 0.0f, maxSimMs * 1.1f,
                     ImVec2(width, 50));
    ImGui::TextDisabled("%s, MSAA %dx", state.rendererName.c_str(), state.msaaSamples);
}

// The panel's position kept inside a `display` sized window: wholly inside across when it
// fits, its title bar inside down.
ImVec2 clampPanelPosition(ImVec2 pos, float width, ImVec2 display) {
    const float titleBar = ImGui::GetFrameHeight();
    return ImVec2(std::clamp(pos.x, 0.0f, std::max(0.0f, display.x - width)),
                  std::clamp(pos.y, 0.0f, std::max(0.0f, display.y - titleBar)));
}

// Room for the labels right of the panel's widgets: the longest of them, the splash's
// "brick density kg/m^3", and the spacing before it.
float labelColumnWidth() {
    return ImGui::CalcTextSize("brick density kg/m^3").x + ImGui::GetStyle().ItemInnerSpacing.x;
}

// Both columns of the key and mouse table (app/demo/key_bindings.h).
void bindingsTable() {
    if (!ImGui::BeginTable("bindings", 2, ImGuiTableFlags_SizingFixedFit)) {
        return;
    }
    const auto row = [](const char* what, const char* action) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(what);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(action);
    };
    for (const KeyBinding& b : keyBindings()) {
        row(b.keys, b.action);
    }
    for (const MouseBinding& m : mouseBindings()) {
        row(m.gesture, m.action);
    }
    ImGui::EndTable();
}

// The part of a `windowWidth` wide window the panel leaves free: {left, right}.
std::pair<float, float> freeStrip(const PanelState& state, float windowWidth) {
    if (state.coverRightPx <= state.coverLeftPx) {
        return {0.0f, windowWidth};
    }
    if (windowWidth - state.coverRightPx >= state.coverLeftPx) {
        return {state.coverRightPx, windowWidth};
    }
    return {0.0f, state.coverLeftPx};
}

// The contact overlay's toggles (keys C, N, F, B do the same).
void contactOverlaySection(ContactOverlay& o) {
    ImGui::Checkbox("points (C)", &o.points);
    ImGui::SameLine();
    ImGui::Checkbox("normals (N)", &o.normals);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Contact normals, as long as the solved normal impulse");
    }
    ImGui::SameLine();
    ImGui::Checkbox("friction (F)", &o.friction);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("Friction impulses: the tangent rows' impulse as a world vector");
    }
    ImGui::TextUnformatted("bodies (B)");
    const ImGuiStyle& style = ImGui::GetStyle();
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    for (int k = 0; k < kBodyColouringCount; ++k) {
        const auto c = static_cast<BodyColouring>(k);
        // On this row while the radio button fits, else on the next.
        const float width =
            ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(toString(c)).x;
        if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <= right) {
            ImGui::SameLine();
        }
        if (ImGui::RadioButton(toString(c), o.bodies == c)) {
            o.bodies = c;
        }
    }
    ImGui::SetNextItemWidth(160.0f);
    ImGui::SliderFloat("m per N s", &o.metresPerImpulse, 0.0f, 100.0f,
                       o.metresPerImpulse > 0.0f ? "%.2f" : "auto", ImGuiSliderFlags_Logarithmic);
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip(
            "Length of the impulse lines; auto: a body's weight over one step (m g dt, mean "
            "mass) is %.1f m long. Normals green, friction magenta, points yellow.",
            static_cast<double>(ContactOverlay::kAutoLengthM));
    }
}

}  // namespace

StatusNote& StatusNote::operator=(std::string text) {
    m_text = std::move(text);
    m_setAtSeconds = now();
    return *this;
}

double StatusNote::now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

void StatusNote::draw() const {
    if (visibleAt(now())) {
        const float width = ImGui::GetContentRegionAvail().x;
        std::string shown = m_text;
        if (ImGui::CalcTextSize(shown.c_str()).x > width) {
            while (!shown.empty() && ImGui::CalcTextSize((shown + "...").c_str()).x > width) {
                shown.pop_back();
            }
            shown += "...";
        }
        ImGui::TextDisabled("%s", shown.c_str());
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("%s", m_text.c_str());
        }
    } else {
        ImGui::NewLine();
    }
}

float panelLensShift(const PanelState& state, float windowWidth) {
    if (state.coverRightPx <= state.coverLeftPx || windowWidth <= 1.0f) {
        return 0.0f;
    }
    const float left = std::clamp(state.coverLeftPx, 0.0f, windowWidth);
    const float right = std::clamp(state.coverRightPx, 0.0f, windowWidth);
    // The centre of the wider free strip, beside the panel.
    const float centre = windowWidth - right >= left ? 0.5f * (right + windowWidth) : 0.5f * left;
    // At most 0.6 (a panel over 60 % of the window): a narrower strip would not hold the
    // scene anyway, and the view should not leave the window.
    return std::clamp(2.0f * centre / windowWidth - 1.0f, -0.6f, 0.6f);
}

float panelWidthFor(float windowWidth, float uiScale) {
    return std::min(std::floor(440.0f * uiScale), std::floor(0.55f * windowWidth));
}

const char* toString(BodyColouring c) {
    switch (c) {
        case BodyColouring::kIsland:
            return "island";
        case BodyColouring::kSleep:
            return "sleep";
        case BodyColouring::kConvergence:
            return "not converged";
        case BodyColouring::kMaterial:
            break;
    }
    return "material";
}

void drawPanel(PanelState& state, PanelRequests& requests,
               std::span<const std::unique_ptr<DemoScene>> scenes, int currentScene,
               const FrameTimings& timings, const render::RenderStats& renderStats) {
    state.coverLeftPx = 0.0f;
    state.coverRightPx = 0.0f;
    if (!state.visible || scenes.empty()) {
        return;
    }
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    // Inside the window: a window shrunk to a few pixels lets ImGui push the panel's title bar
    // off-screen, and it would stay there (and in imgui.ini) when the window grows again.
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    if (state.panelWidth > 0.0f) {
        const ImVec2 inside =
            clampPanelPosition(ImVec2(state.panelX, state.panelY), state.panelWidth, display);
        if (inside.x != state.panelX || inside.y != state.panelY) {
            ImGui::SetNextWindowPos(inside, ImGuiCond_Always);
        }
    }
    // Sized to the window when it first opens (unless the saved layout has its size) and
    // whenever the window's width or the UI scale changes (a user's resize of the panel holds
    // until then).
    const float windowWidth = ImGui::GetIO().DisplaySize.x;
    if (windowWidth != state.sizedForWidth) {
        ImGui::SetNextWindowSize(
            ImVec2(panelWidthFor(windowWidth, state.uiScale), 0),
            state.sizedForWidth == 0.0f ? ImGuiCond_FirstUseEver : ImGuiCond_Always);
        state.sizedForWidth = windowWidth;
    }
    ImGui::SetNextWindowBgAlpha(0.85f);
    const bool open = ImGui::Begin("wavewall");
    state.panelX = ImGui::GetWindowPos().x;
    state.panelY = ImGui::GetWindowPos().y;
    state.panelWidth = ImGui::GetWindowSize().x;
    state.panelCollapsed = !open;
    if (!open) {
        ImGui::End();
        return;
    }
    state.coverLeftPx = ImGui::GetWindowPos().x;
    state.coverRightPx = ImGui::GetWindowPos().x + ImGui::GetWindowSize().x;
    // Widgets take what the longest label beside them leaves, so no label is clipped, and
    // lines of text wrap at the panel's edge.
    ImGui::PushTextWrapPos(0.0f);
    ImGui::PushItemWidth(std::max(ImGui::GetFontSize() * 6.0f,
                                  ImGui::GetContentRegionAvail().x - labelColumnWidth()));
    runControls(state, requests, scenes, currentScene);
    state.message.draw();
    DemoScene& scene = *scenes[currentScene];
    if (scene.hasContactOverlay() &&
        ImGui::CollapsingHeader("See the LCP", ImGuiTreeNodeFlags_DefaultOpen)) {
        contactOverlaySection(state.overlay);
    }
    if (ImGui::CollapsingHeader("Scene settings", ImGuiTreeNodeFlags_DefaultOpen)) {
        ImGui::PushID("controls");
        scene.drawControls();
        ImGui::PopID();
    }
    if (ImGui::CollapsingHeader("Statistics", ImGuiTreeNodeFlags_DefaultOpen)) {
        timingSection(state, timings, renderStats);
        ImGui::Separator();
        ImGui::PushID("stats");
        scene.drawStats();
        ImGui::PopID();
    }
    if (ImGui::CollapsingHeader("View and capture")) {
        if (ImGui::Checkbox("vsync", &state.vsync)) {
            requests.vsyncChanged = true;
        }
        ImGui::SameLine();
        ImGui::Checkbox("sync timings", &state.syncTimings);
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip("glFinish after each phase: per-phase ms include GPU work");
        }
        const int kSamples[] = {0, 2, 4, 8};
        ImGui::TextUnformatted("MSAA");
        for (int samples : kSamples) {
            ImGui::SameLine();
            char label[16] = "off";
            if (samples > 0) {
                std::snprintf(label, sizeof label, "%dx", samples);
            }
            if (ImGui::RadioButton(label, state.msaaSamples == samples)) {
                state.msaaSamples = samples;
                requests.msaaChanged = true;
            }
        }
        ImGui::TextUnformatted("Quality");
        for (const render::RenderQuality q :
             {render::RenderQuality::kAuto, render::RenderQuality::kLow,
              render::RenderQuality::kHigh}) {
            ImGui::SameLine();
            if (ImGui::RadioButton(render::toString(q), state.quality == q)) {
                state.quality = q;
                requests.qualityChanged = true;
            }
        }
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", state.qualityInEffect.c_str());
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(
                "Shadow map, water mesh resolution and MSAA. Auto: low on a software "
                "rasterizer (llvmpipe), high otherwise");
        }
        if (ImGui::Button("Screenshot (F12)")) {
            ++requests.screenshot;
        }
        ImGui::SameLine();
        if (ImGui::Button(state.recording ? "Stop trace" : "Record trace")) {
            requests.toggleRecording = true;
        }
        ImGui::SameLine();
        if (ImGui::Button(state.videoRecording ? "Stop video (F10)" : "Record video (F10)")) {
            requests.toggleVideo = true;
        }
        if (ImGui::IsItemHovered()) {
            ImGui::SetTooltip(
                "The window as a video that plays at the simulation's rate (ffmpeg; numbered "
                "PNG frames without it), saved in %s",
                state.outputDir.c_str());
        }
        if (ImGui::Button("Reload shaders")) {
            requests.reloadShaders = true;
        }
        ImGui::TextDisabled("trace: %s", state.tracePath.c_str());
    }
    if (ImGui::CollapsingHeader("Keys and mouse (F1)")) {
        bindingsTable();
    }
    ImGui::PopItemWidth();
    ImGui::PopTextWrapPos();
    state.overflowPx =
        std::max(0.0f, ImGui::GetCurrentWindow()->DC.CursorMaxPos.x -
                           (ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x));
    ImGui::End();
}

std::string speedText(double speed) {
    char text[32];
    std::snprintf(text, sizeof text, "x%.2f", speed);
    return text;
}

void drawViewStatus(const PanelState& state, float windowWidth, float windowHeight) {
    const bool slow = state.pacing == Pacing::kRealTime && !state.paused &&
                      state.speed < RealTimePacer::kSlowBelow;
    if (!state.paused && !slow) {
        return;
    }
    const float left = freeStrip(state, windowWidth).first;
    ImGui::SetNextWindowPos(ImVec2(left + 10.0f, windowHeight - 10.0f), ImGuiCond_Always,
                            ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.6f);
    ImGui::Begin("##view status", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoInputs);
    if (state.paused) {
        ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.3f, 1.0f),
                           "PAUSED  (space runs, . steps, arrows: history)");
        if (state.historyBackSeconds > 0.0) {
            ImGui::TextColored(ImVec4(1.0f, 0.85f, 0.3f, 1.0f),
                               "showing %.2f s ago; running re-runs it", state.historyBackSeconds);
        }
    }
    if (slow) {
        ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.4f, 1.0f), "slower than real time %s",
                           speedText(state.speed).c_str());
    }
    ImGui::End();
}

void drawHelpOverlay(const PanelState& state, float windowWidth) {
    if (!state.showHelp) {
        return;
    }
    const auto [left, right] = freeStrip(state, windowWidth);
    ImGui::SetNextWindowPos(ImVec2(0.5f * (left + right), 40.0f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowBgAlpha(0.9f);
    ImGui::Begin("Keys and mouse (F1 closes)", nullptr,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoFocusOnAppearing);
    bindingsTable();
    ImGui::End();
}

bool drawAlarmBanner(const PanelState& state, const std::string& message, float windowWidth) {
    const bool panel = state.coverRightPx > state.coverLeftPx;
    const float left =
        panel && windowWidth - state.coverRightPx >= state.coverLeftPx ? state.coverRightPx : 0.0f;
    const float right = panel && left == 0.0f ? state.coverLeftPx : windowWidth;
    ImGui::SetNextWindowPos(ImVec2(0.5f * (left + right), 12.0f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.0f));
    ImGui::SetNextWindowSize(ImVec2(std::clamp(right - left - 24.0f, 200.0f, 560.0f), 0.0f),
                             ImGuiCond_Always);
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0.62f, 0.08f, 0.06f, 0.94f));
    ImGui::PushStyleColor(ImGuiCol_Button, ImVec4(0.9f, 0.9f, 0.9f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 1.0f, 1.0f, 1.0f));
    bool pressed = false;
    if (ImGui::Begin("##alarm", nullptr,
                     ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                         ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoMove)) {
        ImGui::TextWrapped("%s", message.c_str());
        ImGui::TextWrapped("The simulation is held where it broke until Reset.");
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.0f, 0.0f, 0.0f, 1.0f));
        pressed = ImGui::Button("Reset (R)");
        ImGui::PopStyleColor();
    }
    ImGui::End();
    ImGui::PopStyleColor(3);
    return pressed;
}

std::string finiteOr(double value, const char* format, double limit, const char* fallback) {
    if (!std::isfinite(value) || std::abs(value) > limit) {
        return fallback;
    }
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

void plotResidualLog(const char* label, std::span<const float> residuals, float heightPixels) {
    static std::vector<float> logs;  // scratch; the UI runs on one thread
    logs.resize(residuals.size());
    float smallest = 1e30f;
    for (float r : residuals) {
        if (r > 0.0f) {
            smallest = std::min(smallest, r);
        }
    }
    if (smallest == 1e30f) {
        smallest = 1e-12f;
    }
    float lo = 1e30f;
    float hi = -1e30f;
    for (std::size_t i = 0; i < residuals.size(); ++i) {
        logs[i] = std::log10(std::max(residuals[i], smallest));
        lo = std::min(lo, logs[i]);
        hi = std::max(hi, logs[i]);
    }
    char overlay[96] = "no solve yet";
    if (!residuals.empty()) {
        std::snprintf(overlay, sizeof overlay, "%s: %.2e -> %.2e (%zu it, log10)", label,
                      static_cast<double>(residuals.front()), static_cast<double>(residuals.back()),
                      residuals.size());
    }
    ImGui::PushID(label);
    ImGui::PlotLines("##residual", logs.data(), static_cast<int>(logs.size()), 0, overlay,
                     std::floor(lo), std::ceil(hi) + 0.01f,
                     ImVec2(ImGui::GetContentRegionAvail().x, heightPixels));
    ImGui::PopID();
}

}  // namespace ww::demo
