#include "app/cli/scene_options.h"

#include "app/cli/thread_option.h"
#include "solver/splash/splash_scenes.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

namespace ww::app {

namespace {

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

// One option (flag and config key) per row, bound to the row's field of `v`; the help names
// the unit.
template <typename Settings>
void registerParams(OptionTable& t, SceneOptionValues& v,
                    const std::vector<ParamRow<Settings>>& rows) {
    for (const ParamRow<Settings>& row : rows) {
        const ParamInfo& info = row.info;
        const std::string help = info.unit.empty() ? info.help : info.help + " [" + info.unit + "]";
        std::visit([&](auto field) { t.add(info.key, v.*field, help, info.choices); }, info.field);
    }
}

}  // namespace

void registerSceneOptions(OptionTable& t, SceneOptionValues& v) {
    registerParams(t, v, wallParams());
    registerParams(t, v, waterParams());
    registerParams(t, v, splashParams());
    t.add("dt", v.dt,
          "Time step in seconds (0 = the scene's default; for water overrides --dt-ratio)");
    t.add("threads", v.threads,
          "CPU solver threads (default: WAVEWALL_THREADS, else every hardware thread)");
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

/// The tallest wall (rows) that stands at rest with the default solver settings.
constexpr int kTallestStandingRows = 100;

Result<WallSceneSettings> makeWallSettings(const SceneOptionValues& v) {
    WallSceneSettings s;
    if (auto ex = executorFor(v.threads); !ex) {
        return ex.error();
    } else {
        s.executor = std::move(ex).value();
    }
    if (Status st = writeParams(wallParams(), v, s); !st) {
        return st.error();
    }
    if (s.layout == "wall" && s.wall.rows > kTallestStandingRows) {
        // Measured with the default solver settings, touching columns, at rest: 64 x 64 stands
        // 30 s and 100 x 100 and 200 x 50 10 s, each within 0.1 mm; with an earlier shock rule
        // 64 x 150 fell within 2 s and 10 x 200 within 10 s (docs/rigid.md, "Tall walls").
        std::fprintf(stderr,
                     "wavewall: note: --wall %s has %d rows; walls above %d rows may sag and fall "
                     "by themselves with the default solver settings (100 rows stand)\n",
                     v.wall.c_str(), s.wall.rows, kTallestStandingRows);
    }
    // A dense matrix that cannot fit is refused before the run, with what it would need.
    const double physical =
        static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
    if (const double bytes = denseWallBytes(s.wall, s.world);
        s.layout == "wall" && physical > 0.0 && bytes > 0.5 * physical) {
        char what[320];
        std::snprintf(what, sizeof what,
                      "%s with a dense LCP (--lcp-mode %s, --lcp-operator %s) needs a %.0f x %.0f "
                      "matrix: %.1f GB, more than half of this machine's %.1f GB; use "
                      "--lcp-operator matrix-free (O(rows) memory; in --lcp-mode islands auto "
                      "does it), a --column-gap, or a smaller --wall",
                      v.wall.c_str(), v.lcpMode.c_str(), v.lcpOperator.c_str(),
                      std::sqrt(bytes / 4.0), std::sqrt(bytes / 4.0), bytes / 1e9, physical / 1e9);
        return paramError("wall", what);
    }
    if (v.dt != 0.0f) {
        if (!(v.dt > 0.0f) || v.dt > 1.0f) {
            return paramError("dt", "must be in (0, 1] seconds");
        }
        s.world.dtSeconds = v.dt;
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
    if (Status st = writeParams(waterParams(), v, s.wave); !st) {
        return st.error();
    }
    // --dt, when given, is the step and --dt-ratio is not used.
    if (v.dt != 0.0f) {
        if (!(v.dt > 0.0f) || v.dt > 10.0f) {
            return paramError("dt", "must be in (0, 10] seconds");
        }
        s.wave.dtSeconds = v.dt;
        s.wave.dtRatio = 0.0f;
    }
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
    if (Status st = writeParams(splashParams(), v, s); !st) {
        return st.error();
    }
    // The columns keep the wall scene's spacing: standing in water they come into contact and
    // the wall becomes one LCP island (docs/splash.md); a wider gap would only hide that.
    s.maxPenetrationM = std::min(0.05f, 0.1f * v.brickSize);  // beyond one step's approach
    if (Status st = checkSplashFit(s); !st) {
        return st.error();
    }
    s.shot = splash::shotAtWall(s.wall, s.wallXM, s.wallZM);
    return s;
}

}  // namespace ww::app
