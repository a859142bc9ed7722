// The splash scene: a wall of bricks standing in a pool, shot into the water, two-way coupled
// (splash::SplashWorld: the LCP wall and the Crank–Nicolson water every step, docs/splash.md),
// with the wall's events (shoot, push, remove) and the statistics of both solvers.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "app/scenes/sim_scene.h"
#include "solver/rigid/scenes.h"
#include "solver/splash/splash_world.h"

namespace ww::app {

struct SplashSceneSettings {
    splash::SplashParams splash;
    rigid::WallParams wall;  ///< brick size and mass set from the options
    float brickDensityKgM3 = 500.0f;
    float wallXM = 0.0f;  ///< the wall's centre, m from the pool's centre
    float wallZM = 0.0f;
    rigid::ShotParams shot;
    /// --check: penetration bound as the wall scene's (a tenth of a brick's side).
    float maxPenetrationM = 0.05f;
    /// --check: largest relative change of the water volume W (docs/splash.md).
    double maxVolumeDrift = 1e-3;
};

class SplashScene final : public SimScene {
  public:
    static Result<std::unique_ptr<SplashScene>> create(SplashSceneSettings settings);

    const char* name() const override { return "splash"; }
    void step(StepRecord& out) override;
    void reset() override;
    Status validateEvent(const SceneEvent& e) const override;
    Status applyEvent(const SceneEvent& e) override;
    /// kGpu: the water, the LCP and the coupling on the GPU (docs/splash.md, "GPU path");
    /// reset() keeps the backend.
    Status setBackend(Backend backend, const gpu::ShaderLibrary* shaders) override;
    Backend backend() const override { return m_world.backend(); }
    void checkInvariants(const StepRecord& step, std::vector<std::string>& out) const override;
    std::string stateHash() const override { return m_world.stateHash(); }
    /// The rigid world's state (bodies, warm-start cache) and the water's (u^n, u^n-1, ...):
    /// all a coupled step reads besides the settings (the water volume W0 is fixed when the
    /// scene is built).
    std::unique_ptr<SceneState> saveState() const override;
    /// Fails, changing nothing, on another scene's state or a pool of another grid.
    Status restoreState(const SceneState& state) override;
    Result<std::unique_ptr<SceneState>> readState(std::string_view bytes) const override;
    nlohmann::json snapshot() const override;
    nlohmann::json summary() const override;
    void fillDrawData(render::DrawData& out) const override;
    std::pair<glm::vec3, float> viewBounds() const override;

    splash::SplashWorld& world() { return m_world; }
    const SplashSceneSettings& settings() const { return m_settings; }

  private:
    SplashScene(SplashSceneSettings settings, splash::SplashWorld world);
    static Result<splash::SplashWorld> build(const SplashSceneSettings& s);

    SplashSceneSettings m_settings;
    splash::SplashWorld m_world;
    mutable std::vector<float> m_heightsForDrawing;
    const gpu::ShaderLibrary* m_shaders = nullptr;  ///< for reset() on the GPU
    float m_prevMaxSpeed = 0;

    // Accumulated for summary().
    int m_steps = 0;
    int m_nMax = 0, m_contactsMax = 0;
    double m_lcpIterationsSum = 0, m_cgIterationsSum = 0;
    float m_lcpResidualMax = 0, m_cgResidualMax = 0, m_penetrationMax = 0, m_speedMax = 0;
    double m_driftMax = 0, m_correctionMax = 0;
};

}  // namespace ww::app
