// Narrow- and broad-phase tests against closed forms and brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "solver/rigid/broad_phase.h"
#include "solver/rigid/narrow_phase.h"
#include "support/executor.h"
#include "support/seed.h"

namespace ww::rigid {
namespace {

Body box(Vec3 pos, Vec3 half, Quat q = {}) {
    BodyDesc d;
    d.kind = BodyKind::kBox;
    d.position = pos;
    d.halfExtents = half;
    d.orientation = q;
    return makeBody(d);
}

Body sphere(Vec3 pos, float r) {
    BodyDesc d;
    d.kind = BodyKind::kSphere;
    d.position = pos;
    d.radius = r;
    return makeBody(d);
}

Body ground() {
    BodyDesc d;
    d.kind = BodyKind::kPlane;
    d.massKg = 0.0f;
    return makeBody(d);
}

Quat randomRotation(std::mt19937& rng) {
    std::normal_distribution<float> g;
    return normalize(Quat{g(rng), g(rng), g(rng), g(rng)});
}

// Float geometry on unit-sized boxes: positions and depths are exact to a few ulps of 1 m.
constexpr float kGeomTol = 1.0e-5f;

TEST(NarrowPhase, BoxRestingOnPlaneGivesFourCornersWithDepth) {
    const Body b = box({0.3f, 0.49f, -0.2f}, {0.5f, 0.5f, 0.5f});
    std::vector<ContactPoint> out;
    NarrowPhaseParams p;
    ASSERT_EQ(collide(b, ground(), p, out), 4);
    for (const ContactPoint& c : out) {
        EXPECT_NEAR(c.separation, -0.01f, kGeomTol);
        EXPECT_NEAR(c.normal.y, 1.0f, kGeomTol);  // from the plane (b) to the box (a)
        EXPECT_NEAR(c.point.y, -0.005f, kGeomTol);
    }
    // Same pair passed the other way round: normals flip.
    out.clear();
    ASSERT_EQ(collide(ground(), b, p, out), 4);
    EXPECT_NEAR(out[0].normal.y, -1.0f, kGeomTol);
}

TEST(NarrowPhase, StackedBoxesGiveFaceManifoldWithStableFeatures) {
    const Body lower = box({0, 0.5f, 0}, {0.5f, 0.5f, 0.5f});
    const Body upper = box({0.1f, 1.498f, 0.05f}, {0.5f, 0.5f, 0.5f});
    std::vector<ContactPoint> out;
    ASSERT_EQ(collide(upper, lower, {}, out), 4);
    std::vector<std::uint32_t> ids;
    for (const ContactPoint& c : out) {
        EXPECT_NEAR(c.normal.y, 1.0f, kGeomTol);
        EXPECT_NEAR(c.separation, -0.002f, kGeomTol);
        ids.push_back(c.feature);
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end()) << "feature ids must differ";
    // A tiny perturbation keeps the same feature ids (persistence for warm starting).
    std::vector<ContactPoint> again;
    const Body upper2 = box({0.1f + 1e-6f, 1.498f, 0.05f}, {0.5f, 0.5f, 0.5f});
    ASSERT_EQ(collide(upper2, lower, {}, again), 4);
    std::vector<std::uint32_t> ids2;
    for (const ContactPoint& c : again) {
        ids2.push_back(c.feature);
    }
    std::sort(ids2.begin(), ids2.end());
    EXPECT_EQ(ids, ids2);
}

// A brick tilted up to 3 degrees and sunk 4-10 cm into the brick below it: its whole bottom
// face is under the lower brick's top face where they overlap. Nearly face to face, some edge
// axes lie within a few degrees of the face normal and separate a little more than it; their
// single edge point would hold one spot while the rest of the brick turns into the one below.
// The pair must get a face manifold (three or four points on one normal). Random tilts, yaws
// and offsets (a fresh seed); the plain separating-axis choice (faceAlignedEdgeCos 1) is run on
// the same poses to show that they do reach the case.
TEST(NarrowPhase, ABrickTiltedIntoTheOneBelowGetsAFaceManifold) {
    for (unsigned seed : {3u, static_cast<unsigned>(ww::test::freshSeed())}) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> tilt(-0.035f, 0.035f);  // rad, 2 degrees
        std::uniform_real_distribution<float> yaw(-3.1416f, 3.1416f);
        std::uniform_real_distribution<float> offset(-0.2f, 0.2f);
        std::uniform_real_distribution<float> sink(0.04f, 0.10f);
        const Body lower = box({0.0f, 0.5f, 0.0f}, {0.5f, 0.5f, 0.5f});
        NarrowPhaseParams plain;
        plain.faceAlignedEdgeCos = 1.0f;
        int plainEdges = 0;
        for (int t = 0; t < 400; ++t) {
            const Quat q = axisAngle({1.0f, 0.0f, 0.0f}, tilt(rng)) *
                           axisAngle({0.0f, 0.0f, 1.0f}, tilt(rng)) *
                           axisAngle({0.0f, 1.0f, 0.0f}, yaw(rng));
            Body upper = box({offset(rng), 1.0f, offset(rng)}, {0.5f, 0.5f, 0.5f}, q);
            // Lowest corner of the upper brick `sink` below the lower one's top face.
            float lowest = 1.0e9f;
            for (int corner = 0; corner < 8; ++corner) {
                const Vec3 local{corner & 1 ? 0.5f : -0.5f, corner & 2 ? 0.5f : -0.5f,
                                 corner & 4 ? 0.5f : -0.5f};
                lowest = std::min(lowest, (upper.rotation * local).y);
            }
            upper.position.y = 1.0f - lowest - sink(rng);
            upper.updateDerived();
            std::vector<ContactPoint> out;
            ASSERT_GE(collide(upper, lower, plain, out), 1);
            plainEdges += out.size() == 1 ? 1 : 0;
            out.clear();
            const int points = collide(upper, lower, {}, out);
            ASSERT_GE(points, 3) << "seed " << seed << " pose " << t << ": " << points
                                 << " point(s), normal (" << out[0].normal.x << ", "
                                 << out[0].normal.y << ", " << out[0].normal.z << ")";
            for (const ContactPoint& c : out) {
                EXPECT_NEAR(dot(c.normal, out[0].normal), 1.0f, kGeomTol);
            }
        }
        EXPECT_GT(plainEdges, 0) << "seed " << seed
                                 << ": no pose made the plain choice an edge contact";
    }
}

TEST(NarrowPhase, RotatedSmallBoxOnBigBoxIsClippedToItsFace) {
    // A small box turned 45 degrees about y lies inside the big box's top face: its 4 bottom
    // corners are the contacts, at radius sqrt(2) * 0.2 from the centre.
    const Body big = box({0, 0.5f, 0}, {0.5f, 0.5f, 0.5f});
    const Body small = box({0, 1.19f, 0}, {0.2f, 0.2f, 0.2f}, axisAngle({0, 1, 0}, 0.78539816f));
    std::vector<ContactPoint> out;
    ASSERT_EQ(collide(small, big, {}, out), 4);
    for (const ContactPoint& c : out) {
        // Clipping keeps points up to 1e-4 m outside a side plane (narrow_phase.cpp), so a
        // clipped corner can sit sqrt(2) * 1e-4 further out.
        EXPECT_NEAR(std::hypot(c.point.x, c.point.z), std::sqrt(2.0f) * 0.2f, 1.5e-4f);
        EXPECT_NEAR(c.separation, -0.01f, kGeomTol);
    }
}

// Diagonal neighbours in a wall of touching columns touch only along an edge. Clipping with
// its 0.1 mm tolerance leaves a sliver with two pairs of nearly equal points; each pair is one
// point (mergeDistance), at the two ends of the shared edge. Random box sizes (a fresh seed),
// and equal bricks as in a wall, where both points are incident vertices (feature ids that do
// not depend on clipping); the pair is tried both ways round.
TEST(NarrowPhase, DiagonalNeighboursTouchAtTheTwoEndsOfTheirSharedEdge) {
    std::mt19937 rng(ww::test::freshSeed());
    std::uniform_real_distribution<float> size(0.2f, 1.0f);
    constexpr float kClip = 1.5e-4f;  // the clipping tolerance (1e-4 m) and float rounding
    for (int trial = 0; trial < 60; ++trial) {
        const bool equal = trial % 3 == 0;
        const Vec3 ha{size(rng), size(rng), size(rng)};
        const Vec3 hb = equal ? ha : Vec3{size(rng), size(rng), std::min(ha.z, size(rng))};
        // b sits up and to the right of a: a's top-right edge (x = ha.x, y = ha.y) is b's
        // bottom-left edge; the shared edge runs along z over b's depth (b no deeper than a).
        const Body a = box({0, 0, 0}, ha);
        const Body b = box({ha.x + hb.x, ha.y + hb.y, 0}, hb);
        for (bool swapped : {false, true}) {
            std::vector<ContactPoint> out;
            const int count = swapped ? collide(b, a, {}, out) : collide(a, b, {}, out);
            ASSERT_EQ(count, 2) << "trial " << trial << (swapped ? " (b, a)" : " (a, b)");
            float zs[2];
            for (int k = 0; k < 2; ++k) {
                const ContactPoint& c = out[static_cast<std::size_t>(k)];
                EXPECT_NEAR(c.point.x, ha.x, kClip);
                EXPECT_NEAR(c.point.y, ha.y, kClip);
                EXPECT_NEAR(c.separation, 0.0f, kGeomTol);
                if (equal) {
                    EXPECT_LT(c.feature & 0xFFu, 8u) << "an incident vertex, not a clip point";
                }
                zs[k] = c.point.z;
            }
            EXPECT_NEAR(std::min(zs[0], zs[1]), -hb.z, kClip);
            EXPECT_NEAR(std::max(zs[0], zs[1]), hb.z, kClip);
        }
    }
}

TEST(NarrowPhase, CrossedEdgesGiveOneEdgeContact) {
    // Two boxes, each rotated 45 degrees about a horizontal axis (x for the lower, z for the
    // upper), touch edge to edge: the ridge of the lower one and the keel of the upper one.
    const float s2 = std::sqrt(2.0f);
    const Body lower = box({0, 0, 0}, {0.5f, 0.5f, 0.5f}, axisAngle({1, 0, 0}, 0.78539816f));
    const float gap = -0.01f;
    const Body upper = box({0, s2 + gap, 0}, {0.5f, 0.5f, 0.5f}, axisAngle({0, 0, 1}, 0.78539816f));
    std::vector<ContactPoint> out;
    ASSERT_EQ(collide(upper, lower, {}, out), 1);
    EXPECT_NE(out[0].feature & 0x80000000u, 0u) << "an edge-edge feature";
    EXPECT_NEAR(out[0].separation, gap, kGeomTol);
    EXPECT_NEAR(out[0].normal.y, 1.0f, kGeomTol);
    EXPECT_NEAR(out[0].point.y, 0.5f * (s2 + gap), kGeomTol);
}

TEST(NarrowPhase, SphereCasesMatchClosedForms) {
    std::vector<ContactPoint> out;
    ASSERT_EQ(collide(sphere({0, 0.25f, 0}, 0.3f), ground(), {}, out), 1);
    EXPECT_NEAR(out[0].separation, -0.05f, kGeomTol);
    out.clear();
    ASSERT_EQ(collide(sphere({1, 2, 3}, 0.5f), sphere({1, 2, 3.9f}, 0.5f), {}, out), 1);
    EXPECT_NEAR(out[0].separation, -0.1f, kGeomTol);
    EXPECT_NEAR(out[0].normal.z, -1.0f, kGeomTol);
    out.clear();
    // Sphere off a box corner: distance to the corner minus the radius.
    const Body b = box({0, 0, 0}, {0.5f, 0.5f, 0.5f});
    const Vec3 c{0.8f, 0.7f, 0.6f};
    ASSERT_EQ(collide(sphere(c, 0.4f), b, {}, out), 1);
    EXPECT_NEAR(out[0].separation, length(c - Vec3{0.5f, 0.5f, 0.5f}) - 0.4f, kGeomTol);
    out.clear();
    // Sphere centre inside the box: pushed out through the nearest face (+x).
    ASSERT_EQ(collide(b, sphere({0.4f, 0.1f, 0}, 0.2f), {}, out), 1);
    EXPECT_NEAR(out[0].normal.x, -1.0f, kGeomTol);  // from the sphere (b) to the box (a)
    EXPECT_NEAR(out[0].separation, -0.3f, kGeomTol);
}

// Random box pairs: the SAT's answer must agree with a brute-force overlap test that
// samples points of one box inside the other (a deep overlap must be found; a clear gap
// along the centre line must not).
TEST(NarrowPhase, RandomBoxPairsAgreeWithSeparationBounds) {
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.2f, 0.7f);
    for (int t = 0; t < 500; ++t) {
        const Body a = box({0, 0, 0}, {u(rng), u(rng), u(rng)}, randomRotation(rng));
        const Body b = box({u(rng) * 3 - 1, u(rng) * 3 - 1, u(rng) * 3 - 1},
                           {u(rng), u(rng), u(rng)}, randomRotation(rng));
        std::vector<ContactPoint> out;
        collide(a, b, {}, out);
        // Inner spheres (radius min half extent) that overlap imply the boxes overlap.
        const float ra = std::min({a.halfExtents.x, a.halfExtents.y, a.halfExtents.z});
        const float rb = std::min({b.halfExtents.x, b.halfExtents.y, b.halfExtents.z});
        const float dist = length(b.position - a.position);
        if (dist < ra + rb) {
            EXPECT_FALSE(out.empty()) << "seed " << seed << " trial " << t;
        }
        // Outer spheres apart by more than the margin imply no contact.
        const float oa = length(a.halfExtents), ob = length(b.halfExtents);
        if (dist > oa + ob + 0.02f) {
            EXPECT_TRUE(out.empty()) << "seed " << seed << " trial " << t;
        }
        for (const ContactPoint& c : out) {
            EXPECT_NEAR(length(c.normal), 1.0f, 1e-4f);
            EXPECT_LE(c.separation, NarrowPhaseParams{}.margin + 1e-6f);
            // The normal points from b to a.
            EXPECT_LT(dot(c.normal, b.position - a.position), 1e-3f)
                << "seed " << seed << " trial " << t;
        }
    }
}

