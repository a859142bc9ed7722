// The water surface in the desktop demo: a demo::DemoScene over app::WaterScene (which owns the
// wave::WaveModel and its statistics), so the window runs the very same simulation as
// `wavewall headless --scene water`. Adds the panel section (every water / CG option of
// docs/cli.md, with dt shown as a ratio to the explicit limit), the statistics, and the mouse:
// a click drops at the ray's hit on the rest plane y = base, ctrl + drag pulls a trail of
// small depressions (a wake) along the cursor's path.
//
// The scheme follows Krüger & Westermann, GPU Gems 2 ch. 44.4: Crank–Nicolson for
// u_tt = c^2 Lap u - gamma u_t gives one SPD system per step,
//   (I - alpha L) u^{n+1} = rhs(u^n, u^{n-1}),  alpha = c^2 dt^2 / 2 (damped: see wave_kernels.h)
// solved by warm-started CG; the explicit leapfrog scheme is stable for dt <= h / (c sqrt 2).
// Picking maps world (x, z) to the normalized pool coordinates of WaterScene::drop:
//   x_norm = x / (nx h) + 1/2,  y_norm = z / (ny h) + 1/2  (the grid is centred on the origin).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "app/demo/demo_adapter.h"
#include "app/demo/demo_panel.h"
#include "app/demo/demo_scene.h"
#include "app/scenes/event_script.h"
#include "app/scenes/water/water_params.h"
#include "app/scenes/water/water_scene.h"

namespace ww::app {

class WaterDemoScene final : public demo::DemoScene {
  public:
    /// Fails with a message naming the option when the settings are invalid. `shaders` is
    /// used when the GPU backend is chosen; it must outlive the scene.
    static Result<std::unique_ptr<WaterDemoScene>> create(WaterSceneSettings settings,
                                                          const gpu::ShaderLibrary* shaders);
    /// Wraps a built scene (the demo's scene registry).
    static std::unique_ptr<WaterDemoScene> adopt(std::unique_ptr<WaterScene> scene,
                                                 const gpu::ShaderLibrary* shaders);
    /// The registry's DemoWrap: `scene` (a WaterScene) in this adapter, with the inputs.
    static Result<std::unique_ptr<demo::DemoScene>> wrap(std::unique_ptr<SimScene> scene,
                                                         DemoAdapterInputs inputs);

    const char* name() const override { return "water"; }
    void step() override;
    double dtSeconds() override { return m_scene->model().params().dt(); }
    void reset() override;
    void fillDrawData(render::DrawData& out) override;
    void drawControls() override;
    void drawStats() override;
    Status setBackend(Backend backend) override;
    Backend backend() const override { return m_scene->backend(); }
    void onPick(const render::Ray& ray, demo::PickAction action) override;
    demo::CameraHome cameraHome() const override;
    std::unique_ptr<demo::SavedState> saveState() override;
    Status restoreState(const demo::SavedState& state) override;
    std::string stateHash() const override { return m_scene->stateHash(); }
    /// The first invariant violation since the start or the last reset (the scene's
    /// checkInvariants: NaN/Inf, a diverged solve, runaway penetration or energy), latched.
    std::string alarm() const override { return m_alarm; }
    void traceValues(std::vector<std::pair<std::string, double>>& phasesMs,
                     std::vector<std::pair<std::string, double>>& values) const override;

    WaterScene& scene() { return *m_scene; }
    /// Steps since the start or the last reset (the panel's step counter).
    long stepIndex() const { return m_stepIndex; }
    bool raining() const { return m_rain; }
    const StepRecord& lastStep() const { return m_last; }
    /// Normalized pool coordinates (in [0, 1]^2) where `ray` meets the rest plane, or nullopt.
    std::optional<glm::vec2> poolHit(const render::Ray& ray) const;

    /// Scripted events (`--event`), applied before the step they name, counted from the start
    /// and again after every Reset (a scripted reset restarts the simulation, not the script).
    /// Validate them with the scene first.
    void setScript(EventScript script);

    /// Steps kept in the per-step plots.
    static constexpr std::size_t kHistorySteps = 300;

  private:
    WaterDemoScene(std::unique_ptr<WaterScene> scene, const gpu::ShaderLibrary* shaders);
    /// After the simulation restarted: forgets the plots and alarm, re-applies the panel's
    /// rain and wake toggles.
    void clearRun();
    /// Applies edited parameters that need no rebuild (everything but the grid and pool size).
    void applyParams(const wave::WaveParams& p);
    /// Builds a new scene from the settings (grid or pool size changed), keeping the backend.
    void rebuild();

    std::unique_ptr<WaterScene> m_scene;
    const gpu::ShaderLibrary* m_shaders;
    StepRecord m_last;
    std::deque<float> m_residuals;  ///< CG residual of each recent step
    std::deque<float> m_energy;     ///< discrete energy after each recent step
    std::vector<float> m_plot;
    EventScript m_script;
    long m_stepIndex = 0;     ///< steps since the start or the last reset
    demo::StatusNote m_note;  ///< last pick / button outcome, one line in the panel
    std::string m_alarm;
    std::mt19937 m_rng{12345};   ///< positions of the "drop" button's drops
    SceneOptionValues m_values;  ///< the parameter rows' values as the panel shows them
    bool m_rain = false, m_wake = false;
    long m_frame = 0;  ///< fillDrawData calls, to join consecutive drag samples
    long m_lastDragFrame = -10;
    glm::vec2 m_lastDrag{0.0f};
};

}  // namespace ww::app
