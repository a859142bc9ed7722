// The dense LCP assembly against an explicit double-precision J M^-1 J^T.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "solver/lcp/lanczos.h"
#include "solver/lcp/lcp_common.h"
#include "solver/lcp/lcp_omega.h"
#include "solver/lcp/row_operator_probe.h"
#include "solver/rigid/assembly.h"
#include "solver/rigid/islands.h"
#include "solver/rigid/world.h"
#include "support/executor.h"
#include "support/lcp_stall.h"
#include "support/seed.h"

namespace ww::rigid {
namespace {

struct RandomScene {
    std::vector<BodyDesc> descs;  ///< what each body was made from (the test's own mass data)
    std::vector<Body> bodies;
    std::vector<Contact> contacts;
};

/// speed scales the random velocities (1: up to 1 m/s and 1 rad/s per component).
RandomScene makeRandomScene(unsigned seed, int nBodies, int nContacts, float speed = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_real_distribution<float> pos(0.2f, 2.0f);
    std::normal_distribution<float> g;
    RandomScene s;
    BodyDesc plane;
    plane.kind = BodyKind::kPlane;
    plane.massKg = 0.0f;
    s.descs.push_back(plane);
    s.bodies.push_back(makeBody(plane));
    for (int i = 0; i < nBodies; ++i) {
        BodyDesc d;
        d.kind = i % 4 == 3 ? BodyKind::kSphere : BodyKind::kBox;
        d.position = {u(rng) * 3, pos(rng), u(rng) * 3};
        d.orientation = normalize(Quat{g(rng), g(rng), g(rng), g(rng)});
        d.halfExtents = {pos(rng) * 0.5f, pos(rng) * 0.5f, pos(rng) * 0.5f};
        d.radius = pos(rng) * 0.3f;
        d.massKg = pos(rng) * 3;
        d.linearVelocity = Vec3{u(rng), u(rng), u(rng)} * speed;
        d.angularVelocity = Vec3{u(rng), u(rng), u(rng)} * speed;
        s.descs.push_back(d);
        s.bodies.push_back(makeBody(d));
    }
    std::uniform_int_distribution<int> pick(0, nBodies);
    for (int k = 0; k < nContacts; ++k) {
        Contact c;
        c.bodyA = 1 + pick(rng) % nBodies;
        do {
            c.bodyB = pick(rng);
        } while (c.bodyB == c.bodyA);
        c.point = {u(rng) * 3, pos(rng), u(rng) * 3};
        c.normal = normalize(Vec3{u(rng), u(rng), u(rng)});
        tangentBasis(c.normal, c.tangent1, c.tangent2);
        c.separation = u(rng) * 0.02f;
        c.impulse[0] = pos(rng);
        s.contacts.push_back(c);
    }
    return s;
}

// A holds sums of products of float terms: float rounding gives relative errors ~1e-6 of the
// largest term, and the terms of A_ij can be far larger than A_ij itself (lever arms of metres
// times the inverse inertia of a 0.2 m box, cancelling: seed 1789030995 has A_ij = -2.4 off by
// 1.4e-4). By Cauchy-Schwarz in the M^-1 inner product the terms of A_ij are bounded by
// sqrt(A_ii A_jj), so each entry is compared within 1e-4 + 1e-5 sqrt(A_ii A_jj), while any wrong
// sign, lever arm or inertia entry is off by O(1). (MatchesAHandWrittenJacobianAndMassMatrix
// below checks A against an independent reference with each term's magnitude.)
double entryTolerance(const std::vector<double>& a, int n, std::size_t k) {
    const auto row = k / static_cast<std::size_t>(n);
    const auto col = k % static_cast<std::size_t>(n);
    const auto un = static_cast<std::size_t>(n);
    return 1e-4 + 1e-5 * std::sqrt(std::fabs(a[row * un + row] * a[col * un + col]));
}

TEST(Assembly, DenseMatrixAndRhsMatchDoubleReference) {
    for (unsigned seed : {7u, 1789030995u, static_cast<unsigned>(ww::test::freshSeed())}) {
        const RandomScene s = makeRandomScene(seed, 12, 30);
        std::vector<RowJacobian> jac;
        computeJacobians(s.bodies, s.contacts, jac);
        std::vector<int> ids(s.contacts.size());
        std::iota(ids.begin(), ids.end(), 0);
        AssemblyParams p;
        p.restitution = 0.3f;
        p.cfm = 1e-3f;
        lcp::LcpProblem prob;
        std::vector<float> guess(3 * ids.size());
        ContactAssembler assembler;
        assembler.assemble(s.bodies, s.contacts, jac, ids, p, prob, guess);
        std::vector<double> aRef, bRef;
        assembleReference(s.bodies, s.contacts, ids, p, aRef, bRef);
        ASSERT_EQ(prob.n, static_cast<int>(3 * ids.size()));
        EXPECT_TRUE(prob.validate().empty()) << prob.validate();
        for (std::size_t i = 0; i < aRef.size(); ++i) {
            ASSERT_NEAR(prob.a[i], aRef[i], entryTolerance(aRef, prob.n, i))
                << "seed " << seed << " entry " << i;
        }
        for (int i = 0; i < prob.n; ++i) {
            ASSERT_NEAR(prob.b[i], bRef[i], 1e-4 + 1e-5 * std::fabs(bRef[i]))
                << "seed " << seed << " row " << i;
            EXPECT_EQ(guess[i], s.contacts[i / 3].impulse[i % 3]);
        }
        // A sub-block (every other contact) is the same rows and columns of the full matrix
        // minus the couplings to rows left out: check it against its own reference.
        std::vector<int> sub;
        for (int k = 0; k < static_cast<int>(ids.size()); k += 2) {
            sub.push_back(k);
        }
        assembler.assemble(s.bodies, s.contacts, jac, sub, p, prob,
                           std::span<float>(guess).first(3 * sub.size()));
        assembleReference(s.bodies, s.contacts, sub, p, aRef, bRef);
        for (std::size_t i = 0; i < aRef.size(); ++i) {
            ASSERT_NEAR(prob.a[i], aRef[i], entryTolerance(aRef, prob.n, i))
                << "seed " << seed << " sub-block entry " << i;
        }
    }
}

// ---- a reference written out in the test ---------------------------------------------------
// Independent of assembly.cpp and body.cpp: the mass matrix comes from each body's description
// (mass, box size or radius, orientation), J from the contact frames, all in double.

Eigen::Vector3d toEigen(const Vec3& v) {
    return {v.x, v.y, v.z};
}

/// R of the unit quaternion q = (w, x, y, z) (body to world).
Eigen::Matrix3d rotationOf(const Quat& q) {
    const Eigen::Vector4d n = Eigen::Vector4d(q.w, q.x, q.y, q.z).normalized();
    const double w = n[0], x = n[1], y = n[2], z = n[3];
    Eigen::Matrix3d r;
    r << 1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),  //
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),   //
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y);
    return r;
}

/// The 6x6 inverse mass matrix diag(1/m I3, R I^-1 R^T) of a body description; zero when static.
/// A solid box of sides a, b, c: I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2); a solid sphere:
/// I = 2/5 m r^2.
Eigen::Matrix<double, 6, 6> inverseMassOf(const BodyDesc& d) {
    Eigen::Matrix<double, 6, 6> minv = Eigen::Matrix<double, 6, 6>::Zero();
    if (d.kind == BodyKind::kPlane || d.massKg <= 0.0f) {
        return minv;
    }
    const double m = d.massKg;
    Eigen::Vector3d inertia;
    if (d.kind == BodyKind::kBox) {
        const Eigen::Vector3d side = 2.0 * toEigen(d.halfExtents);
        inertia << m / 12 * (side.y() * side.y() + side.z() * side.z()),
            m / 12 * (side.x() * side.x() + side.z() * side.z()),
            m / 12 * (side.x() * side.x() + side.y() * side.y());
    } else {
        inertia.setConstant(0.4 * m * double(d.radius) * d.radius);
    }
    const Eigen::Matrix3d r = rotationOf(d.orientation);
    minv.topLeftCorner<3, 3>() = Eigen::Matrix3d::Identity() / m;
    minv.bottomRightCorner<3, 3>() = r * inertia.cwiseInverse().asDiagonal() * r.transpose();
    return minv;
}

