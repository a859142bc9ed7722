// Shock propagation (shock.h): one body on the ground against a double-precision pivoting LCP,
// a stack corrected from the ground up with the lower body untouched by the upper, and the pass
// holding a touching wall that the same few Jacobi iterations alone let fall.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "solver/lcp/lcp_reference.h"
#include "solver/rigid/assembly.h"
#include "solver/rigid/contacts.h"
#include "solver/rigid/narrow_phase.h"
#include "solver/rigid/scenes.h"
#include "solver/rigid/shock.h"
#include "support/executor.h"
#include "support/seed.h"

namespace ww::rigid {
namespace {

struct Scene {
    std::vector<Body> bodies;
    std::vector<Contact> contacts;
    std::vector<RowJacobian> jac;
    lcp::LcpProblem problem;  ///< the LCP of every contact, one block
    std::vector<float> bias;  ///< per row: b - J v
    std::vector<char> posed;
};

/// Contacts of the pairs (upper, lower) in that order, their Jacobians, the LCP (no gravity:
/// the velocities are the ones to correct) and the shock pass's inputs; impulses zero.
Scene pose(std::vector<Body> bodies, const std::vector<std::pair<int, int>>& pairs, float mu) {
    Scene s;
    s.bodies = std::move(bodies);
    std::vector<ContactPoint> points;
    for (const auto& [a, b] : pairs) {
        points.clear();
        collide(s.bodies[static_cast<std::size_t>(a)], s.bodies[static_cast<std::size_t>(b)],
                NarrowPhaseParams{}, points);
        for (const ContactPoint& cp : points) {
            s.contacts.push_back(makeContact(a, b, cp));
        }
    }
    computeJacobians(s.bodies, s.contacts, s.jac);
    std::vector<int> ids(s.contacts.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
        ids[k] = static_cast<int>(k);
    }
    AssemblyParams ap;
    ap.gravity = {};
    ap.friction = mu;
    std::vector<float> guess(3 * ids.size());
    ContactAssembler assembler;
    assembler.assemble(s.bodies, s.contacts, s.jac, ids, ap, s.problem, guess);
    s.bias.resize(3 * s.contacts.size());
    for (std::size_t i = 0; i < s.bias.size(); ++i) {
        const RowJacobian& j = s.jac[i];
        const Contact& c = s.contacts[i / 3];
        const Body& a = s.bodies[static_cast<std::size_t>(c.bodyA)];
        const Body& b = s.bodies[static_cast<std::size_t>(c.bodyB)];
        s.bias[i] =
            s.problem.b[i] - (dot(j.linA, a.linearVelocity) + dot(j.angA, a.angularVelocity) +
                              dot(j.linB, b.linearVelocity) + dot(j.angB, b.angularVelocity));
    }
    s.posed.assign(s.contacts.size(), 1);
    return s;
}

/// Every body's velocities after body 0 (the ground) in `a` and `b`, bit for bit.
void expectSameVelocities(const std::vector<Body>& a, const std::vector<Body>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 1; i < a.size(); ++i) {
        for (const auto& [va, vb] : {std::pair{a[i].linearVelocity, b[i].linearVelocity},
                                     std::pair{a[i].angularVelocity, b[i].angularVelocity}}) {
            EXPECT_EQ(va.x, vb.x) << "body " << i;
            EXPECT_EQ(va.y, vb.y) << "body " << i;
            EXPECT_EQ(va.z, vb.z) << "body " << i;
        }
    }
}

/// The height of the lowest corner of box d, relative to its centre.
float lowestCorner(const BodyDesc& d) {
    float lowest = 0.0f;
    for (int c = 0; c < 8; ++c) {
        const Vec3 corner{(c & 1) != 0 ? d.halfExtents.x : -d.halfExtents.x,
                          (c & 2) != 0 ? d.halfExtents.y : -d.halfExtents.y,
                          (c & 4) != 0 ? d.halfExtents.z : -d.halfExtents.z};
        lowest = std::min(lowest, (toMat3(d.orientation) * corner).y);
    }
    return lowest;
}

Body ground() {
    BodyDesc d;
    d.kind = BodyKind::kPlane;
    d.massKg = 0.0f;
    return makeBody(d);
}

// A box alone on the ground: its support rows are the whole LCP, so the pass (many sweeps,
// from zero impulses) must end at the velocity of the LCP's solution. (Seed 1919719908 drew a
// face whose Gauss-Seidel sweeps were still 1e-3 of the velocity off after 3000 sweeps, and
// within the bound after 30000.) Frictionless, where
// Lemke's method in double precision is the reference; the velocity is unique even though a
// face's four normal impulses are not.
TEST(Shock, OneBoxOnTheGroundGetsTheReferenceLcpVelocity) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_real_distribution<float> size(0.3f, 0.8f);
    int checked = 0;
    for (int trial = 0; trial < 40; ++trial) {
        BodyDesc d;
        d.halfExtents = {size(rng), size(rng), size(rng)};
        d.massKg = 0.5f + 4.5f * (u(rng) + 1.0f) / 2.0f;
        d.orientation = normalize(Quat{1.0f, 0.1f * u(rng), 0.1f * u(rng), 0.1f * u(rng)});
        d.linearVelocity = {u(rng), -1.0f + u(rng), u(rng)};
        d.angularVelocity = {u(rng), u(rng), u(rng)};
        Body box = makeBody(d);
        // Lowest corner 0-5 mm into the ground.
        const float lowest = lowestCorner(d);
        d.position = {0.0f, -lowest - 0.0025f * (u(rng) + 1.0f), 0.0f};
        box = makeBody(d);
        Scene s = pose({ground(), box}, {{1, 0}}, 0.0f);
        if (s.contacts.empty()) {
            continue;
        }
        const int nc = static_cast<int>(s.contacts.size());
        const int n = s.problem.n;
        std::vector<double> m(static_cast<std::size_t>(nc * nc)), q(static_cast<std::size_t>(nc));
        for (int i = 0; i < nc; ++i) {
            q[static_cast<std::size_t>(i)] = s.problem.b[static_cast<std::size_t>(3 * i)];
            for (int j = 0; j < nc; ++j) {
                m[static_cast<std::size_t>(i * nc + j)] =
                    s.problem.a[static_cast<std::size_t>(3 * i) * static_cast<std::size_t>(n) +
                                static_cast<std::size_t>(3 * j)];
            }
        }
        const auto z = lcp::reference::lemke(nc, m, q);
        ASSERT_TRUE(z.has_value()) << "trial " << trial;
        double v[6] = {d.linearVelocity.x,  d.linearVelocity.y,  d.linearVelocity.z,
                       d.angularVelocity.x, d.angularVelocity.y, d.angularVelocity.z};
        for (int i = 0; i < nc; ++i) {
            const RowJacobian& j = s.jac[static_cast<std::size_t>(3 * i)];
            const double zi = (*z)[static_cast<std::size_t>(i)];
            const Vec3 parts[2] = {j.mLinA, j.mAngA};
            for (int c = 0; c < 6; ++c) {
                v[c] += zi * parts[c / 3][c % 3];
            }
        }
        ShockParams p;
        p.sweeps = 30000;
        p.friction = 0.0f;
        p.restingSpeed = 1.0e9f;  // the box moves: correct it anyway
        ShockPropagation shock;
        EXPECT_EQ(shock.apply(s.bodies, s.contacts, s.bias, s.posed, p, nullptr), 1);
        const Body& out = s.bodies[1];
        const float got[6] = {out.linearVelocity.x,  out.linearVelocity.y,  out.linearVelocity.z,
                              out.angularVelocity.x, out.angularVelocity.y, out.angularVelocity.z};
        for (int c = 0; c < 6; ++c) {
            EXPECT_NEAR(got[c], v[c], 2.0e-4 * (1.0 + std::abs(v[c])))
                << "trial " << trial << " component " << c;
        }
        ++checked;
    }
    EXPECT_GE(checked, 30);
}

