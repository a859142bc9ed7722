// Assembly of the dense contact LCP of one block of contacts (an island, or the whole scene).
//
// Unknowns: impulses x (N s), three rows per contact (normal, tangent1, tangent2). With the
// Jacobian J (one row per unknown, see contacts.h), M^-1 = diag(1/m, I_w^-1) per body, the
// velocities before the step v and the external accelerations g:
//   A = J M^-1 J^T + cfm I                      (dense, n x n, symmetric positive semidefinite)
//   b = J (v + dt g) + bias                     (so that w = A x + b = J v_next + bias)
// Normal rows (x in [0, inf)), with separation s (m) and relative normal speed v_n = J_n v:
//   bias = s / dt                                         if s > 0 (speculative: may close the
//                                                         gap in this step, not more)
//        = -min(erp / dt * max(-s - slop, 0), vmax)      if s <= 0 (Baumgarte, with slop)
//   plus restitution  e v_n  when v_n < -threshold (so that v_n,next >= -e v_n); a
//   speculative contact hit within the step (s + v_n dt < 0) then takes bias = e v_n alone,
//   bouncing up to s early instead of losing the impact speed to the s / dt clamp.
// Friction rows: bias 0, |x_t| <= mu x_n (frictionNormal/mu of the LCP problem).
// A row's cfm keeps A positive definite for redundant contacts (4 coplanar points per face
// give linearly dependent rows); it acts as a soft constraint of compliance cfm (s/kg).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/lcp/lcp_solver.h"
#include "solver/rigid/body.h"
#include "solver/rigid/contacts.h"

namespace ww::rigid {

/// One row of J and of M^-1 J^T, for both bodies (signs included, zero for static bodies).
struct RowJacobian {
    Vec3 linA, angA, linB, angB;      ///< J
    Vec3 mLinA, mAngA, mLinB, mAngB;  ///< M^-1 J^T
};

struct AssemblyParams {
    float dt = 1.0f / 60.0f;  ///< s (one substep)
    Vec3 gravity{0.0f, -9.81f, 0.0f};
    float friction = 0.6f;  ///< mu
    float erp = 0.2f;       ///< Baumgarte factor: fraction of the penetration removed per step
    float slop = 0.001f;    ///< m of penetration left uncorrected (avoids jitter)
    float maxCorrectionSpeed = 2.0f;    ///< m/s cap on the Baumgarte bias
    float restitution = 0.0f;           ///< e
    float restitutionThreshold = 1.0f;  ///< m/s: slower impacts do not bounce
    float cfm = 0.0f;                   ///< added to the diagonal of A
    /// Matrix-free: write every row's J and K into the operator. False: where its contacts are
    /// of the contact form, the operator takes its groups' rows as they are made and does not
    /// hold them (lcp::RowOperator::finishContactForm; only the CPU's Jacobi solver reads such
    /// an operator), which saves writing and reading back 288 bytes a contact.
    bool operatorRows = true;
};

/// J and M^-1 J^T of contact c's three rows (normal, tangent1, tangent2) between its bodies a
/// (c.bodyA) and b (c.bodyB); a static side is zeros. Every user of a contact's Jacobian forms
/// it here, so that the assembly, the impulses and the shock pass agree bit for bit.
inline void contactJacobians(const Contact& c, const Body& a, const Body& b, RowJacobian rows[3]) {
    const Vec3 ra = c.point - a.position;
    const Vec3 rb = c.point - b.position;
    for (int r = 0; r < 3; ++r) {
        const Vec3& d = r == 0 ? c.normal : (r == 1 ? c.tangent1 : c.tangent2);
        // Each side written once: its J and M^-1 J^T, or zeros for a static body.
        RowJacobian& j = rows[r];
        if (!a.isStatic()) {
            j.linA = d;
            j.angA = cross(ra, d);
            j.mLinA = d * a.invMass;
            j.mAngA = a.invInertiaWorld * j.angA;
        } else {
            j.linA = j.angA = j.mLinA = j.mAngA = Vec3{};
        }
        if (!b.isStatic()) {
            j.linB = -d;
            j.angB = -cross(rb, d);
            j.mLinB = j.linB * b.invMass;
            j.mAngB = b.invInertiaWorld * j.angB;
        } else {
            j.linB = j.angB = j.mLinB = j.mAngB = Vec3{};
        }
    }
}

/// J and M^-1 J^T of the three rows of every contact (jac has 3 * contacts.size() entries).
/// With an executor, in fixed chunks of contacts on its threads (each row is its contact's
/// alone: the same bits on any thread count).
void computeJacobians(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                      std::vector<RowJacobian>& jac, const exec::Executor* ex = nullptr);
/// The same for the contacts `ids` only: rows 3 id .. 3 id + 2 of jac, which is sized for all
/// contacts (the other contacts' rows unspecified).
void computeJacobians(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                      std::span<const int> ids, std::vector<RowJacobian>& jac,
                      const exec::Executor* ex = nullptr);

class ContactAssembler {
  public:
    /// Fills `out` (resized to 3 * ids.size() rows, storage reused) with the LCP of the
    /// contacts `ids`, rows in the order of ids. `guess` receives the warm-start impulses.
    void assemble(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                  const std::vector<RowJacobian>& jac, std::span<const int> ids,
                  const AssemblyParams& p, lcp::LcpProblem& out, std::span<float> guess);
    /// The same LCP with A matrix-free (LcpProblem::op: J and M^-1 J^T per row, bodies as
    /// local slots, static bodies -1): O(rows) memory where the dense A takes n^2. Each
    /// contact's rows are formed by contactJacobians as they are written (no jac). With an
    /// executor the rows are written on its threads in fixed chunks of contacts (the same
    /// result on any thread count).
    void assembleMatrixFree(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                            std::span<const int> ids, const AssemblyParams& p, lcp::LcpProblem& out,
                            std::span<float> guess, const exec::Executor* ex = nullptr);