// The separating-axis test in double precision: the largest separation of two boxes over their
// fifteen axes (six face normals and the nine edge crosses, each normalized), and its axis.
struct SatReference {
    double separation = -1e300;
    bool edge = false;
    double axis[3] = {0, 0, 0};
    double faceCos = 0.0;  ///< the largest |cos| between axis and a face normal of either box
    /// Every edge axis tested: its separation and unit axis (two may tie within float error).
    std::vector<std::pair<double, std::array<double, 3>>> edges;
};

SatReference satReference(const Body& a, const Body& b) {
    const auto col = [](const Body& x, int i, double out[3]) {
        const Vec3 c = x.rotation.col(i);
        out[0] = c.x;
        out[1] = c.y;
        out[2] = c.z;
    };
    double ca[3][3], cb[3][3];
    for (int i = 0; i < 3; ++i) {
        col(a, i, ca[i]);
        col(b, i, cb[i]);
    }
    const double ha[3] = {a.halfExtents.x, a.halfExtents.y, a.halfExtents.z};
    const double hb[3] = {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z};
    const double d[3] = {double(b.position.x) - a.position.x, double(b.position.y) - a.position.y,
                         double(b.position.z) - a.position.z};
    const auto dot3 = [](const double* x, const double* y) {
        return x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    };
    SatReference ref;
    ref.faceCos = 0.0;
    // Axis l's separation, kept as the best where it separates more than every one before.
    const auto test = [&](const double* l, bool edge) {
        double gap = std::fabs(dot3(d, l));
        for (int k = 0; k < 3; ++k) {
            gap -= ha[k] * std::fabs(dot3(ca[k], l)) + hb[k] * std::fabs(dot3(cb[k], l));
        }
        if (gap > ref.separation) {
            ref.separation = gap;
            ref.edge = edge;
            std::copy(l, l + 3, ref.axis);
        }
        return gap;
    };
    for (int i = 0; i < 3; ++i) {
        test(ca[i], false);
        test(cb[i], false);
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            double l[3] = {ca[i][1] * cb[j][2] - ca[i][2] * cb[j][1],
                           ca[i][2] * cb[j][0] - ca[i][0] * cb[j][2],
                           ca[i][0] * cb[j][1] - ca[i][1] * cb[j][0]};
            const double len = std::sqrt(dot3(l, l));
            if (len < 1e-3) {
                continue;  // parallel edges: the face axes cover them
            }
            for (double& v : l) {
                v /= len;
            }
            ref.edges.push_back({test(l, true), {l[0], l[1], l[2]}});
        }
    }
    for (int k = 0; k < 3; ++k) {
        ref.faceCos = std::max(
            {ref.faceCos, std::fabs(dot3(ca[k], ref.axis)), std::fabs(dot3(cb[k], ref.axis))});
    }
    return ref;
}