// The sweeps' tolerance (ShockParams::tolerance): a body's sweeps stop after the first in which
// no row's update changed that row's velocity by more than it. A box on the ground, warm-started
// with its weight's share, approaching at a few mm/s and sliding a little: the stopped pass ends
// bit for bit where that many sweeps at tolerance 0 end (the stop comes after a whole sweep),
// within ten tolerances of the velocity of all 400 sweeps (a box's redundant face
// points with friction converge slowly, so that some boxes run all 400); tolerance 0 runs every
// sweep, one above every row's change only the first. Random yaw, tilt, mass and friction.
TEST(Shock, SweepsStopAtTheToleranceNearTheFullCountsVelocity) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    constexpr float kDt = 1.0f / 60.0f;
    constexpr float kTolerance = 1.0e-5f;  // m/s
    int checked = 0, stoppedEarly = 0;
    for (int trial = 0; trial < 40; ++trial) {
        BodyDesc d;
        d.halfExtents = {0.5f + 0.2f * u(rng), 0.5f + 0.2f * u(rng), 0.5f + 0.2f * u(rng)};
        d.massKg = 2.5f + 2.0f * u(rng);
        // Nearly flat, any yaw: a face's four corners 0.5-1.5 mm deep.
        d.orientation = normalize(Quat{1.0f, 5.0e-4f * u(rng), 0.5f * u(rng), 5.0e-4f * u(rng)});
        d.linearVelocity = {0.01f * u(rng), -0.005f + 0.003f * u(rng), 0.01f * u(rng)};
        d.angularVelocity = {0.01f * u(rng), 0.01f * u(rng), 0.01f * u(rng)};
        const float lowest = lowestCorner(d);
        d.position = {0.0f, -lowest - 0.001f, 0.0f};
        const float mu = 0.3f + 0.3f * (u(rng) + 1.0f);
        Scene original = pose({ground(), makeBody(d)}, {{1, 0}}, mu);
        if (original.contacts.size() != 4) {
            continue;
        }
        for (Contact& c : original.contacts) {
            c.impulse[0] = d.massKg * 9.81f * kDt / 4.0f;  // the warm start: its weight's share
        }
        ShockParams p;
        p.friction = mu;
        ShockPropagation shock;
        const auto run = [&](float tolerance, int sweeps) {
            Scene s = original;
            p.tolerance = tolerance;
            p.sweeps = sweeps;
            EXPECT_EQ(shock.apply(s.bodies, s.contacts, s.bias, s.posed, p, nullptr), 1);
            return s.bodies[1];
        };
        const Body full = run(0.0f, 400);
        EXPECT_EQ(shock.sweepsDone(), 400) << "trial " << trial << ": tolerance 0 runs them all";
        const Body stopped = run(kTolerance, 400);
        const auto sweeps = static_cast<int>(shock.sweepsDone());
        EXPECT_GE(sweeps, 2) << "trial " << trial;
        stoppedEarly += sweeps < 400 ? 1 : 0;
        const Body counted = run(0.0f, sweeps);
        for (int c = 0; c < 3; ++c) {
            EXPECT_EQ(stopped.linearVelocity[c], counted.linearVelocity[c]) << "trial " << trial;
            EXPECT_EQ(stopped.angularVelocity[c], counted.angularVelocity[c]) << "trial " << trial;
            EXPECT_NEAR(stopped.linearVelocity[c], full.linearVelocity[c], 10.0f * kTolerance)
                << "trial " << trial << " linear " << c << " after " << sweeps << " sweeps";
            EXPECT_NEAR(stopped.angularVelocity[c], full.angularVelocity[c], 10.0f * kTolerance)
                << "trial " << trial << " angular " << c << " after " << sweeps << " sweeps";
        }
        run(1.0e3f, 400);  // above any row's change: the first sweep is the last
        EXPECT_EQ(shock.sweepsDone(), 1) << "trial " << trial;
        ++checked;
    }
    EXPECT_GE(checked, 30);
    EXPECT_GE(stoppedEarly, checked / 2) << "most boxes stop before 400 sweeps at " << kTolerance;
}

