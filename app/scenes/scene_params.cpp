#include "app/scenes/scene_params.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include <unistd.h>

#include "solver/splash/splash_scenes.h"

// The tables name only the fields a row sets (designated initializers); the rest keep their
// defaults, which is what GCC's missing-field-initializers warning would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace ww::app {

namespace {

constexpr double kNoBound = std::numeric_limits<double>::infinity();

using Wall = WallSceneSettings;
using Water = wave::WaveParams;
using Splash = SplashSceneSettings;

std::string formatNumber(double x) {
    char text[32];
    if (std::abs(x) < 1e15 && x == std::floor(x)) {
        std::snprintf(text, sizeof text, "%.0f", x);
    } else {
        std::snprintf(text, sizeof text, "%g", x);
    }
    return text;
}

std::string rangeText(const ParamInfo& info) {
    const ParamRange& r = info.range;
    if (r.lo == -kNoBound && r.hi == kNoBound) {
        return "must be a finite number";
    }
    std::string text =
        r.hi == kNoBound
            ? std::string(r.loOpen ? "must be > " : "must be >= ") + formatNumber(r.lo)
            : std::string("must be in ") + (r.loOpen ? "(" : "[") + formatNumber(r.lo) + ", " +
                  formatNumber(r.hi) + (r.hiOpen ? ")" : "]");
    if (!info.unit.empty()) {
        text += " " + info.unit;
    }
    if (!r.note.empty()) {
        text += " " + r.note;
    }
    return text;
}

// Row makers. `ref` is a generic lambda returning a reference to the settings' member, so one
// accessor serves reading (const settings) and writing.

template <typename S, typename T, typename Ref>
ParamRow<S> numberRow(ParamInfo info, T SceneOptionValues::*field, Ref ref) {
    info.field = field;
    ParamRow<S> row{std::move(info), {}, {}, {}};
    row.read = [field, ref](const S& s, SceneOptionValues& v) { v.*field = ref(s); };
    row.write = [field, ref](const SceneOptionValues& v, S& s) -> Status {
        ref(s) = v.*field;
        return {};
    };
    return row;
}

template <typename S, typename Ref>
ParamRow<S> toggleRow(ParamInfo info, std::string SceneOptionValues::*field, Ref ref) {
    info.field = field;
    info.widget = ParamWidget::kToggle;
    info.choices = {"on", "off"};
    ParamRow<S> row{std::move(info), {}, {}, {}};
    row.read = [field, ref](const S& s, SceneOptionValues& v) { v.*field = ref(s) ? "on" : "off"; };
    row.write = [field, ref](const SceneOptionValues& v, S& s) -> Status {
        ref(s) = v.*field == "on";
        return {};
    };
    return row;
}

/// A choice held as an enum: `name` gives its text, `parse` the enum of a text (optional).
template <typename S, typename Ref, typename Name, typename Parse>
ParamRow<S> choiceRow(ParamInfo info, std::string SceneOptionValues::*field, Ref ref, Name name,
                      Parse parse) {
    info.field = field;
    info.widget = ParamWidget::kChoice;
    ParamRow<S> row{std::move(info), {}, {}, {}};
    row.read = [field, ref, name](const S& s, SceneOptionValues& v) { v.*field = name(ref(s)); };
    row.write = [field, ref, parse](const SceneOptionValues& v, S& s) -> Status {
        ref(s) = *parse(v.*field);
        return {};
    };
    return row;
}

std::string jacobiOnly(const Wall& s, Backend) {
    return s.world.lcp.method == lcp::LcpMethod::kJacobi
               ? std::string()
               : std::string("Jacobi only: Gauss-Seidel does not use it");
}

std::string slideOnly(const Wall& s, Backend) {
    return s.layout == "slide" ? std::string() : std::string("The slide layout's brick only");
}

std::string implicitOnly(const Water& p, Backend) {
    return p.scheme == wave::Scheme::kCrankNicolson
               ? std::string()
               : std::string("The implicit (Crank-Nicolson) scheme's CG solve only");
}

const char* methodName(lcp::LcpMethod m) {
    return m == lcp::LcpMethod::kJacobi ? "jacobi" : "gauss-seidel";
}

std::optional<lcp::LcpMethod> parseMethod(const std::string& s) {
    return s == "jacobi" ? lcp::LcpMethod::kJacobi : lcp::LcpMethod::kGaussSeidel;
}

std::string formatOmega(float omega) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(omega));
    return text;
}

