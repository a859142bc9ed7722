// C++ mirrors of the std430 instance layouts in shaders/render_common.glsl. The
// static_asserts keep the two in step: change both or neither.
#pragma once

#include <cstddef>

#include "render/draw_data.h"

namespace ww::render::gpu_layout {

struct BoxInstance {
    float position[4];     ///< xyz centre, w unused
    float orientation[4];  ///< quaternion x, y, z, w
    float halfExtents[4];  ///< xyz, w unused
    float color[4];
    bool operator==(const BoxInstance&) const = default;
};
static_assert(sizeof(BoxInstance) == 64);
static_assert(offsetof(BoxInstance, orientation) == 16);
static_assert(offsetof(BoxInstance, halfExtents) == 32);
static_assert(offsetof(BoxInstance, color) == 48);

struct SphereInstance {
    float positionRadius[4];  ///< xyz centre, w radius
    float color[4];
    bool operator==(const SphereInstance&) const = default;
};
static_assert(sizeof(SphereInstance) == 32);
static_assert(offsetof(SphereInstance, color) == 16);

struct LineInstance {
    float from[4];  ///< xyz, w unused
    float to[4];    ///< xyz, w unused
    float color[4];
};
static_assert(sizeof(LineInstance) == 48);
static_assert(offsetof(LineInstance, to) == 16);
static_assert(offsetof(LineInstance, color) == 32);

struct PointInstance {
    float position[4];  ///< xyz, w unused
    float color[4];
};
static_assert(sizeof(PointInstance) == 32);
static_assert(offsetof(PointInstance, color) == 16);

inline BoxInstance pack(const render::BoxInstance& b) {
    return {{b.position.x, b.position.y, b.position.z, 0.0f},
            {b.orientation.x, b.orientation.y, b.orientation.z, b.orientation.w},
            {b.halfExtents.x, b.halfExtents.y, b.halfExtents.z, 0.0f},
            {b.color.r, b.color.g, b.color.b, b.color.a}};
}

inline SphereInstance pack(const render::SphereInstance& s) {
    return {{s.position.x, s.position.y, s.position.z, s.radius},
            {s.color.r, s.color.g, s.color.b, s.color.a}};
}

inline LineInstance pack(const render::OverlayLine& l) {
    return {{l.from.x, l.from.y, l.from.z, 0.0f},
            {l.to.x, l.to.y, l.to.z, 0.0f},
            {l.color.r, l.color.g, l.color.b, l.color.a}};
}

inline PointInstance pack(const render::OverlayPoint& p) {
    return {{p.position.x, p.position.y, p.position.z, 0.0f},
            {p.color.r, p.color.g, p.color.b, p.color.a}};
}

}  // namespace ww::render::gpu_layout
