// Contacts between two bodies and their persistence across steps.
//
// A contact k between bodies a and b (normal n from b to a, lever arms r_a = p - x_a,
// r_b = p - x_b, tangents t1, t2 with (n, t1, t2) orthonormal) contributes three rows to the
// velocity-level LCP, each with Jacobian  J = [ d, r_a x d, -d, -(r_b x d) ]  for d = n, t1,
// t2: a normal row (impulse lambda_n >= 0) and two friction rows (|lambda_t| <= mu lambda_n,
// the friction disc ||(lambda_t1, lambda_t2)|| <= mu lambda_n, lcp_solver.h). Impulses of a
// contact found again in the next step (same bodies, same feature id) are carried over as the
// warm-start guess: the normal impulse as it is, the friction impulse as the world-space vector
// lambda_t1 t1 + lambda_t2 t2 projected onto the new step's tangents (the basis may turn or flip
// between steps, tangentBasis switching its reference axis).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "solver/exec/executor.h"
#include "solver/rigid/body.h"
#include "solver/rigid/narrow_phase.h"

namespace ww::rigid {

/// Where a contact point sits on its two bodies, and the pose it was made at: what lets a
/// later step rebuild it from the bodies' poses without the narrow phase.
struct ContactAnchor {
    Vec3 onA;     ///< the point on a's surface (p + n s / 2), a's frame, m
    Vec3 onB;     ///< the point on b's surface (p - n s / 2), b's frame, m
    Vec3 normal;  ///< n in a's frame
    /// b's pose in a's frame when the narrow phase made the point: R_a^T (x_b - x_a), m, and
    /// q_a^-1 q_b.
    Vec3 offset;
    Quat rotation;
};

struct Contact {
    int bodyA = -1;
    int bodyB = -1;
    std::uint32_t feature = 0;
    Vec3 point;                             ///< world, m
    Vec3 normal;                            ///< from b to a
    Vec3 tangent1, tangent2;                ///< friction directions, deterministic in the normal
    float separation = 0.0f;                ///< m, negative = penetration
    float impulse[3] = {0.0f, 0.0f, 0.0f};  ///< N s: normal, tangent1, tangent2
    bool warmStarted = false;               ///< matched a contact of the previous step
    /// The point's manifold anchors (anchorContact): set for box-box and box-plane points,
    /// which reuseManifold may carry into later steps.
    bool anchored = false;
    bool reused = false;  ///< carried over from a previous step by reuseManifold
    ContactAnchor anchor;
};

/// Two unit vectors completing n to an orthonormal frame, chosen from n alone (so that a
/// persistent contact keeps its friction directions and their warm-start impulses).
void tangentBasis(const Vec3& n, Vec3& t1, Vec3& t2);

/// The contact of narrow-phase point cp between bodies a and b (normal from b to a), with its
/// tangents; impulses zero, not warm started.
Contact makeContact(int a, int b, const ContactPoint& cp);
/// makeContact's fields (bodies, feature, point, normal, separation, tangents) written into c,
/// the rest of c left as it is: for a contact made in place (a fresh Contact is
/// makeContact's).
void setContactPoint(Contact& c, int a, int b, const ContactPoint& cp);

/// The tangent basis of the last normal seen, for the points of one manifold, which share their
/// normal: tangentBasis (a normalization) then runs once a manifold, with the same bits.
struct TangentMemo {
    Vec3 normal;
    Vec3 t1, t2;
    bool valid = false;
};
/// setContactPoint, the tangents taken from memo where cp's normal is memo's bit for bit (and
/// memo updated otherwise).
void setContactPoint(Contact& c, int a, int b, const ContactPoint& cp, TangentMemo& memo);

/// Sets c's anchor from its point, normal and separation and the poses of a and b (the
/// bodies c.bodyA and c.bodyB), and marks it anchored.
void anchorContact(Contact& c, const Body& a, const Body& b);

/// Remembers last step's impulses (and the box pairs' manifolds) by (bodyA, bodyB, feature).
class ContactCache {
  public:
    /// One remembered contact (trivially copyable, no padding: snapshots store the entries as
    /// bytes).
    struct Entry {
        int bodyA, bodyB;
        std::uint32_t feature;
        float normalImpulse;  ///< N s
        Vec3 friction;        ///< N s, world space: lambda_t1 t1 + lambda_t2 t2
        Vec3 normal;
        std::uint32_t anchored;  ///< 1: anchor holds the point's manifold anchors
        ContactAnchor anchor;
    };
    /// Copies each contact's impulses into the cache (replacing the previous step's), with an
    /// executor on its threads (the same cache on any thread count).
    void store(const std::vector<Contact>& contacts, const exec::Executor* ex = nullptr);
    /// Sets impulse[] (scaled by `factor`) and warmStarted of contacts found in the cache;
    /// the others get zero. The friction impulse is the cached world-space vector projected
    /// onto the contact's tangent1/tangent2, which must be set. Returns the number matched.
    int warmStart(std::span<Contact> contacts, float factor) const;
    /// warmStart for contacts of one body pair, given that pair's entries (pairEntries: the
    /// narrow phase, which walks the pairs in order, finds them without a search).
    static int warmStartPair(std::span<const Entry> entries, std::span<Contact> contacts,
                             float factor);
    /// The entries of body pair (a, b) (adjacent: sorted by pair), possibly none. `from`: where
    /// the search starts and, on return, where the pair's entries end: pairs asked for in
    /// increasing order (the broad phase's) walk the entries once. Start it at 0.
    std::span<const Entry> pairEntries(int a, int b, std::size_t& from) const;
    void clear() { m_entries.clear(); }
    /// Forgets contacts of `body` and shifts higher body indices down by one.
    void removeBody(int body);
    std::size_t size() const { return m_entries.size(); }
    std::size_t bytes() const { return m_entries.size() * sizeof(Entry); }
    const std::vector<Entry>& entries() const { return m_entries; }
    /// Replaces the entries (a snapshot's); they must be sorted by (bodyA, bodyB, feature).
    void setEntries(std::vector<Entry> entries) { m_entries = std::move(entries); }