struct HandAssembled {
    Eigen::MatrixXd a;
    Eigen::VectorXd b;
    Eigen::MatrixXd aScale;  ///< the size of the terms summed into A (see minvScale)
    Eigen::VectorXd bScale;  ///< |J| |v + dt g| + |bias|
    int speculative = 0, penetrating = 0, bouncing = 0;  ///< normal rows per bias case
};

/// A = J M^-1 J^T + cfm I and b = J (v + dt g) + bias (normal rows), the equations of
/// assembly.h: rows (n, t1, t2) per contact, J = [d, r_a x d] on body a and [-d, -(r_b x d)] on
/// body b; static bodies contribute nothing (zero M^-1 and no velocity or gravity).
HandAssembled handAssemble(const RandomScene& s, std::span<const int> ids,
                           const AssemblyParams& p) {
    const int nb = static_cast<int>(s.descs.size());
    const int n = 3 * static_cast<int>(ids.size());
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n, 6 * nb);
    Eigen::MatrixXd minv = Eigen::MatrixXd::Zero(6 * nb, 6 * nb);
    // Float rounds every entry of R I^-1 R^T to ~eps times its largest eigenvalue, not its own
    // size: the scale of the terms takes that eigenvalue for all nine entries.
    Eigen::MatrixXd minvScale = Eigen::MatrixXd::Zero(6 * nb, 6 * nb);
    Eigen::VectorXd v = Eigen::VectorXd::Zero(6 * nb);   // velocities before the step
    Eigen::VectorXd vg = Eigen::VectorXd::Zero(6 * nb);  // ... plus dt g
    for (int k = 0; k < nb; ++k) {
        const BodyDesc& d = s.descs[static_cast<std::size_t>(k)];
        minv.block<6, 6>(6 * k, 6 * k) = inverseMassOf(d);
        minvScale.block<3, 3>(6 * k, 6 * k) = minv.block<3, 3>(6 * k, 6 * k);
        minvScale.block<3, 3>(6 * k + 3, 6 * k + 3)
            .setConstant(minv.block<3, 3>(6 * k + 3, 6 * k + 3).cwiseAbs().maxCoeff());
        if (d.kind != BodyKind::kPlane && d.massKg > 0.0f) {
            v.segment<3>(6 * k) = toEigen(d.linearVelocity);
            v.segment<3>(6 * k + 3) = toEigen(d.angularVelocity);
            vg.segment<3>(6 * k) = toEigen(d.linearVelocity) + p.dt * toEigen(p.gravity);
            vg.segment<3>(6 * k + 3) = toEigen(d.angularVelocity);
        }
    }
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const Contact& c = s.contacts[static_cast<std::size_t>(ids[k])];
        const Vec3 dirs[3] = {c.normal, c.tangent1, c.tangent2};
        for (int r = 0; r < 3; ++r) {
            const int row = 3 * static_cast<int>(k) + r;
            const Eigen::Vector3d dir = toEigen(dirs[r]);
            const Eigen::Vector3d ra = toEigen(c.point) - toEigen(s.descs[c.bodyA].position);
            const Eigen::Vector3d rb = toEigen(c.point) - toEigen(s.descs[c.bodyB].position);
            j.block<1, 3>(row, 6 * c.bodyA) += dir.transpose();
            j.block<1, 3>(row, 6 * c.bodyA + 3) += ra.cross(dir).transpose();
            j.block<1, 3>(row, 6 * c.bodyB) -= dir.transpose();
            j.block<1, 3>(row, 6 * c.bodyB + 3) -= rb.cross(dir).transpose();
        }
    }
    HandAssembled out;
    out.a = j * minv * j.transpose() + p.cfm * Eigen::MatrixXd::Identity(n, n);
    out.b = j * vg;
    out.aScale = j.cwiseAbs() * minvScale * j.cwiseAbs().transpose();
    out.bScale = j.cwiseAbs() * vg.cwiseAbs();
    const Eigen::VectorXd speed = j * v;  // relative speeds along each row before the step
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const Contact& c = s.contacts[static_cast<std::size_t>(ids[k])];
        const double vn = speed[3 * static_cast<int>(k)];
        const double sep = c.separation;
        const bool bounce = p.restitution > 0.0f && vn < -p.restitutionThreshold;
        double bias = 0.0;
        if (sep > 0.0) {
            const bool hit = bounce && sep + vn * p.dt < 0.0;
            bias = hit ? p.restitution * vn : sep / p.dt;
            ++(hit ? out.bouncing : out.speculative);
        } else {
            bias = -std::min(p.erp / p.dt * std::max(-sep - p.slop, 0.0),
                             double(p.maxCorrectionSpeed)) +
                   (bounce ? p.restitution * vn : 0.0);
            ++out.penetrating;
            out.bouncing += bounce ? 1 : 0;
        }
        out.b[3 * static_cast<int>(k)] += bias;
        out.bScale[3 * static_cast<int>(k)] += std::fabs(bias);
    }
    return out;
}

// The production assembler against the hand-written J M^-1 J^T on random bodies (boxes and
// spheres, random orientations, masses and velocities) and contacts (random points, normals,
// separations in +-2 cm), the whole block and a sub-block. The production code rounds every
// product and the inertia tensor R I^-1 R^T to float (~6e-8 relative each), and an entry of A
// sums up to 2 x 36 of them, some large (lever arms of several metres times the inverse inertia
// of a 0.2 m box) and cancelling; so each entry is compared within 1e-5 of the sum of its terms'
// magnitudes (aScale, bScale) plus 1e-6 (entries of rows with no body in common are exactly 0):
// float rounding stays 12x below it (measured over 600 fresh scenes: up to 8e-7 of the scale in
// A, 2.3e-7 in b), while a wrong sign, lever arm, inertia axis or bias case is off by O(1).
TEST(Assembly, MatchesAHandWrittenJacobianAndMassMatrix) {
    int speculative = 0, penetrating = 0, bouncing = 0;
    for (unsigned seed : {5u, static_cast<unsigned>(ww::test::freshSeed())}) {
        // Speeds up to 4 m/s: some impacts exceed the 1 m/s restitution threshold.
        const RandomScene s = makeRandomScene(seed, 14, 40, 4.0f);
        std::vector<RowJacobian> jac;
        computeJacobians(s.bodies, s.contacts, jac);
        AssemblyParams p;
        p.restitution = 0.4f;
        p.cfm = 1e-3f;
        p.erp = 0.3f;
        std::vector<int> all(s.contacts.size());
        std::iota(all.begin(), all.end(), 0);
        std::vector<int> sub;  // every third contact, in reverse order
        for (int k = static_cast<int>(all.size()) - 1; k >= 0; k -= 3) {
            sub.push_back(k);
        }
        ContactAssembler assembler;
        for (const std::vector<int>* ids : {&all, &sub}) {
            const std::string what =
                "seed " + std::to_string(seed) + (ids == &all ? " all contacts" : " sub-block");
            lcp::LcpProblem prob;
            std::vector<float> guess(3 * ids->size());
            assembler.assemble(s.bodies, s.contacts, jac, *ids, p, prob, guess);
            const HandAssembled ref = handAssemble(s, *ids, p);
            ASSERT_EQ(prob.n, ref.b.size()) << what;
            for (int r = 0; r < prob.n; ++r) {
                for (int c = 0; c < prob.n; ++c) {
                    ASSERT_NEAR(prob.a[static_cast<std::size_t>(r) * prob.n + c], ref.a(r, c),
                                1e-6 + 1e-5 * ref.aScale(r, c))
                        << what << " A(" << r << ", " << c << ")";
                }
                ASSERT_NEAR(prob.b[r], ref.b[r], 1e-6 + 1e-5 * ref.bScale[r])
                    << what << " b(" << r << ")";
            }
            if (ids == &all) {
                speculative += ref.speculative;
                penetrating += ref.penetrating;
                bouncing += ref.bouncing;
            }
        }
    }
    // Every bias case was compared (the fixed seed alone covers them).
    EXPECT_GT(speculative, 0);
    EXPECT_GT(penetrating, 0);
    EXPECT_GT(bouncing, 0);
}

