// Shock propagation (see shock.h).
#include "solver/rigid/shock.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ww::rigid {

namespace {

/// A contact supports its upper body when its normal is within 45 degrees of the vertical.
constexpr float kSupportCos = 0.70710678f;
/// Bodies per chunk of a level's loop (fixed: which thread corrects which body changes nothing).
constexpr std::ptrdiff_t kChunkBodies = 16;
/// Bodies per chunk of the resting test.
constexpr std::ptrdiff_t kRestingChunkBodies = 1024;
/// Contacts per chunk of the support classification.
constexpr std::ptrdiff_t kClassifyChunkContacts = 2048;
/// Bodies of a level whose sweeps run side by side (their chains of dependent updates
/// interleaved); a chunk's bodies in groups of this many.
constexpr int kTogether = 2;
/// What one body's correction costs per sweep and row, in the executor's work units.
constexpr std::ptrdiff_t kRowSweepWork = 24;
/// Contact marks in ShockPropagation::m_lower besides a body index.
constexpr std::int32_t kNotSupport = -1;
constexpr std::int32_t kDropped = -2;  ///< the support below is corrected after the upper body
/// m: heights of a body and its support closer than this are not compared outside the sort
/// (ShockPropagation::sameLevelsAsLastCall).
constexpr float kHeightMargin = 1.0e-3f;

float velocityAlong(const RowJacobian& j, const Body& a, const Body& b) {
    return dot(j.linA, a.linearVelocity) + dot(j.angA, a.angularVelocity) +
           dot(j.linB, b.linearVelocity) + dot(j.angB, b.angularVelocity);
}

}  // namespace