// Random box pairs near touching against the double-precision separating-axis test: no contact
// where some axis separates them by more than the margin, an edge contact's depth and normal
// those of the reference's best axis (an edge axis), and no point of a face manifold deeper than
// the reference's separation (the face axis chosen is within the axis tolerance of the best),
// unless the best axis is an edge axis near a face normal, which gets the face's manifold
// (NarrowPhaseParams::faceAlignedEdgeCos: its points are deeper by design).
TEST(NarrowPhase, RandomBoxPairsMatchTheSeparatingAxisTestInDouble) {
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> half(0.2f, 0.7f);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    const NarrowPhaseParams p;
    constexpr double kTol = 2.0e-4;  // float geometry of ~1 m boxes and absC's 1e-6 slack
    int near = 0, edges = 0, faces = 0, apart = 0;
    for (int t = 0; t < 20000 && near < 600; ++t) {
        const Body a = box({unit(rng), unit(rng), unit(rng)}, {half(rng), half(rng), half(rng)},
                           randomRotation(rng));
        const Vec3 dir = normalize(Vec3{unit(rng), unit(rng), unit(rng)});
        const Vec3 hb{half(rng), half(rng), half(rng)};
        const float dist =
            (length(a.halfExtents) + length(hb)) * (0.45f + 0.4f * std::fabs(unit(rng)));
        const Body b = box(a.position + dir * dist, hb, randomRotation(rng));
        const SatReference ref = satReference(a, b);
        if (ref.separation < -0.15 || ref.separation > 0.05) {
            continue;
        }
        ++near;
        std::vector<ContactPoint> out;
        collide(a, b, p, out);
        const std::string where = "seed " + std::to_string(seed) + " trial " + std::to_string(t) +
                                  ", reference separation " + std::to_string(ref.separation);
        if (ref.separation > p.margin + kTol) {
            ++apart;
            EXPECT_TRUE(out.empty()) << where;
            continue;
        }
        for (const ContactPoint& c : out) {
            const bool edge = (c.feature & 0x80000000u) != 0;
            if (edge) {
                ++edges;
                EXPECT_TRUE(ref.edge) << where;
                EXPECT_NEAR(c.separation, ref.separation, kTol) << where;
                // Along an edge axis that separates as much as the best (within kTol: two
                // axes may tie within float error, and the float test may pick the other).
                bool onABestAxis = false;
                for (const auto& [gap, axis] : ref.edges) {
                    const double along =
                        axis[0] * c.normal.x + axis[1] * c.normal.y + axis[2] * c.normal.z;
                    onABestAxis = onABestAxis ||
                                  (gap >= ref.separation - kTol && std::fabs(along) > 1.0 - 1e-4);
                }
                EXPECT_TRUE(onABestAxis) << where;
            } else if (!ref.edge || ref.faceCos < p.faceAlignedEdgeCos - 1e-3) {
                ++faces;
                EXPECT_GE(c.separation, ref.separation - 2.0 * p.axisTolerance - kTol) << where;
            }
        }
    }
    // The draw must reach every branch: separated pairs, edge contacts and face manifolds.
    EXPECT_EQ(near, 600) << "seed " << seed;
    EXPECT_GT(apart, 30) << "seed " << seed;
    EXPECT_GT(edges, 30) << "seed " << seed;
    EXPECT_GT(faces, 300) << "seed " << seed;
}