// The Lanczos estimate of lambda_max(D^-1 A) that sets Jacobi's omega, against the largest
// eigenvalue of D^-1/2 A D^-1/2 from Eigen's dense symmetric solver (double). The estimate is
// the top Ritz value: below the true value at every step count (up to float rounding of the
// O(rows) products: 1e-4 relative) and non-decreasing in it; after 200 steps within 2 %. After
// the kLambdaSteps (12) the world uses, what matters is that its omega is safe: it takes
// lambda = 1.03 x the estimate and omega = omegaSafety (0.85) x 2 / lambda, so
// omega * lambda_max < 2 needs the estimate above 0.85 / 1.03 = 0.825 of the true value. Over
// seeds 1000-5999 the 12-step estimate fell to 0.929 of the true value (1 % below 0.998); the
// power iteration it replaced fell to 0.795 after 20 products (3 % of scenes below 0.9), with
// a margin of 1.1.
TEST(Assembly, LambdaMaxEstimateMatchesDenseEigenvalue) {
    for (unsigned seed : {11u, 3926u, static_cast<unsigned>(ww::test::freshSeed())}) {
        const RandomScene s = makeRandomScene(seed, 10, 25);
        std::vector<RowJacobian> jac;
        computeJacobians(s.bodies, s.contacts, jac);
        std::vector<int> ids(s.contacts.size());
        std::iota(ids.begin(), ids.end(), 0);
        AssemblyParams p;
        std::vector<double> a, b;
        assembleReference(s.bodies, s.contacts, ids, p, a, b);
        const int n = static_cast<int>(b.size());
        Eigen::MatrixXd sym(n, n);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                sym(i, j) = a[i * n + j] / std::sqrt(a[i * n + i] * a[j * n + j]);
            }
        }
        const double exact =
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sym).eigenvalues().maxCoeff();
        JacobianLanczosScratch scratch;
        float previous = 0.0f;
        for (int iterations : {1, 2, 3, 5, 10, 20, 50, 200}) {
            const float estimate = estimateLambdaMax(s.contacts, jac, 0.0f, iterations, scratch);
            EXPECT_LE(estimate, exact * (1 + 1e-4)) << "seed " << seed << ", " << iterations;
            EXPECT_GE(estimate, previous) << "seed " << seed << ", " << iterations;
            previous = estimate;
        }
        const float many = estimateLambdaMax(s.contacts, jac, 0.0f, 200, scratch);
        const float few = estimateLambdaMax(s.contacts, jac, 0.0f, kLambdaSteps, scratch);
        EXPECT_NEAR(many, exact, 0.02 * exact) << "seed " << seed;
        const float omega = WorldParams{}.omegaSafety * 2.0f / (kLambdaEstimateMargin * few);
        EXPECT_LT(omega * exact, 2.0)
            << "seed " << seed << ": " << kLambdaSteps << " steps give " << few << " of " << exact;
    }
}

TEST(Assembly, AppliedImpulseChangesVelocityByMinvJt) {
    // One box, one ground contact under a corner: a unit normal impulse changes the linear
    // velocity by n/m and the angular velocity by I^-1 (r x n).
    BodyDesc d;
    d.massKg = 2.0f;
    d.halfExtents = {0.5f, 0.25f, 1.0f};
    d.position = {0, 0.25f, 0};
    std::vector<Body> bodies{makeBody(d)};
    BodyDesc pl;
    pl.kind = BodyKind::kPlane;
    pl.massKg = 0;
    bodies.push_back(makeBody(pl));
    Contact c;
    c.bodyA = 0;
    c.bodyB = 1;
    c.point = {0.5f, 0.0f, 1.0f};
    c.normal = {0, 1, 0};
    tangentBasis(c.normal, c.tangent1, c.tangent2);
    std::vector<Contact> contacts{c};
    std::vector<RowJacobian> jac;
    computeJacobians(bodies, contacts, jac);
    const std::vector<int> ids{0};
    const std::vector<float> x{1.0f, 0.0f, 0.0f};
    applyImpulses(bodies, contacts, jac, ids, x);
    EXPECT_FLOAT_EQ(bodies[0].linearVelocity.y, 0.5f);
    // r = (0.5, -0.25, 1), r x n = (-1, 0, 0.5); I = m/3 (hy^2+hz^2, hx^2+hz^2, hx^2+hy^2).
    const float ix = 2.0f / 3.0f * (0.0625f + 1.0f);
    const float iz = 2.0f / 3.0f * (0.25f + 0.0625f);
    EXPECT_NEAR(bodies[0].angularVelocity.x, -1.0f / ix, 1e-6f);
    EXPECT_NEAR(bodies[0].angularVelocity.z, 0.5f / iz, 1e-6f);
    EXPECT_EQ(contacts[0].impulse[0], 1.0f);
}

TEST(Islands, GroupsContactsByConnectedBodiesIgnoringStaticOnes) {
    // Bodies 1-2-3 chained, 4-5 chained, all on the ground (0): two islands.
    std::vector<Body> bodies(6);
    bodies[0].invMass = 0.0f;
    for (int i = 1; i < 6; ++i) {
        bodies[i].invMass = 1.0f;
    }
    std::vector<Contact> contacts;
    const auto add = [&](int a, int b) {
        Contact c;
        c.bodyA = a;
        c.bodyB = b;
        contacts.push_back(c);
    };
    add(4, 0);
    add(1, 0);
    add(2, 1);
    add(5, 4);
    add(3, 2);
    add(3, 0);
    IslandBuilder ib;
    IslandSet set;
    ib.build(bodies, contacts, set);
    ASSERT_EQ(set.count(), 2);
    EXPECT_EQ(set.contactOrder, (std::vector<int>{1, 2, 4, 5, 0, 3}));
    EXPECT_EQ(set.islandStart, (std::vector<int>{0, 4, 6}));
}

