#include "app/cli/scene_options.h"

#include "app/cli/thread_option.h"
#include "solver/splash/splash_scenes.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace ww::app {

namespace {

Error rangeError(const std::string& option, const std::string& what) {
    return inputError("--" + option + " (config key \"" + option + "\") " + what);
}

// Contacts of a cols x rows wall at rest: 4 under every brick; with touching columns also 4 per
// side face and 4 per pair of diagonal neighbours, which touch along an edge (10 x 6: 816).
long long restingWallContacts(long long cols, long long rows, bool touching) {
    const long long bricks = cols * rows;
    return touching ? 4 * bricks + 4 * (cols - 1) * rows + 8 * (cols - 1) * (rows - 1) : 4 * bricks;
}

// Bytes of the largest dense LCP matrix the wall will pose: the whole scene in dense mode, the
// largest island otherwise (a column, or the whole wall when the columns touch); 0 when every
// block is matrix-free.
double denseWallBytes(const rigid::WallParams& wall, const rigid::WorldParams& w) {
    const bool touching = wall.columnGapM <= 0.0f;
    const bool dense =
        w.lcpOperator == rigid::LcpOperator::kDense ||
        (w.lcpOperator == rigid::LcpOperator::kAuto && w.mode == rigid::LcpMode::kDense);
    if (!dense) {
        return 0.0;
    }
    const long long contacts = w.mode == rigid::LcpMode::kDense || touching
                                   ? restingWallContacts(wall.cols, wall.rows, touching)
                                   : restingWallContacts(1, wall.rows, false);
    const double n = 3.0 * static_cast<double>(contacts);
    return n * n * sizeof(float);
}

std::string formatOmega(float omega) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(omega));
    return text;
}

}  // namespace

SceneOptionValues::SceneOptionValues() {
    const rigid::WorldParams w;
    const rigid::SlideParams slide;
    slideSpeed = slide.speedMps;
    slideAngle = slide.angleDeg;
    omega = 0.0f;  // the method's default, resolved in makeWallSettings
    iterations = w.lcp.maxIterations == 0 ? "2n" : std::to_string(w.lcp.maxIterations);
    tolerance = w.lcp.tolerance;
    warmStart = w.warmStart ? "on" : "off";
    adaptiveOmega = w.adaptiveOmega ? "on" : "off";
    chebyshevRho = w.lcp.chebyshevRho;
    restingLoadGuess = w.restingLoadGuess ? "on" : "off";
    shockSweeps = w.shockSweeps;
    sleep = w.sleep ? "on" : "off";
    keepManifolds = w.keepManifolds ? "on" : "off";
    friction = w.friction;
    lcpMode = rigid::toString(w.mode);
    lcpOperator = rigid::toString(w.lcpOperator);
    columnGap = rigid::WallParams{}.columnGapM;
    lcpSolver = w.lcp.method == lcp::LcpMethod::kJacobi ? "jacobi" : "gauss-seidel";
    erp = w.erp;
    substeps = w.substeps;
    iterationBudget = w.iterationBudgetMacs;

    const wave::WaveParams p;
    grid = std::to_string(p.nx) + "x" + std::to_string(p.ny);
    poolSize = p.poolSizeM;
    waveSpeed = p.waveSpeed;
    dtRatio = p.dtRatio;
    damping = p.damping;
    scheme = wave::schemeName(p.scheme);
    boundary = cg::boundaryName(p.boundary);
    cgTolerance = p.cg.tolerance;
    cgMaxIterations = p.cg.maxIterations;
    cgCheckEvery = p.cg.checkEvery;
}

