#include "app/scenes/wall/wall_params.h"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include <unistd.h>

#include "app/scenes/param_rows.h"

// The tables name only the fields a row sets (designated initializers); the rest keep their
// defaults, which is what GCC's missing-field-initializers warning would flag.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace ww::app {

namespace {

using Wall = WallSceneSettings;

std::string jacobiOnly(const Wall& s, Backend) {
    return s.world.lcp.method == lcp::LcpMethod::kJacobi
               ? std::string()
               : std::string("Jacobi only: Gauss-Seidel does not use it");
}

/// omega and adaptive omega while local step scales set Jacobi's steps.
std::string globalOmegaOnly(const Wall& s, Backend backend) {
    std::string why = jacobiOnly(s, backend);
    if (why.empty() && s.world.localStepOmega > 0.0f) {
        why = "local steps set Jacobi's steps (local steps 0 uses omega)";
    }
    return why;
}

std::string slideOnly(const Wall& s, Backend) {
    return s.layout == "slide" ? std::string() : std::string("The slide layout's brick only");
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
        omega.inactive = [](const Wall& s, Backend backend) {
            return s.world.lcp.method == lcp::LcpMethod::kJacobi ? globalOmegaOnly(s, backend)
                                                                 : std::string();
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
        adaptive.inactive = globalOmegaOnly;
        rows.push_back(std::move(adaptive));
        ParamRow<Wall> local = numberRow<Wall>(
            {.key = "local-steps",
             .label = "local steps",
             .help = "Jacobi with local step scales: row i steps W / P_ii, P_ii from bounds on "
                     "its bodies' own parts of A (P >= A, so any W in (0, 2) converges; every "
                     "block matrix-free; --omega and --adaptive-omega unused); 0 = off, the "
                     "global omega (docs/rigid.md, \"Local step scales\")",
             .widget = ParamWidget::kSlider,
             .range = {.lo = 0,
                       .hi = 2,
                       .hiOpen = true,
                       .dragLo = 0,
                       .dragHi = 1.99,
                       .note = "(0: off, the global omega)"}},
            &SceneOptionValues::localStepOmega,
            [](auto& s) -> auto& { return s.world.localStepOmega; });
        local.inactive = jacobiOnly;
        rows.push_back(std::move(local));
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
                 "solved again from the ground up, the body below held fixed, by at most this "
                 "many Gauss-Seidel sweeps (a body stops once no row's update moves it by more "
                 "than 1e-8 m/s); 0 = off (wall scene; docs/rigid.md)",
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
                 "budget / work of one iteration), so big piles run fewer iterations and sink "
                 "deeper (0 = no cap, the default; never applied to 2n; docs/rigid.md)",
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
        {.key = "warm-start-moving",
         .label = "warm start moving pairs",
         .help = "Warm start the points of moving pairs too (off: they start from the "
                 "resting-load guess, closer to solved in a collapse but slower; "
                 "docs/rigid.md)"},
        &SceneOptionValues::warmStartMoving,
        [](auto& s) -> auto& { return s.world.warmStartMovingPairs; }));
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

}  // namespace

const std::vector<ParamRow<WallSceneSettings>>& wallParams() {
    static const std::vector<ParamRow<WallSceneSettings>> rows = makeWallParams();
    return rows;
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
