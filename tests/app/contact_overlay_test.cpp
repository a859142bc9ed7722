// The contact overlay's geometry (app/demo/contact_overlay.h) against closed forms: a box
// resting on the ground shows its four bottom corners, normals along +y whose impulses sum to
// the weight over one step m g dt and whose lengths are s lambda_n; a box sliding on the
// ground shows friction against its velocity, of magnitude mu sum lambda_n (Coulomb, sliding);
// bodies are coloured by island, by sleep state, and red in a block that did not converge.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "app/demo/contact_overlay.h"
#include "solver/rigid/scenes.h"
#include "support/executor.h"
#include "support/seed.h"

namespace ww::app {
namespace {

constexpr float kG = 9.81f;

unsigned freshSeed(const char* what) {
    const unsigned seed = ww::test::freshSeed();  // WAVEWALL_TEST_SEED replays it
    std::printf("%s seed %u\n", what, seed);
    return seed;
}

struct BoxCase {
    rigid::Vec3 half;
    float massKg = 1.0f;
    float yaw = 0.0f;  ///< rad about +y
};

BoxCase randomBox(std::mt19937& rng) {
    std::uniform_real_distribution<float> h(0.2f, 0.6f), m(0.5f, 5.0f), yaw(0.0f, 1.5f);
    return {{h(rng), h(rng), h(rng)}, m(rng), yaw(rng)};
}

// One box on the ground plane, exactly touching it, in a world with default parameters.
rigid::World boxOnGround(const BoxCase& c, const rigid::Vec3& velocity = {}) {
    rigid::World w(test::executor());
    rigid::addGround(w);
    rigid::BodyDesc d;
    d.kind = rigid::BodyKind::kBox;
    d.halfExtents = c.half;
    d.massKg = c.massKg;
    d.position = {0.3f, c.half.y, -0.2f};
    d.orientation = rigid::axisAngle({0.0f, 1.0f, 0.0f}, c.yaw);
    d.linearVelocity = velocity;
    w.addBody(d);
    return w;
}

render::DrawData drawnBodies(const rigid::World& w) {
    render::DrawData out;
    for (const rigid::Body& b : w.bodies()) {
        if (b.kind == rigid::BodyKind::kBox) {
            out.boxes.push_back(
                {{b.position.x, b.position.y, b.position.z},
                 glm::quat(b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z),
                 {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z}});
        }
    }
    return out;
}

// Tolerances. Impulses: on fresh seeds the resting sum matched m g dt and the sliding
// friction matched mu sum lambda_n to ~1e-6 relative; 1e-3 leaves room for the solver's
// stopping rule (natural-map residual 1e-5 N s per row, against m g dt >= 0.08 N s for the
// lightest box here) and float sums. Lengths are s lambda computed in float: 1e-5 relative.
// Positions: contact points lie on the plane or at the box's corner, which sits at most the
// slop (1 mm) below it at rest: 5 mm.
constexpr double kImpulseRel = 1e-3;
constexpr float kLengthRel = 1e-5f;
constexpr float kPositionM = 5e-3f;

glm::vec3 g3(const rigid::Vec3& v) {
    return {v.x, v.y, v.z};
}

TEST(ContactOverlay, RestingBoxShowsItsCornersAndWeight) {
    std::mt19937 rng(freshSeed("resting box"));
    const BoxCase c = randomBox(rng);
    rigid::World w = boxOnGround(c);
    for (int s = 0; s < 120; ++s) {
        w.step();
    }
    ASSERT_EQ(w.contacts().size(), 4u);
    render::DrawData out = drawnBodies(w);
    demo::ContactOverlay o;
    o.points = o.normals = o.friction = true;
    o.metresPerImpulse = 3.0f;
    addContactOverlay(w, o, out);
    ASSERT_EQ(out.points.size(), 4u);
    ASSERT_EQ(out.lines.size(), 8u);  // a normal and a friction line per contact

    // Points: the four bottom corners of the box, each once.
    const rigid::Body& box = w.bodies()[1];
    std::vector<int> matched(4, 0);
    for (const render::OverlayPoint& p : out.points) {
        for (int k = 0; k < 4; ++k) {
            const rigid::Vec3 local{(k & 1) ? c.half.x : -c.half.x, -c.half.y,
                                    (k & 2) ? c.half.z : -c.half.z};
            const glm::vec3 corner = g3(box.position + box.rotation * local);
            matched[k] += glm::length(p.position - corner) < kPositionM ? 1 : 0;
        }
        EXPECT_NEAR(p.position.y, 0.0f, kPositionM);
    }
    EXPECT_EQ(matched, std::vector<int>(4, 1));

    // Normals: up from each point (into the box), s lambda_n long; together s m g dt.
    const double weight = c.massKg * kG * w.params().dtSeconds;
    double sumImpulse = 0.0;
    double sumLength = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
        const rigid::Contact& contact = w.contacts()[k];
        const render::OverlayLine& normal = out.lines[2 * k];
        const render::OverlayLine& friction = out.lines[2 * k + 1];
        EXPECT_EQ(normal.from, g3(contact.point));
        EXPECT_EQ(normal.color, kNormalImpulseColour);
        EXPECT_EQ(friction.color, kFrictionImpulseColour);
        const glm::vec3 d = normal.to - normal.from;
        const float length = glm::length(d);
        EXPECT_NEAR(length, 3.0f * contact.impulse[0], kLengthRel * length);
        EXPECT_GT(d.y, 0.9999f * length) << "the support points up into the box";
        // At rest friction holds nothing: inside the cone and far below the normal.
        EXPECT_LE(glm::length(friction.to - friction.from), 0.01f * length);
        sumImpulse += contact.impulse[0];
        sumLength += length;
    }
    EXPECT_NEAR(sumImpulse, weight, kImpulseRel * weight);
    EXPECT_NEAR(sumLength, 3.0 * weight, kImpulseRel * 3.0 * weight);

