#include "app/scenes/wall/wall_options.h"

#include <cmath>
#include <cstdio>

#include <unistd.h>

#include "app/cli/thread_option.h"
#include "app/scenes/wall/wall_params.h"

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

}  // namespace

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

Result<std::unique_ptr<SimScene>> makeWallScene(const SceneBuild& b) {
    Result<WallSceneSettings> s = makeWallSettings(b.values);
    if (!s) {
        return s.error();
    }
    s->world.lcp.recordHistory = s->world.lcp.recordHistory || b.recordHistory;
    return std::unique_ptr<SimScene>(std::make_unique<WallScene>(std::move(s).value()));
}

}  // namespace ww::app