TEST(BroadPhase, SortAndSweepMatchesBruteForceOnRandomScenes) {
    for (unsigned seed : {42u, static_cast<unsigned>(ww::test::freshSeed())}) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> pos(-6.0f, 6.0f);
        std::uniform_real_distribution<float> size(0.1f, 0.8f);
        std::vector<Body> bodies{ground()};
        for (int i = 0; i < 300; ++i) {
            bodies.push_back(i % 5 == 0
                                 ? sphere({pos(rng), pos(rng), pos(rng)}, size(rng))
                                 : box({pos(rng), pos(rng), pos(rng)},
                                       {size(rng), size(rng), size(rng)}, randomRotation(rng)));
            if (i % 7 == 3) {  // static boxes and spheres: their pairs with each other skipped
                bodies.back().invMass = 0.0f;
                bodies.back().invInertiaBody = {};
                bodies.back().updateDerived();
            }
        }
        BroadPhase bp, threaded;
        std::vector<std::pair<int, int>> fast, ref, onThreads;
        for (int round = 0; round < 3; ++round) {  // reuse of the persistent order
            bp.findPairs(bodies, 0.01f, 0.02f, fast);
            threaded.findPairs(bodies, 0.01f, 0.02f, onThreads, ww::test::executor().get());
            BroadPhase::findPairsBruteForce(bodies, 0.01f, 0.02f, ref);
            EXPECT_EQ(fast, ref) << "seed " << seed << " round " << round;
            EXPECT_EQ(onThreads, ref) << "seed " << seed << " round " << round;
            for (Body& b : bodies) {
                b.position.x += pos(rng) * 0.05f;
                if (!b.isStatic()) {
                    b.linearVelocity = {pos(rng) * 2, pos(rng), pos(rng)};
                }
                b.updateDerived();
            }
        }
        EXPECT_GT(ref.size(), 300u) << "the scene should produce plane and box pairs";
        const auto bothStatic = [&](const std::pair<int, int>& pr) {
            return bodies[static_cast<std::size_t>(pr.first)].isStatic() &&
                   bodies[static_cast<std::size_t>(pr.second)].isStatic();
        };
        EXPECT_EQ(std::count_if(ref.begin(), ref.end(), bothStatic), 0);
    }
}