void registerSceneOptions(OptionTable& t, SceneOptionValues& v) {
    t.add("wall", v.wall, "Wall size COLSxROWS (wall scene)");
    t.add("layout", v.layout, "What stands on the ground (wall scene)",
          {"wall", "pyramid", "stack", "slide"});
    t.add("slide-speed", v.slideSpeed,
          "Launch speed of the slide layout's brick, m/s (it stops after v^2 / (2 mu g))");
    t.add("slide-angle", v.slideAngle,
          "Launch direction of the slide layout's brick, degrees about the vertical (0 = +x, "
          "90 = +z)");
    t.add("omega", v.omega,
          "LCP relaxation: x <- clamp(x - omega*D^-1(Ax+b), lo, hi); 0 = the method's default "
          "(Jacobi " +
              formatOmega(rigid::defaultWallOmega(lcp::LcpMethod::kJacobi)) +
              ", capped by --adaptive-omega; Gauss-Seidel " +
              formatOmega(rigid::defaultWallOmega(lcp::LcpMethod::kGaussSeidel)) + ")");
    t.add("iterations", v.iterations, "LCP iteration cap: N or 2n (n = LCP size)");
    t.add("tolerance", v.tolerance,
          "LCP natural-map residual to stop at (N s, absolute); 0 runs the full count");
    t.add("warm-start", v.warmStart, "Start each LCP solve from last step's impulses",
          {"on", "off"});
    t.add("adaptive-omega", v.adaptiveOmega,
          "Cap Jacobi's omega each step at 0.85 * 2 / lambda, lambda an estimate of "
          "lambda_max(D^-1 A) (Lanczos, at most the Gershgorin bound), which keeps it "
          "convergent; off uses --omega as given",
          {"on", "off"});
    t.add("chebyshev-rho", v.chebyshevRho,
          "Chebyshev acceleration of Jacobi: the plain iteration's spectral radius estimate in "
          "[0, 1), 0 = off (docs/lcp.md)");
    t.add("resting-load-guess", v.restingLoadGuess,
          "Start new contacts from the impulse that holds what rests on them (wall scene)",
          {"on", "off"});
    t.add("shock-sweeps", v.shockSweeps,
          "Shock propagation after the LCP: each body's contacts with what it rests on solved "
          "again from the ground up, the body below held fixed, by this many Gauss-Seidel "
          "sweeps; 0 = off (wall scene; docs/rigid.md)");
    t.add("sleep", v.sleep,
          "Put islands at rest for 0.5 s to sleep until something awake touches them (wall "
          "scene; docs/rigid.md)",
          {"on", "off"});
    t.add("keep-manifolds", v.keepManifolds,
          "Resting box pairs keep their contact points while their relative pose holds (1 mm, "
          "2 mrad) instead of a new narrow phase each step (wall scene; docs/rigid.md)",
          {"on", "off"});
    t.add("friction", v.friction, "Coulomb friction coefficient mu of every contact");
    t.add("lcp-mode", v.lcpMode, "One dense LCP for the scene, or one block per island",
          {"dense", "islands"});
    t.add("lcp-operator", v.lcpOperator,
          "How each LCP block holds A: dense n x n, matrix-free (J M^-1 J^T through per-body "
          "sums, O(n)), or auto (matrix-free from " +
              std::to_string(rigid::kMatrixFreeMinRows) +
              " rows in islands mode, dense in dense mode; docs/rigid.md)",
          {"dense", "matrix-free", "auto"});
    t.add("column-gap", v.columnGap,
          "Gap between neighbouring columns of the wall, m (0: touching, the paper's wall; a gap "
          "splits it into one island per column)");
    t.add("lcp-solver", v.lcpSolver, "LCP method (Gauss-Seidel runs on the CPU)",
          {"jacobi", "gauss-seidel"});
    t.add("erp", v.erp, "Baumgarte position-error reduction per step (0..1)");
    t.add("substeps", v.substeps, "Sub-steps per time step (wall scene)");
    t.add("iteration-budget", v.iterationBudget,
          "LCP multiply-adds per step: a numeric --iterations is capped at max(10, budget / "
          "work of one iteration), so big piles run fewer iterations (0 = no cap; never "
          "applied to 2n; docs/rigid.md)");
    t.add("grid", v.grid, "Water grid NXxNY (water scene)");
    t.add("pool-size", v.poolSize, "Side of the square pool, metres (cell size = side / grid)");
    t.add("wave-speed", v.waveSpeed, "Wave speed c, m/s");
    t.add("dt-ratio", v.dtRatio,
          "Water time step as a multiple of the explicit scheme's stability limit h/(c*sqrt 2)");
    t.add("damping", v.damping, "Wave damping gamma, 1/s (0 conserves energy)");
    t.add("scheme", v.scheme, "Water time stepping", {"cn", "explicit"});
    t.add("boundary", v.boundary,
          "Pool walls: reflecting (neumann), fixed (dirichlet), or fixed at x and reflecting at "
          "y (mixed)",
          {"neumann", "dirichlet", "mixed"});
    t.add("cg-tolerance", v.cgTolerance, "CG relative residual ||b-Ax||/||b|| to stop at");
    t.add("cg-max-iterations", v.cgMaxIterations, "CG iteration cap per step");
    t.add("cg-check-every", v.cgCheckEvery, "GPU CG: read the residual back every K iterations");
    t.add("brick-density", v.brickDensity,
          "Splash scene: brick density, kg/m^3 (water is 1000: lighter bricks float)");
    t.add("brick-size", v.brickSize, "Splash scene: side of the cubic bricks, m");
    t.add("water-depth", v.waterDepth,
          "Splash scene: still water depth, m (waves run at sqrt(g * depth))");
    t.add("wall-x", v.wallX, "Splash scene: the wall's centre from the pool's centre along x, m");
    t.add("wall-z", v.wallZ, "Splash scene: the wall's centre from the pool's centre along z, m");
    t.add("dt", v.dt,
          "Time step in seconds (0 = the scene's default; for water overrides --dt-ratio)");
    t.add("threads", v.threads,
          "CPU solver threads (default: WAVEWALL_THREADS, else every hardware thread)");
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

Result<std::string> lcpBackendChoice(const std::string& choice, const std::string& scene,
                                     const SceneOptionValues& v) {
    if (scene == "water" || v.lcpSolver != "gauss-seidel" || choice == "cpu") {
        return choice;
    }
    if (choice == "gpu") {
        return inputError(
            "--lcp-solver gauss-seidel (config key \"lcp-solver\") runs on the CPU only: the "
            "GPU LCP backend is projected Jacobi. Use --backend cpu, or --lcp-solver jacobi");
    }
    std::fprintf(stderr,
                 "wavewall: note: --lcp-solver gauss-seidel runs on the CPU only: --backend auto "
                 "chose the CPU\n");
    return std::string("cpu");
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
        return rangeError("wall", what);
    }
    return {};
}

