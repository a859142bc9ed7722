#include "app/scenes/water/water_scene.h"

#include <algorithm>
#include <cmath>

#include "app/scenes/solver_state_bytes.h"
#include "solver/core/timer.h"

namespace ww::app {

Result<std::unique_ptr<WaterScene>> WaterScene::create(WaterSceneSettings settings) {
    if (Status s = settings.wave.validate(); !s) {
        return s.error();
    }
    settings.wave.trackEnergy = false;  // evaluated here, every energyEvery steps
    if (!settings.executor) {  // settings made without one (tests, tools): the calling thread
        settings.executor = std::make_shared<const exec::Executor>(1);
    }
    Result<wave::WaveModel> model =
        wave::WaveModel::create(settings.wave, Backend::kCpu, nullptr, settings.executor);
    if (!model) {
        return model.error();
    }
    std::unique_ptr<WaterScene> scene(
        new WaterScene(std::move(settings), std::move(model).value()));
    scene->reset();
    return scene;
}

WaterScene::WaterScene(WaterSceneSettings settings, wave::WaveModel model)
    : m_settings(std::move(settings)), m_model(std::move(model)) {}

void WaterScene::resetStatistics() {
    m_steps = 0;
    m_iterationsSum = 0;
    m_iterationsMax = 0;
    m_residualMax = m_trueResidualMax = 0;
    m_energyInitial = m_energyMax = m_previousEnergy = m_energy = 0;
    m_energyNow = false;
    m_quietSinceEnergy = m_quietWindow = true;
}

void WaterScene::reset() {
    const std::size_t cells = static_cast<std::size_t>(m_settings.wave.nx) * m_settings.wave.ny;
    const std::vector<float> zero(cells, 0.0f);
    (void)m_model.setState(zero, zero);  // sizes match by construction
    m_model.setRain(false, 0.0f, m_settings.seed);
    m_model.clearWake();
    m_rainOn = m_wakeOn = false;
    if (m_settings.initialDrop) {
        m_model.addDrop(0.5f, 0.5f, m_settings.dropAmplitudeM, m_settings.dropRadiusM);
    }
    m_disturbed = true;
    m_last = {};
    resetStatistics();
}

void WaterScene::drop(float xNorm, float yNorm) {
    m_model.addDrop(xNorm, yNorm, m_settings.dropAmplitudeM, m_settings.dropRadiusM);
    m_disturbed = true;
}

void WaterScene::step(StepRecord& out) {
    m_last = m_model.step();
    m_quietStep = !m_disturbed && m_last.drops == 0 && !m_wakeOn && !m_rainOn;
    m_disturbed = false;
    out.stepMs = m_last.totalMs;
    out.phases = {};
    out.phases.rhs = m_last.rhsMs;
    out.phases.solve = m_last.solveMs;
    out.residualHistory = m_last.cgHistory;
    out.stats = {};
    out.stats.iterations = m_last.cgIterations;
    out.stats.residual = m_last.cgResidual;
    out.stats.trueResidual = m_last.cgTrueResidual;
    out.stats.drops = m_last.drops;
    out.phases.diagnostics = 0.0;
    m_energyNow = m_steps % std::max(1, m_settings.energyEvery) == 0;
    m_quietWindow = m_quietWindow && m_quietStep;
    if (m_energyNow) {
        m_quietSinceEnergy = m_quietWindow;
        m_quietWindow = true;
        m_previousEnergy = m_energy;
        Stopwatch clock;
        m_energy = m_model.energy();
        out.phases.diagnostics = clock.elapsedMs();
        out.stepMs += *out.phases.diagnostics;
        out.stats.energy = m_energy;
        if (m_steps == 0) {
            m_energyInitial = m_energy;
        }
        m_energyMax = std::max(m_energyMax, m_energy);
    }
    ++m_steps;
    m_iterationsSum += m_last.cgIterations;
    m_iterationsMax = std::max(m_iterationsMax, m_last.cgIterations);
    m_residualMax = std::max(m_residualMax, m_last.cgResidual);
    m_trueResidualMax = std::max(m_trueResidualMax, m_last.cgTrueResidual);
}

void WaterScene::checkInvariants(const StepRecord&, std::vector<std::string>& out) const {
    const std::string at = "step " + std::to_string(m_model.steps()) + ": ";
    if (!std::isfinite(m_last.cgResidual) || (m_energyNow && !std::isfinite(m_energy))) {
        out.push_back(at +
                      "the water surface became NaN/Inf (explicit scheme beyond its "
                      "stability limit? see --dt-ratio)");
        return;
    }
    if (m_settings.wave.scheme == wave::Scheme::kCrankNicolson) {
        if (m_last.cgStatus == cg::CgStatus::kBreakdown) {
            out.push_back(at + m_last.message);
        } else if (m_last.cgStatus == cg::CgStatus::kConverged &&
                   m_last.cgResidual > m_settings.wave.cg.tolerance) {
            out.push_back(at + "CG reported convergence with residual " +
                          std::to_string(m_last.cgResidual) + " above its tolerance");
        }
    }
    if (m_energyNow && m_quietSinceEnergy && m_steps > 1 &&
        m_energy > m_previousEnergy * (1.0 + m_settings.maxEnergyGrowth) + 1e-12) {
        out.push_back(at + "energy grew from " + std::to_string(m_previousEnergy) + " to " +
                      std::to_string(m_energy) + " with no disturbance (unstable)");
    }
}

Status WaterScene::validateEvent(const SceneEvent& e) const {
    if (e.action == "drop") {
        if (e.args.size() < 2 || e.args.size() > 4) {
            return inputError("--event " + e.text +
                              ": drop takes X,Y[,AMPLITUDE_M[,RADIUS_M]] "
                              "with X, Y in [0, 1]");
        }
        for (std::size_t i = 0; i < e.args.size(); ++i) {
            Result<double> v = e.number(i);
            if (!v) {
                return v.error();
            }
            if (i < 2 && (*v < 0.0 || *v > 1.0)) {
                return inputError("--event " + e.text + ": drop position must be in [0, 1]");
            }
        }
        return {};
    }
    if (e.action == "rain" || e.action == "wake") {
        if (e.args.empty() || (e.args[0] != "on" && e.args[0] != "off")) {
            return inputError("--event " + e.text + ": " + e.action + " takes on or off" +
                              (e.action == "rain" ? "[,DROPS_PER_SECOND]" : "[,SPEED_M_S]"));
        }
        if (e.args.size() > 2) {
            return inputError("--event " + e.text + ": too many arguments");
        }
        if (e.args.size() == 2) {
            Result<double> v = e.number(1);
            if (!v) {
                return v.error();
            }
            if (*v <= 0) {
                return inputError("--event " + e.text + ": the " +
                                  (e.action == "rain" ? "rate (drops per second)" : "speed (m/s)") +
                                  " must be > 0");
            }
        }
        return {};
    }
    return inputError("--event " + e.text + ": the water scene has no action '" + e.action +
                      "' (use drop, rain or wake)");
}

Status WaterScene::applyEvent(const SceneEvent& e) {
    if (Status s = validateEvent(e); !s) {
        return s;
    }
    m_disturbed = true;
    if (e.action == "drop") {
        m_model.addDrop(static_cast<float>(*e.number(0)), static_cast<float>(*e.number(1)),
                        static_cast<float>(*e.numberOr(2, m_settings.dropAmplitudeM)),
                        static_cast<float>(*e.numberOr(3, m_settings.dropRadiusM)));
    } else if (e.action == "rain") {
        m_rainOn = e.args[0] == "on";
        const auto rate = static_cast<float>(*e.numberOr(1, m_settings.rainDropsPerSecond));
        m_model.setRain(m_rainOn, rate, m_settings.seed, 0.3f * m_settings.dropAmplitudeM,
                        0.5f * m_settings.dropRadiusM);
    } else {
        m_wakeOn = e.args[0] == "on";
        if (m_wakeOn) {
            // A loop around the middle of the pool.
            std::vector<wave::PathPoint> path;
            for (int k = 0; k < 32; ++k) {
                const float a = 6.2831853f * static_cast<float>(k) / 32.0f;
                path.push_back({0.5f + 0.3f * std::cos(a), 0.5f + 0.3f * std::sin(a)});
            }
            const float speed = static_cast<float>(*e.numberOr(1, 0.8 * m_settings.wave.waveSpeed));
            m_model.setWake(std::move(path), speed);
        } else {
            m_model.clearWake();
        }
    }
    return {};
}

Status WaterScene::setBackend(Backend backend, const gpu::ShaderLibrary* shaders) {
    Status s = m_model.setBackend(backend, shaders);
    if (s) {
        m_shaders = shaders;
    }
    return s;
}

namespace {
struct WaterState final : SceneState {
    wave::WaveModel::State model;
    bool disturbed = false, quietStep = false, wakeOn = false, rainOn = false;
    double lastEnergy = 0.0;  ///< the last energy evaluation
    std::size_t bytes() const override { return sizeof(*this) + model.bytes(); }
    std::string serialize() const override {
        ByteWriter w;
        putWaveState(w, model);
        for (bool b : {disturbed, quietStep, wakeOn, rainOn}) {
            w.put(static_cast<std::uint8_t>(b));
        }
        w.put(lastEnergy);
        return w.take();
    }
};
}  // namespace

std::unique_ptr<SceneState> WaterScene::saveState() const {
    auto s = std::make_unique<WaterState>();
    s->model = m_model.saveState();
    s->disturbed = m_disturbed;
    s->quietStep = m_quietStep;
    s->wakeOn = m_wakeOn;
    s->rainOn = m_rainOn;
    s->lastEnergy = m_energy;
    return s;
}

Result<std::unique_ptr<SceneState>> WaterScene::readState(std::string_view bytes) const {
    auto s = std::make_unique<WaterState>();
    ByteReader r(bytes);
    std::uint8_t flags[4] = {0, 0, 0, 0};
    bool ok = getWaveState(r, s->model);
    for (std::uint8_t& f : flags) {
        ok = ok && r.get(f);
    }
    ok = ok && r.get(s->lastEnergy) && r.atEnd();
    if (!ok) {
        return inputError("water: the saved state is truncated or not a water surface's");
    }
    s->disturbed = flags[0] != 0;
    s->quietStep = flags[1] != 0;
    s->wakeOn = flags[2] != 0;
    s->rainOn = flags[3] != 0;
    return std::unique_ptr<SceneState>(std::move(s));
}

Status WaterScene::restoreState(const SceneState& state) {
    const auto* s = dynamic_cast<const WaterState*>(&state);
    if (s == nullptr) {
        return inputError("water: the state to restore was not saved by a water scene");
    }
    if (Status ok = m_model.restoreState(s->model); !ok) {
        return Error{ok.error().kind, "water: " + ok.error().message +
                                          " (the grid changed since the state was saved)"};
    }
    m_disturbed = s->disturbed;
    m_quietStep = s->quietStep;
    m_wakeOn = s->wakeOn;
    m_rainOn = s->rainOn;
    m_energy = s->lastEnergy;
    m_quietWindow = false;  // the steps before the save are unknown: the next evaluation is
                            // not compared with this one
    return {};
}

nlohmann::json WaterScene::snapshot() const {
    const wave::WaveParams& p = m_model.params();
    return {{"scene", "water"},
            {"step", m_model.steps()},
            {"hash", stateHash()},
            {"nx", p.nx},
            {"ny", p.ny},
            {"cell_size_m", p.cellSize()},
            {"heights", m_model.heights()}};
}

nlohmann::json WaterScene::summary() const {
    const wave::WaveParams& p = m_model.params();
    return {{"grid", std::to_string(p.nx) + "x" + std::to_string(p.ny)},
            {"scheme", wave::schemeName(p.scheme)},
            {"dt_s", p.dt()},
            {"dt_ratio", p.effectiveDtRatio()},
            {"cg",
             {{"iterations_mean", m_steps > 0 ? m_iterationsSum / m_steps : 0.0},
              {"iterations_max", m_iterationsMax},
              {"residual_max", m_residualMax},
              {"true_residual_max", m_trueResidualMax}}},
            {"energy",
             {{"initial", m_energyInitial}, {"final", m_model.energy()}, {"max", m_energyMax}}}};
}

void WaterScene::fillDrawData(render::DrawData& out) const {
    out.boxes.clear();
    out.spheres.clear();
    out.groundPlane = true;
    const wave::WaveParams& p = m_model.params();
    render::WaterSurface& w = out.water;
    w.enabled = true;
    w.nx = p.nx;
    w.ny = p.ny;
    w.cellSizeM = p.cellSize();
    w.baseHeightM = m_settings.baseHeightM;
    w.heightBuffer = m_model.heightBufferHandle();
    if (w.heightBuffer == 0) {
        m_heightsForDrawing = m_model.heights();
        w.heightsCpu = m_heightsForDrawing;
    } else {
        w.heightsCpu = {};
    }
}

std::pair<glm::vec3, float> WaterScene::viewBounds() const {
    const wave::WaveParams& p = m_model.params();
    const float half = 0.5f * p.cellSize() * static_cast<float>(std::max(p.nx, p.ny));
    return {{0.0f, m_settings.baseHeightM, 0.0f}, 1.05f * half};
}

}  // namespace ww::app