std::vector<ParamRow<Wall>> makeWallParams() {
    std::vector<ParamRow<Wall>> rows;
    {
        ParamRow<Wall> size{{.key = "wall",
                             .label = "wall cols x rows",
                             .help = "Wall size COLSxROWS (wall scene; the pyramid's base and "
                                     "the stack's height come from it)",
                             .field = &SceneOptionValues::wall,
                             .widget = ParamWidget::kText,
                             .rebuilds = true},
                            {},
                            {},
                            {}};
        size.read = [](const Wall& s, SceneOptionValues& v) {
            v.wall = std::to_string(s.wall.cols) + "x" + std::to_string(s.wall.rows);
        };
        size.write = [](const SceneOptionValues& v, Wall& s) -> Status {
            int cols = 0;
            int height = 0;
            if (Status st = parseSize(v.wall, "wall", cols, height); !st) {
                return st;
            }
            // Each side may be up to 65536 (parseSize): their product needs 64 bits.
            const long long bricks = static_cast<long long>(cols) * height;
            if (bricks > kMaxWallBricks) {
                return paramError("wall", "has " + std::to_string(bricks) + " bricks; at most " +
                                              std::to_string(kMaxWallBricks) + " are supported");
            }
            if (Status st = checkWallMemory(v.wall, bricks,
                                            static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                                                static_cast<double>(sysconf(_SC_PAGE_SIZE)));
                !st) {
                return st;
            }
            s.wall.cols = cols;
            s.wall.rows = height;
            s.pyramid.baseCount = cols;
            s.stack.height = height;
            return {};
        };
        rows.push_back(std::move(size));
    }
    rows.push_back(choiceRow<Wall>(
        {.key = "layout",
         .label = "layout",
         .help = "What stands on the ground (wall scene)",
         .choices = {"wall", "pyramid", "stack", "slide"},
         .rebuilds = true},
        &SceneOptionValues::layout, [](auto& s) -> auto& { return s.layout; },
        [](const std::string& l) { return l; },
        [](const std::string& l) { return std::optional<std::string>(l); }));
    rows.push_back(numberRow<Wall>(
        {.key = "column-gap",
         .label = "column gap",
         .help = "Gap between neighbouring columns of the wall (0: touching, the paper's wall; "
                 "a gap splits it into one island per column)",
         .unit = "m",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0, .hi = 1, .dragLo = 0, .dragHi = 0.5},
         .rebuilds = true},
        &SceneOptionValues::columnGap, [](auto& s) -> auto& { return s.wall.columnGapM; }));
    {
        ParamRow<Wall> speed = numberRow<Wall>(
            {.key = "slide-speed",
             .label = "slide speed",
             .help = "Launch speed of the slide layout's brick (it stops after v^2 / (2 mu g))",
             .unit = "m/s",
             .widget = ParamWidget::kSlider,
             .range = {.lo = 0, .hi = 100, .dragLo = 0, .dragHi = 20},
             .rebuilds = true},
            &SceneOptionValues::slideSpeed, [](auto& s) -> auto& { return s.slide.speedMps; });
        speed.inactive = slideOnly;
        rows.push_back(std::move(speed));
        ParamRow<Wall> angle = numberRow<Wall>(
            {.key = "slide-angle",
             .label = "slide angle",
             .help = "Launch direction of the slide layout's brick about the vertical (0 = +x, "
                     "90 = +z)",
             .unit = "degrees",
             .widget = ParamWidget::kSlider,
             .range = {.lo = -360, .hi = 360, .dragLo = -180, .dragHi = 180},
             .rebuilds = true},
            &SceneOptionValues::slideAngle, [](auto& s) -> auto& { return s.slide.angleDeg; });
        angle.inactive = slideOnly;
        rows.push_back(std::move(angle));
    }
    {
        ParamRow<Wall> method = choiceRow<Wall>(
            {.key = "lcp-solver",
             .label = "LCP method",
             .help = "LCP method (Gauss-Seidel runs on the CPU)",
             .choices = {"jacobi", "gauss-seidel"}},
            &SceneOptionValues::lcpSolver, [](auto& s) -> auto& { return s.world.lcp.method; },
            [](lcp::LcpMethod m) { return std::string(methodName(m)); }, parseMethod);
        method.inactive = [](const Wall&, Backend backend) {
            return backend == Backend::kGpu
                       ? std::string(
                             "The GPU backend implements projected Jacobi only: "
                             "Gauss-Seidel is sequential by nature. Switch to the CPU "
                             "to use it.")
                       : std::string();
        };
        rows.push_back(std::move(method));
    }
    {
        const std::string defaults =
            "Jacobi " + formatOmega(rigid::defaultWallOmega(lcp::LcpMethod::kJacobi)) +
            ", capped by --adaptive-omega; Gauss-Seidel " +
            formatOmega(rigid::defaultWallOmega(lcp::LcpMethod::kGaussSeidel));
        ParamRow<Wall> omega = numberRow<Wall>(
            {.key = "omega",
             .label = "omega",
             .help = "LCP relaxation: x <- clamp(x - omega*D^-1(Ax+b), lo, hi); 0 = the "
                     "method's default (" +
                     defaults + ")",
             .widget = ParamWidget::kLogSlider,
             .range = {.lo = 0,
                       .hi = kNoBound,
                       .hiOpen = true,
                       .dragLo = 0.01,
                       .dragHi = 1.99,
                       .note = "(0: the method's default, " + defaults + ")"}},
            &SceneOptionValues::omega, [](auto& s) -> auto& { return s.world.lcp.omega; });
        // 0 asks for the default of the method the values name (the row's order does not
        // matter: the method is read from the values, not from the settings).
        omega.write = [](const SceneOptionValues& v, Wall& s) -> Status {
            s.world.lcp.omega =
                v.omega > 0.0f ? v.omega : rigid::defaultWallOmega(*parseMethod(v.lcpSolver));
            return {};
        };
        rows.push_back(std::move(omega));
    }
    {
        ParamRow<Wall> adaptive = toggleRow<Wall>(
            {.key = "adaptive-omega",
             .label = "adaptive omega",
             .help = "Cap Jacobi's omega each step at 0.85 * 2 / lambda, lambda an estimate of "
                     "lambda_max(D^-1 A) (Lanczos, at most the Gershgorin bound), which keeps "
                     "it convergent; off uses --omega as given"},
            &SceneOptionValues::adaptiveOmega,
            [](auto& s) -> auto& { return s.world.adaptiveOmega; });
        adaptive.inactive = jacobiOnly;
        rows.push_back(std::move(adaptive));
        ParamRow<Wall> chebyshev = numberRow<Wall>(
            {.key = "chebyshev-rho",
             .label = "Chebyshev rho",
             .help = "Chebyshev acceleration of Jacobi: the plain iteration's spectral radius "
                     "estimate in [0, 1), 0 = off (docs/lcp.md)",
             .widget = ParamWidget::kSlider,
             .range = {.lo = 0,
                       .hi = 1,
                       .hiOpen = true,
                       .dragLo = 0,
                       .dragHi = 0.999,
                       .note = "(0 turns the acceleration off)"}},
            &SceneOptionValues::chebyshevRho,
            [](auto& s) -> auto& { return s.world.lcp.chebyshevRho; });
        chebyshev.inactive = jacobiOnly;
        rows.push_back(std::move(chebyshev));
    }
    rows.push_back(numberRow<Wall>(
        {.key = "shock-sweeps",
         .label = "shock sweeps",
         .help = "Shock propagation after the LCP: each body's contacts with what it rests on "
                 "solved again from the ground up, the body below held fixed, by this many "
                 "Gauss-Seidel sweeps; 0 = off (wall scene; docs/rigid.md)",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0,
                   .hi = 1000,
                   .dragLo = 0,
                   .dragHi = 30,
                   .note = "(0 turns shock propagation off)"}},
        &SceneOptionValues::shockSweeps, [](auto& s) -> auto& { return s.world.shockSweeps; }));
    {
        ParamRow<Wall> iterations{{.key = "iterations",
                                   .label = "iterations",
                                   .help = "LCP iteration cap: N or 2n (n = LCP size)",
                                   .field = &SceneOptionValues::iterations,
                                   .widget = ParamWidget::kText},
                                  {},
                                  {},
                                  {}};
        iterations.read = [](const Wall& s, SceneOptionValues& v) {
            v.iterations =
                s.world.lcp.maxIterations == 0 ? "2n" : std::to_string(s.world.lcp.maxIterations);
        };
        iterations.write = [](const SceneOptionValues& v, Wall& s) -> Status {
            if (v.iterations == "2n") {
                s.world.lcp.maxIterations = 0;
                return {};
            }
            char* end = nullptr;
            const long n = std::strtol(v.iterations.c_str(), &end, 10);
            if (v.iterations.empty() || *end != '\0' || n < 1 || n > 1000000) {
                return paramError("iterations", "'" + v.iterations +
                                                    "' must be a positive integer up to "
                                                    "1000000, or 2n");
            }
            s.world.lcp.maxIterations = static_cast<int>(n);
            return {};
        };
        rows.push_back(std::move(iterations));
    }
    rows.push_back(numberRow<Wall>(
        {.key = "tolerance",
         .label = "tolerance",
         .help = "LCP natural-map residual to stop at (absolute); 0 runs the full count",
         .unit = "N s",
         .widget = ParamWidget::kInput,
         .range = {.lo = 0, .hi = kNoBound, .hiOpen = true}},
        &SceneOptionValues::tolerance, [](auto& s) -> auto& { return s.world.lcp.tolerance; }));
    rows.push_back(numberRow<Wall>(
        {.key = "iteration-budget",
         .label = "work budget",
         .help = "LCP multiply-adds per step: a numeric --iterations is capped at max(10, "
                 "budget / work of one iteration), so big piles run fewer iterations (0 = no "
                 "cap; never applied to 2n; docs/rigid.md)",
         .unit = "multiply-adds",
         .widget = ParamWidget::kInput,
         .range = {.lo = 0, .hi = 1e12, .note = "(0 turns the cap off)"}},
        &SceneOptionValues::iterationBudget,
        [](auto& s) -> auto& { return s.world.iterationBudgetMacs; }));
    rows.push_back(toggleRow<Wall>(
        {.key = "warm-start",
         .label = "warm start",
         .help = "Start each LCP solve from last step's impulses"},
        &SceneOptionValues::warmStart, [](auto& s) -> auto& { return s.world.warmStart; }));
    rows.push_back(toggleRow<Wall>(
        {.key = "sleep",
         .label = "sleep",
         .help = "Put islands at rest for 0.5 s to sleep until something awake touches them "
                 "(wall scene; docs/rigid.md)"},
        &SceneOptionValues::sleep, [](auto& s) -> auto& { return s.world.sleep; }));
    rows.push_back(numberRow<Wall>(
        {.key = "friction",
         .label = "friction mu",
         .help = "Coulomb friction coefficient mu of every contact",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0, .hi = 10, .dragLo = 0, .dragHi = 2}},
        &SceneOptionValues::friction, [](auto& s) -> auto& { return s.world.friction; }));
    rows.push_back(choiceRow<Wall>(
        {.key = "lcp-mode",
         .label = "LCP blocks",
         .help = "One dense LCP for the scene, or one block per island",
         .choices = {"dense", "islands"}},
        &SceneOptionValues::lcpMode, [](auto& s) -> auto& { return s.world.mode; },
        [](rigid::LcpMode m) { return std::string(rigid::toString(m)); },
        [](const std::string& t) { return rigid::parseLcpMode(t); }));
    rows.push_back(choiceRow<Wall>(
        {.key = "lcp-operator",
         .label = "LCP operator",
         .help = "How each LCP block holds A: dense n x n, matrix-free (J M^-1 J^T through "
                 "per-body sums, O(n)), or auto (matrix-free from " +
                 std::to_string(rigid::kMatrixFreeMinRows) +
                 " rows in islands mode, dense in dense mode; docs/rigid.md)",
         .choices = {"dense", "matrix-free", "auto"}},
        &SceneOptionValues::lcpOperator, [](auto& s) -> auto& { return s.world.lcpOperator; },
        [](rigid::LcpOperator o) { return std::string(rigid::toString(o)); },
        [](const std::string& t) { return rigid::parseLcpOperator(t); }));
    rows.push_back(toggleRow<Wall>(
        {.key = "resting-load-guess",
         .label = "resting-load guess",
         .help = "Start new contacts from the impulse that holds what rests on them (wall "
                 "scene)"},
        &SceneOptionValues::restingLoadGuess,
        [](auto& s) -> auto& { return s.world.restingLoadGuess; }));
    rows.push_back(toggleRow<Wall>(
        {.key = "keep-manifolds",
         .label = "keep manifolds",
         .help = "Resting box pairs keep their contact points while their relative pose holds "
                 "(1 mm, 2 mrad) instead of a new narrow phase each step (wall scene; "
                 "docs/rigid.md)"},
        &SceneOptionValues::keepManifolds, [](auto& s) -> auto& { return s.world.keepManifolds; }));
    rows.push_back(numberRow<Wall>(
        {.key = "erp",
         .label = "erp",
         .help = "Baumgarte position-error reduction per step (0..1)",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 0, .hi = 1, .dragLo = 0, .dragHi = 1}},
        &SceneOptionValues::erp, [](auto& s) -> auto& { return s.world.erp; }));
    rows.push_back(numberRow<Wall>(
        {.key = "substeps",
         .label = "substeps",
         .help = "Sub-steps per time step (wall scene)",
         .widget = ParamWidget::kSlider,
         .range = {.lo = 1, .hi = 64, .dragLo = 1, .dragHi = 8}},
        &SceneOptionValues::substeps, [](auto& s) -> auto& { return s.world.substeps; }));
    return rows;
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

