// The implicit water surface scene: a wave::WaveModel built from WaterSceneSettings, with the
// drop / rain / wake events and the statistics the summary reports (CG iterations, energy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "app/scenes/sim_scene.h"
#include "solver/wave/wave_model.h"

namespace ww::app {

struct WaterSceneSettings {
    wave::WaveParams wave;
    std::uint64_t seed = 1;
    float dropAmplitudeM = 0.15f;
    float dropRadiusM = 0.25f;
    float rainDropsPerSecond = 6.0f;
    bool initialDrop = true;   ///< a drop in the middle at the start, so there is something to see
    float baseHeightM = 0.3f;  ///< rest level drawn above the ground
    /// --check: relative energy growth a step without disturbances may show. Crank–Nicolson
    /// conserves (undamped) or dissipates the discrete energy exactly; what remains is CG's
    /// tolerance and float rounding, far below 1 %.
    double maxEnergyGrowth = 0.01;
    /// Steps between energy evaluations (1: every step). The energy check compares each
    /// evaluation with the one before when no step between them was disturbed; the first step
    /// and summary() always evaluate it. Any other value only thins the samples.
    int energyEvery = 1;
    /// Runs the CPU kernels (null: one thread).
    std::shared_ptr<const exec::Executor> executor;
};

class WaterScene final : public SimScene {
  public:
    /// Fails with a message naming the option when the settings are invalid.
    static Result<std::unique_ptr<WaterScene>> create(WaterSceneSettings settings);

    const char* name() const override { return "water"; }
    void step(StepRecord& out) override;
    void reset() override;
    Status validateEvent(const SceneEvent& e) const override;
    Status applyEvent(const SceneEvent& e) override;
    Status setBackend(Backend backend, const gpu::ShaderLibrary* shaders) override;
    Backend backend() const override { return m_model.backend(); }
    void checkInvariants(const StepRecord& step, std::vector<std::string>& out) const override;
    std::string stateHash() const override { return m_model.stateHash(); }
    nlohmann::json snapshot() const override;
    std::unique_ptr<SceneState> saveState() const override;
    Status restoreState(const SceneState& state) override;
    Result<std::unique_ptr<SceneState>> readState(std::string_view bytes) const override;
    nlohmann::json summary() const override;
    void fillDrawData(render::DrawData& out) const override;
    std::pair<glm::vec3, float> viewBounds() const override;

    wave::WaveModel& model() { return m_model; }
    WaterSceneSettings& settings() { return m_settings; }
    /// A drop at normalized pool coordinates (the demo's click).
    void drop(float xNorm, float yNorm);

  private:
    WaterScene(WaterSceneSettings settings, wave::WaveModel model);
    void resetStatistics();

    WaterSceneSettings m_settings;
    wave::WaveModel m_model;
    const gpu::ShaderLibrary* m_shaders = nullptr;
    mutable std::vector<float> m_heightsForDrawing;  ///< CPU backend: what fillDrawData exposes

    bool m_disturbed = false;  ///< an event touched the surface since the last step
    bool m_quietStep = false;  ///< the last step had no disturbance at all
    bool m_wakeOn = false;
    bool m_rainOn = false;
    double m_previousEnergy = 0;  ///< the evaluation before the last one
    double m_energy = 0;          ///< the last evaluation
    bool m_energyNow = false;     ///< the last step evaluated the energy
    bool m_quietSinceEnergy = true;  ///< no step between the last two evaluations was disturbed
    bool m_quietWindow = true;       ///< no step since the last evaluation was disturbed
    wave::StepStats m_last;

    // Accumulated for summary().
    int m_steps = 0;
    double m_iterationsSum = 0;
    int m_iterationsMax = 0;
    float m_residualMax = 0;
    float m_trueResidualMax = 0;
    double m_energyInitial = 0, m_energyMax = 0;
};

}  // namespace ww::app