// Random contact graphs against a reference: breadth-first components over the non-static
// bodies, islands in order of their smallest body, contacts ascending within an island. The
// contacts come in runs on one body pair (a manifold's points) and many pairs share their first
// body, so a union pass that skips anything but an exact repeat of the last pair loses links.
// Built serially and on the test executor (three threads): the same sets.
TEST(Islands, RandomGraphsMatchBreadthFirstComponents) {
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    // One builder of each kind for all the graphs, each graph built twice: a builder keeps its
    // last answer for the same input, and must never hand it out for another graph.
    IslandBuilder serialBuilder, threadedBuilder;
    for (int trial = 0; trial < 40; ++trial) {
        SCOPED_TRACE(::testing::Message() << "seed " << seed << " trial " << trial);
        const int n = 2 + static_cast<int>(rng() % 300);
        std::vector<Body> bodies(static_cast<std::size_t>(n));
        for (Body& b : bodies) {
            b.invMass = rng() % 5 == 0 ? 0.0f : 1.0f;  // a fifth static
        }
        std::vector<Contact> contacts;
        const int pairs = static_cast<int>(rng() % (2 * static_cast<unsigned>(n) + 1));
        for (int q = 0; q < pairs; ++q) {
            const int a = static_cast<int>(rng() % static_cast<unsigned>(n));
            int b = static_cast<int>(rng() % static_cast<unsigned>(n));
            if (b == a) {
                b = (a + 1) % n;
            }
            const int points = 1 + static_cast<int>(rng() % 4);
            for (int k = 0; k < points; ++k) {
                Contact c;
                c.bodyA = a;
                c.bodyB = b;
                contacts.push_back(c);
            }
        }
        // Reference components.
        std::vector<std::vector<int>> adj(static_cast<std::size_t>(n));
        for (const Contact& c : contacts) {
            if (!bodies[c.bodyA].isStatic() && !bodies[c.bodyB].isStatic()) {
                adj[c.bodyA].push_back(c.bodyB);
                adj[c.bodyB].push_back(c.bodyA);
            }
        }
        std::vector<int> smallest(static_cast<std::size_t>(n), -1);
        for (int s = 0; s < n; ++s) {
            if (smallest[s] >= 0) {
                continue;
            }
            std::vector<int> queue{s};
            smallest[s] = s;
            for (std::size_t h = 0; h < queue.size(); ++h) {
                for (const int t : adj[queue[h]]) {
                    if (smallest[t] < 0) {
                        smallest[t] = s;
                        queue.push_back(t);
                    }
                }
            }
        }
        std::vector<std::pair<int, int>> keyed;  // (component's smallest body, contact)
        for (int k = 0; k < static_cast<int>(contacts.size()); ++k) {
            const Contact& c = contacts[k];
            const int body = bodies[c.bodyA].isStatic() ? c.bodyB : c.bodyA;
            keyed.emplace_back(smallest[body], k);
        }
        std::sort(keyed.begin(), keyed.end());
        IslandSet expected;
        expected.islandStart.push_back(0);
        for (std::size_t k = 0; k < keyed.size(); ++k) {
            expected.contactOrder.push_back(keyed[k].second);
            if (k + 1 == keyed.size() || keyed[k + 1].first != keyed[k].first) {
                expected.islandStart.push_back(static_cast<int>(k) + 1);
            }
        }
        for (const exec::Executor* ex :
             {static_cast<const exec::Executor*>(nullptr), ww::test::executor().get()}) {
            IslandBuilder& ib = ex != nullptr ? threadedBuilder : serialBuilder;
            for (int again = 0; again < 2; ++again) {
                IslandSet set;
                ib.build(bodies, contacts, set, ex);
                EXPECT_EQ(set.contactOrder, expected.contactOrder) << (ex ? "executor" : "serial");
                EXPECT_EQ(set.islandStart, expected.islandStart) << (ex ? "executor" : "serial");
            }
            // The same contacts with one more body static: other islands, as a fresh builder
            // finds them.
            std::vector<Body> pinned = bodies;
            pinned[static_cast<std::size_t>(rng() % static_cast<unsigned>(n))].invMass = 0.0f;
            IslandSet kept, fresh;
            ib.build(pinned, contacts, kept, ex);
            IslandBuilder().build(pinned, contacts, fresh, ex);
            EXPECT_EQ(kept.contactOrder, fresh.contactOrder) << "one more body static";
            EXPECT_EQ(kept.islandStart, fresh.islandStart) << "one more body static";
        }
    }
}

// Random piles of random masses: several stacks side by side, each interface with 1-4 contact
// points whose normal points up or down (bodyA above or below), plus side contacts that carry
// nothing. The guessed normal impulses of an interface must sum to (mass at and above it) g dt,
// in double precision within float round-off; warm-started contacts keep their impulse.
TEST(RestingLoad, GuessHoldsEveryStackAtRest) {
    const unsigned seed = ww::test::freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mass(0.3f, 5.0f);
    std::uniform_int_distribution<int> points(1, 4), height(1, 12);
    const float dt = 1.0f / 60.0f;
    const Vec3 gravity{0.0f, -9.81f, 0.0f};
    std::vector<Body> bodies;
    BodyDesc ground;
    ground.kind = BodyKind::kPlane;
    ground.massKg = 0.0f;
    bodies.push_back(makeBody(ground));
    std::vector<Contact> contacts;
    struct Interface {
        std::vector<int> contactIds;
        double massAbove = 0.0;
    };
    std::vector<Interface> interfaces;
    int warmId = -1;
    for (int stack = 0; stack < 6; ++stack) {
        const int h = height(rng);
        std::vector<int> ids;
        std::vector<double> masses;
        for (int level = 0; level < h; ++level) {
            BodyDesc d;
            d.position = {2.0f * static_cast<float>(stack), 0.5f + static_cast<float>(level), 0.0f};
            d.massKg = mass(rng);
            ids.push_back(static_cast<int>(bodies.size()));
            masses.push_back(d.massKg);
            bodies.push_back(makeBody(d));
        }
        for (int level = 0; level < h; ++level) {
            Interface f;
            for (int k = level; k < h; ++k) {
                f.massAbove += masses[static_cast<std::size_t>(k)];
            }
            const int upper = ids[static_cast<std::size_t>(level)];
            const int lower = level == 0 ? 0 : ids[static_cast<std::size_t>(level - 1)];
            const int np = points(rng);
            for (int q = 0; q < np; ++q) {
                Contact c;
                const bool upperIsA = lower == 0 || rng() % 2 == 0;  // the ground is always b
                c.bodyA = upperIsA ? upper : lower;
                c.bodyB = upperIsA ? lower : upper;
                c.normal = upperIsA ? Vec3{0, 1, 0} : Vec3{0, -1, 0};
                tangentBasis(c.normal, c.tangent1, c.tangent2);
                f.contactIds.push_back(static_cast<int>(contacts.size()));
                contacts.push_back(c);
            }
            interfaces.push_back(f);
            if (level > 0) {  // a side contact to the neighbouring stack's body: no load
                Contact side;
                side.bodyA = upper;
                side.bodyB = lower;
                side.normal = {1, 0, 0};
                tangentBasis(side.normal, side.tangent1, side.tangent2);
                contacts.push_back(side);
            }
        }
    }
    // One contact was warm started: its impulse must be left alone (and it still carries
    // its share when the loads are handed down).
    warmId = interfaces.front().contactIds.front();
    contacts[static_cast<std::size_t>(warmId)].warmStarted = true;
    contacts[static_cast<std::size_t>(warmId)].impulse[0] = 123.0f;

    RestingLoadScratch scratch;
    const int guessed = guessRestingImpulses(bodies, contacts, gravity, dt, scratch);
    int supportContacts = 0;
    for (const Interface& f : interfaces) {
        supportContacts += static_cast<int>(f.contactIds.size());
    }
    EXPECT_EQ(guessed, supportContacts - 1) << "seed " << seed;
    for (const Interface& f : interfaces) {
        double sum = 0.0;
        for (int id : f.contactIds) {
            const Contact& c = contacts[static_cast<std::size_t>(id)];
            sum += id == warmId ? 0.0 : c.impulse[0];
            EXPECT_EQ(c.impulse[1], 0.0f);
        }
        const double expected =
            f.massAbove * 9.81 * dt *
            (f.contactIds.front() == warmId ? 1.0 - 1.0 / static_cast<double>(f.contactIds.size())
                                            : 1.0);
        EXPECT_NEAR(sum, expected, 1e-5 * expected + 1e-9) << "seed " << seed;
    }
    EXPECT_EQ(contacts[static_cast<std::size_t>(warmId)].impulse[0], 123.0f);
    for (const Contact& c : contacts) {
        if (c.normal.x != 0.0f) {
            EXPECT_EQ(c.impulse[0], 0.0f) << "side contacts carry no load";
        }
    }
}

// ---- the matrix-free operator ---------------------------------------------------------------

