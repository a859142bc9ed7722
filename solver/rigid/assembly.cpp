// Dense LCP assembly from contact Jacobians (equations in assembly.h).
#include "solver/rigid/assembly.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "solver/lcp/lanczos.h"

namespace ww::rigid {
namespace {

// Contacts per chunk of the matrix-free assembly's parallel loop.
constexpr int kAssemblyChunkContacts = 256;
constexpr int kJacobian = lcp::RowOperator::kJacobianFloats;
/// Contacts per chunk of buildSlots' read of the contacts' bodies.
constexpr int kSlotChunkContacts = 2048;

const Vec3& dirOf(const Contact& c, int r) {
    return r == 0 ? c.normal : (r == 1 ? c.tangent1 : c.tangent2);
}

/// Velocity bias of a normal row (see the header), given the pre-step normal speed.
float normalBias(const Contact& c, float vn, const AssemblyParams& p) {
    const bool bounce = p.restitution > 0.0f && vn < -p.restitutionThreshold;
    if (c.separation > 0.0f) {
        // A speculative contact that the body will hit within this step bounces now: closing
        // the gap first (bias s/dt) would clamp the speed to s/dt and lose the impact speed.
        if (bounce && c.separation + vn * p.dt < 0.0f) {
            return p.restitution * vn;
        }
        return c.separation / p.dt;
    }
    const float bias =
        -std::min(p.erp / p.dt * std::max(-c.separation - p.slop, 0.0f), p.maxCorrectionSpeed);
    return bounce ? bias + p.restitution * vn : bias;
}

Vec3 pointVelocity(const Body& b, const Vec3& r) {
    return b.linearVelocity + cross(b.angularVelocity, r);
}

/// The rows of contacts idOf(0 .. count - 1) into jac (sized for every contact), in fixed chunks
/// of 256 contacts (72 KiB of rows; a contact's rows are ~100 operations).
template <typename IdOf>
void jacobiansOf(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                 std::ptrdiff_t count, IdOf idOf, std::vector<RowJacobian>& jac,
                 const exec::Executor* ex) {
    jac.resize(3 * contacts.size());
    constexpr std::ptrdiff_t kChunk = 256;
    const auto chunk = [&](std::ptrdiff_t c) {
        const std::ptrdiff_t last = std::min(count, (c + 1) * kChunk);
        for (std::ptrdiff_t k = c * kChunk; k < last; ++k) {
            const auto id = static_cast<std::size_t>(idOf(k));
            const Contact& ct = contacts[id];
            contactJacobians(ct, bodies[ct.bodyA], bodies[ct.bodyB], jac.data() + 3 * id);
        }
    };
    exec::forChunks(ex, exec::chunkCount(count, kChunk), chunk, 100 * count);
}

}  // namespace

void computeJacobians(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                      std::vector<RowJacobian>& jac, const exec::Executor* ex) {
    jacobiansOf(
        bodies, contacts, static_cast<std::ptrdiff_t>(contacts.size()),
        [](std::ptrdiff_t k) { return k; }, jac, ex);
}

void computeJacobians(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                      std::span<const int> ids, std::vector<RowJacobian>& jac,
                      const exec::Executor* ex) {
    jacobiansOf(
        bodies, contacts, static_cast<std::ptrdiff_t>(ids.size()),
        [&](std::ptrdiff_t k) { return ids[static_cast<std::size_t>(k)]; }, jac, ex);
}

void ContactAssembler::assemble(const std::vector<Body>& bodies,
                                const std::vector<Contact>& contacts,
                                const std::vector<RowJacobian>& jac, std::span<const int> ids,
                                const AssemblyParams& p, lcp::LcpProblem& out,
                                std::span<float> guess) {
    const int n = 3 * static_cast<int>(ids.size());
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    out.n = n;
    out.a.assign(nn, 0.0f);
    out.op = {};
    buildSlots(bodies, contacts, ids);
    const int slots = static_cast<int>(m_slotBodies.size());

    // A = J M^-1 J^T: only rows sharing a body couple, through that body's mass matrix.
    for (int s = 0; s < slots; ++s) {
        const int begin = m_slotStart[s];
        const int end = m_slotStart[s + 1];
        for (int e1 = begin; e1 < end; ++e1) {
            const int row1 = m_slotRows[e1] >> 1;
            const RowJacobian& j1 = jac[3 * ids[row1 / 3] + row1 % 3];
            const bool a1 = (m_slotRows[e1] & 1) == 0;
            const Vec3& lin1 = a1 ? j1.linA : j1.linB;
            const Vec3& ang1 = a1 ? j1.angA : j1.angB;
            float* arow = out.a.data() + static_cast<std::size_t>(row1) * n;
            for (int e2 = begin; e2 < end; ++e2) {
                const int row2 = m_slotRows[e2] >> 1;
                const RowJacobian& j2 = jac[3 * ids[row2 / 3] + row2 % 3];
                const bool a2 = (m_slotRows[e2] & 1) == 0;
                arow[row2] +=
                    dot(lin1, a2 ? j2.mLinA : j2.mLinB) + dot(ang1, a2 ? j2.mAngA : j2.mAngB);
            }
        }
    }
    for (int row = 0; row < n; ++row) {
        out.a[static_cast<std::size_t>(row) * n + row] += p.cfm;
    }
    releaseSlots();
    out.b.resize(n);
    out.lo.resize(n);
    out.hi.resize(n);
    out.frictionNormal.resize(n);
    out.mu.resize(n);
    for (int k = 0; k < static_cast<int>(ids.size()); ++k) {
        assembleContactRows(bodies, contacts, jac.data() + 3 * static_cast<std::size_t>(ids[k]),
                            ids, p, out, guess, k);
    }
}

void ContactAssembler::assembleMatrixFree(const std::vector<Body>& bodies,
                                          const std::vector<Contact>& contacts,
                                          std::span<const int> ids, const AssemblyParams& p,
                                          lcp::LcpProblem& out, std::span<float> guess,
                                          const exec::Executor* ex) {
    const int count = static_cast<int>(ids.size());
    const int n = 3 * count;
    out.n = n;
    out.a.clear();
    buildSlots(bodies, contacts, ids, false, ex);
    lcp::RowOperator& op = out.op;
    constexpr int kGroup = lcp::RowOperator::kTripleGroup;
    static_assert(kAssemblyChunkContacts % kGroup == 0, "chunks hold whole groups");
    // The contact form without rows: each whole group's rows made in a local buffer and handed
    // to the operator's layouts from there (RowOperator::fillContactGroup), instead of written
    // into it and read back by buildBodyIndex; the operator holds only the rows after the last
    // whole group (resizeContactForm), written as usual.
    const bool direct = !p.operatorRows && count >= kGroup;
    const int groupContacts = direct ? count / kGroup * kGroup : 0;
    if (direct) {
        op.resizeContactForm(n, static_cast<int>(m_slotBodies.size()));
    } else {
        op.resize(n, static_cast<int>(m_slotBodies.size()));
    }
    op.setCfm(p.cfm);
    out.b.resize(n);
    out.lo.resize(n);
    out.hi.resize(n);
    out.frictionNormal.resize(n);
    out.mu.resize(n);
    const auto put = [](float* dst, const Vec3& lin, const Vec3& ang) {
        dst[0] = lin.x;
        dst[1] = lin.y;
        dst[2] = lin.z;
        dst[3] = ang.x;
        dst[4] = ang.y;
        dst[5] = ang.z;
    };
    // A contact's three rows of J at jd and of K at kd (12 floats a row, as the operator's).
    const auto putRows = [&](const RowJacobian(&jac)[3], float* jd, float* kd) {
        for (int r = 0; r < 3; ++r) {
            const RowJacobian& jr = jac[r];
            put(jd + kJacobian * r, jr.linA, jr.angA);
            put(jd + kJacobian * r + 6, jr.linB, jr.angB);
            put(kd + kJacobian * r, jr.mLinA, jr.mAngA);
            put(kd + kJacobian * r + 6, jr.mLinB, jr.mAngB);
        }
    };
    op.allocateBodyMasses();
    op.allocateBodyInverseMasses();
    if (direct) {
        op.beginContactForm();
    }
    // Each contact's three rows (J, K, bodies, then b, bounds and guess) depend on it alone.
    // Returns whether the chunk's groups were all of the contact form (true without them).
    const auto chunk = [&](std::ptrdiff_t c) {
        const int first = static_cast<int>(c) * kAssemblyChunkContacts;
        const int last = std::min(count, first + kAssemblyChunkContacts);
        // Declared once a chunk: contactJacobians writes every field, and a RowJacobian's
        // zeroing (a 288-byte memset) a contact was 0.5 % of a 1-thread collapse step.
        RowJacobian jac[3];
        alignas(32) float groupJ[3 * kGroup * kJacobian];
        alignas(32) float groupK[3 * kGroup * kJacobian];
        bool form = true;
        for (int k = first; k < last; ++k) {
            const Contact& ct = contacts[ids[k]];
            const Body& a = bodies[ct.bodyA];
            const Body& b = bodies[ct.bodyB];
            const int slotA = a.isStatic() ? -1 : m_bodySlot[ct.bodyA];
            const int slotB = b.isStatic() ? -1 : m_bodySlot[ct.bodyB];
            contactJacobians(ct, a, b, jac);
            for (int r = 0; r < 3; ++r) {
                op.setBodies(3 * k + r, slotA, slotB);
            }
            if (k < groupContacts) {
                const std::size_t at = 3 * kJacobian * static_cast<std::size_t>(k % kGroup);
                putRows(jac, groupJ + at, groupK + at);
                if (k % kGroup == kGroup - 1) {
                    form =
                        op.fillContactGroup(static_cast<std::size_t>(k / kGroup), groupJ, groupK) &&
                        form;
                }
            } else {
                putRows(jac, op.jacobian(3 * k).data(), op.weighted(3 * k).data());
            }
            assembleContactRows(bodies, contacts, jac, ids, p, out, guess, k);
        }
        return form;
    };
    const std::ptrdiff_t chunks = exec::chunkCount(count, kAssemblyChunkContacts);
    const bool groupsOk = exec::reduceChunks(
        ex, chunks, true, chunk, [](bool x, bool y) { return x && y; },
        60 * static_cast<std::ptrdiff_t>(count));
    // Each slot's mass matrix (the Lanczos estimate's inner product): the mass and
    // I = R diag(1 / invInertiaBody) R^T.
    for (std::size_t slot = 0; slot < m_slotBodies.size(); ++slot) {
        const Body& b = bodies[m_slotBodies[slot]];
        const Vec3 inertia{b.invInertiaBody.x > 0.0f ? 1.0f / b.invInertiaBody.x : 0.0f,
                           b.invInertiaBody.y > 0.0f ? 1.0f / b.invInertiaBody.y : 0.0f,
                           b.invInertiaBody.z > 0.0f ? 1.0f / b.invInertiaBody.z : 0.0f};
        const auto world = [&](int r, int c) {  // (R diag(inertia) R^T)_rc; rotation.c[k][r] = R_rk
            return b.rotation.c[0][r] * inertia.x * b.rotation.c[0][c] +
                   b.rotation.c[1][r] * inertia.y * b.rotation.c[1][c] +
                   b.rotation.c[2][r] * inertia.z * b.rotation.c[2][c];
        };
        float* m = op.bodyMass(static_cast<int>(slot)).data();
        m[0] = 1.0f / b.invMass;  // slots are non-static bodies: invMass > 0
        m[1] = world(0, 0);
        m[2] = world(0, 1);
        m[3] = world(0, 2);
        m[4] = world(1, 1);
        m[5] = world(1, 2);
        m[6] = world(2, 2);
        // W_b, from what the rows' K was made of (contactJacobians): the gathers may then work
        // in contact space (RowOperator::contactForm).
        const Mat3& inv = b.invInertiaWorld;
        float* w = op.bodyInverseMass(static_cast<int>(slot)).data();
        w[0] = b.invMass;
        w[1] = inv.c[0].x;
        w[2] = inv.c[1].x;
        w[3] = inv.c[2].x;
        w[4] = inv.c[1].y;
        w[5] = inv.c[2].y;
        w[6] = inv.c[2].z;
    }
    if (direct) {
        if (groupsOk && op.finishContactForm(ex)) {
            releaseSlots();
            return;
        }
        // Not of the contact form: the groups' rows written after all, for buildBodyIndex.
        op.holdAllRows();
        exec::forChunks(
            ex, exec::chunkCount(groupContacts, kAssemblyChunkContacts),
            [&](std::ptrdiff_t c) {
                const int first = static_cast<int>(c) * kAssemblyChunkContacts;
                const int last = std::min(groupContacts, first + kAssemblyChunkContacts);
                RowJacobian jac[3];
                for (int k = first; k < last; ++k) {
                    const Contact& ct = contacts[ids[k]];
                    contactJacobians(ct, bodies[ct.bodyA], bodies[ct.bodyB], jac);
                    putRows(jac, op.jacobian(3 * k).data(), op.weighted(3 * k).data());
                }
            },
            40 * static_cast<std::ptrdiff_t>(groupContacts));
    }
    releaseSlots();
    op.buildBodyIndex(ex);
}

void ContactAssembler::buildSlots(const std::vector<Body>& bodies,
                                  const std::vector<Contact>& contacts, std::span<const int> ids,
                                  bool rows, const exec::Executor* ex) {
    // Rows touching each non-static body of the block, as CSR over local body slots. The
    // contacts' non-static bodies (-1: static) are read on the executor (large records), then
    // numbered in order of first appearance in one pass over that compact list.
    const int count = static_cast<int>(ids.size());
    m_idBodies.resize(2 * ids.size());
    exec::forRanges(
        ex, count, kSlotChunkContacts,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto k = static_cast<int>(first); k < static_cast<int>(last); ++k) {
                const Contact& ct = contacts[ids[k]];
                m_idBodies[2 * k] = bodies[ct.bodyA].isStatic() ? -1 : ct.bodyA;
                m_idBodies[2 * k + 1] = bodies[ct.bodyB].isStatic() ? -1 : ct.bodyB;
            }
        },
        8 * static_cast<std::ptrdiff_t>(count));
    m_bodySlot.resize(bodies.size(), -1);
    m_slotBodies.clear();
    for (const int body : m_idBodies) {
        if (body >= 0 && m_bodySlot[body] < 0) {
            m_bodySlot[body] = static_cast<int>(m_slotBodies.size());
            m_slotBodies.push_back(body);
        }
    }
    if (!rows) {
        return;
    }
    const int slots = static_cast<int>(m_slotBodies.size());
    m_slotStart.assign(slots + 1, 0);
    for (int id : ids) {
        for (int body : {contacts[id].bodyA, contacts[id].bodyB}) {
            if (!bodies[body].isStatic()) {
                m_slotStart[m_bodySlot[body] + 1] += 3;
            }
        }
    }
    for (int s = 0; s < slots; ++s) {
        m_slotStart[s + 1] += m_slotStart[s];
    }
    m_slotRows.resize(m_slotStart[slots]);
    std::vector<int>& fill = m_slotStart;  // advanced while filling, restored below
    for (int k = 0; k < static_cast<int>(ids.size()); ++k) {
        const Contact& c = contacts[ids[k]];
        for (int side = 0; side < 2; ++side) {
            const int body = side == 0 ? c.bodyA : c.bodyB;
            if (bodies[body].isStatic()) {
                continue;
            }
            for (int r = 0; r < 3; ++r) {
                m_slotRows[fill[m_bodySlot[body]]++] = 2 * (3 * k + r) + side;
            }
        }
    }
    for (int s = slots; s > 0; --s) {
        fill[s] = fill[s - 1];
    }
    fill[0] = 0;
}

