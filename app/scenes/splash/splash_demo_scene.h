// The splash scene in the desktop demo: a demo::DemoScene over app::SplashScene, so the window
// runs the very same coupled simulation as `wavewall headless --scene splash`. The panel shows
// the brick density (a rebuild), a shoot button and both solvers' statistics; shift + click
// shoots a sphere along the ray, a plain click drops nothing (the water is moved by the bricks).
// Drawing reuses the wall's boxes and the water's height field (DrawData). It runs on either
// backend (G switches, keeping the state).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/demo/demo_adapter.h"
#include "app/demo/demo_scene.h"
#include "app/scenes/event_script.h"
#include "app/scenes/splash/splash_params.h"
#include "app/scenes/splash/splash_scene.h"

namespace ww::app {

class SplashDemoScene final : public demo::DemoScene {
  public:
    /// Fails with a message naming the option when the settings are invalid.
    static Result<std::unique_ptr<SplashDemoScene>> create(SplashSceneSettings settings);
    /// Wraps a built scene (the demo's scene registry).
    /// Wraps `scene`; `shaders` (may be null: CPU only) serve the GPU backend.
    static std::unique_ptr<SplashDemoScene> adopt(std::unique_ptr<SplashScene> scene,
                                                  const gpu::ShaderLibrary* shaders = nullptr);
    /// The registry's DemoWrap: `scene` (a SplashScene) in this adapter, with the inputs.
    static Result<std::unique_ptr<demo::DemoScene>> wrap(std::unique_ptr<SimScene> scene,
                                                         DemoAdapterInputs inputs);

    const char* name() const override { return "splash"; }
    void step() override;
    double dtSeconds() override { return m_scene->settings().splash.world.dtSeconds; }
    void reset() override;
    void fillDrawData(render::DrawData& out) override { m_scene->fillDrawData(out); }
    void drawControls() override;
    void drawStats() override;
    Status setBackend(Backend backend) override;
    Backend backend() const override { return m_scene->backend(); }
    void onPick(const render::Ray& ray, demo::PickAction action) override;
    demo::CameraHome cameraHome() const override;
    std::string alarm() const override { return m_alarm; }
    /// "splash: bodies N (S spheres)" for --report.
    std::string reportLine() override;
    /// The coupled simulation's state (SplashScene::saveState) for the history.
    std::unique_ptr<demo::SavedState> saveState() override;
    Status restoreState(const demo::SavedState& state) override;
    std::string stateHash() const override { return m_scene->stateHash(); }
    void traceValues(std::vector<std::pair<std::string, double>>& phasesMs,
                     std::vector<std::pair<std::string, double>>& values) const override {
        namedStepValues(m_last, phasesMs, values);
    }

    SplashScene& scene() { return *m_scene; }
    /// Rebuilds the scene with bricks of `densityKgM3`; the scene is kept when the settings
    /// are refused.
    Status setBrickDensity(float densityKgM3);
    /// Rebuilds the scene from `settings` (the panel's rows), on the backend it runs on; the
    /// scene is kept when they are refused (the wall outside the pool, a backend that cannot).
    Status rebuildWith(SplashSceneSettings settings);
    /// Scripted events (--event), applied by step number as in headless.
    void setScript(EventScript script) { m_script = std::move(script); }

  private:
    explicit SplashDemoScene(std::unique_ptr<SplashScene> scene) : m_scene(std::move(scene)) {}

    std::unique_ptr<SplashScene> m_scene;
    const gpu::ShaderLibrary* m_shaders = nullptr;
    StepRecord m_last;
    std::string m_alarm;
    std::string m_note;            ///< a scripted event that failed, shown under the controls
    SplashSceneSettings m_staged;  ///< what the panel's rows edit, built on a finished edit
    SceneOptionValues m_values;    ///< the rows' values as the panel shows them
    EventScript m_script;
    long m_stepIndex = 0;
};

}  // namespace ww::app