struct PosedPair {
    lcp::LcpProblem dense, matrixFree;
    std::vector<float> guess;
};

PosedPair poseBoth(const RandomScene& s, const AssemblyParams& p) {
    std::vector<RowJacobian> jac;
    computeJacobians(s.bodies, s.contacts, jac);
    std::vector<int> ids(s.contacts.size());
    std::iota(ids.begin(), ids.end(), 0);
    PosedPair out;
    out.guess.resize(3 * ids.size());
    std::vector<float> guess2(out.guess.size());
    ContactAssembler assembler;
    assembler.assemble(s.bodies, s.contacts, jac, ids, p, out.dense, out.guess);
    assembler.assembleMatrixFree(s.bodies, s.contacts, ids, p, out.matrixFree, guess2);
    EXPECT_EQ(out.guess, guess2);
    return out;
}

// Same tolerances as DenseMatrixAndRhsMatchDoubleReference (entryTolerance: relative to
// sqrt(A_ii A_jj), which bounds an entry's terms): the operator's entries are the same float
// products summed in another order. Relative to |A_ij| alone, entries that sum cancelling terms
// fail for about one seed in 400 (seed 1680819737, entry 7734: 2.34854 against 2.34881; seed
// 927366677, entry 1640: 11.86939 against 11.86911).
TEST(MatrixFree, OperatorIsTheDenseMatrixOfTheDoubleReference) {
    for (unsigned seed : {3u, static_cast<unsigned>(ww::test::freshSeed())}) {
        const RandomScene s = makeRandomScene(seed, 12, 30);
        AssemblyParams p;
        p.restitution = 0.3f;
        p.cfm = 1e-3f;
        const PosedPair q = poseBoth(s, p);
        ASSERT_TRUE(q.matrixFree.matrixFree());
        ASSERT_TRUE(q.matrixFree.a.empty());
        EXPECT_TRUE(q.matrixFree.validate().empty()) << q.matrixFree.validate();
        std::vector<double> aRef, bRef;
        std::vector<int> ids(s.contacts.size());
        std::iota(ids.begin(), ids.end(), 0);
        assembleReference(s.bodies, s.contacts, ids, p, aRef, bRef);
        const std::vector<float> a = lcp::denseFromRowOperator(q.matrixFree.op);
        ASSERT_EQ(a.size(), aRef.size());
        for (std::size_t i = 0; i < aRef.size(); ++i) {
            ASSERT_NEAR(a[i], aRef[i], entryTolerance(aRef, q.dense.n, i))
                << "seed " << seed << " entry " << i;
        }
        for (int i = 0; i < q.dense.n; ++i) {
            EXPECT_NEAR(q.matrixFree.diagonal(i), aRef[static_cast<std::size_t>(i) * q.dense.n + i],
                        1e-4 + 1e-5 * std::fabs(aRef[static_cast<std::size_t>(i) * q.dense.n + i]))
                << "seed " << seed << " row " << i;
        }
        EXPECT_EQ(q.matrixFree.b, q.dense.b);
        EXPECT_EQ(q.matrixFree.lo, q.dense.lo);
        EXPECT_EQ(q.matrixFree.hi, q.dense.hi);
        EXPECT_EQ(q.matrixFree.frictionNormal, q.dense.frictionNormal);
        EXPECT_EQ(q.matrixFree.mu, q.dense.mu);
        // A x on a random x, in double, against the reference matrix.
        std::mt19937 rng(seed);
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<float> x(static_cast<std::size_t>(q.dense.n));
        for (float& v : x) {
            v = u(rng);
        }
        std::vector<double> w;
        lcp::applyRowOperatorDouble(q.matrixFree.op, x, w);
        std::vector<float> wf(x.size()),
            scratch(6 * static_cast<std::size_t>(q.matrixFree.op.bodies()));
        q.matrixFree.op.apply(x.data(), scratch.data(), wf.data());
        for (int i = 0; i < q.dense.n; ++i) {
            double ref = 0.0, scale = 0.0;
            for (int j = 0; j < q.dense.n; ++j) {
                const double aij = aRef[static_cast<std::size_t>(i) * q.dense.n + j];
                ref += aij * x[static_cast<std::size_t>(j)];
                scale += std::fabs(aij);
            }
            EXPECT_NEAR(w[static_cast<std::size_t>(i)], ref, 1e-5 * (1.0 + scale)) << "row " << i;
            EXPECT_NEAR(wf[static_cast<std::size_t>(i)], ref, 1e-4 * (1.0 + scale)) << "row " << i;
        }
    }
}

// Each body slot's mass matrix (RowOperator::bodyMass, the Lanczos estimate's inner product)
// is W_b^-1: M_b K = J for every row side on the slot (K = W_b J^T), to float rounding. Then
// the world's estimate through the assembled operator: 60 body-space Lanczos steps reach the
// largest eigenvalue of D^-1/2 A D^-1/2 from Eigen's dense solver (double) within 2 % and do not
// exceed it; the warm start from the Ritz vector of the 12-step estimate stops within
// kLambdaSteps and keeps omega * lambda_max < 2 at the world's margins.
TEST(MatrixFree, BodyMassInvertsTheOperatorsInverseMassAndSetsLanczosRight) {
    for (unsigned seed : {17u, static_cast<unsigned>(ww::test::freshSeed())}) {
        const RandomScene s = makeRandomScene(seed, 12, 30);
        AssemblyParams p;
        const PosedPair q = poseBoth(s, p);
        const lcp::RowOperator& op = q.matrixFree.op;
        ASSERT_TRUE(op.hasBodyMasses());
        int checked = 0;
        for (int i = 0; i < op.rows(); ++i) {
            for (int side = 0; side < 2; ++side) {
                const std::int32_t b = op.body(i, side);
                if (b < 0) {
                    continue;
                }
                const float* m = op.bodyMass(b).data();
                const std::size_t at = 6 * static_cast<std::size_t>(side);
                const float* k = op.weighted(i).data() + at;
                const float* j = op.jacobian(i).data() + at;
                const double inertia[3][3] = {
                    {m[1], m[2], m[3]}, {m[2], m[4], m[5]}, {m[3], m[5], m[6]}};
                for (int c = 0; c < 3; ++c) {
                    EXPECT_NEAR(m[0] * k[c], j[c], 1e-5 * (1.0 + std::fabs(j[c])))
                        << "seed " << seed << " row " << i << " side " << side;
                    const double mk =
                        inertia[c][0] * k[3] + inertia[c][1] * k[4] + inertia[c][2] * k[5];
                    EXPECT_NEAR(mk, j[3 + c], 1e-4 * (1.0 + std::fabs(j[3 + c])))
                        << "seed " << seed << " row " << i << " side " << side;
                }
                ++checked;
            }
        }
        EXPECT_GT(checked, op.rows());
        std::vector<double> aRef, bRef;
        std::vector<int> ids(s.contacts.size());
        std::iota(ids.begin(), ids.end(), 0);
        assembleReference(s.bodies, s.contacts, ids, p, aRef, bRef);
        const int n = static_cast<int>(bRef.size());
        Eigen::MatrixXd sym(n, n);
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                sym(i, j) = aRef[static_cast<std::size_t>(i * n + j)] /
                            std::sqrt(aRef[static_cast<std::size_t>(i * n + i)] *
                                      aRef[static_cast<std::size_t>(j * n + j)]);
            }
        }
        const double exact =
            Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(sym).eigenvalues().maxCoeff();
        lcp::LanczosScratch scratch;
        const float many = lcp::lanczosLambdaMax(op, 60, scratch);
        EXPECT_LE(many, exact * (1 + 1e-4)) << "seed " << seed;
        EXPECT_NEAR(many, exact, 0.02 * exact) << "seed " << seed;
        lcp::LanczosOptions cold;
        cold.ritzVector = true;
        const float twelve = lcp::lanczosLambdaMax(op, cold, scratch).lambda;
        const std::vector<float> ritz = scratch.ritz;
        lcp::LanczosOptions warm;
        warm.minSteps = kLambdaMinSteps;
        warm.stopRise = kLambdaStopRise;
        warm.start = ritz;
        const lcp::LanczosResult r = lcp::lanczosLambdaMax(op, warm, scratch);
        EXPECT_LE(r.steps, kLambdaSteps);
        EXPECT_LE(r.lambda, exact * (1 + 1e-4)) << "seed " << seed;
        for (const float estimate : {twelve, r.lambda}) {
            const float omega =
                WorldParams{}.omegaSafety * 2.0f / (kLambdaEstimateMargin * estimate);
            EXPECT_LT(omega * exact, 2.0) << "seed " << seed << ": " << estimate << " of " << exact;
        }
    }
}