int ShockPropagation::apply(std::vector<Body>& bodies, const std::vector<Contact>& contacts,
                            std::span<const float> bias, std::span<const char> posed,
                            const ShockParams& p, const exec::Executor* ex) {
    const std::size_t nb = bodies.size();
    const std::size_t nc = contacts.size();
    m_sweepsDone = 0;
    if (p.sweeps <= 0 || nc == 0) {
        m_levelStart.assign(1, 0);
        m_cachedNb = 0;
        return 0;
    }
    const auto moves = [&](int b) {
        const Body& body = bodies[static_cast<std::size_t>(b)];
        return !body.isStatic() && !body.asleep;
    };
    // Resting: no point of the body moves faster than restingSpeed (|v| + |w| r, r the
    // distance from the centre to the farthest point).
    const auto resting = [&](int b) {
        const Body& body = bodies[static_cast<std::size_t>(b)];
        if (body.isStatic()) {
            return true;
        }
        return fastestPointSpeed(body) <= p.restingSpeed;
    };
    // Which bodies rest, once per body (a body has tens of contacts).
    m_resting.resize(nb);
    exec::forChunks(
        ex, exec::chunkCount(static_cast<std::ptrdiff_t>(nb), kRestingChunkBodies),
        [&](std::ptrdiff_t c) {
            const auto first = static_cast<std::size_t>(c * kRestingChunkBodies);
            const std::size_t last =
                std::min(nb, first + static_cast<std::size_t>(kRestingChunkBodies));
            for (std::size_t b = first; b < last; ++b) {
                m_resting[b] = resting(static_cast<int>(b)) ? 1 : 0;
            }
        },
        // A body record (~200 bytes) and its two speeds: as the broad phase's boxes, 40 a body.
        static_cast<std::ptrdiff_t>(40 * nb));
    // The support contacts of each upper body (n points from body B to body A) between resting
    // bodies: which contacts support which body, decided per contact on the executor (each
    // reads one contact record and its two bodies), then counted per upper body in one pass
    // over the compact marks.
    m_lower.resize(nc);
    m_upper.resize(nc);
    exec::forRanges(
        ex, static_cast<std::ptrdiff_t>(nc), kClassifyChunkContacts,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last);
                 ++k) {
                const Contact& c = contacts[k];
                m_lower[k] = kNotSupport;
                m_upper[k] = -1;
                if (posed[k] == 0) {
                    continue;
                }
                const float nUp = dot(c.normal, p.up);
                const int upper =
                    nUp >= kSupportCos ? c.bodyA : (nUp <= -kSupportCos ? c.bodyB : -1);
                if (upper >= 0 && moves(upper) &&
                    m_resting[static_cast<std::size_t>(c.bodyA)] != 0 &&
                    m_resting[static_cast<std::size_t>(c.bodyB)] != 0) {
                    m_lower[k] = upper == c.bodyA ? c.bodyB : c.bodyA;
                    m_upper[k] = upper;
                }
            }
        },
        static_cast<std::ptrdiff_t>(16 * nc));
    if (sameLevelsAsLastCall(bodies, p, ex)) {
        exec::copyChunked(ex, m_cachedLowerPost, m_lower);  // with the dropped supports marked
    } else {
        exec::copyChunked(ex, m_upper, m_cachedUpper);
        exec::copyChunked(ex, m_lower, m_cachedLowerPre);
        if (!buildLevels(bodies, p)) {
            m_levelStart.assign(1, 0);
            m_cachedNb = 0;
            return 0;
        }
        exec::copyChunked(ex, m_lower, m_cachedLowerPost);
        m_cachedNb = nb;
    }
    const int levels = static_cast<int>(m_levelStart.size()) - 1;
    const std::vector<std::int32_t>& byLevel = m_byLevel;
    m_scratch.resize(kTogether * static_cast<std::size_t>(ex != nullptr ? ex->threads() : 1));
    m_sweepsByThread.assign(m_scratch.size() / kTogether, 0);
    // A body's support rows in the sweeps' scratch (dropped contacts left out), three a contact.
    const auto gatherRows = [&](std::int32_t b, std::vector<Row>& rows) {
        const auto ub = static_cast<std::size_t>(b);
        const std::int32_t first = m_supportStart[ub];
        const std::int32_t count = m_supportStart[ub + 1] - first;
        rows.clear();
        RowJacobian jac[3];  // contactJacobians writes every field: zeroed once, not a contact
        for (std::int32_t q = 0; q < count; ++q) {
            const auto k =
                static_cast<std::size_t>(m_supports[static_cast<std::size_t>(first + q)]);
            const Contact& c = contacts[k];
            if (m_lower[k] < 0) {
                continue;  // dropped
            }
            const bool sideA = c.bodyA == b;
            const Body& lower = bodies[static_cast<std::size_t>(sideA ? c.bodyB : c.bodyA)];
            const bool pinSpin = length(lower.angularVelocity) <= p.followSpinAbove;
            contactJacobians(c, bodies[static_cast<std::size_t>(c.bodyA)],
                             bodies[static_cast<std::size_t>(c.bodyB)], jac);
            for (int r = 0; r < 3; ++r) {
                const RowJacobian& j = jac[r];
                Row row{};
                row.x = c.impulse[r];
                row.w0 = velocityAlong(j, bodies[static_cast<std::size_t>(c.bodyA)],
                                       bodies[static_cast<std::size_t>(c.bodyB)]) +
                         bias[3 * k + static_cast<std::size_t>(r)];
                if (pinSpin) {
                    // The support as if it only translated: its spin's part taken out.
                    row.w0 -= dot(sideA ? j.angB : j.angA, lower.angularVelocity);
                }
                row.lin = sideA ? j.linA : j.linB;
                row.ang = sideA ? j.angA : j.angB;
                row.mLin = sideA ? j.mLinA : j.mLinB;
                row.mAng = sideA ? j.mAngA : j.mAngB;
                row.diag = dot(row.lin, row.mLin) + dot(row.ang, row.mAng);
                rows.push_back(row);
            }
        }
    };
    // One body's sweeps in progress: its rows, the velocity change so far, whether it still
    // sweeps, and the largest row change of the current sweep.
    struct Sweeping {
        std::vector<Row>* rows = nullptr;
        Vec3 dv{}, dw{};
        bool active = false;
        float largest = 0.0f;
    };
    // The contact of rows [q, q + 3): the normal, then the disc pair, each against the
    // velocity this pass has given the body so far.
    const auto updateContact = [&](Sweeping& s, std::size_t q) {
        Row& rn = (*s.rows)[q];
        Row& r1 = (*s.rows)[q + 1];
        Row& r2 = (*s.rows)[q + 2];
        // w = w_before + J_upper . (dv, dw): the row's velocity with this pass's change.
        const auto w = [&](const Row& row) {
            return row.w0 + (dot(row.lin, s.dv) + dot(row.ang, s.dw));
        };
        const auto push = [&](const Row& row, float dx) {
            s.dv += row.mLin * dx;
            s.dw += row.mAng * dx;
        };
        if (rn.diag > 0.0f) {
            const float xn = std::max(0.0f, rn.x - w(rn) / rn.diag);
            push(rn, xn - rn.x);
            s.largest = std::max(s.largest, std::abs(xn - rn.x) * rn.diag);
            rn.x = xn;
        }
        if (r1.diag > 0.0f && r2.diag > 0.0f) {
            float t1 = r1.x - w(r1) / r1.diag;
            float t2 = r2.x - w(r2) / r2.diag;
            const float limit = p.friction * rn.x;
            const float len = std::sqrt(t1 * t1 + t2 * t2);
            if (len > limit) {
                const float scale = len > 0.0f ? limit / len : 0.0f;
                t1 *= scale;
                t2 *= scale;
            }
            push(r1, t1 - r1.x);
            push(r2, t2 - r2.x);
            s.largest =
                std::max({s.largest, std::abs(t1 - r1.x) * r1.diag, std::abs(t2 - r2.x) * r2.diag});
            r1.x = t1;
            r2.x = t2;
        }
    };
    // kTogether bodies of one level (-1: none) corrected side by side: each body's own updates
    // in its own order, their chains of dependent updates interleaved contact by contact so
    // that one computes while the others wait.
    const auto correctTogether = [&](const std::int32_t* body, std::vector<Row>* rows,
                                     std::int64_t& sweepsDone) {
        Sweeping s[kTogether];
        for (int i = 0; i < kTogether; ++i) {
            s[i].rows = &rows[i];
            s[i].active = body[i] >= 0;
            if (s[i].active) {
                gatherRows(body[i], rows[i]);
            }
        }
        const auto anyActive = [&] {
            return std::any_of(std::begin(s), std::end(s),
                               [](const Sweeping& x) { return x.active; });
        };
        for (int sweep = 0; sweep < p.sweeps && anyActive(); ++sweep) {
            // The largest change of a row's own velocity that this sweep's updates made
            // (|dx| A_ii, the row's velocity error where it is not clamped).
            std::size_t n[kTogether];
            std::size_t most = 0;
            for (int i = 0; i < kTogether; ++i) {
                s[i].largest = 0.0f;
                sweepsDone += s[i].active ? 1 : 0;
                n[i] = s[i].active ? rows[i].size() : 0;
                most = std::max(most, n[i]);
            }
            for (std::size_t q = 0; q < most; q += 3) {
                for (int i = 0; i < kTogether; ++i) {
                    if (q < n[i]) {
                        updateContact(s[i], q);
                    }
                }
            }
            for (Sweeping& si : s) {
                // No row moved by more than the tolerance: a further sweep changes little.
                si.active = si.active && !(p.tolerance > 0.0f && si.largest <= p.tolerance);
            }
        }
        for (int i = 0; i < kTogether; ++i) {
            if (body[i] >= 0) {
                Body& bd = bodies[static_cast<std::size_t>(body[i])];
                bd.linearVelocity += s[i].dv;
                bd.angularVelocity += s[i].dw;
            }
        }
    };
    // The levels run in order as the stages of one Executor::runStages (a level reads only the
    // levels below, final once their stage ended): one hand-off to the threads for all of them
    // (a 20-high wall at rest has 20 levels, a collapse's rubble ~5), on the threads when the
    // largest level's sweeps are worth it.
    int level = 0;  // the stage running: level `level`, [begin, end) of byLevel
    std::int32_t begin = 0, end = 0;
    std::ptrdiff_t largest = 0;
    for (int l = 1; l <= levels && ex != nullptr; ++l) {
        std::ptrdiff_t work = 0;
        for (std::int32_t i = m_levelStart[static_cast<std::size_t>(l - 1)];
             i < m_levelStart[static_cast<std::size_t>(l)]; ++i) {
            const auto ub = static_cast<std::size_t>(byLevel[static_cast<std::size_t>(i)]);
            work += 3 * (m_supportStart[ub + 1] - m_supportStart[ub]);
        }
        largest = std::max(largest, work);
    }
    const auto plan = [&]() -> std::ptrdiff_t {
        while (level < levels) {
            ++level;
            begin = m_levelStart[static_cast<std::size_t>(level - 1)];
            end = m_levelStart[static_cast<std::size_t>(level)];
            if (end > begin) {
                return exec::chunkCount(end - begin, kChunkBodies);
            }
        }
        return 0;
    };
    const auto chunk = [&](std::ptrdiff_t c, int worker) {
        std::vector<Row>* rows = m_scratch.data() + kTogether * static_cast<std::size_t>(worker);
        std::int64_t& sweepsDone = m_sweepsByThread[static_cast<std::size_t>(worker)];
        const std::ptrdiff_t last = std::min<std::ptrdiff_t>(end, begin + (c + 1) * kChunkBodies);
        for (std::ptrdiff_t i = begin + c * kChunkBodies; i < last; i += kTogether) {
            std::int32_t group[kTogether];
            for (std::ptrdiff_t g = 0; g < kTogether; ++g) {
                group[g] = i + g < last ? byLevel[static_cast<std::size_t>(i + g)] : -1;
            }
            correctTogether(group, rows, sweepsDone);
        }
    };
    exec::runStages(ex, plan, chunk, largest * p.sweeps * kRowSweepWork);
    for (const std::int64_t s : m_sweepsByThread) {
        m_sweepsDone += s;
    }
    return static_cast<int>(m_order.size());
}