// Two unit boxes stacked on the ground, both moving down and sideways, impulses zero: the pass
// corrects the lower one against the ground first and then the upper one against the lower
// one, held fixed. After it no support row approaches (w >= 0 up to the sweeps' accuracy; with
// the support's spin not followed, w of a support that only translates), and the lower box's
// velocity is bit for bit what it is without the upper box: nothing of the upper correction
// reaches it. With the support's spin followed (ShockParams::followSpinAbove 0) and not. (That the
// friction impulses stay in their discs is checked by SlidingSphereIsBrakedByTheDiscNotTheBox
// below.)
TEST(Shock, StackIsCorrectedFromTheGroundUpWithTheLowerBodyHeldFixed) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int trial = 0; trial < 40; ++trial) {
        const bool follow = trial % 2 == 1;
        const auto box = [&](float y) {
            BodyDesc d;
            d.position = {0.02f * u(rng), y, 0.02f * u(rng)};
            d.massKg = 1.0f + (u(rng) + 1.0f);
            d.linearVelocity = {0.3f * u(rng), -0.5f + 0.4f * u(rng), 0.3f * u(rng)};
            d.angularVelocity = {0.3f * u(rng), 0.3f * u(rng), 0.3f * u(rng)};
            return makeBody(d);
        };
        const Body lower = box(0.499f);
        const Body upper = box(1.497f);
        const float mu = 0.3f + 0.3f * (u(rng) + 1.0f);
        Scene both = pose({ground(), lower, upper}, {{1, 0}, {2, 1}}, mu);
        Scene alone = pose({ground(), lower}, {{1, 0}}, mu);
        ASSERT_FALSE(both.contacts.empty());
        ShockParams p;
        p.sweeps = 200;
        p.friction = mu;
        p.followSpinAbove = follow ? 0.0f : 1.0e9f;
        // Kept to resting contact by default: bodies this fast are left as they are.
        Scene moving = both;
        ShockPropagation shock;
        EXPECT_EQ(
            shock.apply(moving.bodies, moving.contacts, moving.bias, moving.posed, p, nullptr), 0);
        for (std::size_t i = 0; i < moving.bodies.size(); ++i) {
            EXPECT_EQ(moving.bodies[i].linearVelocity.y, both.bodies[i].linearVelocity.y);
        }
        p.restingSpeed = 1.0e9f;
        EXPECT_EQ(shock.apply(both.bodies, both.contacts, both.bias, both.posed, p,
                              test::executor().get()),
                  2);
        EXPECT_EQ(shock.levels(), 2);
        ShockPropagation shockAlone;
        shockAlone.apply(alone.bodies, alone.contacts, alone.bias, alone.posed, p, nullptr);
        EXPECT_EQ(both.bodies[1].linearVelocity.x, alone.bodies[1].linearVelocity.x);
        EXPECT_EQ(both.bodies[1].linearVelocity.y, alone.bodies[1].linearVelocity.y);
        EXPECT_EQ(both.bodies[1].angularVelocity.z, alone.bodies[1].angularVelocity.z);
        for (std::size_t i = 0; i < both.jac.size(); i += 3) {
            const RowJacobian& j = both.jac[i];
            const Contact& c = both.contacts[i / 3];
            const Body& a = both.bodies[static_cast<std::size_t>(c.bodyA)];
            const Body& b = both.bodies[static_cast<std::size_t>(c.bodyB)];
            const float w = dot(j.linA, a.linearVelocity) + dot(j.angA, a.angularVelocity) +
                            dot(j.linB, b.linearVelocity) +
                            (follow ? dot(j.angB, b.angularVelocity) : 0.0f) + both.bias[i];
            EXPECT_GE(w, -1.0e-3f) << "trial " << trial << " contact " << i / 3;
        }
        // The upper box came down at least 0.1 m/s onto a lower one corrected to the ground:
        // it must have been stopped, so the pass did something to it.
        EXPECT_GT(both.bodies[2].linearVelocity.y, upper.linearVelocity.y);
    }
}

