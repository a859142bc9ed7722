// Contact frames and the warm-start cache: a friction impulse carried from one step to the next
// keeps its direction in the world even when the tangent basis turns or flips.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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

}  // namespace
}  // namespace ww::rigid
