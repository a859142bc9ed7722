// Narrow phase: contact points between pairs of shapes.
//
// Every function appends ContactPoints for bodies (a, b) with the normal n pointing from b
// towards a (the direction in which a contact impulse pushes a) and separation
// s = (gap along n), negative when penetrating; points with s <= margin are kept
// (speculative contacts). Box-box uses the separating axis test over the 15 axes
// (3 + 3 face normals, 9 edge cross products); a face axis yields the incident face of the
// other box clipped against the side planes of the reference face (Sutherland-Hodgman, up to
// 8 points reduced to 4), an edge axis yields the closest points of the two edges.
// Feature ids name the (reference face, incident face, vertex or clipped edge) or the two
// edges, so that contacts persist across steps for warm starting.
#pragma once

#include <cstdint>
#include <vector>

#include "solver/rigid/body.h"

namespace ww::rigid {

struct ContactPoint {
    Vec3 point;               ///< world, midway between the surfaces, m
    Vec3 normal;              ///< unit, from body b towards body a
    float separation = 0.0f;  ///< m, negative = penetration
    std::uint32_t feature = 0;
};

struct NarrowPhaseParams {
    float margin = 0.01f;  ///< m: contacts are made up to this separation
    /// m: a face axis is preferred over a better edge axis / the other box's face unless the
    /// latter separates more by this much (keeps resting manifolds from flickering).
    float axisTolerance = 0.0005f;
    /// An edge axis closer than acos(faceAlignedEdgeCos) (10 degrees) to a face normal of either
    /// box gives that face's clipped manifold instead of one edge point: nearly face to face,
    /// such an axis separates a little more than the face axes (a brick tilted 4 degrees into
    /// the one below: -6 mm along the edge axis, -14 and -21 mm along the two boxes' faces), and
    /// one point lets the bricks turn into each other. 1 = the plain separating-axis choice.
    float faceAlignedEdgeCos = 0.985f;
    /// m: clipped points of one face contact closer than this are one point (an incident
    /// vertex wins over a clip point). A brick touching another only along an edge (diagonal
    /// neighbours in a wall) clips to a sliver as wide as the clipping tolerance: two pairs of
    /// nearly equal rows, which add nothing but stiffness to the LCP.
    float mergeDistance = 0.001f;
    /// Persistent manifolds (contacts.h, reuseManifold): a box-box or box-plane pair whose
    /// relative pose (b in a's frame) moved by at most reuseDistance (m) and turned by at most
    /// reuseAngle (rad) since the narrow phase last made its points keeps those points, carried
    /// by the bodies, instead of running the axis tests and the clipping again; 0 = always
    /// fresh. A kept point is then within reuseDistance + reuseAngle R (R the lever arm, ~1 m for
    /// the unit bricks: ~3 mm) of where the narrow phase would put it, a third of the 1 cm
    /// margin: a point the kept manifold lacks is still apart when the pair passes the
    /// tolerances and the narrow phase looks at it again.
    float reuseDistance = 0.001f;
    float reuseAngle = 0.002f;
};

/// Appends the contacts between a and b (any kinds; plane-plane yields none). Returns the
/// number appended. If a is a plane, the pair is swapped internally so that the output
/// convention (normal from b to a) still holds for the (a, b) the caller passed.
int collide(const Body& a, const Body& b, const NarrowPhaseParams& p,
            std::vector<ContactPoint>& out);

int collideBoxBox(const Body& a, const Body& b, const NarrowPhaseParams& p,
                  std::vector<ContactPoint>& out);
int collideBoxPlane(const Body& box, const Body& plane, const NarrowPhaseParams& p,
                    std::vector<ContactPoint>& out);
int collideSphereBox(const Body& sphere, const Body& box, const NarrowPhaseParams& p,
                     std::vector<ContactPoint>& out);
int collideSpherePlane(const Body& sphere, const Body& plane, const NarrowPhaseParams& p,
                       std::vector<ContactPoint>& out);
int collideSphereSphere(const Body& a, const Body& b, const NarrowPhaseParams& p,
                        std::vector<ContactPoint>& out);

}  // namespace ww::rigid
