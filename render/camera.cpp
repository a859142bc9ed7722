#include "render/camera.h"

#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>

namespace ww::render {

glm::mat4 Camera::view() const {
    return glm::lookAt(eye, target, up);
}

glm::mat4 Camera::projection(float aspect) const {
    glm::mat4 p = glm::perspective(fovYRadians, aspect, nearM, farM);
    // x_ndc' = x_ndc + shift: add shift * w_clip to x_clip, where w_clip = -z_eye.
    p[2][0] -= lensShiftX;
    return p;
}

glm::vec3 Camera::forward() const {
    return glm::normalize(target - eye);
}

glm::vec3 Camera::right() const {
    return glm::normalize(glm::cross(forward(), up));
}

glm::vec3 Camera::trueUp() const {
    return glm::cross(right(), forward());
}

Ray Camera::pickRay(glm::vec2 pixel, glm::ivec2 size) const {
    const float w = static_cast<float>(std::max(size.x, 1));
    const float h = static_cast<float>(std::max(size.y, 1));
    const float ndcX = 2.0f * pixel.x / w - 1.0f - lensShiftX;
    const float ndcY = 1.0f - 2.0f * pixel.y / h;
    const float tanHalf = std::tan(0.5f * fovYRadians);
    const glm::vec3 dir =
        forward() + (ndcX * tanHalf * (w / h)) * right() + (ndcY * tanHalf) * trueUp();
    return {eye, glm::normalize(dir)};
}

glm::vec3 Camera::project(glm::vec3 world, glm::ivec2 size) const {
    const float aspect = static_cast<float>(size.x) / static_cast<float>(std::max(size.y, 1));
    const glm::vec4 clip = projection(aspect) * view() * glm::vec4(world, 1.0f);
    const glm::vec3 ndc = glm::vec3(clip) / clip.w;
    return {(ndc.x + 1.0f) * 0.5f * static_cast<float>(size.x),
            (1.0f - ndc.y) * 0.5f * static_cast<float>(size.y), ndc.z};
}

OrbitCamera::OrbitCamera(glm::vec3 target, float distanceM, float yawRadians, float pitchRadians)
    : m_target(target),
      m_distanceM(std::clamp(distanceM, kMinDistanceM, kMaxDistanceM)),
      m_yaw(yawRadians),
      m_pitch(std::clamp(pitchRadians, -kMaxPitch, kMaxPitch)) {}

void OrbitCamera::orbit(float dxPixels, float dyPixels) {
    m_yaw -= dxPixels * kRadiansPerPixel;
    m_pitch = std::clamp(m_pitch + dyPixels * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::zoom(float wheelSteps) {
    m_distanceM =
        std::clamp(m_distanceM * std::pow(kZoomStep, wheelSteps), kMinDistanceM, kMaxDistanceM);
}

void OrbitCamera::pan(float dxPixels, float dyPixels, float viewportHeight) {
    const Camera c = camera();
    // World metres per pixel in the plane through the target facing the camera.
    const float metresPerPixel =
        2.0f * m_distanceM * std::tan(0.5f * m_fovY) / std::max(viewportHeight, 1.0f);
    m_target += (-dxPixels * metresPerPixel) * c.right() + (dyPixels * metresPerPixel) * c.trueUp();
}

void OrbitCamera::frame(glm::vec3 center, float radiusM) {
    m_target = center;
    m_distanceM = std::clamp(radiusM / std::sin(0.5f * m_fovY), kMinDistanceM, kMaxDistanceM);
}

glm::vec3 OrbitCamera::eye() const {
    const float cp = std::cos(m_pitch);
    return m_target +
           m_distanceM * glm::vec3(cp * std::sin(m_yaw), std::sin(m_pitch), cp * std::cos(m_yaw));
}

Camera OrbitCamera::camera() const {
    Camera c;
    c.eye = eye();
    c.target = m_target;
    c.fovYRadians = m_fovY;
    c.nearM = std::max(0.01f, 0.01f * m_distanceM);
    c.farM = std::max(200.0f, 50.0f * m_distanceM);
    return c;
}

}  // namespace ww::render