// The pass keeps its support lists and levels while the classification and every support's
// height order against the body it holds stand, and builds them again when either changes:
// one pass object over a sequence of the same two-box stack (fresh velocities) corrects as a
// fresh object does, bit for bit. The heights are moved under the fixed contacts, as only the
// order reads them: the upper box put below its support drops that support (the upper box is
// then corrected first, against nothing), and back above restores it. Fails when kept levels
// outlive a drop, or a change of the classification.
TEST(Shock, KeptLevelsCorrectAsFreshOnesWhenTheOrderChanges) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const auto box = [&](float y) {
        BodyDesc d;
        d.position = {0.02f * u(rng), y, 0.02f * u(rng)};
        d.massKg = 1.0f + (u(rng) + 1.0f);
        return makeBody(d);
    };
    const Scene base = pose({ground(), box(0.499f), box(1.497f)}, {{1, 0}, {2, 1}}, 0.5f);
    ASSERT_FALSE(base.contacts.empty());
    ShockParams p;
    p.sweeps = 20;
    p.friction = 0.5f;
    p.restingSpeed = 1.0e9f;
    ShockPropagation kept;
    // The upper box's height, and whether the ground contact is posed (the classification).
    const std::vector<std::pair<float, bool>> steps = {
        {1.497f, true}, {1.497f, true},  {0.2f, true},   {0.2f, true},
        {1.497f, true}, {1.497f, false}, {1.497f, true}, {1.497f, true}};
    int dropped = 0;
    for (std::size_t step = 0; step < steps.size(); ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        Scene s = base;
        s.bodies[2].position.y = steps[step].first;
        for (std::size_t k = 0; k < s.contacts.size(); ++k) {
            const Contact& c = s.contacts[k];
            if (c.bodyA == 0 || c.bodyB == 0) {
                s.posed[k] = steps[step].second ? 1 : 0;
            }
        }
        for (std::size_t b = 1; b < s.bodies.size(); ++b) {
            s.bodies[b].linearVelocity = {0.3f * u(rng), -0.5f + 0.4f * u(rng), 0.3f * u(rng)};
            s.bodies[b].angularVelocity = {0.3f * u(rng), 0.3f * u(rng), 0.3f * u(rng)};
        }
        Scene fresh = s;
        const int keptCount =
            kept.apply(s.bodies, s.contacts, s.bias, s.posed, p, test::executor().get());
        ShockPropagation once;
        const int freshCount = once.apply(fresh.bodies, fresh.contacts, fresh.bias, fresh.posed, p,
                                          test::executor().get());
        EXPECT_EQ(keptCount, freshCount);
        EXPECT_EQ(kept.levels(), once.levels());
        dropped += once.levels() == 1 && steps[step].second ? 1 : 0;
        expectSameVelocities(s.bodies, fresh.bodies);
    }
    EXPECT_EQ(dropped, 2);  // the upper box below its support: one level, not two
}

