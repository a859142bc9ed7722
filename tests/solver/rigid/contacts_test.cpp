// Contact frames, the warm-start cache and persistent manifolds: a friction impulse carried from
// one step to the next keeps its direction in the world even when the tangent basis turns or
// flips; a manifold carried by its bodies agrees with a fresh narrow phase within its tolerances.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "solver/rigid/contacts.h"
#include "support/executor.h"
#include "support/seed.h"

namespace ww::rigid {
namespace {

Contact contactWithNormal(const Vec3& n) {
    Contact c;
    c.bodyA = 1;
    c.bodyB = 0;
    c.feature = 7;
    c.normal = normalize(n);
    tangentBasis(c.normal, c.tangent1, c.tangent2);
    return c;
}

// The points of a manifold share their normal, and setContactPoint with a TangentMemo takes the
// tangents from the last point's where the normal is the same bits: the tangents must be
// tangentBasis's bit for bit on every point, through runs of equal normals, changes of normal,
// and normals that differ from the last only in the sign of a zero (whose tangents' zeros
// differ in sign: a memo comparing values, not bits, hands the wrong ones over).
TEST(ContactPoints, TangentMemoGivesTangentBasisBitForBit) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::normal_distribution<float> g;
    std::uniform_int_distribution<int> pick(0, 5);
    const auto bits = [](const Vec3& v) {
        std::uint32_t out[3];
        std::memcpy(out, &v, sizeof(out));
        return std::tuple{out[0], out[1], out[2]};
    };
    TangentMemo memo;
    Vec3 normal = normalize(Vec3{g(rng), g(rng), g(rng)});
    int zeroFlips = 0;
    for (int k = 0; k < 2000; ++k) {
        switch (pick(rng)) {
            case 0:  // a new random normal
                normal = normalize(Vec3{g(rng), g(rng), g(rng)});
                break;
            case 1: {  // an axis, with zeros of either sign
                const float s = g(rng) < 0.0f ? -1.0f : 1.0f;
                const float z1 = g(rng) < 0.0f ? -0.0f : 0.0f;
                const float z2 = g(rng) < 0.0f ? -0.0f : 0.0f;
                normal = pick(rng) % 3 == 0
                             ? Vec3{s, z1, z2}
                             : (pick(rng) % 2 == 0 ? Vec3{z1, s, z2} : Vec3{z1, z2, s});
                break;
            }
            case 2:  // the same normal with one zero's sign flipped, where it has a zero
                if (normal.x == 0.0f || normal.y == 0.0f || normal.z == 0.0f) {
                    (normal.x == 0.0f ? normal.x : normal.y == 0.0f ? normal.y : normal.z) *= -1.0f;
                    ++zeroFlips;
                }
                break;
            default:  // the same normal again (the manifold's next point)
                break;
        }
        ContactPoint cp;
        cp.point = {g(rng), g(rng), g(rng)};
        cp.normal = normal;
        cp.separation = g(rng);
        cp.feature = static_cast<std::uint32_t>(k);
        Contact withMemo;
        setContactPoint(withMemo, 2, 3, cp, memo);
        Vec3 t1, t2;
        tangentBasis(normal, t1, t2);
        ASSERT_EQ(bits(withMemo.tangent1), bits(t1)) << "point " << k;
        ASSERT_EQ(bits(withMemo.tangent2), bits(t2)) << "point " << k;
        ASSERT_EQ(bits(withMemo.normal), bits(normal));
        EXPECT_EQ(withMemo.bodyA, 2);
        EXPECT_EQ(withMemo.bodyB, 3);
        EXPECT_EQ(withMemo.feature, cp.feature);
        EXPECT_EQ(withMemo.separation, cp.separation);
    }
    EXPECT_GT(zeroFlips, 20) << "the draw must flip zeros' signs";
}

// tangentBasis crosses n with the world axis least aligned with it, switching from x to z
// where |n.x| passes 1/sqrt(3): there t1 and t2 jump by ~90 degrees between two normals 1
// degree apart. The warm-started friction impulse lambda_1 t1' + lambda_2 t2' must be the
// cached world vector lambda_1 t1 + lambda_2 t2 projected onto the new tangent plane (times
// the warm-start factor). Float vectors of unit length and impulses of O(1): 1e-5 is ~100 ulps.
TEST(ContactCache, WarmStartKeepsTheWorldFrictionImpulseAcrossABasisFlip) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int k = 0; k < 20; ++k) {
        const float phi = 0.3f + 0.2f * u(rng);
        auto normalAt = [&](float nx) {
            const float r = std::sqrt(1.0f - nx * nx);
            return Vec3{nx, r * std::cos(phi), r * std::sin(phi)};
        };
        std::vector<Contact> before{contactWithNormal(normalAt(0.570f))};
        std::vector<Contact> after{contactWithNormal(normalAt(0.585f))};
        // The flip this test is about: the new t1 is far from the old one.
        ASSERT_LT(std::abs(dot(before[0].tangent1, after[0].tangent1)), 0.9f);
        before[0].impulse[0] = 1.0f + u(rng) * 0.5f;
        before[0].impulse[1] = u(rng);
        before[0].impulse[2] = u(rng);
        const Vec3 world =
            before[0].tangent1 * before[0].impulse[1] + before[0].tangent2 * before[0].impulse[2];
        ContactCache cache;
        cache.store(before);
        const float factor = 0.5f + 0.5f * (u(rng) + 1.0f) * 0.5f;
        ASSERT_EQ(cache.warmStart(after, factor), 1);
        const Contact& c = after[0];
        const Vec3 expected = (world - c.normal * dot(world, c.normal)) * factor;
        const Vec3 got = c.tangent1 * c.impulse[1] + c.tangent2 * c.impulse[2];
        EXPECT_NEAR(got.x, expected.x, 1e-5f) << "case " << k;
        EXPECT_NEAR(got.y, expected.y, 1e-5f) << "case " << k;
        EXPECT_NEAR(got.z, expected.z, 1e-5f) << "case " << k;
        EXPECT_NEAR(c.impulse[0], factor * before[0].impulse[0], 1e-6f);
        EXPECT_TRUE(c.warmStarted);
    }
}

