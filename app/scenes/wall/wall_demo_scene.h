// The collapsing wall in the desktop demo: a demo::DemoScene over app::WallScene (which owns the
// rigid::World and its statistics), so the window steps, draws and reports the very same
// simulation as `wavewall headless --scene wall`. Adds the panel section (every wall / LCP
// option of docs/cli.md), the statistics with a residual plot, and mouse picking: a click
// ctrl + click removes the brick under the ray (ray against each oriented box, slab test in the
// box frame), shift + click shoots a sphere along the ray (WallScene::shoot), and a plain drag
// on a brick pulls it with a spring (see applyGrab); a plain click destroys nothing.
//
// The solver follows Moravanszky, "Dense Matrix Algebra on the GPU" (ShaderX2), section 5:
// per step one velocity-level LCP  w = A x + b,  A = J M^-1 J^T,  0 <= x  _|_  w >= 0 (with
// friction rows bounded by mu x_normal), solved by projected Jacobi
//   x <- clamp(x - omega D^-1 (A x + b), lo, hi)
// for a fixed 2n iterations (or a fixed count / a tolerance), see solver/rigid/world.h.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/demo/demo_adapter.h"
#include "app/demo/demo_panel.h"
#include "app/demo/demo_scene.h"
#include "app/scenes/event_script.h"
#include "app/scenes/wall/wall_params.h"
#include "app/scenes/wall/wall_scene.h"

namespace ww::app {

/// Distance along `ray` to the oriented box (centre, orientation, half extents), or nullopt
/// when the ray misses it or the box is behind the origin.
std::optional<float> rayHitsBox(const render::Ray& ray, const glm::vec3& centre,
                                const glm::quat& orientation, const glm::vec3& halfExtents);

class WallDemoScene final : public demo::DemoScene {
  public:
    /// `shaders` is used when the GPU backend is chosen; it must outlive the scene.
    WallDemoScene(WallSceneSettings settings, const gpu::ShaderLibrary* shaders);
    /// The registry's DemoWrap: `scene` (a WallScene) in this adapter, with the inputs.
    static Result<std::unique_ptr<demo::DemoScene>> wrap(std::unique_ptr<SimScene> scene,
                                                         DemoAdapterInputs inputs);

    const char* name() const override { return "wall"; }
    void step() override;
    double dtSeconds() override { return m_scene.world().params().dtSeconds; }
    void reset() override;
    /// The wall, and over it the contact overlay (contact_overlay.h) when one is set.
    void fillDrawData(render::DrawData& out) override;
    bool hasContactOverlay() const override { return true; }
    void setContactOverlay(const demo::ContactOverlay& overlay) override { m_overlay = overlay; }
    void drawControls() override;
    void drawStats() override;
    Status setBackend(Backend backend) override;
    Backend backend() const override { return m_scene.backend(); }
    void onPick(const render::Ray& ray, demo::PickAction action) override;
    /// Grabs the brick (or sphere-free box) under the ray at the point the ray enters it.
    bool beginGrab(const render::Ray& ray) override;
    /// The pull target: the point of the new ray at the grab's depth (its distance from the
    /// eye at the press), so the brick moves in the plane facing the camera.
    void moveGrab(const render::Ray& ray) override;
    void endGrab() override;
    std::optional<std::pair<glm::vec3, glm::vec3>> grabLine() override;
    /// "bricks N" and, after a grab, how far the brick and the cursor moved.
    std::string reportLine() override;
    std::unique_ptr<demo::SavedState> saveState() override;
    Status restoreState(const demo::SavedState& state) override;
    std::string stateHash() const override { return m_scene.stateHash(); }
    /// The grabbed body's index, or -1.
    int grabbedBody() const { return m_grab ? m_grab->body : -1; }
    /// Spring of the grab: each step the grab point gets the velocity change
    /// (omega0^2 e - 2 zeta omega0 v) dt, e the offset to the target and v the point's
    /// velocity, as one impulse through the body's effective mass matrix at that point
    /// (critically damped: no overshoot; omega0 dt = 0.3 at 60 Hz, well inside stability).
    static constexpr float kGrabHz = 3.0f;
    static constexpr float kGrabDampingRatio = 1.0f;
    /// 1/s: damps the held body's spin about the grab point (time constant 1/6 s).
    static constexpr float kGrabAngularDamping = 6.0f;
    /// m/s^2: caps the pull so a far cursor flings nothing through the wall (20 g).
    static constexpr float kGrabMaxAcceleration = 200.0f;
    demo::CameraHome cameraHome() const override;
    /// The first invariant violation since the start or the last reset (the scene's
    /// checkInvariants: NaN/Inf, a diverged solve, runaway penetration or energy), latched.
    std::string alarm() const override { return m_alarm; }
    void traceValues(std::vector<std::pair<std::string, double>>& phasesMs,
                     std::vector<std::pair<std::string, double>>& values) const override;

    WallScene& scene() { return m_scene; }
    /// Switches the LCP method. omega becomes the method's default (rigid::defaultWallOmega)
    /// unless it
    /// was set by hand (in the panel, or to a value other than the starting method's default).
    void setMethod(lcp::LcpMethod method);
    const StepRecord& lastStep() const { return m_last; }
    /// Index of the body the ray hits first (boxes that can move), or -1.
    int pickBody(const render::Ray& ray);