  private:
    std::vector<Entry> m_entries;        ///< sorted by (bodyA, bodyB, feature)
    std::vector<std::size_t> m_runFrom;  ///< store's scratch: where each chunk's runs begin
};

/// Persistent manifold: when every entry of the pair (a, b) (ContactCache::pairEntries) is
/// anchored and b's pose in a's frame is within p.reuseDistance and p.reuseAngle of the pose
/// the points were made at (the same for all of them), appends the pair's contacts rebuilt
/// from the anchors and the bodies' current poses: each surface point carried by its body,
/// the point midway, the normal carried by a, the separation the gap along it. Each keeps its
/// anchor (the drift is measured from where the narrow phase made it, not from last step)
/// and its feature, and is warm started from its entry (impulses scaled by `factor`; the
/// friction impulse projected onto the new tangents). Returns false and appends nothing when
/// the pair cannot be reused, or when one of its points now separates by more than p.margin
/// (then run the narrow phase). bodyA, bodyB: a's and b's indices.
bool reuseManifold(std::span<const ContactCache::Entry> entries, int bodyA, int bodyB,
                   const Body& a, const Body& b, const NarrowPhaseParams& p, float factor,
                   std::vector<Contact>& out);

/// Scratch of guessRestingImpulses (kept by the world so that steps do not allocate).
struct RestingLoadScratch {
    std::vector<int> order;    ///< dynamic bodies, highest first
    std::vector<float> load;   ///< per body: mass it carries (its own + what rests on it), kg
    std::vector<float> share;  ///< per body resting on something: load per support point
    /// per contact: the dynamic body rested on, -2 (a static one), or -1 (not a support)
    std::vector<int> lower;
    std::vector<int> upper;                   ///< per contact: the body resting on it, or -1
    std::vector<std::pair<float, int>> keys;  ///< (-height, body): the sort of `order`
    std::vector<int> offsets;     ///< per body: start of its support contacts in contactIds
    std::vector<int> fill;        ///< bucketing cursor
    std::vector<int> contactIds;  ///< support contacts grouped by the body resting on them
};

/// Cold-start guess for contacts that were not warm started: the normal impulse that holds
/// everything above them at rest. Bodies are visited from the highest down; each carries its
/// own mass plus the loads of the bodies resting on it, shared equally by the contact points it
/// rests on (contacts whose normal is within 45 degrees of "up"; side contacts get nothing).
/// A contact's guess is load share * |g| * dt * (n . up); friction guesses stay zero.
///
/// Why: projected Jacobi moves load through a stack one contact layer per iteration, and its
/// slowest mode (the whole column compressing) needs thousands of iterations on a 20-high
/// column from zero. A tall wall that starts from zero impulses sinks on its first steps and
/// falls; starting from the static solution it only has to correct the residue.
/// Returns the number of contacts given a guess. The per-contact passes run on `ex` when given
/// (the same result).
int guessRestingImpulses(const std::vector<Body>& bodies, std::vector<Contact>& contacts,
                         const Vec3& gravity, float dt, RestingLoadScratch& scratch,
                         const exec::Executor* ex = nullptr);

}  // namespace ww::rigid