// The cache finds a contact by (bodyA, bodyB, feature) whatever order the contacts come in: the
// pair-at-a-time search against a scan of every stored entry, on random pairs and features
// stored in random order and asked for in random order, with misses (unknown pairs, unknown
// features, normals turned too far). Impulses are copied, not computed: they must be equal.
// store() writes and sorts the entries in chunks of 2048 on the executor's threads: each body
// pair's run of features is sorted by the chunk it begins in, runs cross chunk boundaries, and a
// list not grouped by pair falls back to a full sort. Thousands of contacts (several chunks),
// runs of 1-9 features in shuffled order, the pairs in the narrow phase's ascending order or
// shuffled: the entries must be the contacts sorted by (bodyA, bodyB, feature), each with its
// own impulse, on the threads as on the calling thread.
TEST(ContactCache, StoreOnThreadsSortsEveryRunAsTheSerialStore) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> runLength(1, 9);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (const bool grouped : {true, false}) {
        std::vector<Contact> contacts;
        for (int a = 1; contacts.size() < 7000; ++a) {
            for (int b = 0; b < a && contacts.size() < 7000; b += 1 + a % 3) {
                std::vector<std::uint32_t> features(static_cast<std::size_t>(runLength(rng)));
                for (std::size_t f = 0; f < features.size(); ++f) {
                    features[f] = static_cast<std::uint32_t>(3 * f + (a + b) % 3);
                }
                std::shuffle(features.begin(), features.end(), rng);
                for (const std::uint32_t f : features) {
                    Contact c = contactWithNormal(Vec3{u(rng) - 0.5f, 1.0f, u(rng) - 0.5f});
                    c.bodyA = a;
                    c.bodyB = b;
                    c.feature = f;
                    c.impulse[0] = u(rng);
                    contacts.push_back(c);
                }
            }
        }
        if (!grouped) {
            std::shuffle(contacts.begin(), contacts.end(), rng);
        }
        std::vector<std::tuple<int, int, std::uint32_t, float>> expected;
        for (const Contact& c : contacts) {
            expected.emplace_back(c.bodyA, c.bodyB, c.feature, c.impulse[0]);
        }
        std::sort(expected.begin(), expected.end());
        ContactCache serial, threaded;
        serial.store(contacts);
        threaded.store(contacts, test::executor().get());
        for (const ContactCache* cache : {&serial, &threaded}) {
            ASSERT_EQ(cache->entries().size(), expected.size()) << "grouped " << grouped;
            for (std::size_t i = 0; i < expected.size(); ++i) {
                const ContactCache::Entry& e = cache->entries()[i];
                ASSERT_EQ(std::make_tuple(e.bodyA, e.bodyB, e.feature, e.normalImpulse),
                          expected[i])
                    << "entry " << i << ", grouped " << grouped
                    << (cache == &threaded ? ", on threads" : ", serial");
            }
        }
    }
}

