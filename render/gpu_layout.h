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
};
static_assert(sizeof(BoxInstance) == 64);
static_assert(offsetof(BoxInstance, orientation) == 16);
static_assert(offsetof(BoxInstance, halfExtents) == 32);
static_assert(offsetof(BoxInstance, color) == 48);

struct SphereInstance {
    float positionRadius[4];  ///< xyz centre, w radius
    float color[4];
};
static_assert(sizeof(SphereInstance) == 32);
static_assert(offsetof(SphereInstance, color) == 16);

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

}  // namespace ww::render::gpu_layout
