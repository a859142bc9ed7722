#include "app/scenes/water/water_demo_scene.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/demo/adapter_state.h"
#include "app/demo/demo_panel.h"
#include "app/demo/param_widgets.h"

namespace ww::app {

namespace {

// Half the vertical field of view of render::OrbitCamera (45 degrees), to frame a sphere.
constexpr float kHalfFovRadians = 0.392699f;

// Non-finite values (a blown-up surface) are left out: they would break the plots' scales.
void pushCapped(std::deque<float>& d, float v, std::size_t cap) {
    if (!std::isfinite(v)) {
        return;
    }
    d.push_back(v);
    if (d.size() > cap) {
        d.pop_front();
    }
}

}  // namespace

Result<std::unique_ptr<WaterDemoScene>> WaterDemoScene::create(WaterSceneSettings settings,
                                                               const gpu::ShaderLibrary* shaders) {
    Result<std::unique_ptr<WaterScene>> scene = WaterScene::create(std::move(settings));
    if (!scene) {
        return scene.error();
    }
    return adopt(std::move(scene).value(), shaders);
}

std::unique_ptr<WaterDemoScene> WaterDemoScene::adopt(std::unique_ptr<WaterScene> scene,
                                                      const gpu::ShaderLibrary* shaders) {
    return std::unique_ptr<WaterDemoScene>(new WaterDemoScene(std::move(scene), shaders));
}

Result<std::unique_ptr<demo::DemoScene>> WaterDemoScene::wrap(std::unique_ptr<SimScene> scene,
                                                              DemoAdapterInputs in) {
    if (dynamic_cast<WaterScene*>(scene.get()) == nullptr) {
        return inputError("demo: the water adapter needs a water scene");
    }
    std::unique_ptr<WaterDemoScene> out =
        adopt(std::unique_ptr<WaterScene>(static_cast<WaterScene*>(scene.release())), in.shaders);
    out->setScript(std::move(in.script));
    return std::unique_ptr<demo::DemoScene>(std::move(out));
}

WaterDemoScene::WaterDemoScene(std::unique_ptr<WaterScene> scene, const gpu::ShaderLibrary* shaders)
    : m_scene(std::move(scene)), m_shaders(shaders) {}

void WaterDemoScene::setScript(EventScript script) {
    m_script = std::move(script);
}

void WaterDemoScene::step() {
    // A scripted reset rebuilds the simulation as everywhere else; the panel's rain and wake
    // toggles survive it as they survive the Reset button. The script's step count runs on.
    ScriptHooks hooks;
    hooks.afterReset = [this] { clearRun(); };
    hooks.applied = [this](const SceneEvent& e) {
        if (e.action == "rain" || e.action == "wake") {
            (e.action == "rain" ? m_rain : m_wake) = e.args[0] == "on";  // the panel's toggles
        }
    };
    for (std::string& error : m_script.apply(*m_scene, m_stepIndex, hooks)) {
        m_note = std::move(error);
    }
    ++m_stepIndex;
    m_scene->step(m_last);
    if (m_alarm.empty()) {
        std::vector<std::string> violations;
        m_scene->checkInvariants(m_last, violations);
        if (!violations.empty()) {
            m_alarm = "The water surface blew up: " + violations.front() +
                      (m_scene->model().params().scheme == wave::Scheme::kExplicit
                           ? ". The explicit scheme is stable only for dt / limit <= 1."
                           : ".") +
                      " Reset restores a calm pool.";
        }
    }
    if (m_last.stats.residual) {
        pushCapped(m_residuals, static_cast<float>(*m_last.stats.residual), kHistorySteps);
    }
    if (m_last.stats.energy) {
        pushCapped(m_energy, static_cast<float>(*m_last.stats.energy), kHistorySteps);
    }
}

void WaterDemoScene::reset() {
    m_stepIndex = 0;
    m_script.rewind();
    m_scene->reset();
    clearRun();
}

void WaterDemoScene::clearRun() {
    m_alarm.clear();
    // The panel's rain and wake toggles are settings: they survive a reset.
    if (m_rain) {
        (void)m_scene->applyEvent({0, "rain", {"on"}, "rain"});
    }
    if (m_wake) {
        (void)m_scene->applyEvent({0, "wake", {"on"}, "wake"});
    }
    m_last = {};
    m_residuals.clear();
    m_energy.clear();
}

void WaterDemoScene::rebuild() {
    const Backend backend = m_scene->backend();
    Result<std::unique_ptr<WaterScene>> made = WaterScene::create(m_scene->settings());
    if (!made) {
        m_note = made.error().message;
        return;
    }
    std::unique_ptr<WaterScene> next = std::move(made).value();
    if (backend != Backend::kCpu) {
        if (Status s = next->setBackend(backend, m_shaders); !s) {
            m_note = "rebuilt on the CPU: " + s.error().message;
        }
    }
    m_scene = std::move(next);
    m_alarm.clear();
    m_stepIndex = 0;
    m_script.rewind();
    m_rain = m_wake = false;
    m_last = {};
    m_residuals.clear();
    m_energy.clear();
}

void WaterDemoScene::fillDrawData(render::DrawData& out) {
    ++m_frame;
    m_scene->fillDrawData(out);
}

Status WaterDemoScene::setBackend(Backend backend) {
    return m_scene->setBackend(backend, m_shaders);
}

std::optional<glm::vec2> WaterDemoScene::poolHit(const render::Ray& ray) const {
    const WaterSceneSettings& s = m_scene->settings();
    const wave::WaveParams& p = m_scene->model().params();
    if (std::abs(ray.direction.y) < 1e-6f) {
        return std::nullopt;
    }
    const float t = (s.baseHeightM - ray.origin.y) / ray.direction.y;
    if (t <= 0.0f) {
        return std::nullopt;
    }
    const glm::vec3 hit = ray.origin + t * ray.direction;
    const float h = p.cellSize();
    const glm::vec2 norm(hit.x / (static_cast<float>(p.nx) * h) + 0.5f,
                         hit.z / (static_cast<float>(p.ny) * h) + 0.5f);
    if (norm.x < 0.0f || norm.x > 1.0f || norm.y < 0.0f || norm.y > 1.0f) {
        return std::nullopt;
    }
    return norm;
}

void WaterDemoScene::onPick(const render::Ray& ray, demo::PickAction action) {
    const std::optional<glm::vec2> at = poolHit(ray);
    if (!at || action == demo::PickAction::kRemove) {  // ctrl + click: its wake did the job
        return;
    }
    if (action != demo::PickAction::kDrag) {
        m_scene->drop(at->x, at->y);
        return;
    }
    // A wake: shallow depressions along the cursor's path, spaced by about their radius so
    // the trail is continuous however fast the mouse moves.
    const WaterSceneSettings& s = m_scene->settings();
    const wave::WaveParams& p = m_scene->model().params();
    const float radiusM = 0.5f * s.dropRadiusM;
    const float amplitudeM = -0.3f * s.dropAmplitudeM;
    const float poolM = p.cellSize() * static_cast<float>(std::max(p.nx, p.ny));
    const glm::vec2 from = m_lastDragFrame >= m_frame - 1 ? m_lastDrag : *at;
    const float lengthM = glm::length(*at - from) * poolM;
    const int pieces = std::clamp(static_cast<int>(lengthM / radiusM), 1, 32);
    for (int k = 1; k <= pieces; ++k) {
        const glm::vec2 q = glm::mix(from, *at, static_cast<float>(k) / static_cast<float>(pieces));
        m_scene->model().addDrop(q.x, q.y, amplitudeM / static_cast<float>(pieces), radiusM);
    }
    m_lastDrag = *at;
    m_lastDragFrame = m_frame;
}

demo::CameraHome WaterDemoScene::cameraHome() const {
    const auto [centre, radius] = m_scene->viewBounds();
    demo::CameraHome home;
    home.target = centre;
    // The pool seen from above at 0.85 rad. Its bounding sphere alone does not frame it: the
    // near corner is closer to the eye and looks larger, so the distance has 35 % more.
    home.distanceM = 1.35f * radius / std::sin(kHalfFovRadians);
    home.yawRadians = 0.5f;
    home.pitchRadians = 0.85f;
    return home;
}

void WaterDemoScene::traceValues(std::vector<std::pair<std::string, double>>& phasesMs,
                                 std::vector<std::pair<std::string, double>>& values) const {
    namedStepValues(m_last, phasesMs, values);
}

void WaterDemoScene::applyParams(const wave::WaveParams& p) {
    if (Status s = m_scene->model().setParams(p); !s) {
        m_note = s.error().message;
        return;
    }
    m_scene->settings().wave = p;
}

void WaterDemoScene::drawControls() {
    WaterSceneSettings& s = m_scene->settings();
    wave::WaveParams p = m_scene->model().params();
    // The rows that rebuild the surface (grid, pool size, walls) edit the settings and apply on
    // Enter or release; the others act on the running model.
    ParamPanelEdit edit;
    drawParams(
        waterParams(), [](const ParamInfo&) { return true; }, p, s.wave, m_scene->backend(),
        m_values, edit);
    ImGui::Text("dt %.2f ms = %.2f x h/(c sqrt 2) = %.2f x %.2f ms", 1000.0 * p.dt(),
                static_cast<double>(p.effectiveDtRatio()),
                static_cast<double>(p.effectiveDtRatio()), 1000.0 * p.explicitDtLimit());
    if (p.scheme == wave::Scheme::kExplicit && p.effectiveDtRatio() > 1.0f) {
        ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.3f, 1.0f),
                           "explicit scheme above its stability limit: it will blow up");
    }
    if (!edit.error.empty()) {
        m_note = edit.error;
    }
    if (edit.liveChanged) {
        applyParams(p);
    }
    const bool needsRebuild = edit.rebuild;

    ImGui::Separator();
    ImGui::TextUnformatted("Disturbances");
    if (ImGui::Button("Drop")) {
        std::uniform_real_distribution<float> u(0.15f, 0.85f);
        const float x = u(m_rng);
        m_scene->drop(x, u(m_rng));
    }
    ImGui::SameLine();
    if (ImGui::Checkbox("rain", &m_rain)) {
        (void)m_scene->applyEvent({0, "rain", {m_rain ? "on" : "off"}, "rain"});
    }
    ImGui::SameLine();
    if (ImGui::Checkbox("wake", &m_wake)) {
        (void)m_scene->applyEvent({0, "wake", {m_wake ? "on" : "off"}, "wake"});
    }
    if (ImGui::IsItemHovered()) {
        ImGui::SetTooltip("A source circling the middle of the pool (ctrl + drag makes your own)");
    }
    m_note.draw();
    if (needsRebuild) {
        rebuild();
    }
}

