// Cameras as plain data and maths, no window-system dependency: the desktop demo feeds
// mouse deltas into OrbitCamera, the headless screenshot path and tests build a Camera
// directly.
//
// Conventions: right-handed, y up, GL clip space (z in [−1, 1]); pixel coordinates have
// their origin at the top-left corner of the viewport with y growing downwards (the way
// windows report the cursor), continuous (pixel k covers [k, k+1)).
#pragma once

#include <glm/glm.hpp>

namespace ww::render {

/// A half-line origin + t·direction, t ≥ 0; direction has unit length.
struct Ray {
    glm::vec3 origin{0.0f};
    glm::vec3 direction{0.0f, 0.0f, -1.0f};
};

/// A pinhole camera looking from eye at target.
struct Camera {
    glm::vec3 eye{0.0f, 2.0f, 8.0f};
    glm::vec3 target{0.0f};
    glm::vec3 up{0.0f, 1.0f, 0.0f};
    float fovYRadians = 0.785398f;  ///< vertical field of view (45°)
    float nearM = 0.05f;
    float farM = 500.0f;
    /// Lens shift: the view's centre (the target) appears this many NDC units right of the
    /// viewport's centre (1 = half a viewport). The demo centres the scene in the part of the
    /// window its panel leaves free; nothing else about the view changes.
    float lensShiftX = 0.0f;

    /// World to eye (look-at) matrix.
    glm::mat4 view() const;
    /// Eye to clip perspective matrix for width/height `aspect`.
    glm::mat4 projection(float aspect) const;
    /// Unit vectors of the eye frame in world space.
    glm::vec3 forward() const;
    glm::vec3 right() const;
    glm::vec3 trueUp() const;

    /// The ray from the eye through the point `pixel` of a viewport of `size` pixels.
    Ray pickRay(glm::vec2 pixel, glm::ivec2 size) const;
    /// Where a world point lands in pixels (top-left origin); z is the NDC depth.
    glm::vec3 project(glm::vec3 world, glm::ivec2 size) const;
};

/// A camera that orbits a target point: drag to orbit, wheel to zoom, right-drag to pan.
/// eye = target + distance · (cos(pitch)·sin(yaw), sin(pitch), cos(pitch)·cos(yaw)).
class OrbitCamera {
  public:
    OrbitCamera() = default;
    OrbitCamera(glm::vec3 target, float distanceM, float yawRadians, float pitchRadians);

    /// Rotates by a mouse drag of (dx, dy) pixels (right-drag turns the scene right).
    void orbit(float dxPixels, float dyPixels);
    /// Wheel steps: positive moves closer, each step scaling the distance by kZoomStep.
    void zoom(float wheelSteps);
    /// Moves the target so that the point under the cursor at the target's depth follows a
    /// drag of (dx, dy) pixels in a viewport `viewportHeight` pixels tall.
    void pan(float dxPixels, float dyPixels, float viewportHeight);
    /// Looks at `center` from a distance that fits a sphere of `radiusM` in view.
    void frame(glm::vec3 center, float radiusM);

    Camera camera() const;
    glm::vec3 eye() const;

    glm::vec3 target() const { return m_target; }
    float distance() const { return m_distanceM; }
    float yaw() const { return m_yaw; }
    float pitch() const { return m_pitch; }
    float fovY() const { return m_fovY; }
    void setFovY(float radians) { m_fovY = radians; }

    static constexpr float kRadiansPerPixel = 0.006f;
    static constexpr float kZoomStep = 0.9f;
    static constexpr float kMinDistanceM = 0.2f;
    static constexpr float kMaxDistanceM = 400.0f;
    static constexpr float kMaxPitch = 1.55f;  ///< just short of ±90° so up stays defined

  private:
    glm::vec3 m_target{0.0f, 1.0f, 0.0f};
    float m_distanceM = 12.0f;
    float m_yaw = 0.5f;
    float m_pitch = 0.35f;
    float m_fovY = 0.785398f;
};

}  // namespace ww::render
