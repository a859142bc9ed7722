// Rigid bodies: boxes, spheres (projectiles) and static planes, with float state.
// Mass properties of a solid box with half extents h and mass m (body frame, diagonal):
//   I = m/3 * (h_y^2 + h_z^2, h_x^2 + h_z^2, h_x^2 + h_y^2);  a solid sphere: I = 2/5 m r^2.
// World inverse inertia I_w^-1 = R I^-1 R^T, refreshed after every integration.
// A body with mass 0 is static (inverse mass and inverse inertia zero).
#pragma once

#include <cstdint>

#include "solver/rigid/math3.h"

namespace ww::rigid {

enum class BodyKind : std::uint32_t { kBox, kSphere, kPlane };

const char* toString(BodyKind k);

/// What a body is made of and where it starts.
struct BodyDesc {
    BodyKind kind = BodyKind::kBox;
    Vec3 position;                       ///< centre, m (plane: any point on it)
    Quat orientation;                    ///< body to world
    Vec3 halfExtents{0.5f, 0.5f, 0.5f};  ///< box, m
    float radius = 0.5f;                 ///< sphere, m
    Vec3 planeNormal{0.0f, 1.0f, 0.0f};  ///< plane, unit, pointing out of the solid half-space
    float massKg = 1.0f;                 ///< 0 = static (planes are always static)
    Vec3 linearVelocity;                 ///< m/s
    Vec3 angularVelocity;                ///< rad/s
    std::int32_t tag = -1;  ///< user data (scenes: brick index), not used by the solver
};

struct Body {
    BodyKind kind = BodyKind::kBox;
    Vec3 position;
    Quat orientation;
    Vec3 linearVelocity;
    Vec3 angularVelocity;
    Vec3 halfExtents;
    float radius = 0.0f;
    Vec3 planeNormal;
    float planeOffset = 0.0f;  ///< plane: dot(normal, x) = offset
    float invMass = 0.0f;
    Vec3 invInertiaBody;   ///< diagonal of I^-1 in the body frame
    Mat3 rotation;         ///< from orientation
    Mat3 invInertiaWorld;  ///< R I^-1 R^T
    std::int32_t tag = -1;
    bool asleep = false;       ///< WorldParams::sleep: at rest, neither solved nor moved
    float slowSeconds = 0.0f;  ///< how long it has been below the sleep speeds

    bool isStatic() const { return invMass == 0.0f; }
    /// Recomputes rotation and invInertiaWorld from orientation.
    void updateDerived();
};

Body makeBody(const BodyDesc& d);

/// Distance from the centre to the body's farthest point: a box's half diagonal, a sphere's
/// radius (0 for a plane).
inline float reachOf(const Body& b) {
    return b.kind == BodyKind::kBox      ? length(b.halfExtents)
           : b.kind == BodyKind::kSphere ? b.radius
                                         : 0.0f;
}
/// An upper bound on the speed of any point of the body: |v| + |w| reachOf(b).
inline float fastestPointSpeed(const Body& b) {
    return length(b.linearVelocity) + length(b.angularVelocity) * reachOf(b);
}

/// Axis-aligned bounding box (planes get an unbounded one and skip the broad phase).
struct Aabb {
    Vec3 lo, hi;
};
Aabb boundsOf(const Body& b, float margin);

}  // namespace ww::rigid