// The levels run as the stages of one executor hand-off, each after the one below: columns of
// boxes (fresh random count, height and velocities; 2 cm between the columns, so each level is
// a row of boxes) corrected on three threads end bit for bit where the calling thread alone
// ends, with the same sweeps. The rows are wide enough that a level's sweeps go to the threads.
// Fails when the levels run as one stage (an upper box then reads a lower one mid-correction).
TEST(Shock, LevelsCorrectOnThreadsAsOnTheCallerAlone) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const int cols = 16 + static_cast<int>(rng() % 9);
    const int rows = 3 + static_cast<int>(rng() % 4);
    std::vector<Body> bodies{ground()};
    std::vector<std::pair<int, int>> pairs;
    for (int c = 0; c < cols; ++c) {
        for (int r = 0; r < rows; ++r) {
            BodyDesc d;
            d.position = {1.02f * static_cast<float>(c), 0.499f + 0.998f * static_cast<float>(r),
                          0.0f};
            d.massKg = 1.0f + (u(rng) + 1.0f);
            d.linearVelocity = {0.3f * u(rng), -0.5f + 0.4f * u(rng), 0.3f * u(rng)};
            d.angularVelocity = {0.3f * u(rng), 0.3f * u(rng), 0.3f * u(rng)};
            bodies.push_back(makeBody(d));
            const int id = static_cast<int>(bodies.size()) - 1;
            pairs.emplace_back(id, r == 0 ? 0 : id - 1);
        }
    }
    Scene threaded = pose(std::move(bodies), pairs, 0.6f);
    Scene alone = threaded;
    ShockParams p;
    p.sweeps = 50;
    p.friction = 0.6f;
    p.restingSpeed = 1.0e9f;
    ShockPropagation onThreads, onCaller;
    const int corrected = onThreads.apply(threaded.bodies, threaded.contacts, threaded.bias,
                                          threaded.posed, p, test::executor().get());
    EXPECT_EQ(corrected,
              onCaller.apply(alone.bodies, alone.contacts, alone.bias, alone.posed, p, nullptr));
    EXPECT_EQ(corrected, cols * rows);
    EXPECT_EQ(onThreads.levels(), rows);
    EXPECT_EQ(onThreads.sweepsDone(), onCaller.sweepsDone());
    expectSameVelocities(threaded.bodies, alone.bodies);
}