    /// Scripted events (`--event`), applied before the step they name, counted from the start
    /// and again after every Reset (a scripted reset restarts the simulation, not the script).
    /// Validate them with the scene first.
    void setScript(EventScript script);

    /// Per-step solve budget, ms (0 = none): when the iteration count asked for (2n or a
    /// fixed count) would take longer at the last step's measured ms per iteration, this
    /// step runs fewer (at least kMinBudgetIterations) and the panel says so. What keeps a
    /// slow backend (2n on a software GPU) from freezing the window.
    void setSolveBudgetMs(float ms) { m_solveBudgetMs = ms; }
    float solveBudgetMs() const { return m_solveBudgetMs; }
    /// The iteration cap the budget set for the last step (0: it did not cut the count).
    int budgetCap() const { return m_budgetCap; }
    /// Iterations the backend ran in the last step's largest block: what the solver reports on
    /// the CPU (it stops at the tolerance); on the GPU the cap itself when a block is
    /// matrix-free or too large for one dispatch (every pass is enqueued up front and read
    /// back once: a block that met the tolerance at its guess reports 0 iterations but still
    /// takes the time of all passes). The budget measures ms per iteration over this count.
    static int iterationsRun(const rigid::StepStats& stats, Backend backend);
    int lastIterationsRun() const { return m_iterationsRun; }
    /// The budget's floor. Twenty, not fewer: the default 10 x 6 wall shot at step 0 and cut
    /// to 10 iterations a step after the first reaches a penetration of 0.426 m at step 20,
    /// past the scene's bound of 0.423 m (the banner; DemoUnderXvfb.
    /// WithoutTheSolveBudgetTwoScriptedRunsEndAlike), while at 20 it stays within the bound.
    /// Bigger walls need more (docs/rigid.md "What the 50 iterations buy in a collapse").
    static constexpr int kMinBudgetIterations = 20;
    /// 100 ms: the window stays responsive (10 frames a second at worst).
    static constexpr float kDefaultSolveBudgetMs = 100.0f;
    /// Steps the budget's recent cuts are remembered over: a penetration alarm within this many
    /// steps of a cut says so (budgetHint).
    static constexpr std::size_t kBudgetHintSteps = 60;
    /// What a penetration alarm adds when the budget cut recent steps: caps holds the budget's
    /// cap of each recent step (0 = not cut), asked the iterations asked for. Empty when no
    /// step was cut. Fewer iterations let bricks sink deeper, so the user is told how to run
    /// them all (the "step budget ms" slider, --solve-budget-ms 0).
    static std::string budgetHint(const std::deque<int>& caps, int asked, float budgetMs);

    /// Steps kept in the per-step residual plot.
    static constexpr std::size_t kHistorySteps = 300;

  private:
    struct Grab {
        int body = -1;
        std::int32_t tag = -1;      ///< to find the body again if indices moved
        rigid::Vec3 localAnchor;    ///< grab point in the body frame, m
        float depthM = 0.0f;        ///< distance from the eye along the ray at the press
        rigid::Vec3 target;         ///< where the grab point is pulled, world, m
        rigid::Vec3 startPosition;  ///< the body's centre at the press
        rigid::Vec3 startTarget;
    };
    /// The impulse of the grab's spring for one step of `dtSeconds` (before the world step).
    void applyGrab(float dtSeconds);
    /// Copies the live world parameters into the settings a rebuild starts from.
    void keepSettings();
    /// Forgets what the last run showed (plots, alarm, grab) after the simulation restarted.
    void clearRun();

    WallScene m_scene;
    const gpu::ShaderLibrary* m_shaders;
    StepRecord m_last;
    demo::CameraHome m_home;
    std::deque<float> m_residuals;  ///< final residual of each recent step
    std::vector<float> m_plot;      ///< m_residuals made contiguous for the plot
    EventScript m_script;
    long m_stepIndex = 0;        ///< steps since the start or the last reset
    demo::StatusNote m_note;     ///< last pick / button outcome, one line in the panel
    std::string m_alarm;         ///< last pick / button outcome, shown in the panel
    float m_shotSpeed = 25.0f;   ///< m/s, the click-to-shoot speed
    SceneOptionValues m_values;  ///< the parameter rows' values as the panel shows them
    int m_brick[2] = {0, 0};     ///< column, row for the remove / push buttons
    float m_solveBudgetMs = kDefaultSolveBudgetMs;
    double m_msPerIteration = 0.0;  ///< the last step's solve ms over its iterations run
    int m_budgetCap = 0;
    std::deque<int> m_recentCaps;  ///< m_budgetCap of the last kBudgetHintSteps steps
    int m_askedIterations = 0;     ///< the last step's count asked for (2n resolved)
    int m_iterationsRun = 0;       ///< iterationsRun() of the last step
    bool m_omegaByHand = false;
    std::optional<Grab> m_grab;
    demo::ContactOverlay m_overlay;
    /// The last grab when it ended: body centre and target displacement, m (report).
    std::optional<std::pair<rigid::Vec3, rigid::Vec3>> m_lastGrabMoves;
};

}  // namespace ww::app