/// The tallest wall (rows) that stands at rest with the default solver settings.
constexpr int kTallestStandingRows = 100;

Result<WallSceneSettings> makeWallSettings(const SceneOptionValues& v) {
    WallSceneSettings s;
    if (auto ex = executorFor(v.threads); !ex) {
        return ex.error();
    } else {
        s.executor = std::move(ex).value();
    }
    if (Status st = parseSize(v.wall, "wall", s.wall.cols, s.wall.rows); !st) {
        return st.error();
    }
    // Each side may be up to 65536 (parseSize): their product needs 64 bits.
    const long long bricks = static_cast<long long>(s.wall.cols) * s.wall.rows;
    if (bricks > kMaxWallBricks) {
        return rangeError("wall", "has " + std::to_string(bricks) + " bricks; at most " +
                                      std::to_string(kMaxWallBricks) + " are supported");
    }
    if (Status st = checkWallMemory(v.wall, bricks,
                                    static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                                        static_cast<double>(sysconf(_SC_PAGE_SIZE)));
        !st) {
        return st.error();
    }
    if (v.layout == "wall" && s.wall.rows > kTallestStandingRows) {
        // Measured with the default solver settings, touching columns, at rest: 64 x 64 stands
        // 30 s and 100 x 100 and 200 x 50 10 s, each within 0.1 mm; with an earlier shock rule
        // 64 x 150 fell within 2 s and 10 x 200 within 10 s (docs/rigid.md, "Tall walls").
        std::fprintf(stderr,
                     "wavewall: note: --wall %s has %d rows; walls above %d rows may sag and fall "
                     "by themselves with the default solver settings (100 rows stand)\n",
                     v.wall.c_str(), s.wall.rows, kTallestStandingRows);
    }
    if (!(v.columnGap >= 0.0f && v.columnGap <= 1.0f)) {
        return rangeError("column-gap", "must be in [0, 1] m");
    }
    s.wall.columnGapM = v.columnGap;
    s.layout = v.layout;
    s.pyramid.baseCount = s.wall.cols;
    s.stack.height = s.wall.rows;
    if (!(v.slideSpeed >= 0.0f) || v.slideSpeed > 100.0f) {
        return rangeError("slide-speed", "must be in [0, 100] m/s");
    }
    if (!(std::abs(v.slideAngle) <= 360.0f)) {
        return rangeError("slide-angle", "must be in [-360, 360] degrees");
    }
    s.slide.speedMps = v.slideSpeed;
    s.slide.angleDeg = v.slideAngle;
    rigid::WorldParams& w = s.world;
    if (v.iterations == "2n") {
        w.lcp.maxIterations = 0;
    } else {
        char* end = nullptr;
        const long n = std::strtol(v.iterations.c_str(), &end, 10);
        if (v.iterations.empty() || *end != '\0' || n < 1 || n > 1000000) {
            return rangeError("iterations",
                              "'" + v.iterations + "' must be a positive integer or 2n");
        }
        w.lcp.maxIterations = static_cast<int>(n);
    }
    if (!(v.tolerance >= 0.0f) || !std::isfinite(v.tolerance)) {
        return rangeError("tolerance", "must be >= 0");
    }
    w.lcp.tolerance = v.tolerance;
    w.warmStart = v.warmStart == "on";
    w.adaptiveOmega = v.adaptiveOmega == "on";
    if (!(v.chebyshevRho >= 0.0f && v.chebyshevRho < 1.0f)) {
        return rangeError("chebyshev-rho", "must be in [0, 1) (0 turns the acceleration off)");
    }
    w.lcp.chebyshevRho = v.chebyshevRho;
    w.restingLoadGuess = v.restingLoadGuess == "on";
    if (v.shockSweeps < 0 || v.shockSweeps > 1000) {
        return rangeError("shock-sweeps", "must be in [0, 1000] (0 turns shock propagation off)");
    }
    w.shockSweeps = v.shockSweeps;
    w.sleep = v.sleep == "on";
    w.keepManifolds = v.keepManifolds == "on";
    if (!(v.friction >= 0.0f) || v.friction > 10.0f) {
        return rangeError("friction", "must be in [0, 10]");
    }
    w.friction = v.friction;
    w.mode = *rigid::parseLcpMode(v.lcpMode);
    w.lcpOperator = *rigid::parseLcpOperator(v.lcpOperator);
    // A dense matrix that cannot fit is refused before the run, with what it would need.
    const double physical =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (const double bytes = denseWallBytes(s.wall, w);
        s.layout == "wall" && physical > 0.0 && bytes > 0.5 * physical) {
        char what[320];
        std::snprintf(what, sizeof what,
                      "%s with a dense LCP (--lcp-mode %s, --lcp-operator %s) needs a %.0f x %.0f "
                      "matrix: %.1f GB, more than half of this machine's %.1f GB; use "
                      "--lcp-operator matrix-free (O(rows) memory; in --lcp-mode islands auto "
                      "does it), a --column-gap, or a smaller --wall",
                      v.wall.c_str(), v.lcpMode.c_str(), v.lcpOperator.c_str(),
                      std::sqrt(bytes / 4.0), std::sqrt(bytes / 4.0), bytes / 1e9, physical / 1e9);
        return rangeError("wall", what);
    }
    w.lcp.method = v.lcpSolver == "jacobi" ? lcp::LcpMethod::kJacobi : lcp::LcpMethod::kGaussSeidel;
    if (!(v.omega >= 0.0f) || !std::isfinite(v.omega)) {
        return rangeError(
            "omega", "must be > 0, or 0 for the method's default (Jacobi " +
                         formatOmega(rigid::defaultWallOmega(lcp::LcpMethod::kJacobi)) +
                         ", Gauss-Seidel " +
                         formatOmega(rigid::defaultWallOmega(lcp::LcpMethod::kGaussSeidel)) + ")");
    }
    w.lcp.omega = v.omega > 0.0f ? v.omega : rigid::defaultWallOmega(w.lcp.method);
    if (!(v.erp >= 0.0f && v.erp <= 1.0f)) {
        return rangeError("erp", "must be in [0, 1]");
    }
    w.erp = v.erp;
    if (v.substeps < 1 || v.substeps > 64) {
        return rangeError("substeps", "must be in [1, 64]");
    }
    w.substeps = v.substeps;
    if (!(v.iterationBudget >= 0.0 && v.iterationBudget <= 1e12)) {
        return rangeError("iteration-budget",
                          "must be in [0, 1e12] multiply-adds per step (0 turns the cap off)");
    }
    w.iterationBudgetMacs = v.iterationBudget;
    if (v.dt != 0.0f) {
        if (!(v.dt > 0.0f) || v.dt > 1.0f) {
            return rangeError("dt", "must be in (0, 1] seconds");
        }
        w.dtSeconds = v.dt;
    }
    return s;
}

