// The collapsing-wall scene: a rigid::World built from WallSceneSettings, with the events of
// the command line (shoot, remove, push) and the statistics the summary reports.
#pragma once

#include <string>
#include <vector>

#include "app/scenes/sim_scene.h"
#include "solver/rigid/scenes.h"
#include "solver/rigid/world.h"

namespace ww::app {

struct WallSceneSettings {
    std::string layout = "wall";  ///< wall | pyramid | stack | slide
    rigid::WallParams wall;
    rigid::PyramidParams pyramid;
    rigid::StackParams stack;
    rigid::SlideParams slide;
    rigid::WorldParams world;
    rigid::ShotParams shot;
    /// --check: largest penetration (m) a step may show beyond what the fastest body moves in
    /// one step; a tenth of a unit cube's side.
    float maxPenetrationM = 0.1f;
    /// Runs the CPU LCP solves (null: one thread).
    std::shared_ptr<const exec::Executor> executor;
};

class WallScene final : public SimScene {
  public:
    explicit WallScene(WallSceneSettings settings);

    const char* name() const override { return "wall"; }
    void step(StepRecord& out) override;
    void reset() override;
    Status validateEvent(const SceneEvent& e) const override;
    Status applyEvent(const SceneEvent& e) override;
    Status setBackend(Backend backend, const gpu::ShaderLibrary* shaders) override;
    Backend backend() const override { return m_world.backend(); }
    void checkInvariants(const StepRecord& step, std::vector<std::string>& out) const override;
    std::string stateHash() const override { return m_world.stateHashHex(); }
    std::unique_ptr<SceneState> saveState() const override;
    Status restoreState(const SceneState& state) override;
    Result<std::unique_ptr<SceneState>> readState(std::string_view bytes) const override;
    nlohmann::json snapshot() const override;
    nlohmann::json summary() const override;
    void fillDrawData(render::DrawData& out) const override;
    std::pair<glm::vec3, float> viewBounds() const override;

    rigid::World& world() { return m_world; }
    WallSceneSettings& settings() { return m_settings; }
    /// Shoots a sphere from `from` with `velocity` (the demo's click-to-shoot).
    void shoot(const rigid::Vec3& from, const rigid::Vec3& velocity);

  private:
    void build();
    /// Largest distance of a brick (not a projectile) from where it started, m.
    float maxDrift() const;
    float maxBrickSpeed() const;

    WallSceneSettings m_settings;
    rigid::World m_world;
    const gpu::ShaderLibrary* m_shaders = nullptr;
    std::vector<rigid::Vec3> m_startPositions;  ///< by brick tag order, see build()
    std::vector<std::int32_t> m_startTags;

    float m_prevMaxSpeed = 0;  ///< fastest body before the step just taken, m/s

    // Accumulated for summary().
    int m_steps = 0;
    int m_nMax = 0, m_contactsMax = 0, m_islandsMax = 0;
    int m_matrixFreeMax = 0;      ///< most blocks one step posed matrix-free
    float m_omegaUsedMin = 0.0f;  ///< smallest omega a step used (after the adaptive cap)
    double m_iterationsSum = 0;
    /// Shock propagation: sweeps summed over every corrected body of every step, and those
    /// bodies (the summary's sweeps per body).
    double m_shockSweepsSum = 0, m_shockBodiesSum = 0;
    double m_lambdaStepsSum = 0;  ///< Lanczos steps of the lambda_max estimates, all steps
    double m_dispatchesSum = 0;  ///< GPU compute dispatches of all steps (gpu::trafficCounts)
    long m_dispatchesMax = 0;    ///< most dispatches one step issued
    long m_readbacksMax = 0;     ///< most GPU-to-host transfers one step issued
    float m_residualMax = 0, m_penetrationMax = 0, m_speedMax = 0, m_driftMax = 0;
};

}  // namespace ww::app
