// The records the splash kernels share with the CPU (shaders/splash_layout.glsl), std430.
#pragma once

#include <array>
#include <cstddef>

namespace ww::splash::gpu_layout {

/// One body as the kernels see it (SplashBody in splash_layout.glsl).
struct Body {
    std::array<float, 4> centre{};  ///< position m, w drag length L_b m
    std::array<float, 4> axis{};    ///< box: body axis 0 (rotation column), w half extent 0
    std::array<float, 4> e1{};      ///< box: body axis 1, w half extent 1; sphere: w radius
    std::array<float, 4> e2{};      ///< box: body axis 2, w half extent 2
    std::array<float, 4> linVel{};  ///< m/s, w unused
    std::array<float, 4> angVel{};  ///< rad/s, w lowest point y m
    /// x, y: lines n1 x n2 (sphere), the box's lines of all its cuts x 1; z kind (0 none, 1 box,
    /// 2 sphere), w first line
    std::array<int, 4> info{};
    std::array<int, 4> tile{};      ///< i0, j0, width, height of the displacement tile
    std::array<int, 4> tileAt{};    ///< offset in the tile field, before pass: first line, lines
    std::array<int, 4> walk{};      ///< the centre as GridPoint16 (i, j), zw unused
    std::array<int, 4> cutLines{};  ///< box: lines per side along body axis 0, 1, 2; w unused
    /// box: the cross-section of one line of the cut along body axis 0, 1, 2 (its share
    /// included, BoxSampling), m^2; 0: that axis is not cut
    std::array<float, 4> cutWeight{};
};
static_assert(sizeof(Body) == 192);
static_assert(offsetof(Body, info) == 96);
static_assert(offsetof(Body, tile) == 112);
static_assert(offsetof(Body, tileAt) == 128);
static_assert(offsetof(Body, walk) == 144);
static_assert(offsetof(Body, cutLines) == 160);
static_assert(offsetof(Body, cutWeight) == 176);

/// What the water does to one body (SplashForce).
struct Force {
    /// x the waterplane of the partly submerged lines m^2, y N (vertical), z sum of the lines'
    /// volume times height m^4, w submerged volume m^3
    std::array<float, 4> buoyancy{};
    std::array<float, 4> drag{};        ///< N, w unused
    std::array<float, 4> torque{};      ///< N m, buoyancy + drag
    /// N m; w: after splash_distribute.comp, sum dv (eta_target - eta_cell) of the body's moved
    /// volume, m^4 (its radiation energy over rho g)
    std::array<float, 4> dragTorque{};
};
static_assert(sizeof(Force) == 64);

/// The force buffer starts with two vec4: x sum of eta, y max eta, z the last level correction,
/// w sum of eta^2; x min eta.
inline constexpr std::size_t kForceHeaderBytes = 32;

}  // namespace ww::splash::gpu_layout