    // Automatic scale: one body's weight over a step draws kAutoLengthM in all.
    render::DrawData autoOut;
    o.points = o.friction = false;
    o.metresPerImpulse = 0.0f;
    addContactOverlay(w, o, autoOut);
    ASSERT_EQ(autoOut.lines.size(), 4u);
    double autoLength = 0.0;
    for (const render::OverlayLine& l : autoOut.lines) {
        autoLength += glm::length(l.to - l.from);
    }
    EXPECT_NEAR(autoLength, demo::ContactOverlay::kAutoLengthM,
                kImpulseRel * demo::ContactOverlay::kAutoLengthM);
}

TEST(ContactOverlay, SlidingBoxShowsCoulombFriction) {
    std::mt19937 rng(freshSeed("sliding box"));
    const BoxCase c = randomBox(rng);
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
    const float a = angle(rng);
    const glm::vec3 v(3.0f * std::cos(a), 0.0f, 3.0f * std::sin(a));
    rigid::World w = boxOnGround(c, {v.x, v.y, v.z});
    // 3 m/s braked at mu g = 5.9 m/s^2 slides for half a second: 5 steps in it still slides.
    for (int s = 0; s < 5; ++s) {
        w.step();
    }
    ASSERT_GT(rigid::length(w.bodies()[1].linearVelocity), 2.0f);
    render::DrawData out = drawnBodies(w);
    demo::ContactOverlay o;
    o.friction = true;
    o.metresPerImpulse = 2.0f;
    addContactOverlay(w, o, out);
    ASSERT_EQ(out.lines.size(), w.contacts().size());
    ASSERT_EQ(out.lines.size(), 4u);
    glm::dvec3 sum(0.0);
    double normal = 0.0;
    for (std::size_t k = 0; k < out.lines.size(); ++k) {
        EXPECT_EQ(out.lines[k].from, g3(w.contacts()[k].point));
        sum += glm::dvec3(out.lines[k].to - out.lines[k].from);
        normal += w.contacts()[k].impulse[0];
    }
    // Sliding: on the edge of the friction cone, against the motion. Each contact's friction
    // opposes its own point's slip, which a box braking on its base (pitching forward a
    // little) turns by a few degrees from the centre's velocity: worst cosine seen over 300
    // fresh seeds -0.9978, so -0.99 (8 degrees).
    const double expected = 2.0 * w.params().friction * normal;
    EXPECT_NEAR(glm::length(sum), expected, kImpulseRel * expected);
    EXPECT_LT(glm::dot(glm::normalize(sum), glm::dvec3(glm::normalize(v))), -0.99);
}

// Two boxes stacked and one apart: two islands; the stack shares a colour, the lone box has
// another, and no colour is the material's.
TEST(ContactOverlay, BodiesColouredByIsland) {
    rigid::World w(test::executor());
    rigid::addGround(w);
    for (const rigid::Vec3& p : {rigid::Vec3{0.0f, 0.5f, 0.0f}, rigid::Vec3{0.0f, 1.5f, 0.0f},
                                 rigid::Vec3{3.0f, 0.5f, 0.0f}}) {
        rigid::BodyDesc d;
        d.position = p;
        w.addBody(d);
    }
    for (int s = 0; s < 10; ++s) {
        w.step();
    }
    const std::vector<int> island = islandOfBodies(w);
    ASSERT_EQ(island.size(), 4u);
    EXPECT_EQ(island[0], -1) << "the ground belongs to no island";
    EXPECT_EQ(island[1], island[2]);
    EXPECT_NE(island[1], island[3]);
    EXPECT_GE(island[1], 0);
    EXPECT_GE(island[3], 0);
    render::DrawData out = drawnBodies(w);
    const glm::vec4 material = out.boxes[0].color;
    demo::ContactOverlay o;
    o.bodies = demo::BodyColouring::kIsland;
    addContactOverlay(w, o, out);
    EXPECT_TRUE(out.lines.empty());
    EXPECT_TRUE(out.points.empty());
    EXPECT_EQ(out.boxes[0].color, out.boxes[1].color);
    EXPECT_NE(out.boxes[0].color, out.boxes[2].color);
    EXPECT_NE(out.boxes[0].color, material);
}

// With sleeping on, a resting box falls asleep (blue) while a sliding one stays awake.
TEST(ContactOverlay, BodiesColouredBySleep) {
    rigid::WorldParams p;
    p.sleep = true;
    rigid::World w(test::executor(), p);
    rigid::addGround(w);
    rigid::BodyDesc d;
    d.position = {0.0f, 0.5f, 0.0f};
    w.addBody(d);
    d.position = {5.0f, 0.5f, 0.0f};
    d.linearVelocity = {6.0f, 0.0f, 0.0f};  // slides for 1 s at mu g
    w.addBody(d);
    for (int s = 0; s < 45; ++s) {
        w.step();
    }
    ASSERT_TRUE(w.bodies()[1].asleep);
    ASSERT_FALSE(w.bodies()[2].asleep);
    render::DrawData out = drawnBodies(w);
    demo::ContactOverlay o;
    o.bodies = demo::BodyColouring::kSleep;
    addContactOverlay(w, o, out);
    EXPECT_EQ(out.boxes[0].color, kAsleepColour);
    EXPECT_EQ(out.boxes[1].color, kAwakeColour);
}

// A block stopped at one iteration short of a tight tolerance did not converge: red. The same
// box solved with the defaults (warm, at rest) converged: grey.
TEST(ContactOverlay, BodiesRedWhenTheirBlockDidNotConverge) {
    std::mt19937 rng(freshSeed("convergence"));
    const BoxCase c = randomBox(rng);
    rigid::World w = boxOnGround(c);
    for (int s = 0; s < 60; ++s) {
        w.step();
    }
    ASSERT_EQ(w.blockReports().size(), 1u);
    ASSERT_EQ(w.blockReports()[0].status, lcp::LcpStatus::kConverged);
    demo::ContactOverlay o;
    o.bodies = demo::BodyColouring::kConvergence;
    render::DrawData out = drawnBodies(w);
    addContactOverlay(w, o, out);
    EXPECT_EQ(out.boxes[0].color, kConvergedColour);
    EXPECT_EQ(unconvergedBodies(w), std::vector<char>(2, 0));

    rigid::WorldParams& p = w.params();
    p.lcp.tolerance = 1e-12f;
    p.lcp.maxIterations = 1;
    p.coldStartIterations = 0;
    w.body(1).linearVelocity = {0.0f, -1.0f, 0.0f};  // something to solve
    w.step();
    ASSERT_EQ(w.blockReports().size(), 1u);
    ASSERT_NE(w.blockReports()[0].status, lcp::LcpStatus::kConverged);
    out = drawnBodies(w);
    addContactOverlay(w, o, out);
    EXPECT_EQ(out.boxes[0].color, kNotConvergedColour);
    EXPECT_EQ(unconvergedBodies(w), (std::vector<char>{1, 1}));
}

}  // namespace
}  // namespace ww::app