// A sphere sliding on a plane (one contact, fresh random radius, mass, mu, plane tilt and slip
// direction in the contact's tangent frame, always including 45 degrees between the tangents),
// coming down onto it: its normal row and its two tangent rows are decoupled (the normal goes
// through the centre, the tangents are orthogonal: A = diag(1/m, 1/m + r^2/I, same)), so the
// pass ends at the closed form x_n = -m w_n and (x_t1, x_t2) = Proj_disc(mu x_n)(-w_t / A_tt),
// w = J v + bias before the pass. The slip is fast enough to saturate the disc: friction brakes
// by mu x_n / m against the slip. A box clamp (each tangent alone to mu x_n) brakes sqrt(2)
// harder at 45 degrees: 0.025 m/s or more here, 250x the tolerance (1e-4 m/s: float rounding of
// O(1) velocities through a few operations, with slips of 3-4 m/s).
TEST(Shock, SlidingSphereIsBrakedByTheDiscNotTheBox) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int trial = 0; trial < 12; ++trial) {
        const float radius = 0.2f + 0.6f * u(rng);
        const float mass = 0.5f + 4.5f * u(rng);
        const float mu = 0.3f + 0.4f * u(rng);
        const float slipAngle = trial == 0 ? 0.78539816f : 6.2831853f * u(rng);
        BodyDesc plane;
        plane.kind = BodyKind::kPlane;
        plane.massKg = 0.0f;
        plane.planeNormal = normalize(Vec3{0.3f * (u(rng) - 0.5f), 1.0f, 0.3f * (u(rng) - 0.5f)});
        const Vec3 n = plane.planeNormal;
        Vec3 t1, t2;
        tangentBasis(n, t1, t2);
        BodyDesc sphere;
        sphere.kind = BodyKind::kSphere;
        sphere.radius = radius;
        sphere.massKg = mass;
        sphere.position = n * (radius - 0.003f * u(rng));  // up to 3 mm into the plane
        const float slip = 3.0f + u(rng);
        sphere.linearVelocity = n * -(0.2f + 0.3f * u(rng)) +
                                (t1 * std::cos(slipAngle) + t2 * std::sin(slipAngle)) * slip;
        Scene s = pose({makeBody(plane), makeBody(sphere)}, {{1, 0}}, mu);
        ASSERT_EQ(s.contacts.size(), 1u) << "trial " << trial;
        // The contact's own frame (the sphere is body A, the normal points from the plane to it).
        ASSERT_LE(length(s.jac[0].linA - n), 1e-6f);
        ASSERT_LE(length(s.jac[1].linA - t1), 1e-6f);
        ASSERT_LE(length(s.jac[2].linA - t2), 1e-6f);
        const Body before = s.bodies[1];
        double w[3], diag[3];
        for (int r = 0; r < 3; ++r) {
            const RowJacobian& j = s.jac[static_cast<std::size_t>(r)];
            w[r] = static_cast<double>(dot(j.linA, before.linearVelocity)) +
                   dot(j.angA, before.angularVelocity) + s.bias[static_cast<std::size_t>(r)];
            diag[r] = static_cast<double>(dot(j.linA, j.mLinA)) + dot(j.angA, j.mAngA);
        }
        const double xn = std::max(0.0, -w[0] / diag[0]);
        double xt[2] = {-w[1] / diag[1], -w[2] / diag[2]};
        const double len = std::hypot(xt[0], xt[1]);
        ASSERT_GT(len, 1.2 * mu * xn) << "trial " << trial << ": the slip must saturate the disc";
        xt[0] *= mu * xn / len;
        xt[1] *= mu * xn / len;
        const double x[3] = {xn, xt[0], xt[1]};
        ShockParams p;
        p.sweeps = 10;
        p.friction = mu;
        p.restingSpeed = 1.0e9f;  // sliding: correct it anyway
        ShockPropagation shock;
        ASSERT_EQ(shock.apply(s.bodies, s.contacts, s.bias, s.posed, p, nullptr), 1);
        const Body& after = s.bodies[1];
        for (int c = 0; c < 3; ++c) {
            double dv = 0.0, dw = 0.0;
            for (int r = 0; r < 3; ++r) {
                const RowJacobian& j = s.jac[static_cast<std::size_t>(r)];
                dv += x[r] * j.mLinA[c];
                dw += x[r] * j.mAngA[c];
            }
            EXPECT_NEAR(after.linearVelocity[c], before.linearVelocity[c] + dv, 1e-4)
                << "trial " << trial << " component " << c << " (slip at " << slipAngle << " rad)";
            EXPECT_NEAR(after.angularVelocity[c], before.angularVelocity[c] + dw, 1e-4)
                << "trial " << trial << " component " << c;
        }
        // The friction impulse, read back from the velocity change: mu x_n long, against the
        // slip.
        const Vec3 dv = after.linearVelocity - before.linearVelocity;
        const double ft1 = mass * static_cast<double>(dot(dv, t1));
        const double ft2 = mass * static_cast<double>(dot(dv, t2));
        EXPECT_NEAR(std::hypot(ft1, ft2), mu * xn, 1e-4 * mass) << "trial " << trial;
    }
}