SceneOptionValues::SceneOptionValues() {
    readParams(wallParams(), WallSceneSettings{}, *this);
    omega = 0.0f;  // the method's default, resolved when the settings are made
    readParams(waterParams(), wave::WaveParams{}, *this);
    readParams(splashParams(), SplashSceneSettings{}, *this);
}

const std::vector<ParamRow<WallSceneSettings>>& wallParams() {
    static const std::vector<ParamRow<WallSceneSettings>> rows = makeWallParams();
    return rows;
}

const std::vector<ParamRow<wave::WaveParams>>& waterParams() {
    static const std::vector<ParamRow<wave::WaveParams>> rows = makeWaterParams();
    return rows;
}

const std::vector<ParamRow<SplashSceneSettings>>& splashParams() {
    static const std::vector<ParamRow<SplashSceneSettings>> rows = makeSplashParams();
    return rows;
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

Error paramError(const std::string& key, const std::string& what) {
    return inputError("--" + key + " (config key \"" + key + "\") " + what);
}

Status checkParam(const ParamInfo& info, const SceneOptionValues& v) {
    return std::visit(
        [&](auto field) -> Status {
            const auto& value = v.*field;
            if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
                if (info.choices.empty()) {
                    return {};
                }
                std::string list;
                for (const std::string& c : info.choices) {
                    if (c == value) {
                        return {};
                    }
                    list += (list.empty() ? "" : ", ") + c;
                }
                return paramError(info.key, "'" + value + "' must be one of " + list);
            } else {
                const double x = static_cast<double>(value);
                const ParamRange& r = info.range;
                const bool above = r.loOpen ? x > r.lo : x >= r.lo;
                const bool below = r.hiOpen ? x < r.hi : x <= r.hi;
                return above && below ? Status{} : Status{paramError(info.key, rangeText(info))};
            }
        },
        info.field);
}