bool ShockPropagation::buildLevels(const std::vector<Body>& bodies, const ShockParams& p) {
    const std::size_t nb = bodies.size();
    const std::size_t nc = m_upper.size();
    m_supportStart.assign(nb + 1, 0);
    for (std::size_t k = 0; k < nc; ++k) {
        if (m_upper[k] >= 0) {
            ++m_supportStart[static_cast<std::size_t>(m_upper[k]) + 1];
        }
    }
    for (std::size_t b = 0; b < nb; ++b) {
        m_supportStart[b + 1] += m_supportStart[b];
    }
    m_supports.resize(static_cast<std::size_t>(m_supportStart[nb]));
    m_fill.assign(m_supportStart.begin(), m_supportStart.end() - 1);
    for (std::size_t k = 0; k < nc; ++k) {
        if (m_upper[k] >= 0) {
            const auto upper = static_cast<std::size_t>(m_upper[k]);
            m_supports[static_cast<std::size_t>(m_fill[upper]++)] = static_cast<std::int32_t>(k);
        }
    }
    // The bodies with supports, lowest first (ties by index).
    m_order.clear();
    for (std::size_t b = 0; b < nb; ++b) {
        if (m_supportStart[b + 1] > m_supportStart[b]) {
            m_order.push_back(static_cast<std::int32_t>(b));
        }
    }
    if (m_order.empty()) {
        return false;
    }
    // Sorted as (height, index) keys: the comparisons read a compact array, not the bodies.
    m_byHeight.resize(m_order.size());
    for (std::size_t r = 0; r < m_order.size(); ++r) {
        const std::int32_t b = m_order[r];
        m_byHeight[r] = {dot(bodies[static_cast<std::size_t>(b)].position, p.up), b};
    }
    std::sort(m_byHeight.begin(), m_byHeight.end());  // ties in height by index
    for (std::size_t r = 0; r < m_order.size(); ++r) {
        m_order[r] = m_byHeight[r].second;
    }
    m_rank.assign(nb, -1);
    for (std::size_t r = 0; r < m_order.size(); ++r) {
        m_rank[static_cast<std::size_t>(m_order[r])] = static_cast<std::int32_t>(r);
    }
    // Levels, in height order: a body's level is one above its highest support's. A support
    // that is itself corrected later (tilted bodies whose centres are out of order) is dropped,
    // so that every level reads only lower levels, which are final.
    m_level.assign(nb, 0);
    int levels = 0;
    for (const std::int32_t b : m_order) {
        const auto ub = static_cast<std::size_t>(b);
        int level = 1;
        for (std::int32_t s = m_supportStart[ub]; s < m_supportStart[ub + 1]; ++s) {
            const auto k = static_cast<std::size_t>(m_supports[static_cast<std::size_t>(s)]);
            const std::int32_t lower = m_lower[k];
            const std::int32_t lowerRank = m_rank[static_cast<std::size_t>(lower)];
            if (lowerRank > m_rank[ub]) {
                m_lower[k] = kDropped;
            } else if (lowerRank >= 0) {
                level = std::max(level, m_level[static_cast<std::size_t>(lower)] + 1);
            }
        }
        m_level[ub] = level;
        levels = std::max(levels, level);
    }
    // The bodies by level (a counting sort, stable: height order within a level).
    m_levelStart.assign(static_cast<std::size_t>(levels) + 1, 0);
    for (const std::int32_t b : m_order) {
        ++m_levelStart[static_cast<std::size_t>(m_level[static_cast<std::size_t>(b)])];
    }
    for (int l = 1; l <= levels; ++l) {
        m_levelStart[static_cast<std::size_t>(l)] += m_levelStart[static_cast<std::size_t>(l - 1)];
    }
    // Level l (1..L) is [m_levelStart[l - 1], m_levelStart[l]) of byLevel.
    m_fill.assign(m_levelStart.begin(), m_levelStart.end() - 1);
    std::vector<std::int32_t>& byLevel = m_byLevel;
    byLevel.assign(m_order.size(), 0);
    for (const std::int32_t b : m_order) {
        const auto l = static_cast<std::size_t>(m_level[static_cast<std::size_t>(b)] - 1);
        byLevel[static_cast<std::size_t>(m_fill[l]++)] = b;
    }

    return true;
}