TEST(ContactCache, WarmStartFindsEveryContactOfAScanInAnyOrder) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> body(0, 12);
    std::uniform_int_distribution<std::uint32_t> feature(0, 9);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (int round = 0; round < 20; ++round) {
        std::vector<Contact> stored;
        for (int k = 0; k < 120; ++k) {
            Contact c = contactWithNormal(Vec3{u(rng), 1.0f, u(rng)});
            c.bodyA = body(rng);
            c.bodyB = body(rng);
            c.feature = feature(rng);
            // One contact per (pair, feature), as the narrow phase makes them.
            const bool known = std::any_of(stored.begin(), stored.end(), [&](const Contact& s) {
                return s.bodyA == c.bodyA && s.bodyB == c.bodyB && s.feature == c.feature;
            });
            if (known) {
                continue;
            }
            c.impulse[0] = 1.0f + u(rng);
            stored.push_back(c);
        }
        std::shuffle(stored.begin(), stored.end(), rng);
        ContactCache cache;
        cache.store(stored);
        ASSERT_TRUE(std::is_sorted(cache.entries().begin(), cache.entries().end(),
                                   [](const ContactCache::Entry& x, const ContactCache::Entry& y) {
                                       return std::tie(x.bodyA, x.bodyB, x.feature) <
                                              std::tie(y.bodyA, y.bodyB, y.feature);
                                   }));
        std::vector<Contact> asked;
        for (int k = 0; k < 150; ++k) {
            Contact c = k % 2 == 0 ? stored[static_cast<std::size_t>(k / 2) % stored.size()]
                                   : contactWithNormal(Vec3{u(rng), 1.0f, u(rng)});
            if (k % 2 != 0) {
                c.bodyA = body(rng);
                c.bodyB = body(rng);
                c.feature = feature(rng);
            }
            if (k % 7 == 0) {
                c.normal = normalize(Vec3{1.0f, u(rng) * 0.1f, 0.0f});  // turned: no match
                tangentBasis(c.normal, c.tangent1, c.tangent2);
            }
            asked.push_back(c);
        }
        std::shuffle(asked.begin(), asked.end(), rng);
        // Runs of one pair, as the narrow phase gives them, in some rounds.
        if (round % 2 == 0) {
            std::stable_sort(asked.begin(), asked.end(), [](const Contact& x, const Contact& y) {
                return std::tie(x.bodyA, x.bodyB) < std::tie(y.bodyA, y.bodyB);
            });
        }
        std::vector<Contact> got = asked;
        const float factor = 0.75f;
        const int matched = cache.warmStart(got, factor);
        int expectedMatches = 0;
        for (std::size_t i = 0; i < asked.size(); ++i) {
            const Contact& q = asked[i];
            const ContactCache::Entry* hit = nullptr;
            for (const ContactCache::Entry& e : cache.entries()) {
                if (e.bodyA == q.bodyA && e.bodyB == q.bodyB && e.feature == q.feature) {
                    hit = &e;
                    break;
                }
            }
            const bool match = hit != nullptr && dot(hit->normal, q.normal) > 0.9f;
            expectedMatches += match ? 1 : 0;
            ASSERT_EQ(got[i].warmStarted, match) << "contact " << i << ", round " << round;
            EXPECT_EQ(got[i].impulse[0], match ? factor * hit->normalImpulse : 0.0f);
            EXPECT_EQ(got[i].impulse[1], match ? factor * dot(hit->friction, q.tangent1) : 0.0f);
        }
        EXPECT_EQ(matched, expectedMatches);
        EXPECT_GT(expectedMatches, 0);
    }
}

// Two boxes, b resting on a's top face: b offset by 5-45 cm along both face axes (each corner
// at least 5 cm from a side plane, so the clipped manifold has 4 well-separated points and no
// vertex near a clipping plane), tilted and turned by up to 1 mrad, penetrating 0.5-3 mm;
// the pair then placed in the world by a random rotation and translation.
struct BoxPair {
    Body a, b;
};

