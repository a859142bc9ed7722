// Test-only scenes for the renderer (never shipped as demo scenes): a static wall of
// bricks and a square pool whose CPU heights hold a Gaussian bump.
#pragma once

#include <cmath>
#include <vector>

#include "render/draw_data.h"

namespace ww::test {

/// Brick colour of the test wall: warm reds and oranges, never grey, so that "is this pixel
/// a brick" is a hue test.
inline glm::vec4 brickColor(int column, int row) {
    const float t = static_cast<float>((column * 7 + row * 13) % 5) / 4.0f;
    return {0.75f + 0.15f * t, 0.18f + 0.15f * t, 0.08f + 0.04f * t, 1.0f};
}

/// cols × rows bricks of size (2·hx, 2·hy, 2·hz) resting on the ground, centred on x = 0,
/// in the plane z = zM, in running bond (odd rows shifted by half a brick).
inline std::vector<render::BoxInstance> makeWall(int cols, int rows, glm::vec3 half,
                                                 float zM = 0.0f, bool runningBond = false) {
    std::vector<render::BoxInstance> boxes;
    for (int r = 0; r < rows; ++r) {
        const float shift = runningBond && (r % 2 == 1) ? half.x : 0.0f;
        for (int c = 0; c < cols; ++c) {
            render::BoxInstance b;
            b.position = {
                (static_cast<float>(c) - 0.5f * static_cast<float>(cols - 1)) * 2.0f * half.x +
                    shift,
                half.y + static_cast<float>(r) * 2.0f * half.y, zM};
            b.halfExtents = half;
            b.color = brickColor(c, r);
            boxes.push_back(b);
        }
    }
    return boxes;
}

/// Heights of an nx × ny grid with a Gaussian bump of `amplitudeM` and width `sigmaM`
/// centred at world (cx, cz) (grid centred on the origin, cell size h).
inline std::vector<float> gaussianBump(int nx, int ny, float h, float cx, float cz,
                                       float amplitudeM, float sigmaM) {
    std::vector<float> u(static_cast<std::size_t>(nx) * ny);
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const float x = (static_cast<float>(i) - 0.5f * static_cast<float>(nx - 1)) * h;
            const float z = (static_cast<float>(j) - 0.5f * static_cast<float>(ny - 1)) * h;
            const float r2 = (x - cx) * (x - cx) + (z - cz) * (z - cz);
            u[static_cast<std::size_t>(j) * nx + i] =
                amplitudeM * std::exp(-r2 / (2.0f * sigmaM * sigmaM));
        }
    }
    return u;
}

/// Ripples: a decaying radial wave around (cx, cz), as a drop leaves behind.
inline std::vector<float> ripples(int nx, int ny, float h, float cx, float cz, float amplitudeM,
                                  float wavelengthM) {
    std::vector<float> u(static_cast<std::size_t>(nx) * ny);
    for (int j = 0; j < ny; ++j) {
        for (int i = 0; i < nx; ++i) {
            const float x = (static_cast<float>(i) - 0.5f * static_cast<float>(nx - 1)) * h;
            const float z = (static_cast<float>(j) - 0.5f * static_cast<float>(ny - 1)) * h;
            const float r = std::sqrt((x - cx) * (x - cx) + (z - cz) * (z - cz));
            u[static_cast<std::size_t>(j) * nx + i] = amplitudeM *
                                                      std::cos(6.2831853f * r / wavelengthM) *
                                                      std::exp(-r / (3.0f * wavelengthM));
        }
    }
    return u;
}

/// A pool rim of four low stone walls around an nx × ny water grid of cell h.
inline std::vector<render::BoxInstance> poolRim(int nx, int ny, float h, float heightM) {
    const float ex = 0.5f * static_cast<float>(nx - 1) * h;
    const float ez = 0.5f * static_cast<float>(ny - 1) * h;
    const float t = 0.15f;
    const glm::vec4 stone{0.62f, 0.60f, 0.56f, 1.0f};
    std::vector<render::BoxInstance> rim;
    auto add = [&](glm::vec3 p, glm::vec3 half) {
        render::BoxInstance b;
        b.position = p;
        b.halfExtents = half;
        b.color = stone;
        rim.push_back(b);
    };
    add({0.0f, 0.5f * heightM, -ez - t}, {ex + 2.0f * t, 0.5f * heightM, t});
    add({0.0f, 0.5f * heightM, ez + t}, {ex + 2.0f * t, 0.5f * heightM, t});
    add({-ex - t, 0.5f * heightM, 0.0f}, {t, 0.5f * heightM, ez});
    add({ex + t, 0.5f * heightM, 0.0f}, {t, 0.5f * heightM, ez});
    return rim;
}

}  // namespace ww::test
