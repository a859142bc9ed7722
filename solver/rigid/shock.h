// Shock propagation at the velocity level: after the contact LCP is solved and its impulses
// applied, the bodies are visited from the ground up, and each body's contacts with what it
// rests on are solved again with the body below held fixed (as if of infinite mass), so that
// no body moves into its support. A level is the longest chain of supports down to something
// static; the bodies of one level depend only on lower levels, so each level is one parallel
// loop, and the result does not depend on the thread count.
//
// What it fixes: a stack's supports carry the weight of everything above them, and projected
// Jacobi spreads that load through a tall touching wall only slowly (docs/rigid.md, "What the
// 200 iterations buy"): with tens of iterations a step the unsolved part tilts the bricks on
// their faces and a 20-high wall falls within a minute. Solving each brick's support contacts
// against a fixed support removes the relative motion that the unsolved load leaves, so the
// wall stands with few iterations a step.
//
// A support's slow spin is not followed (ShockParams::followSpinAbove, 1e-3 rad/s): a body is
// corrected against the velocity its support's centre has, as if the support only translated,
// unless the support turns faster (it tips, and carries what rests on it). Followed,
// the pass makes each resting body move with its support as one rigid body, so the tiny
// angular velocity that Jacobi leaves in a low brick of a standing wall became a lateral
// velocity of everything above it, growing with the lever arm: after a 4 x 64 wall's first
// step its top bricks moved 3.8e-5 m/s sideways (2e-8 not followed, 0 without the pass), and
// the 64 x 64 wall fell within a second. With spins above 1e-3 rad/s followed, 64 x 64 stands
// 30 s and 100 x 100 10 s within 0.1 mm; never following also holds them, but a pile's tipping
// bricks then sink further into what they rest on (a 40 x 25 wall shot at step 105: 0.465 m
// against --check's 0.399 m bound, 0.078 m at 1e-3; docs/rigid.md, "Tall walls").
//
// What it costs in physics: the bodies below do not receive the reaction of the impulses added
// here, so momentum is not conserved in this pass (only the upper bodies are corrected; the
// contacts' impulses, and so the warm start of the next step, stay those of the LCP). It is
// therefore kept to resting contact: contacts whose normal is more than 45 degrees from the
// vertical (a wall's side contacts) and contacts with a body in motion (any point faster than
// ShockParams::restingSpeed) are left to the LCP alone. Applied to a collapsing pile as well,
// the pass glued toppling columns into bending chains, each brick following the one below it.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/rigid/assembly.h"
#include "solver/rigid/body.h"
#include "solver/rigid/contacts.h"

namespace ww::rigid {

struct ShockParams {
    int sweeps = 10;            ///< projected Gauss-Seidel sweeps over one body's support rows
    float friction = 0.6f;      ///< mu (the friction rows' disc ||(x_t1, x_t2)|| <= mu x_n)
    Vec3 up{0.0f, 1.0f, 0.0f};  ///< unit, against gravity
    /// m/s: a contact is corrected only while no point of either body moves faster (resting
    /// contact); World uses half a step of free fall, g dt / 2.
    float restingSpeed = 0.08f;
    /// rad/s: a body is corrected against its support's full rigid motion when the support
    /// turns faster than this (a tipping support carries what rests on it), else against the
    /// support's linear velocity alone (see the top of this file). 0 = always the full motion,
    /// infinity = never (100-row walls stand, but piles keep more penetration: docs/rigid.md,
    /// "Tall walls").
    float followSpinAbove = 1.0e-3f;
    /// m/s: a body's sweeps stop after the first in which no row's update changed that row's
    /// velocity by more than this (|dx| A_ii: the row's velocity error where the update is not
    /// clamped). A resting brick's correction settles in 3-4 of the ten sweeps (World passes
    /// 1e-8 m/s). 0 = always all sweeps.
    float tolerance = 0.0f;
};

class ShockPropagation {
  public:
    /// Corrects the velocities of the non-static, awake bodies in place. For contact k (posed[k]
    /// != 0: solved this step), its rows 3k .. 3k + 2 (J from contactJacobians, assembly.h),
    /// with bias[3k + r] such that the row's velocity is w = J v + bias (the row's velocity bias
    /// in the LCP's b); the starting impulses are contacts[k].impulse (the LCP's, already
    /// applied to the velocities).
    /// Returns the number of bodies corrected.
    int apply(std::vector<Body>& bodies, const std::vector<Contact>& contacts,
              std::span<const float> bias, std::span<const char> posed, const ShockParams& p,
              const exec::Executor* ex);

    /// Sweeps of the last apply(), summed over the corrected bodies (diagnostics, tests).
    std::int64_t sweepsDone() const { return m_sweepsDone; }
    /// Levels of the last apply() (bodies per level), for tests and diagnostics.
    int levels() const { return static_cast<int>(m_levelStart.size()) - 1; }

  private:
    /// The support lists, the height order and the levels of the bodies to correct, from the
    /// classification in m_upper and m_lower (which it marks with the dropped supports);
    /// false when no body has a support.
    bool buildLevels(const std::vector<Body>& bodies, const ShockParams& p);
    /// Whether the classification, and every support's order against the body it holds, are
    /// those of the levels kept from the last build (then they stand: a resting pile's).
    bool sameLevelsAsLastCall(const std::vector<Body>& bodies, const ShockParams& p,
                              const exec::Executor* ex) const;

    // Per upper body its support contacts (offsets into m_supports); per contact the body
    // below (or a mark); the bodies to correct by height (m_order, m_rank), their levels, the
    // same bodies by level (m_byLevel) and each level's range in it (m_levelStart).
    std::vector<std::int32_t> m_supportStart, m_supports, m_lower, m_order, m_rank, m_level;
    std::vector<std::int32_t> m_upper;  ///< per contact: the body it supports, or -1
    std::vector<std::pair<float, std::int32_t>> m_byHeight;  ///< (height, body) sort keys
    std::vector<std::int32_t> m_byLevel, m_levelStart, m_fill;
    std::vector<char>
        m_resting;  ///< per body: 1 when no point of it moves faster than restingSpeed
    /// One support row in a body's sweeps: its impulse, its velocity before the pass's change,
    /// the upper side's diagonal, J and M^-1 J^T (all that the sweeps read).
    struct Row {
        float x, w0, diag;
        Vec3 lin, ang, mLin, mAng;
    };
    std::vector<std::vector<Row>> m_scratch;     ///< two per executor thread: two bodies' rows
    std::vector<std::int64_t> m_sweepsByThread;  ///< per executor thread: sweeps done
    /// The classification the levels were built from (before and after marking the dropped
    /// supports), and the body count then (0: no levels kept).
    std::vector<std::int32_t> m_cachedUpper, m_cachedLowerPre, m_cachedLowerPost;
    std::size_t m_cachedNb = 0;
    std::int64_t m_sweepsDone = 0;
};

}  // namespace ww::rigid