void WaterDemoScene::drawStats() {
    const wave::WaveParams& p = m_scene->model().params();
    const double rhsMs = m_last.phases.rhs.value_or(0.0);
    const double solveMs = m_last.phases.solve.value_or(0.0);
    const double iterations = m_last.stats.iterations.value_or(0.0);
    const double residual = m_last.stats.residual.value_or(0.0);
    const double energy = m_last.stats.energy.value_or(0.0);
    ImGui::Text("step %ld, grid %dx%d (n %d), h %.3f m, %s on the %s", m_stepIndex, p.nx, p.ny,
                p.nx * p.ny, static_cast<double>(p.cellSize()), wave::schemeName(p.scheme),
                backendName(backend()));
    if (p.scheme == wave::Scheme::kCrankNicolson) {
        ImGui::Text("CG iterations %.0f, residual %s (tolerance %.0e)", iterations,
                    demo::finiteOr(residual, "%.2e", 1e6, "diverged").c_str(),
                    static_cast<double>(p.cg.tolerance));
    }
    ImGui::Text("ms: rhs %.2f  solve %.2f  step %.2f", rhsMs, solveMs, m_last.stepMs);
    ImGui::Text(
        "energy %s, dt ratio %.2f",
        demo::finiteOr(energy, "%.4g", 1e12, m_alarm.empty() ? "out of range" : "blown up").c_str(),
        static_cast<double>(p.effectiveDtRatio()));
    if (!m_last.residualHistory.empty()) {
        demo::plotResidualLog("last solve", m_last.residualHistory);
    } else if (p.scheme == wave::Scheme::kCrankNicolson) {
        // wave::WaveModel does not expose the last CG solve's per-iteration history, so the
        // plot shows the final residual of each recent step instead.
        m_plot.assign(m_residuals.begin(), m_residuals.end());
        demo::plotResidualLog("CG residual per step", m_plot);
    }
    m_plot.assign(m_energy.begin(), m_energy.end());
    if (!m_plot.empty()) {
        const auto [lo, hi] = std::minmax_element(m_plot.begin(), m_plot.end());
        ImGui::PlotLines("##energy", m_plot.data(), static_cast<int>(m_plot.size()), 0,
                         "energy per step", *lo, *hi + 1e-9f,
                         ImVec2(ImGui::GetContentRegionAvail().x, 50.0f));
    }
}

std::unique_ptr<demo::SavedState> WaterDemoScene::saveState() {
    return saveAdapterState(*m_scene, m_stepIndex, m_script);
}

Status WaterDemoScene::restoreState(const demo::SavedState& state) {
    Status s = restoreAdapterState(state, "water", *m_scene, m_stepIndex, m_script);
    if (s) {
        m_alarm.clear();  // a state from the history: run on from it (the check raises it anew)
    }
    return s;
}

}  // namespace ww::app
