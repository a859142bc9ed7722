// What one frame to draw is: plain data that any scene fills and the Renderer consumes.
// The renderer knows nothing about walls or water solvers; scenes (app/demo adapters, the
// headless screenshot path, tests) describe their state here once per frame.
//
// Units: metres, y is up, the ground plane is y = 0.
#pragma once

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>
#include <span>
#include <vector>

namespace ww::render {

/// One oriented box (a cube of the wall, any rigid box).
struct BoxInstance {
    glm::vec3 position{0.0f};                       ///< centre, m
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};  ///< body to world rotation
    glm::vec3 halfExtents{0.5f};                    ///< m
    glm::vec4 color{0.8f, 0.3f, 0.2f, 1.0f};        ///< linear RGB, alpha unused
};

/// One sphere (projectiles).
struct SphereInstance {
    glm::vec3 position{0.0f};  ///< centre, m
    float radius = 0.1f;       ///< m
    glm::vec4 color{0.9f, 0.9f, 0.95f, 1.0f};
};

/// A height field u(i, j) over an nx × ny grid of cells of size cellSizeM, centred on the
/// origin in x/z: sample (i, j) sits at x = (i − (nx−1)/2)·h, z = (j − (ny−1)/2)·h and
/// y = baseHeightM + u. Heights are row-major, index j·nx + i.
struct WaterSurface {
    int nx = 0;
    int ny = 0;
    float cellSizeM = 0.0f;
    float baseHeightM = 0.0f;  ///< rest level of the surface above the ground, m
    /// GL SSBO name holding nx·ny floats (GPU backend: the solver's own buffer, no copy).
    /// Takes precedence over heightsCpu when non-zero.
    unsigned heightBuffer = 0;
    /// CPU backend: uploaded once per frame into the renderer's own buffer.
    std::span<const float> heightsCpu;
    bool enabled = false;
    /// The renderer draws the pool's stone walls around the grid (renderer.h: poolWalls); the
    /// water shader shows their inner faces and the tiled floor at y = 0 through the surface.
    bool poolWalls = true;
};

/// A line segment over the scene (debug overlays: contact normals, impulses). Drawn on top
/// of everything, lineWidthPx wide, unlit.
struct OverlayLine {
    glm::vec3 from{0.0f};  ///< m
    glm::vec3 to{0.0f};    ///< m
    glm::vec4 color{1.0f, 1.0f, 0.0f, 1.0f};
};

/// A point over the scene (debug overlays: contact points), a disc pointSizePx across.
struct OverlayPoint {
    glm::vec3 position{0.0f};  ///< m
    glm::vec4 color{1.0f, 1.0f, 0.0f, 1.0f};
};

/// Everything one frame shows.
struct DrawData {
    std::vector<BoxInstance> boxes;
    std::vector<SphereInstance> spheres;
    WaterSurface water;
    bool groundPlane = true;
    /// Overlay lines and points: one instanced draw each, after the scene, without depth
    /// test (they show through bodies: contacts lie between them).
    std::vector<OverlayLine> lines;
    std::vector<OverlayPoint> points;
    float lineWidthPx = 2.0f;  ///< framebuffer pixels
    float pointSizePx = 5.0f;  ///< framebuffer pixels, diameter
};

}  // namespace ww::render