    /// Where the following assemblies also write each contact row's velocity bias,
    /// b - J (v + dt g) (the normal row's Baumgarte, speculative or restitution term, 0 for
    /// the friction rows, up to rounding), at 3 id + r, id the contact's index; empty (the
    /// default): not written. The shock pass reads it.
    void setRowBiasOutput(std::span<float> bias) { m_rowBias = bias; }
    /// The bodies of the last block's slots, in slot order (after assembleMatrixFree: slot s of
    /// its operator is body slotBodies()[s]).
    const std::vector<int>& slotBodies() const { return m_slotBodies; }

  private:
    /// The local body slots of the block (m_bodySlot, m_slotBodies) and, with `rows`, the
    /// rows of each slot (m_slotStart, m_slotRows: the dense product's index). With `ex` the
    /// contacts are read on its threads (the same slots).
    void buildSlots(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                    std::span<const int> ids, bool rows = true, const exec::Executor* ex = nullptr);
    void releaseSlots();
    /// b, lo, hi, friction and the guess of the three rows of contact k of ids (rows 3k ..
    /// 3k + 2 of out), whose Jacobian rows are j[0 .. 2].
    void assembleContactRows(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                             const RowJacobian* j, std::span<const int> ids,
                             const AssemblyParams& p, lcp::LcpProblem& out, std::span<float> guess,
                             int k);

    std::vector<int> m_bodySlot;   ///< body -> local slot, -1 if not in the block
    std::span<float> m_rowBias;    ///< setRowBiasOutput's span (empty: none)
    std::vector<int> m_slotStart;  ///< CSR of (row, side) per local body
    std::vector<int> m_slotRows;
    std::vector<int> m_slotBodies;
    std::vector<int> m_idBodies;  ///< per contact of the block: body A, body B (-1: static)
};

/// Reference for tests: the same A and b from an explicit dense J (rows x 6 bodies) and
/// M^-1 in double precision. a is row-major n x n.
void assembleReference(const std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                       std::span<const int> ids, const AssemblyParams& p, std::vector<double>& a,
                       std::vector<double>& b);

/// Scratch of estimateLambdaMax (reused between steps).
struct JacobianLanczosScratch {
    std::vector<float> v, w, qPrev, diag;
    std::vector<double> alpha, beta;  ///< the Lanczos tridiagonal
    std::vector<Vec3> lin, ang;
    std::vector<std::int32_t> bodyStart, bodyEntries;  ///< rows by body: 2 * row + side
};

/// Estimate of lambda_max(D^-1 A) for A = J M^-1 J^T + cfm I over all rows of `contacts`
/// (block diagonal over islands: the largest block's), by `iterations` Lanczos steps in the D
/// inner product applied through the Jacobians: A q = J (M^-1 J^T q), O(rows) per step.
/// Returns the largest Ritz value (the top eigenvalue of the Lanczos tridiagonal): never
/// above lambda_max (up to float rounding), approaching it from below, much faster than the
/// power iteration's Rayleigh quotient with the same products. Returns 0 without contacts.
/// With an executor the products run on its threads in fixed chunks (per body, rows ascending;
/// partial sums combined in chunk order): the result does not depend on the thread count.
float estimateLambdaMax(const std::vector<Contact>& contacts, const std::vector<RowJacobian>& jac,
                        float cfm, int iterations, JacobianLanczosScratch& s,
                        const exec::Executor* ex = nullptr);

/// v += M^-1 J^T x for the contacts `ids` (x in the same row order as assemble()), and
/// stores x into the contacts' impulses.
void applyImpulses(std::vector<Body>& bodies, std::vector<Contact>& contacts,
                   const std::vector<RowJacobian>& jac, std::span<const int> ids,
                   std::span<const float> x);

}  // namespace ww::rigid