void ContactAssembler::releaseSlots() {
    for (int body : m_slotBodies) {
        m_bodySlot[body] = -1;
    }
}

void ContactAssembler::assembleContactRows(const std::vector<Body>& bodies,
                                           const std::vector<Contact>& contacts,
                                           const RowJacobian* jac, std::span<const int> ids,
                                           const AssemblyParams& p, lcp::LcpProblem& out,
                                           std::span<float> guess, int k) {
    const Contact& c = contacts[ids[k]];
    const Body& a = bodies[c.bodyA];
    const Body& b = bodies[c.bodyB];
    const Vec3 ra = c.point - a.position;
    const Vec3 rb = c.point - b.position;
    // Relative velocity of a's point w.r.t. b's, before and after the external forces.
    const Vec3 vRel = pointVelocity(a, ra) - pointVelocity(b, rb);
    const Vec3 gRel =
        (a.isStatic() ? Vec3{} : p.gravity * p.dt) - (b.isStatic() ? Vec3{} : p.gravity * p.dt);
    // The velocities after the external forces, as World::integrate forms them.
    const Vec3 vA =
        a.isStatic() || a.asleep ? a.linearVelocity : a.linearVelocity + p.gravity * p.dt;
    const Vec3 vB =
        b.isStatic() || b.asleep ? b.linearVelocity : b.linearVelocity + p.gravity * p.dt;
    for (int r = 0; r < 3; ++r) {
        const int row = 3 * k + r;
        const Vec3& d = dirOf(c, r);
        const float vd = dot(d, vRel);
        out.b[row] = vd + dot(d, gRel) + (r == 0 ? normalBias(c, vd, p) : 0.0f);
        if (!m_rowBias.empty()) {
            // b - J (v + dt g), J (v + dt g) in the shock pass's order of products: its row
            // velocities then agree with the LCP's b up to the compiler's fusing of those
            // products (the bias term alone differs from b - J v by b's own rounding, which
            // sent the 100 x 100 wall's warm starts past the tolerance: docs/rigid.md).
            const RowJacobian& j = jac[r];
            const float jv = dot(j.linA, vA) + dot(j.angA, a.angularVelocity) + dot(j.linB, vB) +
                             dot(j.angB, b.angularVelocity);
            m_rowBias[3 * static_cast<std::size_t>(ids[k]) + static_cast<std::size_t>(r)] =
                out.b[row] - jv;
        }
        out.lo[row] = r == 0 ? 0.0f : -lcp::kInfinity;
        out.hi[row] = lcp::kInfinity;
        out.frictionNormal[row] = r == 0 ? -1 : 3 * k;
        out.mu[row] = r == 0 ? 0.0f : p.friction;
        guess[row] = c.impulse[r];
    }
}