bool ShockPropagation::sameLevelsAsLastCall(const std::vector<Body>& bodies, const ShockParams& p,
                                            const exec::Executor* ex) const {
    // The levels are a function of the classification (m_upper, m_lower before any support is
    // dropped) and of which supports are dropped: a support whose (height, index) is above
    // that of the body it holds (it is corrected after it). When both are those of the last
    // call, so are the levels; the order of the bodies within a level may differ with their
    // heights, which no body's correction depends on.
    const std::size_t nc = m_upper.size();
    if (m_cachedNb != bodies.size() || m_cachedUpper.size() != nc ||
        m_cachedLowerPre.size() != nc) {
        return false;
    }
    constexpr std::ptrdiff_t kChunk = kClassifyChunkContacts;
    const auto height = [&](std::int32_t b) {
        return dot(bodies[static_cast<std::size_t>(b)].position, p.up);
    };
    return exec::reduceChunks(
        ex, exec::chunkCount(static_cast<std::ptrdiff_t>(nc), kChunk), true,
        [&](std::ptrdiff_t c) {
            const auto first = static_cast<std::size_t>(c * kChunk);
            const std::size_t last = std::min(nc, first + static_cast<std::size_t>(kChunk));
            for (std::size_t k = first; k < last; ++k) {
                if (m_upper[k] != m_cachedUpper[k] || m_lower[k] != m_cachedLowerPre[k]) {
                    return false;
                }
                if (m_upper[k] < 0) {
                    continue;
                }
                const std::int32_t u = m_upper[k];
                const std::int32_t l = m_lower[k];
                const auto ul = static_cast<std::size_t>(l);
                const bool lowerCorrected = m_supportStart[ul + 1] > m_supportStart[ul];
                if (!lowerCorrected) {
                    continue;  // never dropped
                }
                // Heights within kHeightMargin: the order is left to the sort (its keys and
                // these may round apart), so the levels are built again.
                const float hu = height(u);
                const float hl = height(l);
                if (std::abs(hu - hl) <= kHeightMargin) {
                    return false;
                }
                if ((hl > hu) != (m_cachedLowerPost[k] == kDropped)) {
                    return false;
                }
            }
            return true;
        },
        [](bool a, bool b) { return a && b; }, static_cast<std::ptrdiff_t>(16 * nc));
}

}  // namespace ww::rigid
