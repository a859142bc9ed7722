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
#include "solver/splash/splash_scenes.h"
#include "solver/splash/splash_world.h"

namespace ww::app {

struct SplashSceneSettings {
    static constexpr float kDefaultBrickSizeM = 0.5f;
    static constexpr float kDefaultBrickDensity = 500.0f;  ///< kg/m^3: half as dense as water
    /// The splash's wave damping gamma, 1/s, where the user gives none (the water scene's is 0,
    /// lossless): without it the lossless surface keeps the collapse's short waves, 2-3 cells
    /// long, for as long as the run lasts (docs/splash.md).
    static constexpr float kDefaultWaveDampingPerS = 0.1f;
    /// The splash's LCP iteration cap where the user gives none (the wall's is 50): bricks that
    /// land on each other at up to ~8 m/s in water need more Jacobi passes than a resting wall.
    /// The 20 x 20 splash (512^2 pool, shot at step 60, 600 steps) under --check at wave damping
    /// 0, 0.05, 0.1, 0.2, 0.3, 0.5 and 1 /s: at 50 three of the seven runs stop at a penetration
    /// beyond approach or a crest over its bound, at 100 none (docs/splash.md, "Choices").
    static constexpr int kDefaultLcpIterations = 100;
    splash::SplashParams splash;
    /// Cubic bricks of kDefaultBrickSizeM and kDefaultBrickDensity (the options set both).
    rigid::WallParams wall = splash::cubicBricks({}, kDefaultBrickSizeM, kDefaultBrickDensity);
    float brickDensityKgM3 = kDefaultBrickDensity;
    float wallXM = 0.0f;  ///< the wall's centre, m from the pool's centre
    float wallZM = 0.0f;
    rigid::ShotParams shot;
    /// --check: the deepest a contact may penetrate beyond what one step of approach explains
    /// (its pair's or the fastest closing contact of either body: a contact found one step late
    /// can be that deep; the allowance is kept while the pair stays in contact, so a pair that
    /// sinks into each other over several steps fails), m: a tenth
    /// of a brick's side, at most 5 cm.
    float maxPenetrationM = 0.05f;
    /// --check: largest relative change of the water volume W (docs/splash.md).
    double maxVolumeDrift = 1e-3;
    /// --check: the surface must stay above maxTroughOfDepth times the depth below its rest
    /// level and below maxCrestOfDepth times the depth above it. A trough may touch the floor
    /// for a moment where bricks slam into the pool (the 20 x 20 wall's fall from 10 m reaches
    /// 1.36 times the depth on the CPU, 1.51 on the GPU), but a full depth below the floor is a
    /// hole in the water; crests: the default collapse's splash reaches 1.3 times the depth,
    /// the 20 x 20 wall's 2.35 times.
    float maxTroughOfDepth = 2.0f;
    float maxCrestOfDepth = 3.0f;
    /// --check: the water's potential energy may exceed the work the bodies did on it (and the
    /// radiation energy they paid) by this fraction of all the work exchanged, plus
    /// energySlackJ (docs/splash.md, "Checks").
    double energySlackOfWork = 0.05;
    /// --check (CPU path): the sources' imbalance and the level correction's unexplained part
    /// (SplashStats) may reach this fraction of the volume the bodies' motion displaced in the
    /// step plus sourceSlackM3 (float sums: measured at most 1.7e-6 m^3 in the default shot).
    double sourceSlackOfMotion = 1e-2;
    double sourceSlackM3 = 2e-5;
    double energySlackJ = 200.0;
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
    /// The bodies' state at the start of the last step (the penetration check's approach).
    std::vector<rigid::Vec3> m_startPosition, m_startVelocity, m_startSpin;
    /// The energy check: the water's potential energy at the first step, the work the bodies
    /// did on it before the last step (plus the radiation energy they paid), and the sum of
    /// the work's magnitudes, J.
    bool m_energyStarted = false;
    double m_potential0 = 0, m_energyIn = 0, m_workExchanged = 0, m_energyExcess = 0;
    double m_energyExcessMax = 0;
    float m_etaMin = 0, m_etaMax = 0;
    /// The deepest penetration beyond its contact's one-step approach and its depth the step
    /// before (the check's margin), m.
    mutable float m_unexplainedMax = 0;
    /// The sources' balance and the correction's unexplained part, largest so far, m^3.
    double m_imbalanceMax = 0, m_correctionUnexplainedMax = 0;
    /// Each touching body pair's penetration allowance (m), by (body A, body B), sorted.
    struct ContactDepth {
        int a, b;
        float depth;
    };
    mutable std::vector<ContactDepth> m_lastDepths, m_depths;
    mutable std::vector<float> m_bodyClosing;  ///< per body: its contacts' fastest closing

    // Accumulated for summary().
    int m_steps = 0;
    int m_nMax = 0, m_contactsMax = 0;
    double m_lcpIterationsSum = 0, m_cgIterationsSum = 0;
    float m_lcpResidualMax = 0, m_cgResidualMax = 0, m_penetrationMax = 0, m_speedMax = 0;
    double m_driftMax = 0, m_correctionMax = 0;
};

}  // namespace ww::app