TEST(MatrixFree, StaleOrBrokenOperatorIsRejected) {
    const RandomScene s = makeRandomScene(5u, 6, 10);
    PosedPair q = poseBoth(s, AssemblyParams{});
    lcp::LcpProblem bad = q.matrixFree;
    bad.op.setBodies(0, bad.op.bodies(), bad.op.body(0, 1));  // a body slot out of range
    EXPECT_NE(bad.validate().find("names body"), std::string::npos) << bad.validate();
    bad = q.matrixFree;
    // A row moved to another body after buildBodyIndex: the index is stale until rebuilt.
    const int row = bad.n / 2;
    bad.op.setBodies(row, bad.op.body(row, 0) == 0 ? 1 : 0, bad.op.body(row, 1));
    EXPECT_NE(bad.validate().find("stale"), std::string::npos) << bad.validate();
    bad.op.buildBodyIndex();
    EXPECT_EQ(bad.validate(), "");
    bad = q.matrixFree;
    lcp::RowOperatorProbe::bodyEntries(bad.op).pop_back();  // index no longer matches
    EXPECT_NE(bad.validate().find("stale"), std::string::npos) << bad.validate();
    bad = q.matrixFree;
    std::vector<std::int32_t>& start = lcp::RowOperatorProbe::bodyStart(bad.op);
    start[1] = start.back() + 5;  // offsets no longer ascending
    EXPECT_NE(bad.validate().find("stale"), std::string::npos) << bad.validate();
    bad = q.matrixFree;
    bad.a = q.dense.a;  // both forms at once
    EXPECT_NE(bad.validate().find("both"), std::string::npos) << bad.validate();
    auto solver = lcp::makeCpuLcpSolver(test::executor());
    std::vector<float> x = q.guess;
    bad = q.matrixFree;
    bad.op.setBodies(0, bad.op.bodies(), bad.op.body(0, 1));
    const lcp::LcpReport r = solver->solve(bad, x, lcp::LcpOptions{});
    EXPECT_EQ(r.status, lcp::LcpStatus::kDiverged);
    EXPECT_FALSE(r.error.empty());
    EXPECT_EQ(x, q.guess) << "a rejected problem must leave x untouched";
}

// The matrix-free assembly without rows (AssemblyParams::operatorRows false: the operator built
// in the contact form from each group's rows as they are made) poses the problem the assembly
// with rows poses: the same b, bounds, guess and shock-pass bias, and an operator with the same
// diagonals and products, bit for bit, with 0-7 contacts after the last group of eight; only the
// rows of the groups are not held (hasRows false). Fewer than eight contacts have no group:
// every row is written. A contact whose frame is not orthonormal (its normal 1 % long), in a
// group or after the last one, is not of the contact form: that block is posed from its rows,
// as with operatorRows (hasRows true, the same products).
TEST(MatrixFree, AssemblyWithoutRowsIsTheRowsAssemblyBitForBit) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    const auto bits = [](const std::vector<float>& a, const std::vector<float>& b) {
        return a.size() == b.size() &&
               std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
                   return std::bit_cast<std::uint32_t>(x) == std::bit_cast<std::uint32_t>(y);
               });
    };
    for (const int count : {5, 30, 61}) {
        for (const int stretched : {-1, 3, count - 2}) {
            SCOPED_TRACE(std::to_string(count) + " contacts, stretched " +
                         std::to_string(stretched));
            RandomScene s = makeRandomScene(seed + static_cast<unsigned>(count), 12, count);
            if (stretched >= 0) {
                s.contacts[static_cast<std::size_t>(stretched)].normal *= 1.01f;
            }
            std::vector<int> ids(s.contacts.size());
            std::iota(ids.begin(), ids.end(), 0);
            AssemblyParams p;
            p.restitution = 0.3f;
            p.cfm = 1e-3f;
            lcp::LcpProblem withRows, without;
            std::vector<float> guessRows(3 * ids.size()), guessWithout(3 * ids.size());
            std::vector<float> biasRows(3 * ids.size()), biasWithout(3 * ids.size());
            ContactAssembler assembler;
            assembler.setRowBiasOutput(biasRows);
            assembler.assembleMatrixFree(s.bodies, s.contacts, ids, p, withRows, guessRows,
                                         test::executor().get());
            p.operatorRows = false;
            assembler.setRowBiasOutput(biasWithout);
            assembler.assembleMatrixFree(s.bodies, s.contacts, ids, p, without, guessWithout,
                                         test::executor().get());
#if defined(__AVX2__) && defined(__FMA__)
            const bool groups = count >= lcp::RowOperator::kTripleGroup;
#else
            const bool groups = false;  // without AVX2 every row is written
#endif
            EXPECT_EQ(without.op.hasRows(), !groups || stretched >= 0);
            EXPECT_TRUE(withRows.op.hasRows());
            EXPECT_EQ(without.op.contactForm(), withRows.op.contactForm());
            EXPECT_EQ(withRows.op.contactForm(), stretched < 0);
            EXPECT_EQ(without.validate(), "");
            EXPECT_TRUE(bits(without.b, withRows.b));
            EXPECT_TRUE(bits(guessWithout, guessRows));
            EXPECT_TRUE(bits(biasWithout, biasRows));
            EXPECT_EQ(without.lo, withRows.lo);
            EXPECT_EQ(without.mu, withRows.mu);
            EXPECT_EQ(without.frictionNormal, withRows.frictionNormal);
            std::vector<float> dWithout, dRows;
            for (int i = 0; i < withRows.n; ++i) {
                dWithout.push_back(without.op.diagonal(i));
                dRows.push_back(withRows.op.diagonal(i));
            }
            EXPECT_TRUE(bits(dWithout, dRows));
            std::mt19937 rng(seed);
            std::uniform_real_distribution<float> u(-1.0f, 1.0f);
            std::vector<float> x(static_cast<std::size_t>(withRows.n));
            for (float& v : x) {
                v = u(rng);
            }
            const auto bodyFloats =
                static_cast<std::size_t>(lcp::RowOperator::kBodyFloats * withRows.op.bodies());
            std::vector<float> uA(bodyFloats), wA(x.size()), uB(bodyFloats), wB(x.size());
            withRows.op.apply(x.data(), uA.data(), wA.data());
            without.op.apply(x.data(), uB.data(), wB.data());
            EXPECT_TRUE(bits(uB, uA));
            EXPECT_TRUE(bits(wB, wA));
        }
    }
}