Quat randomRotation(std::mt19937& rng) {
    std::normal_distribution<float> g(0.0f, 1.0f);
    return normalize(Quat{g(rng), g(rng), g(rng), g(rng)});
}

Vec3 rotate(const Quat& q, const Vec3& v) {
    return toMat3(q) * v;
}

BoxPair restingPair(std::mt19937& rng) {
    std::uniform_real_distribution<float> offset(0.05f, 0.45f);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const Quat world = randomRotation(rng);
    const Vec3 shift{3.0f * u(rng), 3.0f * u(rng), 3.0f * u(rng)};
    BodyDesc da;
    da.orientation = world;
    da.position = shift;
    BodyDesc db;
    const float depth = 0.0005f + 0.0025f * (0.5f + 0.5f * u(rng));
    const Vec3 local{offset(rng) * (u(rng) < 0.0f ? -1.0f : 1.0f), 1.0f - depth,
                     offset(rng) * (u(rng) < 0.0f ? -1.0f : 1.0f)};
    db.position = shift + rotate(world, local);
    db.orientation = normalize(
        world * normalize(Quat{1.0f, 0.0005f * u(rng), 0.0005f * u(rng), 0.0005f * u(rng)}));
    return {makeBody(da), makeBody(db)};
}

/// b moved, in a's frame, by `distance` m along a random direction and turned by `angle` rad
/// about a random axis through its centre.
Body movedRelative(const Body& a, Body b, float distance, float angle, std::mt19937& rng) {
    std::normal_distribution<float> g(0.0f, 1.0f);
    const Vec3 dir = normalize(Vec3{g(rng), g(rng), g(rng)});
    const Vec3 axis = normalize(Vec3{g(rng), g(rng), g(rng)});
    b.position += a.rotation * (dir * distance);
    b.orientation = normalize(axisAngle(axis, angle) * b.orientation);
    b.updateDerived();
    return b;
}

std::vector<Contact> freshContacts(const Body& a, const Body& b, const NarrowPhaseParams& p) {
    std::vector<ContactPoint> points;
    collide(a, b, p, points);
    std::vector<Contact> out;
    for (const ContactPoint& cp : points) {
        out.push_back(makeContact(1, 0, cp));
        anchorContact(out.back(), a, b);
    }
    return out;
}

