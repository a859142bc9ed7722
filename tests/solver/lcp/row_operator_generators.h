// Random matrix-free LCPs (lcp::RowOperator, A = J W J^T + cfm I) for the LCP tests:
//  - bodies with a random mass m in [0.5, 2] and a random SPD inverse inertia R diag(d) R^T
//    (R a random rotation, d in [0.25, 2]), so W_b = diag(I / m, R diag(d) R^T);
//  - contacts of one normal row (lo = 0) and, with friction, two tangent rows naming it
//    (a disc pair with one mu), acting on two random bodies, on one body against the static
//    world (-1 on a random side), or on one body named on both sides (J_A != -J_B then);
//    J_side = (±d, ±(arm x d)) with random unit directions and arms, K_side = W J_side^T;
//  - cfm = cfmScale times the mean diagonal of J W J^T (ODE's constraint-force mixing);
//  - b: normals approaching (b < 0), friction rows random; rows of a contact adjacent, or
//    (grouped) all normals first and the friction rows after, so that pairs are not adjacent.
// Seeds as in lcp_generators.h (test::freshSeed, WAVEWALL_TEST_SEED).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "lcp_generators.h"
#include "row_operator_probe.h"
#include "solver/lcp/lcp_solver.h"

namespace ww::test {

struct RowOperatorShape {
    int contacts = 10;
    bool friction = false;
    float mu = 0.6f;
    bool grouped = false;    ///< normals first, then the friction rows
    float cfmScale = 1e-2f;  ///< cfm relative to the mean diagonal of J W J^T
    bool sameBody = true;    ///< some contacts name one body on both sides (else never)
    /// Give the operator each body's inverse mass W_b (its K is W J^T), which lets a problem
    /// of contacts with friction on distinct bodies gather in contact space.
    bool inverseMasses = false;
};

inline lcp::LcpProblem rowOperatorProblem(const RowOperatorShape& shape, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int contacts = shape.contacts;
    const int bodies = std::max(2, contacts / 2 + 1);
    const int rowsPer = shape.friction ? 3 : 1;
    const int n = contacts * rowsPer;

    std::vector<double> invMass(static_cast<std::size_t>(bodies));
    std::vector<Eigen::Matrix3d> invInertia(static_cast<std::size_t>(bodies));
    for (int b = 0; b < bodies; ++b) {
        invMass[static_cast<std::size_t>(b)] = 1.0 / (0.5 + 0.75 * (u(rng) + 1.0));
        const Eigen::Quaterniond q(u(rng), u(rng), u(rng), u(rng) + 1.5);
        const Eigen::Matrix3d r = q.normalized().toRotationMatrix();
        const Eigen::Vector3d d(0.25 + 0.875 * (u(rng) + 1.0), 0.25 + 0.875 * (u(rng) + 1.0),
                                0.25 + 0.875 * (u(rng) + 1.0));
        invInertia[static_cast<std::size_t>(b)] = r * d.asDiagonal() * r.transpose();
    }
    auto unit = [&] {
        Eigen::Vector3d v(u(rng), u(rng), u(rng));
        while (v.norm() < 1e-3) {
            v = Eigen::Vector3d(u(rng), u(rng), u(rng));
        }
        return v.normalized();
    };

    lcp::LcpProblem p;
    p.n = n;
    const auto sn = static_cast<std::size_t>(n);
    p.op.resize(n, bodies);
    p.b.assign(sn, 0.0f);
    p.lo.assign(sn, 0.0f);
    p.hi.assign(sn, lcp::kInfinity);
    if (shape.friction) {
        p.frictionNormal.assign(sn, -1);
        p.mu.assign(sn, 0.0f);
    }
    // The row of contact c's r-th row (r = 0 the normal).
    auto rowOf = [&](int c, int r) {
        return shape.grouped ? (r == 0 ? c : contacts + 2 * c + (r - 1)) : c * rowsPer + r;
    };
    std::uniform_int_distribution<int> pick(0, bodies - 1);
    std::uniform_int_distribution<int> kind(0, 9);
    double diagonalSum = 0.0;
    for (int c = 0; c < contacts; ++c) {
        int b0 = pick(rng);
        int b1 = pick(rng);
        const int k = kind(rng);
        if (k < 6 || (k == 9 && !shape.sameBody)) {  // two bodies
            b1 = b1 == b0 ? (b0 + 1) % bodies : b1;
        } else if (k < 9) {  // one body against the static world, on a random side
            (k == 7 ? b0 : b1) = -1;
        } else {  // one body named on both sides
            b1 = b0;
        }
        const Eigen::Vector3d normal = unit();
        const Eigen::Vector3d t1 = normal.unitOrthogonal();
        const Eigen::Vector3d t2 = normal.cross(t1);
        const Eigen::Vector3d armA(u(rng), u(rng), u(rng));
        const Eigen::Vector3d armB(u(rng), u(rng), u(rng));
        for (int r = 0; r < rowsPer; ++r) {
            const int row = rowOf(c, r);
            const auto ur = static_cast<std::size_t>(row);
            const Eigen::Vector3d d = r == 0 ? normal : (r == 1 ? t1 : t2);
            p.op.setBodies(row, b0, b1);
            for (int side = 0; side < 2; ++side) {
                const int body = side == 0 ? b0 : b1;
                const double sign = side == 0 ? 1.0 : -1.0;
                const Eigen::Vector3d lin = sign * d;
                const Eigen::Vector3d ang = sign * (side == 0 ? armA : armB).cross(d);
                Eigen::Vector3d kLin = Eigen::Vector3d::Zero(), kAng = Eigen::Vector3d::Zero();
                if (body >= 0) {
                    kLin = invMass[static_cast<std::size_t>(body)] * lin;
                    kAng = invInertia[static_cast<std::size_t>(body)] * ang;
                }
                for (int q = 0; q < 3; ++q) {
                    const std::size_t at = 6 * static_cast<std::size_t>(side);
                    // A side without a body keeps J (unused) but must not contribute: K = 0.
                    p.op.jacobian(row)[at + q] = static_cast<float>(lin(q));
                    p.op.jacobian(row)[at + 3 + q] = static_cast<float>(ang(q));
                    p.op.weighted(row)[at + q] = static_cast<float>(kLin(q));
                    p.op.weighted(row)[at + 3 + q] = static_cast<float>(kAng(q));
                }
            }
            if (r == 0) {
                p.b[ur] = static_cast<float>(-0.2 - (u(rng) + 1.0));  // approaching
            } else {
                p.b[ur] = static_cast<float>(u(rng));
                p.lo[ur] = -lcp::kInfinity;
                p.frictionNormal[ur] = rowOf(c, 0);
                p.mu[ur] = shape.mu;
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        diagonalSum += p.op.computeDiagonal(i);  // cfm still 0
    }
    p.op.setCfm(static_cast<float>(shape.cfmScale * diagonalSum / n));
    // M_b = W_b^-1 per body (what the Lanczos estimate's inner product needs).
    p.op.allocateBodyMasses();
    for (int b = 0; b < bodies; ++b) {
        const auto ub = static_cast<std::size_t>(b);
        const Eigen::Matrix3d inertia = invInertia[ub].inverse();
        float* m = p.op.bodyMass(b).data();
        m[0] = static_cast<float>(1.0 / invMass[ub]);
        m[1] = static_cast<float>(inertia(0, 0));
        m[2] = static_cast<float>(inertia(0, 1));
        m[3] = static_cast<float>(inertia(0, 2));
        m[4] = static_cast<float>(inertia(1, 1));
        m[5] = static_cast<float>(inertia(1, 2));
        m[6] = static_cast<float>(inertia(2, 2));
    }
    if (shape.inverseMasses) {
        p.op.allocateBodyInverseMasses();
        for (int b = 0; b < bodies; ++b) {
            const Eigen::Matrix3d& w = invInertia[static_cast<std::size_t>(b)];
            float* m = p.op.bodyInverseMass(b).data();
            m[0] = static_cast<float>(invMass[static_cast<std::size_t>(b)]);
            m[1] = static_cast<float>(w(0, 0));
            m[2] = static_cast<float>(w(0, 1));
            m[3] = static_cast<float>(w(0, 2));
            m[4] = static_cast<float>(w(1, 1));
            m[5] = static_cast<float>(w(1, 2));
            m[6] = static_cast<float>(w(2, 2));
        }
    }
    p.op.buildBodyIndex();  // after cfm: the kept diagonals include it
    return p;
}

/// What dropContactFormRows leaves of the whole groups' rows in the operator.
enum class GroupRows {
    kNotHeld,  ///< never held (RowOperator::resizeContactForm), as the assembler builds it
    kNaN,      ///< held, every float NaN
};

/// p's operator rebuilt in the contact form without rows (lcp::RowOperator::finishContactForm):
/// each whole group's rows handed over from a copy, every layout overwritten with NaN first, and
/// the operator's own rows of those groups either not held or NaN (`groupRows`), so that
/// anything still reading them, or a layout left unwritten, shows. False where a group or the
/// rows after the last whole group are not of the contact form.
inline bool dropContactFormRows(lcp::LcpProblem& p, const exec::Executor* ex = nullptr,
                                GroupRows groupRows = GroupRows::kNotHeld) {
    lcp::RowOperator& op = p.op;
    constexpr int kJ = lcp::RowOperator::kJacobianFloats;
    constexpr int kG = lcp::RowOperator::kTripleGroup;
    const int n = op.rows();
    const int groups = n / (3 * kG);
    const int groupEnd = 3 * kG * groups;
    std::vector<float> j(kJ * static_cast<std::size_t>(n)), k(kJ * static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
        std::copy(op.jacobian(r).begin(), op.jacobian(r).end(), j.begin() + kJ * r);
        std::copy(op.weighted(r).begin(), op.weighted(r).end(), k.begin() + kJ * r);
    }
    if (groupRows == GroupRows::kNotHeld) {
        // A fresh operator, as an assembler builds one: what it never held cannot be read back
        // from a storage that once held every row.
        lcp::RowOperator fresh;
        fresh.resizeContactForm(n, op.bodies());
        if (fresh.rowsHeldFrom() != groupEnd) {
            return false;
        }
        fresh.setCfm(op.cfm());
        for (int r = 0; r < n; ++r) {
            fresh.setBodies(r, op.body(r, 0), op.body(r, 1));
        }
        if (op.hasBodyMasses()) {
            fresh.allocateBodyMasses();
        }
        if (op.hasBodyInverseMasses()) {
            fresh.allocateBodyInverseMasses();
        }
        for (int b = 0; b < op.bodies(); ++b) {
            if (op.hasBodyMasses()) {
                std::copy(op.bodyMass(b).begin(), op.bodyMass(b).end(), fresh.bodyMass(b).begin());
            }
            if (op.hasBodyInverseMasses()) {
                std::copy(op.bodyInverseMass(b).begin(), op.bodyInverseMass(b).end(),
                          fresh.bodyInverseMass(b).begin());
            }
        }
        for (int r = groupEnd; r < n; ++r) {
            std::copy(j.begin() + kJ * r, j.begin() + kJ * (r + 1), fresh.jacobian(r).begin());
            std::copy(k.begin() + kJ * r, k.begin() + kJ * (r + 1), fresh.weighted(r).begin());
        }
        op = std::move(fresh);
    } else {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (int r = 0; r < groupEnd; ++r) {
            std::fill(op.jacobian(r).begin(), op.jacobian(r).end(), nan);
            std::fill(op.weighted(r).begin(), op.weighted(r).end(), nan);
        }
    }
    lcp::RowOperatorProbe::poisonLayouts(op);
    op.beginContactForm();
    bool ok = true;
    for (int g = 0; g < groups; ++g) {
        const std::size_t at = static_cast<std::size_t>(kJ * 3 * kG) * static_cast<std::size_t>(g);
        ok = op.fillContactGroup(static_cast<std::size_t>(g), j.data() + at, k.data() + at) && ok;
    }
    return ok && op.finishContactForm(ex);
}

/// The same problem posed dense (A = denseFromRowOperator(op)).
inline lcp::LcpProblem densified(const lcp::LcpProblem& p) {
    lcp::LcpProblem d = p;
    d.a = lcp::denseFromRowOperator(p.op);
    d.op = lcp::RowOperator{};
    return d;
}

}  // namespace ww::test
