#include "app/scenes/water/water_params.h"

#include <algorithm>
#include <optional>

#include "app/scenes/param_rows.h"

// The tables name only the fields a row sets (designated initializers); the rest keep their
// defaults, which is what GCC's missing-field-initializers warning would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace ww::app {

namespace {

using Water = wave::WaveParams;

std::string implicitOnly(const Water& p, Backend) {
    return p.scheme == wave::Scheme::kCrankNicolson
               ? std::string()
               : std::string("The implicit (Crank-Nicolson) scheme's CG solve only");
}

std::vector<ParamRow<Water>> makeWaterParams() {
    std::vector<ParamRow<Water>> rows;
    {
        ParamRow<Water> grid{{.key = "grid",
                              .label = "grid nx x ny",
                              .help = "Water grid NXxNY (water scene)",
                              .field = &SceneOptionValues::grid,
                              .widget = ParamWidget::kText,
                              .rebuilds = true},
                             {},
                             {},
                             {}};
        grid.read = [](const Water& p, SceneOptionValues& v) {
            v.grid = std::to_string(p.nx) + "x" + std::to_string(p.ny);
        };
        grid.write = [](const SceneOptionValues& v, Water& p) -> Status {
            int nx = 0;
            int ny = 0;
            if (Status st = parseSize(v.grid, "grid", nx, ny); !st) {
                return st;
            }
            if (nx < 8 || ny < 8 || nx > 4096 || ny > 4096) {
                return paramError("grid", "'" + v.grid + "' must be between 8x8 and 4096x4096");
            }
            p.nx = nx;
            p.ny = ny;
            return {};
        };
        rows.push_back(std::move(grid));
    }
    rows.push_back(numberRow<Water>(
        {.key = "pool-size",
         .label = "pool size",
         .help = "Side of the square pool (cell size = side / grid)",
         .unit = "m",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0, .hi = 1e4, .loOpen = true, .dragLo = 1, .dragHi = 50},
         .rebuilds = true},
        &SceneOptionValues::poolSize, [](auto& p) -> auto& { return p.poolSizeM; }));
    rows.push_back(numberRow<Water>(
        {.key = "wave-speed",
         .label = "wave speed",
         .help = "Wave speed c",
         .unit = "m/s",
         .widget = ParamWidget::kLogSlider,
         .range = {.lo = 0, .hi = 1e3, .loOpen = true, .dragLo = 0.1, .dragHi = 10}},
        &SceneOptionValues::waveSpeed, [](auto& p) -> auto& { return p.waveSpeed; }));
    {
        ParamRow<Water> ratio = numberRow<Water>(
            {.key = "dt-ratio",
             .label = "dt / limit",
             .help = "Water time step as a multiple of the explicit scheme's stability limit "
                     "h/(c*sqrt 2)",
             .widget = ParamWidget::kLogSlider,
             .range = {.lo = 0, .hi = 1e4, .loOpen = true, .dragLo = 0.05, .dragHi = 50}},
            &SceneOptionValues::dtRatio, [](auto& p) -> auto& { return p.dtRatio; });
        // A step given in seconds (--dt) reads as its ratio, so the panel shows it.
        ratio.read = [](const Water& p, SceneOptionValues& v) {
            v.dtRatio = p.dtRatio > 0.0f ? p.dtRatio : std::min(p.effectiveDtRatio(), 1.0e4f);
        };
        rows.push_back(std::move(ratio));
    }
    rows.push_back(numberRow<Water>(
        {.key = "damping",
         .label = "damping",
         .help = "Wave damping gamma (0 conserves energy)",
         .unit = "1/s",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0, .hi = 1e3, .dragLo = 0, .dragHi = 2}},
        &SceneOptionValues::damping, [](auto& p) -> auto& { return p.damping; }));
    rows.push_back(choiceRow<Water>(
        {.key = "scheme",
         .label = "scheme",
         .help = "Water time stepping: implicit Crank-Nicolson (a CG solve a step) or explicit "
                 "leapfrog",
         .choices = {"cn", "explicit"}},
        &SceneOptionValues::scheme, [](auto& p) -> auto& { return p.scheme; },
        [](wave::Scheme s) { return std::string(wave::schemeName(s)); },
        [](const std::string& t) {
            return std::optional<wave::Scheme>(t == "explicit" ? wave::Scheme::kExplicit
                                                               : wave::Scheme::kCrankNicolson);
        }));
    rows.push_back(choiceRow<Water>(
        {.key = "boundary",
         .label = "pool walls",
         .help = "Pool walls: reflecting (neumann), fixed (dirichlet), or fixed at x and "
                 "reflecting at y (mixed)",
         .choices = {"neumann", "dirichlet", "mixed"},
         .rebuilds = true},
        &SceneOptionValues::boundary, [](auto& p) -> auto& { return p.boundary; },
        [](cg::Boundary b) { return std::string(cg::boundaryName(b)); },
        [](const std::string& t) {
            return std::optional<cg::Boundary>(t == "dirichlet" ? cg::Boundary::kDirichlet
                                               : t == "mixed"   ? cg::Boundary::kMixed
                                                                : cg::Boundary::kNeumann);
        }));
    {
        ParamRow<Water> tolerance = numberRow<Water>(
            {.key = "cg-tolerance",
             .label = "CG tolerance",
             .help = "CG relative residual ||b-Ax||/||b|| to stop at",
             .widget = ParamWidget::kInput,
             .range = {.lo = 0, .hi = 1, .loOpen = true, .hiOpen = true}},
            &SceneOptionValues::cgTolerance, [](auto& p) -> auto& { return p.cg.tolerance; });
        tolerance.inactive = implicitOnly;
        rows.push_back(std::move(tolerance));
        ParamRow<Water> cap = numberRow<Water>(
            {.key = "cg-max-iterations",
             .label = "CG max iterations",
             .help = "CG iteration cap per step",
             .widget = ParamWidget::kInput,
             .range = {.lo = 1, .hi = 1e6}},
            &SceneOptionValues::cgMaxIterations,
            [](auto& p) -> auto& { return p.cg.maxIterations; });
        cap.inactive = implicitOnly;
        rows.push_back(std::move(cap));
        ParamRow<Water> check = numberRow<Water>(
            {.key = "cg-check-every",
             .label = "CG check every",
             .help = "GPU CG: read the residual back every K iterations",
             .widget = ParamWidget::kInput,
             .range = {.lo = 1, .hi = 1e4}},
            &SceneOptionValues::cgCheckEvery, [](auto& p) -> auto& { return p.cg.checkEvery; });
        check.inactive = [](const Water& p, Backend backend) {
            const std::string why = implicitOnly(p, backend);
            return !why.empty() || backend == Backend::kGpu
                       ? why
                       : std::string(
                             "The GPU backend's CG only (the CPU reads its residual "
                             "every iteration)");
        };
        rows.push_back(std::move(check));
    }
    return rows;
}

}  // namespace

const std::vector<ParamRow<wave::WaveParams>>& waterParams() {
    static const std::vector<ParamRow<wave::WaveParams>> rows = makeWaterParams();
    return rows;
}

}  // namespace ww::app