Result<WaterSceneSettings> makeWaterSettings(const SceneOptionValues& v, std::uint64_t seed) {
    WaterSceneSettings s;
    if (auto ex = executorFor(v.threads); !ex) {
        return ex.error();
    } else {
        s.executor = std::move(ex).value();
    }
    s.seed = seed;
    wave::WaveParams& p = s.wave;
    if (Status st = parseSize(v.grid, "grid", p.nx, p.ny); !st) {
        return st.error();
    }
    if (p.nx < 8 || p.ny < 8 || p.nx > 4096 || p.ny > 4096) {
        return rangeError("grid", "'" + v.grid + "' must be between 8x8 and 4096x4096");
    }
    if (!(v.poolSize > 0.0f) || v.poolSize > 1.0e4f) {
        return rangeError("pool-size", "must be in (0, 10000] metres");
    }
    p.poolSizeM = v.poolSize;
    if (!(v.waveSpeed > 0.0f) || v.waveSpeed > 1.0e3f) {
        return rangeError("wave-speed", "must be in (0, 1000] m/s");
    }
    p.waveSpeed = v.waveSpeed;
    if (v.dt != 0.0f) {
        if (!(v.dt > 0.0f) || v.dt > 10.0f) {
            return rangeError("dt", "must be in (0, 10] seconds");
        }
        p.dtSeconds = v.dt;
        p.dtRatio = 0.0f;
    } else {
        if (!(v.dtRatio > 0.0f) || v.dtRatio > 1.0e4f) {
            return rangeError("dt-ratio", "must be in (0, 10000]");
        }
        p.dtRatio = v.dtRatio;
    }
    if (!(v.damping >= 0.0f) || v.damping > 1.0e3f) {
        return rangeError("damping", "must be in [0, 1000] 1/s");
    }
    p.damping = v.damping;
    p.scheme = v.scheme == "explicit" ? wave::Scheme::kExplicit : wave::Scheme::kCrankNicolson;
    p.boundary = v.boundary == "dirichlet" ? cg::Boundary::kDirichlet
                 : v.boundary == "mixed"   ? cg::Boundary::kMixed
                                           : cg::Boundary::kNeumann;
    if (!(v.cgTolerance > 0.0f) || v.cgTolerance >= 1.0f) {
        return rangeError("cg-tolerance", "must be in (0, 1)");
    }
    p.cg.tolerance = v.cgTolerance;
    if (v.cgMaxIterations < 1 || v.cgMaxIterations > 1000000) {
        return rangeError("cg-max-iterations", "must be in [1, 1000000]");
    }
    p.cg.maxIterations = v.cgMaxIterations;
    if (v.cgCheckEvery < 1 || v.cgCheckEvery > 10000) {
        return rangeError("cg-check-every", "must be in [1, 10000]");
    }
    p.cg.checkEvery = v.cgCheckEvery;
    return s;
}