void assembleReference(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                       std::span<const int> ids, const AssemblyParams& p, std::vector<double>& a,
                       std::vector<double>& b) {
    const int n = 3 * static_cast<int>(ids.size());
    const int nb = static_cast<int>(bodies.size());
    std::vector<double> jm(static_cast<std::size_t>(n) * 6 * nb, 0.0);  // J, n x 6nb
    const auto jAt = [&](int row, int col) -> double& {
        return jm[static_cast<std::size_t>(row) * 6 * nb + col];
    };
    b.assign(n, 0.0);
    for (int k = 0; k < static_cast<int>(ids.size()); ++k) {
        const Contact& c = contacts[ids[k]];
        for (int r = 0; r < 3; ++r) {
            const Vec3& d = dirOf(c, r);
            const int row = 3 * k + r;
            for (int side = 0; side < 2; ++side) {
                const int body = side == 0 ? c.bodyA : c.bodyB;
                const Body& bd = bodies[body];
                if (bd.isStatic()) {
                    continue;
                }
                const double sg = side == 0 ? 1.0 : -1.0;
                const Vec3 ang = cross(c.point - bd.position, d);
                const double js[6] = {d.x, d.y, d.z, ang.x, ang.y, ang.z};
                const Vec3 vg = bd.linearVelocity + p.gravity * p.dt;
                const double vs[6] = {vg.x,
                                      vg.y,
                                      vg.z,
                                      bd.angularVelocity.x,
                                      bd.angularVelocity.y,
                                      bd.angularVelocity.z};
                for (int q = 0; q < 6; ++q) {
                    jAt(row, 6 * body + q) = sg * js[q];
                    b[row] += sg * js[q] * vs[q];
                }
            }
        }
        const Body& ba = bodies[c.bodyA];
        const Body& bb = bodies[c.bodyB];
        const Vec3 vRel =
            pointVelocity(ba, c.point - ba.position) - pointVelocity(bb, c.point - bb.position);
        b[3 * k] += normalBias(c, dot(c.normal, vRel), p);
    }
    a.assign(static_cast<std::size_t>(n) * n, 0.0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double sum = 0.0;
            for (int body = 0; body < nb; ++body) {
                const Body& bd = bodies[body];
                if (bd.isStatic()) {
                    continue;
                }
                for (int q = 0; q < 3; ++q) {
                    sum += jAt(i, 6 * body + q) * bd.invMass * jAt(j, 6 * body + q);
                }
                for (int q = 0; q < 3; ++q) {
                    for (int s = 0; s < 3; ++s) {
                        const double minv = bd.invInertiaWorld.c[s][q];  // row q, column s
                        sum += jAt(i, 6 * body + 3 + q) * minv * jAt(j, 6 * body + 3 + s);
                    }
                }
            }
            a[static_cast<std::size_t>(i) * n + j] = sum + (i == j ? p.cfm : 0.0);
        }
    }
}