// A column of eight unit boxes whose lowest box (its ground contacts not posed: a support the
// pass leaves as it is) moves and spins at fresh random rates, the boxes above at rest-like
// random rates, each interface loaded with the weight above it (impulses of the resting
// solution). Aligned faces, bias 0: each face's rows end at w = 0 against what the pass takes
// for the support's motion. At the default (the support's spin never followed), and with
// ShockParams::followSpinAbove at 1e-3 rad/s for a slow spin (0.5-1 mrad/s), every box above
// ends at the lowest box's linear velocity and without spin; following the spin, the top box
// would be |w x 7 m| = 3.5-7 mm/s off. A fast spin (2-4 mrad/s) above that threshold is
// followed: the column moves as one rigid body, box k at v_1 + w_1 x (k - 1) m up, spinning at
// w_1. Tolerance 2e-5 m/s and rad/s, 200 times the largest error measured (1e-7: 200 sweeps
// over each face's 12 rows in float).
TEST(Shock, SupportSpinIsPassedUpTheColumnOnlyAboveTheThreshold) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    constexpr int kBoxes = 8;
    constexpr float kGravityDt = 9.81f / 60.0f;  // m/s: one step of weight per kg
    for (int trial = 0; trial < 20; ++trial) {
        const bool tipping = trial % 2 == 1;
        std::vector<Body> bodies{ground()};
        std::vector<std::pair<int, int>> pairs;
        for (int k = 1; k <= kBoxes; ++k) {
            BodyDesc d;
            d.position = {0.0f, static_cast<float>(2 * k - 1) * 0.5f, 0.0f};
            const float scale = k == 1 ? 0.01f : 1.0e-4f;
            d.linearVelocity = Vec3{u(rng), u(rng), u(rng)} * scale;
            d.angularVelocity = Vec3{u(rng), u(rng), u(rng)} * 1.0e-4f;
            if (k == 1) {  // about a horizontal axis
                const float a = 3.14159265f * u(rng);
                const float rate =
                    tipping ? 3.0e-3f + 1.0e-3f * u(rng) : 7.5e-4f + 2.5e-4f * u(rng);
                d.angularVelocity = Vec3{std::cos(a), 0.0f, std::sin(a)} * rate;
            }
            bodies.push_back(makeBody(d));
            pairs.emplace_back(k, k - 1);
        }
        Scene s = pose(bodies, pairs, 0.6f);
        for (Contact& c : s.contacts) {
            const int above = kBoxes - c.bodyA + 1;  // boxes bodyA .. kBoxes, 1 kg each
            c.impulse[0] = static_cast<float>(above) * kGravityDt / 4.0f;
            if (c.bodyB == 0) {
                s.posed[static_cast<std::size_t>(&c - s.contacts.data())] = 0;
            }
        }
        ASSERT_EQ(s.contacts.size(), static_cast<std::size_t>(4 * kBoxes)) << "trial " << trial;
        const Body support = s.bodies[1];
        ShockParams p;
        p.sweeps = 200;
        if (trial % 4 != 0) {
            p.followSpinAbove = 1.0e-3f;
        }
        const bool followed = tipping && trial % 4 != 0;
        ShockPropagation shock;
        ASSERT_EQ(shock.apply(s.bodies, s.contacts, s.bias, s.posed, p, nullptr), kBoxes - 1);
        EXPECT_EQ(shock.levels(), kBoxes - 1);
        for (int k = 2; k <= kBoxes; ++k) {
            const Body& b = s.bodies[static_cast<std::size_t>(k)];
            const Vec3 up{0.0f, static_cast<float>(k - 1), 0.0f};
            const Vec3 v = followed ? support.linearVelocity + cross(support.angularVelocity, up)
                                    : support.linearVelocity;
            const Vec3 w = followed ? support.angularVelocity : Vec3{};
            EXPECT_LE(length(b.linearVelocity - v), 2.0e-5f)
                << "trial " << trial << (followed ? " (followed)" : " (not followed)") << " box "
                << k;
            EXPECT_LE(length(b.angularVelocity - w), 2.0e-5f)
                << "trial " << trial << (followed ? " (followed)" : " (not followed)") << " box "
                << k;
        }
    }
}