// A manifold carried to a pose within the reuse tolerances gives the contacts a fresh narrow
// phase gives there: as many, each near one of them by the pose change alone (each point is carried
// by its body, the narrow phase's moves with the clipping): the points within d + angle R (d, angle
// the tolerances, R = 1.8 m the largest lever arm of a point, two unit cubes' half diagonals
// and more), the normal within the angle and the boxes' start tilt (plus 1e-5 of float
// rounding), the separations within d. Where the fresh narrow phase flips to a single edge-axis
// point (nearly parallel edges of the tilted boxes win the axis test by its axisTolerance: a
// flip a reused manifold does not follow), the case is skipped; at most 5 % may be. Impulses are
// the cached ones (times the warm-start factor), the friction as its world vector on the new
// tangents. Fresh random poses, 300 of them.
TEST(ContactCache, ReusedManifoldMatchesTheNarrowPhaseWithinTheTolerances) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    NarrowPhaseParams p;
    const float d = p.reuseDistance;
    const float angle = p.reuseAngle;
    // The boxes' start tilt (restingPair: a quaternion vector part of up to 5e-4 per component,
    // an angle up to 2 sqrt(3) 5e-4): the narrow phase's normal is either box's face normal.
    constexpr float kTilt = 1.8e-3f;
    int edgeFlips = 0;
    for (int k = 0; k < 300; ++k) {
        SCOPED_TRACE("case " + std::to_string(k));
        const BoxPair pair = restingPair(rng);
        std::vector<Contact> before = freshContacts(pair.a, pair.b, p);
        ASSERT_EQ(before.size(), 4u);
        for (Contact& c : before) {
            c.impulse[0] = 1.0f + unit(rng);
            c.impulse[1] = unit(rng) - 0.5f;
            c.impulse[2] = unit(rng) - 0.5f;
        }
        ContactCache cache;
        cache.store(before);
        // Just inside the tolerances (0.98 of them: float rounding of the checks).
        const Body b =
            movedRelative(pair.a, pair.b, 0.98f * d * unit(rng), 0.98f * angle * unit(rng), rng);
        std::size_t from = 0;
        std::vector<Contact> reused;
        const float factor = 0.8f;
        ASSERT_TRUE(
            reuseManifold(cache.pairEntries(1, 0, from), 1, 0, pair.a, b, p, factor, reused));
        const std::vector<Contact> fresh = freshContacts(pair.a, b, p);
        if (fresh.size() == 1 && (fresh[0].feature & 0x80000000u) != 0) {
            ++edgeFlips;  // the narrow phase's own flip to an edge axis (see above)
            continue;
        }
        ASSERT_EQ(reused.size(), fresh.size());
        for (const Contact& r : reused) {
            // Matched by place: the narrow phase may swap the reference face between the two
            // boxes (their face axes tie within its axisTolerance), renaming the same points.
            const auto it = std::min_element(
                fresh.begin(), fresh.end(), [&](const Contact& x, const Contact& y) {
                    return length(x.point - r.point) < length(y.point - r.point);
                });
            EXPECT_LE(length(r.point - it->point), d + angle * 1.8f);
            EXPECT_LE(length(r.normal - it->normal), angle + kTilt + 1e-5f);
            EXPECT_NEAR(r.separation, it->separation, d);
            const auto was = std::find_if(before.begin(), before.end(),
                                          [&](const Contact& c) { return c.feature == r.feature; });
            ASSERT_NE(was, before.end());
            EXPECT_NEAR(r.impulse[0], factor * was->impulse[0], 1e-6f);
            const Vec3 friction = was->tangent1 * was->impulse[1] + was->tangent2 * was->impulse[2];
            EXPECT_NEAR(r.impulse[1], factor * dot(friction, r.tangent1), 1e-5f);
            EXPECT_NEAR(r.impulse[2], factor * dot(friction, r.tangent2), 1e-5f);
            EXPECT_TRUE(r.warmStarted && r.reused && r.anchored);
        }
    }
    EXPECT_LE(edgeFlips, 15) << "most cases must compare face manifolds";
}

// Past either tolerance (1.05 of it, the other at zero) the manifold is not reused and nothing
// is appended; neither when a point would open past the margin, nor for a pair with an entry
// that has no anchor (a box-plane point), nor for a pair the cache does not hold.
TEST(ContactCache, ReuseIsRefusedPastTheTolerances) {
    const unsigned seed = ww::test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    NarrowPhaseParams p;
    for (int k = 0; k < 200; ++k) {
        SCOPED_TRACE("case " + std::to_string(k));
        const BoxPair pair = restingPair(rng);
        std::vector<Contact> before = freshContacts(pair.a, pair.b, p);
        ContactCache cache;
        cache.store(before);
        std::vector<Contact> out;
        std::size_t from = 0;
        const auto entries = cache.pairEntries(1, 0, from);
        ASSERT_EQ(entries.size(), before.size());
        const Body far = movedRelative(pair.a, pair.b, 1.05f * p.reuseDistance, 0.0f, rng);
        EXPECT_FALSE(reuseManifold(entries, 1, 0, pair.a, far, p, 1.0f, out));
        const Body turned = movedRelative(pair.a, pair.b, 0.0f, 1.05f * p.reuseAngle, rng);
        EXPECT_FALSE(reuseManifold(entries, 1, 0, pair.a, turned, p, 1.0f, out));
        NarrowPhaseParams tight = p;
        tight.margin = -0.01f;  // every point now "separates" by more than the margin
        EXPECT_FALSE(reuseManifold(entries, 1, 0, pair.a, pair.b, tight, 1.0f, out));
        EXPECT_TRUE(out.empty());
        std::size_t none = 0;
        EXPECT_TRUE(cache.pairEntries(2, 0, none).empty());
        before[0].anchored = false;
        cache.store(before);
        from = 0;
        EXPECT_FALSE(
            reuseManifold(cache.pairEntries(1, 0, from), 1, 0, pair.a, pair.b, p, 1.0f, out));
        EXPECT_TRUE(out.empty());
    }
}

}  // namespace
}  // namespace ww::rigid
