// Camera maths against closed forms: look-at frame, orbit parametrization, zoom, pan that
// keeps the grabbed point under the cursor, and pick rays through projected points.
#include <gtest/gtest.h>

#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <random>

#include "render/camera.h"
#include "support/seed.h"

namespace ww::render {
namespace {

unsigned freshSeed() {
    return ww::test::freshSeed();
}

glm::vec3 randomVec(std::mt19937& rng, float lo, float hi) {
    std::uniform_real_distribution<float> d(lo, hi);
    return {d(rng), d(rng), d(rng)};
}

// float32 maths on coordinates of size ~10 m: 1e-4 relative is ~100 ulps of headroom.
constexpr float kTol = 1e-4f;

void checkLookAt(unsigned seed) {
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 50; ++trial) {
        Camera c;
        c.eye = randomVec(rng, -10.0f, 10.0f);
        c.target = randomVec(rng, -3.0f, 3.0f);
        const glm::vec3 f = glm::normalize(c.target - c.eye);
        if (std::abs(f.y) > 0.95f) {
            continue;  // up ≈ forward: look-at undefined
        }
        const glm::mat4 v = c.view();
        const float d = glm::length(c.target - c.eye);
        const glm::vec3 eyeInView = glm::vec3(v * glm::vec4(c.eye, 1.0f));
        const glm::vec3 targetInView = glm::vec3(v * glm::vec4(c.target, 1.0f));
        EXPECT_NEAR(glm::length(eyeInView), 0.0f, kTol * 10.0f) << "seed " << seed;
        EXPECT_NEAR(targetInView.x, 0.0f, kTol * d) << "seed " << seed;
        EXPECT_NEAR(targetInView.y, 0.0f, kTol * d) << "seed " << seed;
        EXPECT_NEAR(targetInView.z, -d, kTol * d) << "seed " << seed;
        // Closed form: the view rotation's rows are right, up, −forward.
        const glm::vec3 r = glm::normalize(glm::cross(f, glm::vec3(0, 1, 0)));
        const glm::vec3 u = glm::cross(r, f);
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(v[k][0], r[k], kTol) << "seed " << seed;
            EXPECT_NEAR(v[k][1], u[k], kTol) << "seed " << seed;
            EXPECT_NEAR(v[k][2], -f[k], kTol) << "seed " << seed;
        }
        EXPECT_NEAR(glm::dot(c.right(), r), 1.0f, kTol);
        EXPECT_NEAR(glm::dot(c.trueUp(), u), 1.0f, kTol);
    }
}

TEST(Camera, LookAtFixedSeed) {
    checkLookAt(12345u);
}
TEST(Camera, LookAtFreshSeed) {
    checkLookAt(freshSeed());
}

TEST(OrbitCamera, EyeFollowsSphericalClosedForm) {
    const unsigned seed = freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> angle(-1.5f, 1.5f);
    std::uniform_real_distribution<float> dist(1.0f, 50.0f);
    for (int trial = 0; trial < 50; ++trial) {
        const glm::vec3 t = randomVec(rng, -5.0f, 5.0f);
        const float d = dist(rng);
        const float yaw = angle(rng) * 2.0f;
        const float pitch = angle(rng);
        OrbitCamera cam(t, d, yaw, pitch);
        const glm::vec3 expected =
            t + d * glm::vec3(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                              std::cos(pitch) * std::cos(yaw));
        EXPECT_NEAR(glm::length(cam.eye() - expected), 0.0f, kTol * d) << "seed " << seed;
        EXPECT_NEAR(glm::length(cam.camera().target - t), 0.0f, 0.0f);
    }
}

