#include "app/scenes/splash/splash_params.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "app/scenes/param_rows.h"
#include "solver/splash/splash_scenes.h"

// The tables name only the fields a row sets (designated initializers); the rest keep their
// defaults, which is what GCC's missing-field-initializers warning would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace ww::app {

namespace {

using Splash = SplashSceneSettings;

std::vector<ParamRow<Splash>> makeSplashParams() {
    std::vector<ParamRow<Splash>> rows;
    {
        ParamRow<Splash> density = numberRow<Splash>(
            {.key = "brick-density",
             .label = "brick density",
             .help = "Splash scene: brick density (water is 1000: lighter bricks float)",
             .unit = "kg/m^3",
             .widget = ParamWidget::kSlider,
             .range = {.lo = 0, .hi = 1e5, .loOpen = true, .dragLo = 100, .dragHi = 3000},
             .rebuilds = true},
            &SceneOptionValues::brickDensity, [](auto& s) -> auto& { return s.brickDensityKgM3; });
        density.write = [](const SceneOptionValues& v, Splash& s) -> Status {
            s.brickDensityKgM3 = v.brickDensity;
            const rigid::Vec3 h = s.wall.brickHalfExtents;
            s.wall.brickMassKg = v.brickDensity * 8.0f * h.x * h.y * h.z;
            return {};
        };
        rows.push_back(std::move(density));
    }
    {
        ParamRow<Splash> size{
            {.key = "brick-size",
             .label = "brick size",
             .help = "Splash scene: side of the cubic bricks",
             .unit = "m",
             .field = &SceneOptionValues::brickSize,
             .widget = ParamWidget::kSlider,
             .range = {.lo = 0, .hi = 10, .loOpen = true, .dragLo = 0.1, .dragHi = 1.5},
             .rebuilds = true},
            {},
            {},
            {}};
        size.read = [](const Splash& s, SceneOptionValues& v) {
            v.brickSize = 2.0f * s.wall.brickHalfExtents.x;
        };
        size.write = [](const SceneOptionValues& v, Splash& s) -> Status {
            s.wall = splash::cubicBricks(s.wall, v.brickSize, s.brickDensityKgM3);
            return {};
        };
        rows.push_back(std::move(size));
    }
    rows.push_back(numberRow<Splash>(
        {.key = "water-depth",
         .label = "water depth",
         .help = "Splash scene: still water depth (waves run at sqrt(g * depth))",
         .unit = "m",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0, .hi = 100, .loOpen = true, .dragLo = 0.1, .dragHi = 3},
         .rebuilds = true},
        &SceneOptionValues::waterDepth, [](auto& s) -> auto& { return s.splash.waterDepthM; }));
    rows.push_back(numberRow<Splash>(
        {.key = "wall-x",
         .label = "wall x",
         .help = "Splash scene: the wall's centre from the pool's centre along x",
         .unit = "m",
         .widget = ParamWidget::kSlider,
         .range = {.lo = -kNoBound,
                   .hi = kNoBound,
                   .loOpen = true,
                   .hiOpen = true,
                   .dragLo = -5,
                   .dragHi = 5},
         .rebuilds = true},
        &SceneOptionValues::wallX, [](auto& s) -> auto& { return s.wallXM; }));
    rows.push_back(numberRow<Splash>(
        {.key = "wall-z",
         .label = "wall z",
         .help = "Splash scene: the wall's centre from the pool's centre along z",
         .unit = "m",
         .widget = ParamWidget::kSlider,
         .range = {.lo = -kNoBound,
                   .hi = kNoBound,
                   .loOpen = true,
                   .hiOpen = true,
                   .dragLo = -5,
                   .dragHi = 5},
         .rebuilds = true},
        &SceneOptionValues::wallZ, [](auto& s) -> auto& { return s.wallZM; }));
    return rows;
}

}  // namespace

const std::vector<ParamRow<SplashSceneSettings>>& splashParams() {
    static const std::vector<ParamRow<SplashSceneSettings>> rows = makeSplashParams();
    return rows;
}

std::vector<SceneDefault> splashDefaults() {
    char damping[32];
    std::snprintf(damping, sizeof damping, "%g",
                  static_cast<double>(SplashSceneSettings::kDefaultWaveDampingPerS));
    return {{"damping", damping},
            {"iterations", std::to_string(SplashSceneSettings::kDefaultLcpIterations)}};
}

Status checkSplashFit(const SplashSceneSettings& s) {
    // The wall's footprint against the pool (both centred; cells of side poolSize / max(nx, ny)).
    const wave::WaveParams& p = s.splash.wave;
    const float brick = 2.0f * s.wall.brickHalfExtents.x;
    const float half = 0.5f * brick;
    const float poolX = p.cellSize() * static_cast<float>(p.nx);
    const float poolZ = p.cellSize() * static_cast<float>(p.ny);
    const float wallWidth = static_cast<float>(s.wall.cols) * brick +
                            static_cast<float>(s.wall.cols - 1) * s.wall.columnGapM;
    const std::string wall = std::to_string(s.wall.cols) + "x" + std::to_string(s.wall.rows);
    if (wallWidth > poolX || brick > poolZ) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "is %g x %g m, smaller than the %s wall's footprint (%g x %g m): use a "
                      "larger --pool-size or a smaller --wall / --brick-size",
                      static_cast<double>(poolX), static_cast<double>(poolZ), wall.c_str(),
                      static_cast<double>(wallWidth), static_cast<double>(brick));
        return paramError("pool-size", text);
    }
    const bool outsideX = std::abs(s.wallXM) + 0.5f * wallWidth > 0.5f * poolX;
    if (outsideX || std::abs(s.wallZM) + half > 0.5f * poolZ) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "would put the wall (%g x %g m) outside the %g x %g m pool centred on 0: "
                      "keep |wall-x| <= %g and |wall-z| <= %g m",
                      static_cast<double>(wallWidth), static_cast<double>(brick),
                      static_cast<double>(poolX), static_cast<double>(poolZ),
                      static_cast<double>(0.5f * (poolX - wallWidth)),
                      static_cast<double>(0.5f * poolZ - half));
        return paramError(outsideX ? "wall-x" : "wall-z", text);
    }
    return {};
}

}  // namespace ww::app
