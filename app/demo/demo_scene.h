// What the desktop demo needs from a scene. The demo owns the window, the camera, the
// renderer and the panel; a DemoScene owns a simulation and knows how to step it, draw its
// own ImGui controls and statistics, describe itself as render::DrawData and react to
// clicks. The wall and water adapters over the solver scenes implement this (app/scenes);
// tests use small static scenes.
//
// Every method is called on the window's thread with its GL context current, so a scene
// may use the GPU backend (and hand its own height buffer to the renderer) freely.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/demo/history.h"
#include "render/camera.h"
#include "render/draw_data.h"
#include "solver/core/backend.h"
#include "solver/core/result.h"

namespace ww::demo {

/// What a mouse action on the scene means.
enum class PickAction {
    kClick,   ///< left click that grabbed nothing: a drop on the water (never destroys)
    kRemove,  ///< ctrl + left click: remove the cube under the cursor
    kShoot,   ///< shift + left click: shoot a sphere along the ray
    kDrag,    ///< ctrl + left drag, every frame while held: a wake on the water
};

/// Where the camera should start for a scene (orbit target, distance, angles).
struct CameraHome {
    glm::vec3 target{0.0f, 1.0f, 0.0f};
    float distanceM = 12.0f;
    float yawRadians = 0.5f;
    float pitchRadians = 0.35f;
};

/// How bodies are coloured while the contact overlay is on.
enum class BodyColouring {
    kMaterial,     ///< the scene's own colours
    kIsland,       ///< one hue per island (connected by contacts); grey: touching nothing
    kSleep,        ///< blue asleep, orange awake
    kConvergence,  ///< red: in an LCP block that did not converge; grey otherwise
};
const char* toString(BodyColouring c);
inline constexpr int kBodyColouringCount = 4;

/// What the view draws over a scene that solves contacts (the wall), toggled from the panel
/// and keys: the LCP made visible.
struct ContactOverlay {
    bool points = false;    ///< contact points
    bool normals = false;   ///< contact normals, as long as the solved normal impulse
    bool friction = false;  ///< friction impulses (world-space vector of the tangent rows)
    BodyColouring bodies = BodyColouring::kMaterial;
    /// Metres per N s of impulse; 0 = automatic (the mean body weight over one step, m g dt,
    /// draws kAutoLengthM long).
    float metresPerImpulse = 0.0f;
    static constexpr float kAutoLengthM = 0.5f;
    bool any() const { return points || normals || friction || bodies != BodyColouring::kMaterial; }
};

class DemoScene {
  public:
    virtual ~DemoScene() = default;
    /// Short name for the scene list ("wall", "water").
    virtual const char* name() const = 0;

    /// Advances one fixed time step.
    virtual void step() = 0;
    /// The fixed time step, s: real-time pacing takes as many steps as the clock allows.
    virtual double dtSeconds() { return 1.0 / 60.0; }
    /// Rebuilds the scene from its current settings, keeping the backend.
    virtual void reset() = 0;
    /// Describes the current state. `out` arrives cleared (vectors keep their capacity).
    virtual void fillDrawData(render::DrawData& out) = 0;

    /// The scene's section of the panel (LCP or water settings). Changing a setting that
    /// needs a rebuild is the scene's business (it may call reset()).
    virtual void drawControls() = 0;
    /// Live statistics of the last step (sizes, iterations, residual plot, per-phase ms).
    virtual void drawStats() = 0;

    /// Switches the solver backend keeping the simulation state. On failure returns the error
    /// and leaves the scene as it was.
    virtual Status setBackend(Backend backend) = 0;
    virtual Backend backend() const = 0;

    /// A mouse action along `ray` (world space, from the camera through the cursor).
    virtual void onPick(const render::Ray& ray, PickAction action) = 0;

    /// A plain left press along `ray`: grab what it hits and return true (the gesture then
    /// drags it instead of orbiting the camera), or return false.
    virtual bool beginGrab(const render::Ray& ray) {
        (void)ray;
        return false;
    }
    /// While grabbing: the cursor's current ray.
    virtual void moveGrab(const render::Ray& ray) { (void)ray; }
    /// The button was released.
    virtual void endGrab() {}
    /// While grabbing: the grab point on the body and where it is pulled to (world space),
    /// drawn as a line.
    virtual std::optional<std::pair<glm::vec3, glm::vec3>> grabLine() { return std::nullopt; }
    /// The state later steps depend on, for the history (history.h); null: none is kept.
    virtual std::unique_ptr<SavedState> saveState() { return nullptr; }
    /// Restores a state saveState() made; an error when it cannot.
    virtual Status restoreState(const SavedState& state) {
        (void)state;
        return inputError(std::string(name()) + " keeps no history");
    }
    /// Hash of the simulation state (hex) for `--report`; empty if the scene has none.
    virtual std::string stateHash() const { return {}; }

    /// One line of the scene's state for `--report` (e.g. how many bricks stand); optional.
    virtual std::string reportLine() { return {}; }

    /// A state the user must see at once (a diverged solver, a blown-up surface): shown as a
    /// banner over the view with a Reset button until reset() clears it; empty when all is
    /// well.
    virtual std::string alarm() const { return {}; }

    /// Whether the scene draws the contact overlay (the panel offers it only then).
    virtual bool hasContactOverlay() const { return false; }
    /// The overlay to add in the next fillDrawData calls.
    virtual void setContactOverlay(const ContactOverlay& overlay) { (void)overlay; }

    /// Where the camera starts (and returns to on "reset view").
    virtual CameraHome cameraHome() const { return {}; }
    /// Per-phase ms and scalar statistics of the last step, for the trace recording
    /// (e.g. {"solve", 1.2}; {"iterations", 40}). Optional.
    virtual void traceValues(std::vector<std::pair<std::string, double>>& phasesMs,
                             std::vector<std::pair<std::string, double>>& values) const {
        (void)phasesMs;
        (void)values;
    }
};

}  // namespace ww::demo