// Dense and matrix-free projected Jacobi run the same iteration; their products differ only in
// float summation order (~1e-6 relative). The iteration map (clamps, disc projections, an
// omega below 2 / lambda_max) is non-expansive in the D-norm, so those differences do not
// grow beyond a few times the per-product rounding: after 40 iterations the iterates agree to
// 2e-4 of the impulse scale (measured over fresh seeds: below 2e-6), where a wrong coupling,
// sign or diagonal is off by O(1). With Chebyshev the restart rule is a discrete decision on
// residuals that differ by rounding: where it restarts one solve and not the other (about one
// seed in 40) the iterates part for good (1e-2 measured), so there the residual histories are
// compared up to the parting and x is not.
TEST(MatrixFree, JacobiIteratesMatchTheDensePath) {
    for (unsigned seed : {17u, static_cast<unsigned>(ww::test::freshSeed())}) {
        const RandomScene s = makeRandomScene(seed, 16, 48);
        AssemblyParams p;
        p.cfm = 1e-4f;
        const PosedPair q = poseBoth(s, p);
        for (bool chebyshev : {false, true}) {
            for (lcp::FrictionCone cone : {lcp::FrictionCone::kDisc, lcp::FrictionCone::kBox}) {
                lcp::LcpProblem dense = q.dense;
                lcp::LcpProblem mf = q.matrixFree;
                dense.cone = mf.cone = cone;
                lcp::LcpOptions o;
                o.omega = lcp::autoOmega(dense, lcp::LcpMethod::kJacobi, 50).omega;
                o.maxIterations = 40;
                o.tolerance = 0.0f;
                o.chebyshevRho = chebyshev ? 0.9f : 0.0f;
                o.recordHistory = true;
                auto solver = lcp::makeCpuLcpSolver(test::executor());
                std::vector<float> xd = q.guess, xm = q.guess;
                const lcp::LcpReport rd = solver->solve(dense, xd, o);
                const lcp::LcpReport rm = solver->solve(mf, xm, o);
                ASSERT_TRUE(rd.error.empty() && rm.error.empty()) << rd.error << rm.error;
                EXPECT_EQ(rd.iterations, rm.iterations);
                ASSERT_EQ(rd.history.size(), rm.history.size());
                // Where the two solves' Chebyshev restarts part (never without Chebyshev).
                std::size_t parted = rd.history.size();
                for (std::size_t t = 2; chebyshev && t < rd.history.size(); ++t) {
                    const int it = static_cast<int>(t);
                    if (lcp::chebyshevStart(it, 0, rd.history[t - 1], rd.history[t - 2]) !=
                        lcp::chebyshevStart(it, 0, rm.history[t - 1], rm.history[t - 2])) {
                        parted = t;
                        break;
                    }
                }
                ASSERT_TRUE(chebyshev || parted == rd.history.size());
                // The residuals agree to 1e-3 of their own size, plus rounding at the largest
                // residual so far: the two products' rounding (~eps of the terms) at that scale is
                // carried on by the iteration, so where the residual drops far below it (seed
                // 1010448405: from 1.0e4 at the start to 2.9 at iterate 32, 4.5e-3 apart) the
                // difference is a fraction of that scale, not of the residual. Measured over 3000
                // fresh seeds: up to 1.7e-5 of the largest residual so far (40 iterates of ~eps,
                // Chebyshev's weights up to 1.4); 1e-4 of it allowed. A wrong coupling, sign or
                // diagonal is off by O(1) of the residual from the first iterate on.
                float largest = 0.0f;
                for (std::size_t t = 0; t < parted; ++t) {
                    largest = std::max(largest, rd.history[t]);
                    ASSERT_NEAR(rm.history[t], rd.history[t],
                                1e-3f * (1.0f + rd.history[t]) + 1e-4f * largest)
                        << "seed " << seed << " iterate " << t << " chebyshev " << chebyshev;
                }
                if (parted < rd.history.size()) {
                    continue;
                }
                float scale = 1.0f;
                for (float v : xd) {
                    scale = std::max(scale, std::fabs(v));
                }
                for (std::size_t i = 0; i < xd.size(); ++i) {
                    ASSERT_NEAR(xm[i], xd[i], 2e-4f * scale)
                        << "seed " << seed << " row " << i << " chebyshev " << chebyshev;
                }
                EXPECT_NEAR(rm.residual, rd.residual, 1e-3 * (1.0 + rd.residual) + 1e-4 * largest);
            }
        }
    }
}

// max_i sum_j |A_ij x_j| + |b_i|, in double, from the dense matrix.
double rowMagnitude(const lcp::LcpProblem& p, std::span<const float> x) {
    double scale = 0.0;
    for (int i = 0; i < p.n; ++i) {
        double row = std::fabs(p.b[static_cast<std::size_t>(i)]);
        for (int j = 0; j < p.n; ++j) {
            row += std::fabs(static_cast<double>(p.a[static_cast<std::size_t>(i) * p.n + j]) *
                             x[static_cast<std::size_t>(j)]);
        }
        scale = std::max(scale, row);
    }
    return scale;
}

// Converged matrix-free solutions are solutions: the double-precision natural-map residual of
// the matrix-free problem and of the dense one (the reference product) stays at the tolerance
// (float rounding of the stopping test allows 2x), for Jacobi and Gauss-Seidel. Random contact
// frames with friction need not converge under Jacobi (a friction LCP is not monotone); this
// one is frictionless. Badly scaled rows can stall the float iteration above the tolerance
// (test::stallFloor): then the residual must be at that floor.
TEST(MatrixFree, ConvergedSolutionsSolveTheDenseProblem) {
    for (unsigned seed : {23u, 1876257479u, static_cast<unsigned>(ww::test::freshSeed())}) {
        RandomScene s = makeRandomScene(seed, 10, 24);
        AssemblyParams p;
        p.cfm = 1e-3f;      // a positive definite A ...
        p.friction = 0.0f;  // ... and no friction: both methods provably converge
        const PosedPair q = poseBoth(s, p);
        for (lcp::LcpMethod m : {lcp::LcpMethod::kJacobi, lcp::LcpMethod::kGaussSeidel}) {
            lcp::LcpOptions o;
            o.method = m;
            o.omega = m == lcp::LcpMethod::kJacobi ? lcp::autoOmega(q.dense, m, 50).omega
                                                   : lcp::kGaussSeidelOmega;
            o.maxIterations = 200000;
            o.tolerance = 1e-5f;
            auto solver = lcp::makeCpuLcpSolver(test::executor());
            std::vector<float> x = q.guess;
            const lcp::LcpReport r = solver->solve(q.matrixFree, x, o);
            const double floor =
                std::max(static_cast<double>(o.tolerance), test::stallFloor(q.dense, x, o.omega));
            ASSERT_TRUE(r.status == lcp::LcpStatus::kConverged || r.residual <= floor)
                << "seed " << seed << " " << lcp::toString(m) << " residual " << r.residual
                << " float floor " << floor;
            EXPECT_LE(lcp::naturalResidual(q.matrixFree, x), 2 * floor) << "seed " << seed;
            // The dense A is J M^-1 J^T rounded to float entry by entry; the matrix-free product
            // rounds other partial sums, so the two w differ by a few float ulps of the row
            // magnitudes sum_j |A_ij x_j| + |b_i|.
            EXPECT_LE(
                lcp::naturalResidual(q.dense, x),
                2 * floor + 2 * std::numeric_limits<float>::epsilon() * rowMagnitude(q.dense, x))
                << "seed " << seed;
        }
    }
}

// Gauss-Seidel keeps u = M^-1 J^T x current row by row (the sequential-impulse form); one
// sweep from the same x equals the dense sweep up to float rounding (same argument and
// tolerance as the Jacobi test).
TEST(MatrixFree, GaussSeidelSweepsMatchTheDensePath) {
    for (unsigned seed : {29u, static_cast<unsigned>(ww::test::freshSeed())}) {
        const RandomScene s = makeRandomScene(seed, 16, 48);
        const PosedPair q = poseBoth(s, AssemblyParams{});
        lcp::LcpOptions o;
        o.method = lcp::LcpMethod::kGaussSeidel;
        o.omega = lcp::kGaussSeidelOmega;
        o.maxIterations = 12;
        auto solver = lcp::makeCpuLcpSolver(test::executor());
        std::vector<float> xd = q.guess, xm = q.guess;
        solver->solve(q.dense, xd, o);
        solver->solve(q.matrixFree, xm, o);
        float scale = 1.0f;
        for (float v : xd) {
            scale = std::max(scale, std::fabs(v));
        }
        for (std::size_t i = 0; i < xd.size(); ++i) {
            ASSERT_NEAR(xm[i], xd[i], 2e-4f * scale) << "seed " << seed << " row " << i;
        }
    }
}