Result<SplashSceneSettings> makeSplashSettings(const SceneOptionValues& v) {
    Result<WallSceneSettings> wall = makeWallSettings(v);
    if (!wall) {
        return wall.error();
    }
    Result<WaterSceneSettings> water = makeWaterSettings(v, 1);
    if (!water) {
        return water.error();
    }
    SplashSceneSettings s;
    s.splash.executor = wall->executor;
    s.splash.world = wall->world;
    s.splash.wave = water->wave;
    s.wall = wall->wall;
    if (!(v.brickDensity > 0.0f) || v.brickDensity > 1.0e5f) {
        return rangeError("brick-density", "must be in (0, 100000] kg/m^3 (water is 1000)");
    }
    if (!(v.brickSize > 0.0f) || v.brickSize > 10.0f) {
        return rangeError("brick-size", "must be in (0, 10] m");
    }
    if (!(v.waterDepth > 0.0f) || v.waterDepth > 100.0f) {
        return rangeError("water-depth", "must be in (0, 100] m");
    }
    const float half = 0.5f * v.brickSize;
    s.wall = splash::cubicBricks(s.wall, v.brickSize, v.brickDensity);
    // The columns keep the wall scene's spacing: standing in water they come into contact and
    // the wall becomes one LCP island (docs/splash.md); a wider gap would only hide that.
    s.brickDensityKgM3 = v.brickDensity;
    s.splash.waterDepthM = v.waterDepth;
    s.maxPenetrationM = std::min(0.05f, 0.1f * v.brickSize);  // beyond one step's approach
    // The wall's footprint against the pool (both centred; cells of side poolSize / max(nx, ny)).
    const wave::WaveParams& p = s.splash.wave;
    const float poolX = p.cellSize() * static_cast<float>(p.nx);
    const float poolZ = p.cellSize() * static_cast<float>(p.ny);
    const float wallWidth = static_cast<float>(s.wall.cols) * v.brickSize +
                            static_cast<float>(s.wall.cols - 1) * s.wall.columnGapM;
    if (wallWidth > poolX || v.brickSize > poolZ) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "is %g x %g m, smaller than the %s wall's footprint (%g x %g m): use a "
                      "larger --pool-size or a smaller --wall / --brick-size",
                      static_cast<double>(poolX), static_cast<double>(poolZ), v.wall.c_str(),
                      static_cast<double>(wallWidth), static_cast<double>(v.brickSize));
        return rangeError("pool-size", text);
    }
    if (!std::isfinite(v.wallX) || !std::isfinite(v.wallZ) ||
        std::abs(v.wallX) + 0.5f * wallWidth > 0.5f * poolX ||
        std::abs(v.wallZ) + half > 0.5f * poolZ) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "would put the wall (%g x %g m) outside the %g x %g m pool centred on 0: "
                      "keep |wall-x| <= %g and |wall-z| <= %g m",
                      static_cast<double>(wallWidth), static_cast<double>(v.brickSize),
                      static_cast<double>(poolX), static_cast<double>(poolZ),
                      static_cast<double>(0.5f * (poolX - wallWidth)),
                      static_cast<double>(0.5f * poolZ - half));
        return rangeError(std::abs(v.wallX) + 0.5f * wallWidth > 0.5f * poolX ? "wall-x" : "wall-z",
                          text);
    }
    s.wallXM = v.wallX;
    s.wallZM = v.wallZ;
    s.shot = splash::shotAtWall(s.wall, v.wallX, v.wallZ);
    return s;
}

}  // namespace ww::app
