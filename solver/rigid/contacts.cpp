// Contact frames and warm-start persistence (see contacts.h).
#include "solver/rigid/contacts.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <tuple>

namespace ww::rigid {

// Not inlined: one compiled form, so that a normal's tangents are the same bits whichever caller
// made them (where it is inlined the compiler fuses its multiply-adds differently).
[[gnu::noinline]] void tangentBasis(const Vec3& n, Vec3& t1, Vec3& t2) {
    // Cross with the world axis least aligned with n: continuous in n near the wall's
    // normals (x, y, z and their negatives), which is where persistence matters.
    const Vec3 ax = std::fabs(n.x) < 0.57735f
                        ? Vec3{1, 0, 0}
                        : (std::fabs(n.y) < 0.57735f ? Vec3{0, 1, 0} : Vec3{0, 0, 1});
    t1 = normalize(cross(n, ax));
    t2 = cross(n, t1);
}

Contact makeContact(int a, int b, const ContactPoint& cp) {
    Contact c;
    setContactPoint(c, a, b, cp);
    return c;
}

void setContactPoint(Contact& c, int a, int b, const ContactPoint& cp) {
    TangentMemo fresh;
    setContactPoint(c, a, b, cp, fresh);
}

void setContactPoint(Contact& c, int a, int b, const ContactPoint& cp, TangentMemo& memo) {
    c.bodyA = a;
    c.bodyB = b;
    c.feature = cp.feature;
    c.point = cp.point;
    c.normal = cp.normal;
    c.separation = cp.separation;
    // Bit for bit: a -0 component would give tangents whose zeros differ in sign.
    if (!memo.valid || std::memcmp(&memo.normal, &cp.normal, sizeof(Vec3)) != 0) {
        memo.normal = cp.normal;
        tangentBasis(cp.normal, memo.t1, memo.t2);
        memo.valid = true;
    }
    c.tangent1 = memo.t1;
    c.tangent2 = memo.t2;
}

namespace {

Quat conjugate(const Quat& q) {
    return {q.w, -q.x, -q.y, -q.z};
}

}  // namespace

void anchorContact(Contact& c, const Body& a, const Body& b) {
    const Vec3 half = c.normal * (0.5f * c.separation);
    c.anchor.onA = transposeMul(a.rotation, c.point + half - a.position);
    c.anchor.onB = transposeMul(b.rotation, c.point - half - b.position);
    c.anchor.normal = transposeMul(a.rotation, c.normal);
    c.anchor.offset = transposeMul(a.rotation, b.position - a.position);
    c.anchor.rotation = conjugate(a.orientation) * b.orientation;
    c.anchored = true;
}

namespace {

// Snapshots store the entries as bytes: no padding, whose bytes would be indeterminate.
static_assert(sizeof(ContactCache::Entry) ==
              3 * sizeof(int) + 19 * sizeof(float) + sizeof(std::uint32_t) + sizeof(Quat));

bool entryBefore(const ContactCache::Entry& x, const ContactCache::Entry& y) {
    return std::tie(x.bodyA, x.bodyB, x.feature) < std::tie(y.bodyA, y.bodyB, y.feature);
}

// Sorts by (bodyA, bodyB, feature). The world's contacts come grouped by body pair in pair
// order (the narrow phase's), so only each pair's few contacts need ordering by feature: a
// full sort of a 1000-brick wall's 11 000 entries took 0.27 ms a step. Anything else gets
// the full sort.
void sortEntries(std::vector<ContactCache::Entry>& entries) {
    for (auto run = entries.begin(); run != entries.end();) {
        auto end = run + 1;
        while (end != entries.end() && end->bodyA == run->bodyA && end->bodyB == run->bodyB) {
            ++end;
        }
        std::sort(run, end, entryBefore);
        run = end;
    }
    if (!std::is_sorted(entries.begin(), entries.end(), entryBefore)) {
        std::sort(entries.begin(), entries.end(), entryBefore);
    }
}

}  // namespace

void ContactCache::store(const std::vector<Contact>& contacts, const exec::Executor* ex) {
    // As sortEntries, in fixed chunks: each chunk writes the body pairs' runs that begin in it,
    // each run's entries in feature order, then the whole order is checked. The same entries in
    // the same order on any thread count (a run is written by one chunk either way).
    constexpr std::ptrdiff_t kChunk = 2048;
    // A run of up to this many contacts (a pair has at most a few) is put in order by its
    // features before its entries are written, with the stable insertion sort std::sort runs
    // on so few (the same order); a longer one is written, then sorted as entries.
    constexpr std::size_t kKeyedRun = 16;
    const auto count = static_cast<std::ptrdiff_t>(contacts.size());
    const std::ptrdiff_t chunks = exec::chunkCount(count, kChunk);
    m_entries.resize(contacts.size());
    const auto samePair = [&](std::size_t i, std::size_t j) {
        return contacts[i].bodyA == contacts[j].bodyA && contacts[i].bodyB == contacts[j].bodyB;
    };
    // Chunk c writes the runs that begin in [c K, (c + 1) K): from its first run start to the
    // next chunk's (runs are a few contacts, so the walks are short).
    m_runFrom.resize(static_cast<std::size_t>(chunks) + 1);
    m_runFrom[0] = 0;
    for (std::ptrdiff_t c = 1; c <= chunks; ++c) {
        auto at = static_cast<std::size_t>(std::min(count, c * kChunk));
        while (at < contacts.size() && at > 0 && samePair(at, at - 1)) {
            ++at;
        }
        m_runFrom[static_cast<std::size_t>(c)] =
            std::max(at, m_runFrom[static_cast<std::size_t>(c - 1)]);
    }
    // Field by field into the entry: an Entry built on the stack and copied was stored in
    // pieces and loaded back whole, each load waiting on the stores it overlaps.
    const auto writeEntry = [](Entry& e, const Contact& ct) {
        e.bodyA = ct.bodyA;
        e.bodyB = ct.bodyB;
        e.feature = ct.feature;
        e.normalImpulse = ct.impulse[0];
        e.friction = ct.tangent1 * ct.impulse[1] + ct.tangent2 * ct.impulse[2];
        e.normal = ct.normal;
        e.anchored = ct.anchored ? 1u : 0u;
        e.anchor = ct.anchored ? ct.anchor : ContactAnchor{};
    };
    exec::forChunks(
        ex, chunks,
        [&](std::ptrdiff_t c) {
            const std::size_t end = m_runFrom[static_cast<std::size_t>(c + 1)];
            for (std::size_t run = m_runFrom[static_cast<std::size_t>(c)]; run < end;) {
                std::size_t stop = run + 1;
                while (stop < end && samePair(stop, run)) {
                    ++stop;
                }
                const std::size_t length = stop - run;
                if (length <= kKeyedRun) {
                    std::uint32_t order[kKeyedRun];  // offsets into the run, by feature
                    for (std::size_t i = 0; i < length; ++i) {
                        std::size_t at = i;
                        const std::uint32_t feature = contacts[run + i].feature;
                        for (; at > 0 && feature < contacts[run + order[at - 1]].feature; --at) {
                            order[at] = order[at - 1];
                        }
                        order[at] = static_cast<std::uint32_t>(i);
                    }
                    for (std::size_t i = 0; i < length; ++i) {
                        writeEntry(m_entries[run + i], contacts[run + order[i]]);
                    }
                } else {
                    for (std::size_t i = run; i < stop; ++i) {
                        writeEntry(m_entries[i], contacts[i]);
                    }
                    std::sort(m_entries.begin() + static_cast<std::ptrdiff_t>(run),
                              m_entries.begin() + static_cast<std::ptrdiff_t>(stop), entryBefore);
                }
                run = stop;
            }
        },
        20 * count);
    const bool sorted = exec::reduceChunks(
        ex, chunks, true,
        [&](std::ptrdiff_t c) {
            const auto first = static_cast<std::size_t>(std::max<std::ptrdiff_t>(c * kChunk, 1));
            const auto last = static_cast<std::size_t>(std::min(count, (c + 1) * kChunk));
            for (std::size_t i = first; i < last; ++i) {
                if (entryBefore(m_entries[i], m_entries[i - 1])) {
                    return false;
                }
            }
            return true;
        },
        // Two ~100-byte entries read per test: a record read's work, as in the passes above.
        [](bool a, bool b) { return a && b; }, 16 * count);
    if (!sorted) {
        std::sort(m_entries.begin(), m_entries.end(), entryBefore);
    }
}

int ContactCache::warmStart(std::span<Contact> contacts, float factor) const {
    int matched = 0;
    // One binary search per body pair, not per contact: a pair's entries are adjacent (sorted
    // by pair, then feature), and its contacts usually are too (the narrow phase's order).
    for (std::size_t k = 0; k < contacts.size();) {
        const int a = contacts[k].bodyA;
        const int b = contacts[k].bodyB;
        std::size_t end = k + 1;
        while (end < contacts.size() && contacts[end].bodyA == a && contacts[end].bodyB == b) {
            ++end;
        }
        const auto first = std::lower_bound(m_entries.begin(), m_entries.end(), std::pair{a, b},
                                            [](const Entry& e, const std::pair<int, int>& key) {
                                                return std::tie(e.bodyA, e.bodyB) <
                                                       std::tie(key.first, key.second);
                                            });
        auto last = first;
        while (last != m_entries.end() && last->bodyA == a && last->bodyB == b) {
            ++last;
        }
        matched += warmStartPair({first, last}, contacts.subspan(k, end - k), factor);
        k = end;
    }
    return matched;
}

int ContactCache::warmStartPair(std::span<const Entry> entries, std::span<Contact> contacts,
                                float factor) {
    int matched = 0;
    for (Contact& c : contacts) {
        // The entry of the contact's feature: the pair has a few.
        const auto it = std::find_if(entries.begin(), entries.end(),
                                     [&](const Entry& e) { return e.feature == c.feature; });
        // A feature whose normal turned by more than ~25 degrees is a different contact.
        if (it != entries.end() && dot(it->normal, c.normal) > 0.9f) {
            c.impulse[0] = factor * it->normalImpulse;
            c.impulse[1] = factor * dot(it->friction, c.tangent1);
            c.impulse[2] = factor * dot(it->friction, c.tangent2);
            c.warmStarted = true;
            ++matched;
        } else {
            c.impulse[0] = c.impulse[1] = c.impulse[2] = 0.0f;
            c.warmStarted = false;
        }
    }
    return matched;
}

std::span<const ContactCache::Entry> ContactCache::pairEntries(int a, int b,
                                                               std::size_t& from) const {
    const auto before = [](const Entry& e, const std::pair<int, int>& k) {
        return std::tie(e.bodyA, e.bodyB) < std::tie(k.first, k.second);
    };
    const std::pair key{a, b};
    auto first = m_entries.begin() + static_cast<std::ptrdiff_t>(std::min(from, m_entries.size()));
    if (first != m_entries.begin() && !before(*(first - 1), key)) {
        first = m_entries.begin();  // asked out of order: search from the start
    }
    // A few entries ahead by steps (the next pair's are usually next), else a binary search.
    for (int k = 0; k < 8 && first != m_entries.end() && before(*first, key); ++k) {
        ++first;
    }
    if (first != m_entries.end() && before(*first, key)) {
        first = std::lower_bound(first, m_entries.end(), key, before);
    }
    auto last = first;
    while (last != m_entries.end() && last->bodyA == a && last->bodyB == b) {
        ++last;
    }
    from = static_cast<std::size_t>(last - m_entries.begin());
    return {first, last};
}

bool reuseManifold(std::span<const ContactCache::Entry> entries, int bodyA, int bodyB,
                   const Body& a, const Body& b, const NarrowPhaseParams& p, float factor,
                   std::vector<Contact>& out) {
    if (entries.empty() || p.reuseDistance <= 0.0f || p.reuseAngle <= 0.0f) {
        return false;
    }
    const ContactAnchor& ref = entries.front().anchor;
    for (const ContactCache::Entry& e : entries) {
        // One narrow-phase run made all of a pair's points: they share its pose.
        if (e.anchored == 0 || e.anchor.offset.x != ref.offset.x ||
            e.anchor.offset.y != ref.offset.y || e.anchor.offset.z != ref.offset.z) {
            return false;
        }
    }
    const Vec3 moved = transposeMul(a.rotation, b.position - a.position) - ref.offset;
    if (dot(moved, moved) > p.reuseDistance * p.reuseDistance) {
        return false;
    }
    // The turn between the two relative rotations: the vector part of q_ref^-1 q has length
    // sin(angle / 2) (its scalar part, cos(angle / 2), cannot resolve milliradians in float).
    const Quat turn = conjugate(ref.rotation) * (conjugate(a.orientation) * b.orientation);
    const float sinHalf2 = turn.x * turn.x + turn.y * turn.y + turn.z * turn.z;
    const float sinLimit = std::sin(0.5f * p.reuseAngle);
    if (sinHalf2 > sinLimit * sinLimit) {
        return false;
    }
    const std::size_t start = out.size();
    TangentMemo memo;
    for (const ContactCache::Entry& e : entries) {
        const Vec3 onA = a.position + a.rotation * e.anchor.onA;
        const Vec3 onB = b.position + b.rotation * e.anchor.onB;
        const Vec3 n = a.rotation * e.anchor.normal;
        const float s = dot(onA - onB, n);
        if (s > p.margin) {
            out.resize(start);  // a point opens: let the narrow phase look at the pair again
            return false;
        }
        ContactPoint cp;
        cp.point = (onA + onB) * 0.5f;
        cp.normal = n;
        cp.separation = s;
        cp.feature = e.feature;
        // Written in place: a Contact made on the stack and copied into `out` was stored in
        // pieces and loaded back whole.
        Contact& c = out.emplace_back();
        setContactPoint(c, bodyA, bodyB, cp, memo);
        c.impulse[0] = factor * e.normalImpulse;
        c.impulse[1] = factor * dot(e.friction, c.tangent1);
        c.impulse[2] = factor * dot(e.friction, c.tangent2);
        c.warmStarted = true;
        c.anchored = true;
        c.reused = true;
        c.anchor = e.anchor;
    }
    return true;
}

void ContactCache::removeBody(int body) {
    std::erase_if(m_entries, [&](const Entry& e) { return e.bodyA == body || e.bodyB == body; });
    for (Entry& e : m_entries) {
        e.bodyA -= e.bodyA > body ? 1 : 0;
        e.bodyB -= e.bodyB > body ? 1 : 0;
    }
    sortEntries(m_entries);
}

int guessRestingImpulses(const std::vector<Body>& bodies, std::vector<Contact>& contacts,
                         const Vec3& gravity, float dt, RestingLoadScratch& s,
                         const exec::Executor* ex) {
    const float g = length(gravity);
    const std::size_t nb = bodies.size();
    const std::size_t nc = contacts.size();
    constexpr std::ptrdiff_t kChunk = 2048;  // contacts (or bodies) per chunk of a loop
    const std::ptrdiff_t contactChunks = exec::chunkCount(static_cast<std::ptrdiff_t>(nc), kChunk);
    const bool anyCold = exec::reduceChunks(
        ex, contactChunks, false,
        [&](std::ptrdiff_t ch) {
            const auto first = contacts.begin() + ch * kChunk;
            const auto last =
                contacts.begin() + std::min(static_cast<std::ptrdiff_t>(nc), (ch + 1) * kChunk);
            return std::any_of(first, last, [](const Contact& c) { return !c.warmStarted; });
        },
        // Each test reads a contact record (~190 bytes): work of the per-contact passes below.
        [](bool acc, bool cold) { return acc || cold; }, static_cast<std::ptrdiff_t>(16 * nc));
    if (g <= 0.0f || !anyCold) {
        return 0;
    }
    const Vec3 up = gravity * (-1.0f / g);
    constexpr float kSupportCos = 0.70710678f;  // normal within 45 degrees of up
    // The contacts each body rests on, bucketed by that (upper) body: which contact supports
    // which body decided per contact on the executor, then offsets and ids in one pass over
    // the compact marks.
    s.lower.resize(nc);
    s.upper.resize(nc);
    exec::forRanges(
        ex, static_cast<std::ptrdiff_t>(nc), kChunk,
        [&](std::ptrdiff_t first, std::ptrdiff_t last) {
            for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(last);
                 ++k) {
                const Contact& c = contacts[k];
                const float nUp = dot(c.normal, up);  // n points from b to a
                const int above =
                    nUp >= kSupportCos ? c.bodyA : (nUp <= -kSupportCos ? c.bodyB : -1);
                const bool support =
                    above >= 0 && !bodies[static_cast<std::size_t>(above)].isStatic();
                const int below = above == c.bodyA ? c.bodyB : c.bodyA;
                // -2: a support on something static, which takes no load on.
                s.lower[k] = !support                                             ? -1
                             : bodies[static_cast<std::size_t>(below)].isStatic() ? -2
                                                                                  : below;
                s.upper[k] = support ? above : -1;
            }
        },
        static_cast<std::ptrdiff_t>(16 * nc));
    s.offsets.assign(nb + 1, 0);
    for (std::size_t k = 0; k < nc; ++k) {
        if (s.upper[k] >= 0) {
            ++s.offsets[static_cast<std::size_t>(s.upper[k]) + 1];
        }
    }
    for (std::size_t i = 0; i < nb; ++i) {
        s.offsets[i + 1] += s.offsets[i];
    }
    s.contactIds.resize(static_cast<std::size_t>(s.offsets[nb]));
    s.fill.assign(s.offsets.begin(), s.offsets.end() - 1);
    for (std::size_t k = 0; k < nc; ++k) {
        if (s.upper[k] >= 0) {
            const auto above = static_cast<std::size_t>(s.upper[k]);
            s.contactIds[static_cast<std::size_t>(s.fill[above]++)] = static_cast<int>(k);
        }
    }
    // The dynamic bodies highest first, ties by index: sorted as (-height, index) keys, so
    // that the comparisons read a compact array rather than the bodies.
    s.load.resize(nb);
    s.keys.clear();
    for (std::size_t i = 0; i < nb; ++i) {
        const Body& b = bodies[i];
        s.load[i] = b.isStatic() ? 0.0f : 1.0f / b.invMass;
        if (!b.isStatic()) {
            s.keys.emplace_back(-dot(b.position, up), static_cast<int>(i));
        }
    }
    std::sort(s.keys.begin(), s.keys.end());
    s.order.resize(s.keys.size());
    for (std::size_t r = 0; r < s.keys.size(); ++r) {
        s.order[r] = s.keys[r].second;
    }
    // Top down: a body's load is final when it is visited (everything above it was before).
    // This pass is serial (a load accumulates from the top), so it reads only the compact
    // arrays; each body's share of its load per support point is kept for the contacts.
    s.share.resize(nb);
    for (int i : s.order) {
        const auto ui = static_cast<std::size_t>(i);
        const int count = s.offsets[ui + 1] - s.offsets[ui];
        if (count == 0) {
            continue;  // nothing under it (falling, or held by side contacts only)
        }
        const float share = s.load[ui] / static_cast<float>(count);
        s.share[ui] = share;
        for (int q = s.offsets[ui]; q < s.offsets[ui + 1]; ++q) {
            const auto k = static_cast<std::size_t>(s.contactIds[static_cast<std::size_t>(q)]);
            const int below = s.lower[k];
            if (below >= 0) {
                s.load[static_cast<std::size_t>(below)] += share;
            }
        }
    }
    // The guesses into the contacts that were not warm started, on the executor.
    return exec::reduceChunks(
        ex, contactChunks, 0,
        [&](std::ptrdiff_t ch) {
            int guessed = 0;
            const auto last = std::min(nc, static_cast<std::size_t>((ch + 1) * kChunk));
            for (auto k = static_cast<std::size_t>(ch * kChunk); k < last; ++k) {
                Contact& c = contacts[k];
                if (s.upper[k] >= 0 && !c.warmStarted) {
                    const float share = s.share[static_cast<std::size_t>(s.upper[k])];
                    c.impulse[0] = share * g * dt * std::fabs(dot(c.normal, up));
                    ++guessed;
                }
            }
            return guessed;
        },
        std::plus<int>{}, static_cast<std::ptrdiff_t>(16 * nc));
}

}  // namespace ww::rigid