float estimateLambdaMax(const std::vector<Contact>& contacts, const std::vector<RowJacobian>& jac,
                        float cfm, int iterations, JacobianLanczosScratch& s,
                        const exec::Executor* ex) {
    const std::size_t rows = jac.size();
    if (rows == 0) {
        return 0.0f;
    }
    int bodies = 0;
    for (const Contact& c : contacts) {
        bodies = std::max({bodies, c.bodyA + 1, c.bodyB + 1});
    }
    s.v.resize(rows);
    s.w.resize(rows);
    s.qPrev.resize(rows);
    s.diag.resize(rows);
    s.lin.resize(static_cast<std::size_t>(bodies));
    s.ang.resize(static_cast<std::size_t>(bodies));
    // Rows by body (entries 2 * row + side, rows ascending), so that each body's sums are
    // gathered by one thread in row order. A static body's side of a row is zero (J and
    // M^-1 J^T): it has no entries, so the ground, which touches every bottom brick, costs
    // nothing, and its sums stay zero.
    const auto moves = [&](std::size_t row, int side) {
        const RowJacobian& j = jac[row];
        const auto zero = [](const Vec3& v) { return v.x == 0.0f && v.y == 0.0f && v.z == 0.0f; };
        return side == 0 ? !(zero(j.linA) && zero(j.angA)) : !(zero(j.linB) && zero(j.angB));
    };
    s.bodyStart.assign(static_cast<std::size_t>(bodies) + 1, 0);
    for (std::size_t i = 0; i < rows; ++i) {
        const Contact& c = contacts[i / 3];
        s.bodyStart[static_cast<std::size_t>(c.bodyA) + 1] += moves(i, 0) ? 1 : 0;
        s.bodyStart[static_cast<std::size_t>(c.bodyB) + 1] += moves(i, 1) ? 1 : 0;
    }
    for (std::size_t b = 0; b < static_cast<std::size_t>(bodies); ++b) {
        s.bodyStart[b + 1] += s.bodyStart[b];
    }
    s.bodyEntries.resize(static_cast<std::size_t>(s.bodyStart.back()));
    {
        std::vector<std::int32_t> fill(s.bodyStart.begin(), s.bodyStart.end() - 1);
        for (std::size_t i = 0; i < rows; ++i) {
            const Contact& c = contacts[i / 3];
            const auto row = static_cast<std::int32_t>(i);
            if (moves(i, 0)) {
                s.bodyEntries[static_cast<std::size_t>(fill[static_cast<std::size_t>(c.bodyA)]++)] =
                    2 * row;
            }
            if (moves(i, 1)) {
                s.bodyEntries[static_cast<std::size_t>(fill[static_cast<std::size_t>(c.bodyB)]++)] =
                    2 * row + 1;
            }
        }
    }
    for (std::size_t i = 0; i < rows; ++i) {
        const RowJacobian& j = jac[i];
        s.diag[i] = dot(j.linA, j.mLinA) + dot(j.angA, j.mAngA) + dot(j.linB, j.mLinB) +
                    dot(j.angB, j.mAngB) + cfm;
        // A deterministic start with components along every eigenvector in practice.
        s.v[i] = 1.0f + 0.5f * std::sin(static_cast<float>(i));
        s.qPrev[i] = 0.0f;
    }
    // Fixed chunks (never cut by the thread count): per body M^-1 J^T q over its rows in
    // ascending order, then per row J (M^-1 J^T q) with the sums combined in chunk order. Body
    // chunks are small so that the threads share the gather evenly (as the solver's).
    constexpr std::ptrdiff_t kBodyChunk = 32;
    constexpr std::ptrdiff_t kRowChunk = 1024;
    const auto nRows = static_cast<std::ptrdiff_t>(rows);
    const std::ptrdiff_t work = 12 * nRows;
    const auto gather = [&](std::ptrdiff_t chunk) {
        const std::ptrdiff_t end = std::min<std::ptrdiff_t>((chunk + 1) * kBodyChunk, bodies);
        for (std::ptrdiff_t b = chunk * kBodyChunk; b < end; ++b) {
            Vec3 lin{}, ang{};
            const auto ub = static_cast<std::size_t>(b);
            for (std::int32_t e = s.bodyStart[ub]; e < s.bodyStart[ub + 1]; ++e) {
                const std::int32_t entry = s.bodyEntries[static_cast<std::size_t>(e)];
                const auto row = static_cast<std::size_t>(entry >> 1);
                const RowJacobian& j = jac[row];
                const float v = s.v[row];
                lin += ((entry & 1) == 0 ? j.mLinA : j.mLinB) * v;
                ang += ((entry & 1) == 0 ? j.mAngA : j.mAngB) * v;
            }
            s.lin[ub] = lin;
            s.ang[ub] = ang;
        }
    };
    // Pass 1 of a step: w = D^-1 A q into s.w, and q^T A q, q^T D q.
    struct Sums {
        double qaq = 0.0, qdq = 0.0;
    };
    const auto applyA = [&](std::ptrdiff_t chunk) {
        Sums out;
        const std::ptrdiff_t end = std::min((chunk + 1) * kRowChunk, nRows);
        for (std::ptrdiff_t r = chunk * kRowChunk; r < end; ++r) {
            const auto i = static_cast<std::size_t>(r);
            const Contact& c = contacts[i / 3];
            const RowJacobian& j = jac[i];
            const float aq = dot(j.linA, s.lin[c.bodyA]) + dot(j.angA, s.ang[c.bodyA]) +
                             dot(j.linB, s.lin[c.bodyB]) + dot(j.angB, s.ang[c.bodyB]) +
                             cfm * s.v[i];
            out.qaq += double(s.v[i]) * aq;
            out.qdq += double(s.v[i]) * s.v[i] * s.diag[i];
            s.w[i] = s.diag[i] > 0.0f ? aq / s.diag[i] : 0.0f;
        }
        return out;
    };
    const auto addSums = [](Sums a, const Sums& b) { return Sums{a.qaq + b.qaq, a.qdq + b.qdq}; };
    // Pass 2: w -= alpha q + beta q_prev (q_prev <- q), and w^T D w.
    double alpha = 0.0, beta = 0.0;
    const auto orthogonaliseChunk = [&](std::ptrdiff_t chunk) {
        double wdw = 0.0;
        const std::ptrdiff_t end = std::min((chunk + 1) * kRowChunk, nRows);
        for (std::ptrdiff_t r = chunk * kRowChunk; r < end; ++r) {
            const auto i = static_cast<std::size_t>(r);
            const float w = static_cast<float>(s.w[i] - alpha * s.v[i] - beta * s.qPrev[i]);
            s.qPrev[i] = s.v[i];
            s.w[i] = w;
            wdw += double(w) * w * s.diag[i];
        }
        return wdw;
    };
    // Pass 3: q = w / beta.
    const auto normaliseChunk = [&](std::ptrdiff_t chunk) {
        const std::ptrdiff_t end = std::min((chunk + 1) * kRowChunk, nRows);
        const double inv = 1.0 / beta;
        for (std::ptrdiff_t r = chunk * kRowChunk; r < end; ++r) {
            const auto i = static_cast<std::size_t>(r);
            s.v[i] = static_cast<float>(s.w[i] * inv);
        }
    };
    const std::ptrdiff_t bodyChunks = exec::chunkCount(bodies, kBodyChunk);
    const std::ptrdiff_t rowChunks = exec::chunkCount(nRows, kRowChunk);
    const auto forChunks = [&](std::ptrdiff_t n, const auto& f) {
        exec::forChunks(ex, n, f, work);
    };
    const auto reduceChunks = [&](std::ptrdiff_t n, auto zero, const auto& f, const auto& add) {
        return exec::reduceChunks(ex, n, zero, f, add, work);
    };
    // Lanczos in the D inner product (D^-1 A is self-adjoint in it): q_1 = v / |v|_D,
    // alpha_k = q_k^T A q_k, beta_k q_k+1 = D^-1 A q_k - alpha_k q_k - beta_k-1 q_k-1. The
    // largest eigenvalue of the tridiagonal T_k (alpha, beta) is the Ritz value.
    {
        double vdv = 0.0;  // q_1 = v / |v|_D
        for (std::size_t i = 0; i < rows; ++i) {
            vdv += double(s.v[i]) * s.v[i] * s.diag[i];
        }
        if (!(vdv > 0.0)) {
            return 0.0f;
        }
        const double inv = 1.0 / std::sqrt(vdv);
        for (std::size_t i = 0; i < rows; ++i) {
            s.v[i] = static_cast<float>(s.v[i] * inv);
        }
    }
    const auto product = [&](int) -> std::optional<double> {
        forChunks(bodyChunks, gather);
        const Sums sums = reduceChunks(rowChunks, Sums{}, applyA, addSums);
        if (!(sums.qdq > 0.0)) {
            return std::nullopt;
        }
        return sums.qaq / sums.qdq;
    };
    const auto orthogonalise = [&](double alphaK, double betaPrev) {
        alpha = alphaK;
        beta = betaPrev;
        return reduceChunks(rowChunks, 0.0, orthogonaliseChunk, std::plus<double>{});
    };
    const auto advance = [&](double betaK) {
        beta = betaK;
        forChunks(rowChunks, normaliseChunk);
    };
    lcp::LanczosStop stop;
    stop.maxSteps = iterations;
    return static_cast<float>(
        lcp::lanczosRecurrence(stop, s.alpha, s.beta, product, orthogonalise, advance));
}

void applyImpulses(std::vector<Body>& bodies, std::vector<Contact>& contacts,
                   const std::vector<RowJacobian>& jac, std::span<const int> ids,
                   std::span<const float> x) {
    for (int k = 0; k < static_cast<int>(ids.size()); ++k) {
        Contact& c = contacts[ids[k]];
        Body& a = bodies[c.bodyA];
        Body& b = bodies[c.bodyB];
        for (int r = 0; r < 3; ++r) {
            const float lambda = x[3 * k + r];
            const RowJacobian& j = jac[3 * ids[k] + r];
            c.impulse[r] = lambda;
            if (!a.isStatic()) {
                a.linearVelocity += j.mLinA * lambda;
                a.angularVelocity += j.mAngA * lambda;
            }
            if (!b.isStatic()) {
                b.linearVelocity += j.mLinB * lambda;
                b.angularVelocity += j.mAngB * lambda;
            }
        }
    }
}

}  // namespace ww::rigid