std::string paramText(const ParamInfo& info, const SceneOptionValues& v) {
    return std::visit(
        [&](auto field) -> std::string {
            const auto& value = v.*field;
            if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) {
                return value;
            } else {
                char text[32];
                std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
                return text;
            }
        },
        info.field);
}

Status parseSize(const std::string& text, const char* option, int& a, int& b) {
    const auto x = text.find('x');
    char* end1 = nullptr;
    char* end2 = nullptr;
    if (x != std::string::npos) {
        const std::string sa = text.substr(0, x);
        const std::string sb = text.substr(x + 1);
        const long va = std::strtol(sa.c_str(), &end1, 10);
        const long vb = std::strtol(sb.c_str(), &end2, 10);
        if (!sa.empty() && !sb.empty() && *end1 == '\0' && *end2 == '\0' && va > 0 && vb > 0 &&
            va <= 1 << 16 && vb <= 1 << 16) {
            a = static_cast<int>(va);
            b = static_cast<int>(vb);
            return {};
        }
    }
    return inputError(std::string("--") + option + " '" + text +
                      "' must be AxB with two positive integers, e.g. 10x6");
}

double wallMemoryBytes(long long bricks) {
    // Measured peak RSS of a shot wall (matrix-free islands, CPU): 35 MB at 1 000 bricks,
    // 271 MB at 10 000, 490 MB at 20 000, about 25 KB a brick; twice that a brick for the piles
    // of a collapse (more contacts a body than the standing wall) and the GPU path's copies.
    return 16.0 * 1024 * 1024 + 50.0 * 1024 * static_cast<double>(bricks);
}

Status checkWallMemory(const std::string& wall, long long bricks, double physicalBytes) {
    const double need = wallMemoryBytes(bricks);
    if (physicalBytes > 0.0 && need > 0.8 * physicalBytes) {
        char what[320];
        std::snprintf(what, sizeof what,
                      "%s has %lld bricks: the run needs about %.1f GB of memory, more than 80%% "
                      "of this machine's %.1f GB; use a smaller --wall",
                      wall.c_str(), bricks, need / 1e9, physicalBytes / 1e9);
        return paramError("wall", what);
    }
    return {};
}

}  // namespace ww::app
