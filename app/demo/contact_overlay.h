// The contact LCP of a rigid::World drawn over the scene (the demo's "See the LCP"): contact
// points, normals as long as the solved normal impulse, friction impulses, and bodies coloured
// by island, by sleep state, or red when their LCP block did not converge.
//
// Per contact k with normal n (from body b to body a), tangents t1, t2 and solved impulses
// (lambda_n, lambda_t1, lambda_t2) in N s (solver/rigid/contacts.h), the impulse on body a:
//   normal line:   p -> p + sigma s lambda_n n
//   friction line: p -> p + sigma s (lambda_t1 t1 + lambda_t2 t2)
// with sigma = 1, or -1 when body a is static (the impulse on b, the body that moves: a box on
// the ground shows its support pointing up and friction against its motion)
// with s metres per N s (ContactOverlay::metresPerImpulse, or automatic: the mean body weight
// over one step, m g dt, is ContactOverlay::kAutoLengthM long). A box resting on the ground
// thus shows lines whose lengths sum to s m g dt.
#pragma once

#include <glm/glm.hpp>
#include <vector>

#include "app/demo/demo_scene.h"
#include "render/draw_data.h"
#include "solver/rigid/world.h"

namespace ww::app {

/// Display colours of the overlay.
inline constexpr glm::vec4 kContactPointColour{1.0f, 0.92f, 0.1f, 1.0f};
inline constexpr glm::vec4 kNormalImpulseColour{0.15f, 1.0f, 0.35f, 1.0f};
inline constexpr glm::vec4 kFrictionImpulseColour{1.0f, 0.25f, 0.9f, 1.0f};
inline constexpr glm::vec4 kNotConvergedColour{0.95f, 0.08f, 0.05f, 1.0f};
inline constexpr glm::vec4 kConvergedColour{0.78f, 0.78f, 0.76f, 1.0f};
inline constexpr glm::vec4 kUnsolvedColour{0.45f, 0.45f, 0.47f, 1.0f};  ///< in no block
inline constexpr glm::vec4 kAsleepColour{0.25f, 0.45f, 0.95f, 1.0f};
inline constexpr glm::vec4 kAwakeColour{0.95f, 0.6f, 0.2f, 1.0f};
inline constexpr glm::vec4 kNoIslandColour{0.55f, 0.55f, 0.57f, 1.0f};

/// Metres per N s that draws the mean dynamic body's weight over one step (m g dt) as
/// ContactOverlay::kAutoLengthM; 1 when there is no dynamic body.
float autoMetresPerImpulse(const rigid::World& world);

/// Per body: its island (contacts connect non-static bodies, rigid::IslandBuilder), numbered
/// from 0 in the builder's order; -1 for static bodies and bodies touching nothing.
std::vector<int> islandOfBodies(const rigid::World& world);

/// Per body: 1 when it has a contact in an LCP block of the last step that did not converge:
/// the solve diverged, or a tolerance was set (lcp.tolerance > 0) and the iteration cap was
/// reached before it. A fixed count (tolerance 0) is not "not converged" by itself.
std::vector<char> unconvergedBodies(const rigid::World& world);

/// Adds the overlay of `world` to `out`: points and lines as `overlay` asks, and the body
/// colouring applied to `out.boxes` / `out.spheres`, which must have been filled from
/// world.bodies() in order, one instance per box and per sphere (WallScene::fillDrawData).
void addContactOverlay(const rigid::World& world, const demo::ContactOverlay& overlay,
                       render::DrawData& out);

}  // namespace ww::app
