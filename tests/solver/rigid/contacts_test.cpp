// Contact frames and the warm-start cache: a friction impulse carried from one step to the next
// keeps its direction in the world even when the tangent basis turns or flips.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
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

}  // namespace
}  // namespace ww::rigid