// At 10 Jacobi iterations a step the touching 4 x 64 wall falls within five seconds without the
// pass (measured: 47.5 m of drift after these 300 steps) and stands with it (0.3 um;
// docs/rigid.md, "Shock propagation"). The 10 x 6 wall no longer shows it: since an accelerated
// solve stops at the first pass that meets the tolerance, it stands without the pass at 10
// iterations (0.7 mm over 20 s), and fell only when a step ran either none or all ten.
TEST(Shock, HoldsTheTouchingWallThatTenIterationsAloneLetFall) {
    for (int sweeps : {10, 0}) {
        WorldParams p;
        p.lcp.maxIterations = 10;
        p.shockSweeps = sweeps;
        WallParams wall;
        wall.cols = 4;
        wall.rows = 64;
        World w = makeWallWorld(test::executor(), wall, p);
        const DriftMonitor monitor(w);
        for (int s = 0; s < 300; ++s) {
            const StepStats& st = w.step();
            ASSERT_EQ(st.nonFiniteBodies, 0);
        }
        const float drift = monitor.measure(w).maxDriftM;
        if (sweeps > 0) {
            EXPECT_LE(drift, 0.001f);
        } else {
            EXPECT_GE(drift, 0.05f);
        }
    }
}

World touchingWallAtTheDefaults(int cols, int rows) {
    WallParams wall;
    wall.cols = cols;
    wall.rows = rows;
    return makeWallWorld(test::executor(), wall, WorldParams{});
}

// A touching wall 64 rows high at the default settings (50 iterations, 10 sweeps). With the
// support's spin always followed (ShockParams::followSpinAbove 0) 4 x 64 fell (6.2 m of drift after
// these 300 steps, 2.6 cm at 2 s); not followed it stands within 0.5 um (docs/rigid.md, "Tall
// walls"). 1 mm: the 20 x 20 wall's bound over 30 s.
TEST(Shock, TallWallStandsAtTheDefaults) {
    World w = touchingWallAtTheDefaults(4, 64);
    const DriftMonitor monitor(w);
    for (int s = 0; s < 300; ++s) {
        const StepStats& st = w.step();
        ASSERT_EQ(st.nonFiniteBodies, 0);
    }
    const float drift = monitor.measure(w).maxDriftM;
    EXPECT_LE(drift, 0.001f);
}

// A standing touching wall at the defaults: its bricks' corrections settle within a few of the
// ten sweeps (World's tolerance, 1e-8 m/s), and the LCP's warm start still meets its tolerance
// (what stopping the sweeps sooner loses: docs/rigid.md, "The tolerance and the shock pass's
// sweeps"). 20 x 20, 120 steps.
TEST(Shock, AStandingWallsSweepsStopEarlyAndItsSolvesStayWarm) {
    World w = touchingWallAtTheDefaults(20, 20);
    const DriftMonitor monitor(w);
    double sweeps = 0.0, bodies = 0.0, iterations = 0.0;
    for (int s = 0; s < 120; ++s) {
        const StepStats& st = w.step();
        ASSERT_EQ(st.nonFiniteBodies, 0);
        if (s > 0) {  // the first step is cold
            sweeps += static_cast<double>(st.shockSweeps);
            bodies += st.shockBodies;
            iterations += st.iterationsMean;
        }
    }
    ASSERT_GT(bodies, 0.0);
    EXPECT_LT(sweeps / bodies, 6.0) << "sweeps per corrected body";
    EXPECT_GE(sweeps / bodies, 1.5);
    EXPECT_LE(iterations / 119.0, 1.0) << "Jacobi iterations a step";
    EXPECT_LE(monitor.measure(w).maxDriftM, 1.0e-4f);
}

}  // namespace
}  // namespace ww::rigid