TEST(OrbitCamera, OrbitKeepsDistanceAndClampsPitch) {
    OrbitCamera cam({1.0f, 2.0f, 3.0f}, 10.0f, 0.3f, 0.2f);
    cam.orbit(100.0f, -50.0f);
    EXPECT_NEAR(cam.yaw(), 0.3f - 100.0f * OrbitCamera::kRadiansPerPixel, 1e-6f);
    EXPECT_NEAR(cam.pitch(), 0.2f - 50.0f * OrbitCamera::kRadiansPerPixel, 1e-6f);
    EXPECT_NEAR(glm::length(cam.eye() - cam.target()), 10.0f, 1e-4f);
    cam.orbit(0.0f, 1e6f);
    EXPECT_FLOAT_EQ(cam.pitch(), OrbitCamera::kMaxPitch);
    cam.orbit(0.0f, -1e6f);
    EXPECT_FLOAT_EQ(cam.pitch(), -OrbitCamera::kMaxPitch);
}

TEST(OrbitCamera, ZoomIsGeometricAndClamped) {
    OrbitCamera cam({0, 0, 0}, 10.0f, 0.0f, 0.0f);
    cam.zoom(3.0f);
    EXPECT_NEAR(cam.distance(), 10.0f * std::pow(OrbitCamera::kZoomStep, 3.0f), 1e-4f);
    cam.zoom(-3.0f);
    EXPECT_NEAR(cam.distance(), 10.0f, 1e-4f);
    cam.zoom(1000.0f);
    EXPECT_FLOAT_EQ(cam.distance(), OrbitCamera::kMinDistanceM);
    cam.zoom(-1000.0f);
    EXPECT_FLOAT_EQ(cam.distance(), OrbitCamera::kMaxDistanceM);
}

TEST(OrbitCamera, PanKeepsGrabbedPointUnderCursor) {
    const unsigned seed = freshSeed();
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> px(-200.0f, 200.0f);
    const glm::ivec2 size(800, 600);
    for (int trial = 0; trial < 20; ++trial) {
        OrbitCamera cam(randomVec(rng, -3.0f, 3.0f), 8.0f, px(rng) * 0.01f, px(rng) * 0.005f);
        const glm::vec3 grabbed = cam.target();
        const glm::vec3 before = cam.camera().project(grabbed, size);
        const float dx = px(rng);
        const float dy = px(rng);
        cam.pan(dx, dy, static_cast<float>(size.y));
        const glm::vec3 after = cam.camera().project(grabbed, size);
        // Pan is exact at the target's depth: the grabbed point moves with the cursor to
        // within float rounding of the projection (1e-3 px).
        EXPECT_NEAR(after.x - before.x, dx, 1e-2f) << "seed " << seed;
        EXPECT_NEAR(after.y - before.y, dy, 1e-2f) << "seed " << seed;
    }
}

void checkPickRays(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> shift(-0.6f, 0.6f);
    const glm::ivec2 size(640, 360);
    for (int trial = 0; trial < 100; ++trial) {
        OrbitCamera orbit(randomVec(rng, -2.0f, 2.0f), 6.0f + static_cast<float>(trial % 7),
                          0.1f * static_cast<float>(trial % 50),
                          0.4f - 0.01f * static_cast<float>(trial % 50));
        Camera cam = orbit.camera();
        // Half the trials with a lens shift (the demo's view beside its panel).
        cam.lensShiftX = trial % 2 == 0 ? 0.0f : shift(rng);
        // A random point in front of the camera, inside the view frustum.
        const glm::vec3 p = cam.target + randomVec(rng, -1.5f, 1.5f);
        const glm::vec3 pixel = cam.project(p, size);
        if (pixel.x < 0.0f || pixel.x > 640.0f || pixel.y < 0.0f || pixel.y > 360.0f) {
            continue;
        }
        const Ray ray = cam.pickRay({pixel.x, pixel.y}, size);
        EXPECT_NEAR(glm::length(ray.direction), 1.0f, kTol);
        EXPECT_NEAR(glm::length(ray.origin - cam.eye), 0.0f, 0.0f);
        // Distance from p to the ray: |(p − o) × d|. Relative to the range, float32 error
        // through project() and back stays below 1e-4.
        const float range = glm::length(p - ray.origin);
        const float miss = glm::length(glm::cross(p - ray.origin, ray.direction));
        EXPECT_LT(miss, kTol * range * 10.0f) << "seed " << seed << " trial " << trial;
        EXPECT_GT(glm::dot(p - ray.origin, ray.direction), 0.0f);

        // Same ray by unprojecting through the inverse view-projection matrix.
        const float aspect = static_cast<float>(size.x) / static_cast<float>(size.y);
        const glm::mat4 inv = glm::inverse(cam.projection(aspect) * cam.view());
        const glm::vec2 ndc(2.0f * pixel.x / static_cast<float>(size.x) - 1.0f,
                            1.0f - 2.0f * pixel.y / static_cast<float>(size.y));
        const glm::vec4 farH = inv * glm::vec4(ndc, 1.0f, 1.0f);
        const glm::vec3 dir = glm::normalize(glm::vec3(farH) / farH.w - cam.eye);
        EXPECT_NEAR(glm::dot(dir, ray.direction), 1.0f, 1e-5f) << "seed " << seed;
    }
}