// How far a body looks ahead for contacts must cover the fastest of its points, not only its
// centre: a spinning brick's corners reach a neighbour its centre never comes near. Reference:
// the largest speed |v + w x r| over a box's eight corners (the largest over the box, the speed
// being convex in r), and over points spread on a sphere's surface.
TEST(BroadPhase, SpeculativeMarginCoversTheFastestPointOfASpinningBody) {
    constexpr float kMargin = 0.01f;
    constexpr float kDt = 1.0f / 60.0f;
    for (unsigned seed : {7u, static_cast<unsigned>(ww::test::freshSeed())}) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> size(0.1f, 1.5f);
        std::normal_distribution<float> g;
        for (int t = 0; t < 200; ++t) {
            const bool isBox = t % 4 != 0;
            Body b = isBox ? box({g(rng), g(rng), g(rng)}, {size(rng), size(rng), size(rng)},
                                 randomRotation(rng))
                           : sphere({g(rng), g(rng), g(rng)}, size(rng));
            // Every third body spins in place: its centre does not move at all.
            const float linear = t % 3 == 0 ? 0.0f : 10.0f;
            b.linearVelocity = Vec3{g(rng), g(rng), g(rng)} * linear;
            b.angularVelocity = Vec3{g(rng), g(rng), g(rng)} * 20.0f;
            float fastest = 0.0f;
            const auto pointSpeed = [&](const Vec3& offset) {
                fastest =
                    std::max(fastest, length(b.linearVelocity + cross(b.angularVelocity, offset)));
            };
            if (isBox) {
                for (int corner = 0; corner < 8; ++corner) {
                    const Vec3 local{corner & 1 ? b.halfExtents.x : -b.halfExtents.x,
                                     corner & 2 ? b.halfExtents.y : -b.halfExtents.y,
                                     corner & 4 ? b.halfExtents.z : -b.halfExtents.z};
                    pointSpeed(b.rotation * local);
                }
            } else {
                for (int k = 0; k < 2000; ++k) {
                    pointSpeed(normalize(Vec3{g(rng), g(rng), g(rng)}) * b.radius);
                }
            }
            const float lookAhead = speculativeMargin(b, kMargin, kDt) - kMargin;
            EXPECT_GE(lookAhead, fastest * kDt * (1.0f - 1.0e-5f))
                << "seed " << seed << " body " << t << (isBox ? " (box)" : " (sphere)")
                << ": a point moves " << fastest * kDt << " m in a step";
        }
    }
}

}  // namespace
}  // namespace ww::rigid