// The matrix-free passes split rows and bodies into fixed chunks: 1, 2 or 3 threads give the
// same bits.
TEST(MatrixFree, IteratesDoNotDependOnTheThreadCount) {
    const unsigned seed = static_cast<unsigned>(ww::test::freshSeed());
    const RandomScene s = makeRandomScene(seed, 400, 1400);  // 4200 rows: several chunks
    const PosedPair q = poseBoth(s, AssemblyParams{});
    lcp::LcpOptions o;
    o.omega = 0.2f;
    o.maxIterations = 25;
    std::vector<float> first;
    for (int threads : {1, 2, 3}) {
        auto solver = lcp::makeCpuLcpSolver(std::make_shared<const exec::Executor>(threads));
        std::vector<float> x = q.guess;
        solver->solve(q.matrixFree, x, o);
        if (first.empty()) {
            first = x;
        } else {
            ASSERT_EQ(x, first) << "seed " << seed << ", " << threads << " threads";
        }
    }
}

/// p with `extra` frictionless rows copied from row 0 put in front (the rest shifted), so that
/// the contacts' row triples fall differently on the pass's row chunks.
lcp::LcpProblem withRowsInFront(const lcp::LcpProblem& p, int extra) {
    lcp::LcpProblem out = p;
    const int n = p.n + extra;
    out.n = n;
    out.op.resize(n, p.op.bodies());
    out.b.resize(static_cast<std::size_t>(n));
    out.lo.resize(static_cast<std::size_t>(n));
    out.hi.resize(static_cast<std::size_t>(n));
    out.frictionNormal.resize(static_cast<std::size_t>(n));
    out.mu.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const int from = std::max(0, i - extra);
        const auto ui = static_cast<std::size_t>(i);
        const auto uf = static_cast<std::size_t>(from);
        out.op.setBodies(i, p.op.body(from, 0), p.op.body(from, 1));
        std::ranges::copy(p.op.jacobian(from), out.op.jacobian(i).begin());
        std::ranges::copy(p.op.weighted(from), out.op.weighted(i).begin());
        out.b[ui] = p.b[uf];
        out.lo[ui] = i < extra ? 0.0f : p.lo[uf];
        out.hi[ui] = i < extra ? lcp::kInfinity : p.hi[uf];
        const int k = p.frictionNormal[uf];
        out.frictionNormal[ui] = i < extra || k < 0 ? -1 : k + extra;
        out.mu[ui] = i < extra ? 0.0f : p.mu[uf];
    }
    out.op.buildBodyIndex();
    return out;
}

// A Jacobi pass on several threads updates each row chunk's disc pairs right after that
// chunk's rows, and the pairs that straddle two chunks after all rows; a block solved on one
// thread inside a batch updates them in a pass of their own. Both must give the same bits, with
// and without Chebyshev (which reads x^{t-1} of the pairs' rows).
TEST(MatrixFree, PairsUpdatedWithTheirRowChunkMatchAPassOfTheirOwn) {
    const unsigned seed = static_cast<unsigned>(ww::test::freshSeed());
    const RandomScene s = makeRandomScene(seed, 150, 430);
    const PosedPair q = poseBoth(s, AssemblyParams{});
    // 2 + 3 * 430 = 1292 rows: below the split-block work (so a batch solves it on one thread)
    // and more than one 1024-row chunk; row 1024 is the second row of a pair whose first is
    // row 1023.
    const lcp::LcpProblem p = withRowsInFront(q.matrixFree, 2);
    ASSERT_TRUE(p.validate().empty()) << p.validate();
    ASSERT_FALSE(lcp::isSplitBlock(p));
    ASSERT_EQ(p.frictionNormal[1023], 1022);
    ASSERT_EQ(p.frictionNormal[1024], 1022);
    std::vector<float> guess(2, 0.1f);
    guess.insert(guess.end(), q.guess.begin(), q.guess.end());
    const lcp::LcpProblem tiny = lcp::LcpProblem::plain(1);
    lcp::LcpProblem tinyBlock = tiny;
    tinyBlock.a = {1.0f};
    tinyBlock.b = {-1.0f};
    auto solver = lcp::makeCpuLcpSolver(std::make_shared<const exec::Executor>(2));
    for (float rho : {0.0f, 0.99f}) {
        lcp::LcpOptions o;
        o.omega = 0.2f;
        o.maxIterations = 40;
        o.chebyshevRho = rho;
        std::vector<float> chunked = guess;
        solver->solve(p, chunked, o);
        std::vector<float> batched = guess;
        batched.push_back(0.0f);
        const std::vector<lcp::LcpProblem> blocks = {p, tinyBlock};
        solver->solveBatch(blocks, batched, o);
        batched.pop_back();
        EXPECT_NE(chunked, guess) << "the solve changed nothing";
        ASSERT_EQ(chunked, batched) << "seed " << seed << ", rho " << rho;
    }
}

// Where the rows are contacts (a normal, then its disc pair of tangents), a matrix-free Jacobi
// pass updates each contact's three rows together (LcpOptions::contactPasses); it must give the
// bits of the row pass followed by the pair pass, with and without Chebyshev (which reads
// x^{t-1}), with and without residual checks, on two threads and on one.
TEST(MatrixFree, ContactPassesMatchTheRowAndPairPasses) {
    const unsigned seed = static_cast<unsigned>(ww::test::freshSeed());
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomScene s = makeRandomScene(seed, 150, 430);
    const PosedPair q = poseBoth(s, AssemblyParams{});
    const lcp::LcpProblem& p = q.matrixFree;
    ASSERT_TRUE(p.validate().empty()) << p.validate();
    // The contact layout the contact pass needs: 430 contacts of three rows, each contact's
    // tangents a disc pair, more than one row chunk and a last group of fewer than 8 contacts.
    ASSERT_EQ(p.n, 3 * 430);
    const std::vector<lcp::FrictionPair> pairs = lcp::frictionPairs(p);
    ASSERT_EQ(pairs.size(), 430u);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        ASSERT_EQ(pairs[k].normal, static_cast<int>(3 * k));
        ASSERT_EQ(pairs[k].first, static_cast<int>(3 * k + 1));
        ASSERT_EQ(pairs[k].second, static_cast<int>(3 * k + 2));
    }
    for (const int threads : {2, 1}) {
        auto solver = lcp::makeCpuLcpSolver(std::make_shared<const exec::Executor>(threads));
        for (float rho : {0.0f, 0.99f}) {
            for (float tolerance : {0.0f, 1e-6f}) {
                lcp::LcpOptions o;
                o.omega = 0.2f;
                o.maxIterations = 40;
                o.chebyshevRho = rho;
                o.tolerance = tolerance;
                std::vector<float> together = q.guess;
                const lcp::LcpReport a = solver->solve(p, together, o);
                o.contactPasses = false;
                std::vector<float> apart = q.guess;
                const lcp::LcpReport b = solver->solve(p, apart, o);
                SCOPED_TRACE("threads " + std::to_string(threads) + ", rho " + std::to_string(rho) +
                             ", tolerance " + std::to_string(tolerance));
                EXPECT_NE(together, q.guess) << "the solve changed nothing";
                ASSERT_EQ(together, apart);
                EXPECT_EQ(a.iterations, b.iterations);
                EXPECT_EQ(a.residual, b.residual);
            }
        }
    }
}

}  // namespace
}  // namespace ww::rigid