TEST(Camera, PickRayFixedSeed) {
    checkPickRays(777u);
}
TEST(Camera, PickRayFreshSeed) {
    checkPickRays(freshSeed());
}

TEST(Camera, PickRayThroughCentreHitsTarget) {
    OrbitCamera orbit({0.5f, 1.0f, -2.0f}, 9.0f, 0.7f, 0.3f);
    const Camera cam = orbit.camera();
    const Ray ray = cam.pickRay({400.0f, 300.0f}, {800, 600});
    EXPECT_NEAR(glm::dot(ray.direction, cam.forward()), 1.0f, 1e-6f);
    const glm::vec3 hit = ray.origin + 9.0f * ray.direction;
    EXPECT_NEAR(glm::length(hit - cam.target), 0.0f, 1e-4f);
    // Top-left corner: the ray leans left (−right) and up by the half field of view.
    const Ray corner = cam.pickRay({0.0f, 0.0f}, {800, 600});
    EXPECT_LT(glm::dot(corner.direction, cam.right()), 0.0f);
    EXPECT_GT(glm::dot(corner.direction, cam.trueUp()), 0.0f);
    const float vertical = std::atan2(glm::dot(corner.direction, cam.trueUp()),
                                      glm::dot(corner.direction, cam.forward()));
    EXPECT_NEAR(vertical, 0.5f * cam.fovYRadians, 1e-5f);
}

TEST(Camera, LensShiftMovesTheCentreAndNothingElse) {
    OrbitCamera orbit({0.5f, 1.0f, -2.0f}, 9.0f, 0.7f, 0.3f);
    Camera cam = orbit.camera();
    const glm::ivec2 size(1280, 800);
    const glm::vec3 p(1.3f, 0.2f, -1.1f);
    const glm::vec3 before = cam.project(p, size);
    cam.lensShiftX = 0.35f;  // a 450-px panel on the left of 1280 px: centre at 865 px
    const glm::vec3 centre = cam.project(cam.target, size);
    EXPECT_NEAR(centre.x, 0.5f * (1.0f + 0.35f) * 1280.0f, 1e-3f);
    EXPECT_NEAR(centre.y, 400.0f, 1e-3f);
    // Every point moves right by the same 0.35 * 640 px; height and depth stay.
    const glm::vec3 after = cam.project(p, size);
    EXPECT_NEAR(after.x - before.x, 0.35f * 640.0f, 1e-2f);
    EXPECT_NEAR(after.y, before.y, 1e-3f);
    EXPECT_NEAR(after.z, before.z, 1e-6f);
    // The ray through the shifted centre still hits the target.
    const Ray ray = cam.pickRay({centre.x, centre.y}, size);
    EXPECT_NEAR(glm::dot(ray.direction, cam.forward()), 1.0f, 1e-6f);
}

TEST(OrbitCamera, FrameFitsSphere) {
    OrbitCamera cam;
    cam.frame({1.0f, 2.0f, 3.0f}, 4.0f);
    EXPECT_NEAR(glm::length(cam.target() - glm::vec3(1, 2, 3)), 0.0f, 0.0f);
    // The sphere is tangent to the vertical field of view: sin(fov/2) = r / d.
    EXPECT_NEAR(std::sin(0.5f * cam.fovY()) * cam.distance(), 4.0f, 1e-4f);
}

}  // namespace
}  // namespace ww::render
