// The `capacity` benchmark suite (see capacity_bench.h).
#include "app/bench/capacity_bench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "app/bench/stats.h"
#include "app/bench/wall_peers.h"
#include "solver/core/timer.h"
#include "solver/rigid/scenes.h"
#include "solver/wave/wave_model.h"

#ifndef WW_HAVE_BOX3D
#define WW_HAVE_BOX3D 0
#endif

namespace ww::bench {
namespace {

constexpr double kGrowth = 1.41421356237;  // sqrt 2: a wall's bricks double per size
constexpr int kSettleSteps = 60;           // 1 s, as the wall suite settles before its shot
constexpr int kCollapseSteps = 120;        // the 2 s collapse window
constexpr int kWaterWarmSteps = 3;         // as the water suite
constexpr int kWaterSteps = 60;
// --quick: a few steps per run and small bounds.
constexpr int kQuickSettleSteps = 5;
constexpr int kQuickCollapseSteps = 10;
constexpr int kQuickWaterSteps = 5;
constexpr int kQuickMaxRows = 14;
constexpr int kQuickMaxGrid = 128;

/// One timed run: the p95 of its steps (ms), or, where it stopped once the p95 was certain to
/// be over budget, the p95 of the steps it made with the rest counted as 0 ms (a lower bound).
struct TimedRun {
    double p95Ms = 0.0;
    int steps = 0;
    bool stopped = false;
};

template <typename Step>
TimedRun timeSteps(int planned, double budgetMs, Step&& step) {
    std::vector<double> ms;
    ms.reserve(static_cast<std::size_t>(planned));
    int over = 0;
    TimedRun r;
    for (int s = 0; s < planned; ++s) {
        const Stopwatch sw;
        step();
        ms.push_back(sw.elapsedMs());
        over += ms.back() > budgetMs ? 1 : 0;
        if (s + 1 < planned && p95Exceeds(over, planned)) {
            r.stopped = true;
            break;
        }
    }
    r.steps = static_cast<int>(ms.size());
    ms.resize(static_cast<std::size_t>(planned), 0.0);
    r.p95Ms = quantile(std::move(ms), 0.95);
    return r;
}

struct WallEngine {
    std::string name;  ///< the records' backend
    std::function<std::unique_ptr<PeerWall>(const WallSize&)> make;
};

WallSize wallOfRows(int rows) {
    return {2 * rows, rows};
}

std::string sizeName(int cols, int rows) {
    return std::to_string(cols) + "x" + std::to_string(rows);
}

/// The wall suite's collapse phase on a 2h x h wall: settle, shoot, p95 of the collapse steps.
TimedRun wallCollapse(const WallEngine& e, int rows, int settle, int steps, double budgetMs) {
    const std::unique_ptr<PeerWall> wall = e.make(wallOfRows(rows));
    for (int s = 0; s < settle; ++s) {
        wall->step();
    }
    const rigid::ShotParams shot;
    wall->shoot({shot.from, shot.velocity, shot.radiusM, shot.massKg});
    return timeSteps(steps, budgetMs, [&] { wall->step(); });
}

TimedRun waterRun(const std::shared_ptr<const exec::Executor>& ex, int n, int steps,
                  double budgetMs) {
    wave::WaveParams p;
    p.nx = n;
    p.ny = n;
    p.trackEnergy = false;
    auto model = wave::WaveModel::create(p, Backend::kCpu, nullptr, ex);
    if (!model) {
        std::printf("  (water %dx%d: %s)\n", n, n, model.error().message.c_str());
        return {std::numeric_limits<double>::infinity(), 0, true};
    }
    model->addDrop(0.4f, 0.5f, 0.05f, 0.3f);
    model->setRain(true, 20.0f, 1234);
    for (int s = 0; s < kWaterWarmSteps; ++s) {
        (void)model->step();
    }
    return timeSteps(steps, budgetMs, [&] { (void)model->step(); });
}

/// "20x10 3.1, 28x14 6.0, 40x20 >=17.2 (stopped), ..." in the order measured.
std::string probeList(const CapacityResult& r, const std::vector<bool>& stopped, bool wall) {
    std::string out;
    for (std::size_t i = 0; i < r.probes.size(); ++i) {
        const CapacityProbe& p = r.probes[i];
        char text[64];
        std::snprintf(
            text, sizeof text, "%s%s %s%.1f", i == 0 ? "" : ", ",
            wall ? sizeName(2 * p.size, p.size).c_str() : sizeName(p.size, p.size).c_str(),
            stopped[i] ? ">=" : "", p.costMs);
        out += text;
    }
    return out;
}

double costOf(const CapacityResult& r, int size) {
    for (const CapacityProbe& p : r.probes) {
        if (p.size == size) {
            return p.costMs;
        }
    }
    return 0.0;
}

struct Search {
    CapacityResult result;
    std::vector<bool> stopped;  ///< per probe: the run stopped early (its cost a lower bound)
};

template <typename Run>
Search search(int minSize, int maxSize, double budgetMs, Run&& run) {
    Search s;
    s.result = largestWithinBudget(minSize, maxSize, kGrowth, budgetMs, [&](int size) {
        const TimedRun t = run(size);
        s.stopped.push_back(t.stopped);
        return t.p95Ms;
    });
    return s;
}

}  // namespace

CapacityResult largestWithinBudget(int minSize, int maxSize, double growth, double budgetMs,
                                   const std::function<double(int)>& costMs) {
    CapacityResult r;
    const auto held = [&](int size) {
        const double c = costMs(size);
        r.probes.push_back({size, c});
        return c <= budgetMs;
    };
    if (!held(minSize)) {
        r.firstOver = minSize;
        return r;
    }
    int good = minSize;
    int bad = 0;  // 0: no size over budget yet
    while (good < maxSize) {
        const auto grown = static_cast<int>(std::lround(static_cast<double>(good) * growth));
        const int next = std::min(maxSize, std::max(good + 1, grown));
        if (!held(next)) {
            bad = next;
            break;
        }
        good = next;
    }
    // The largest size that held lies in [good, bad).
    while (bad != 0 && bad - good > 1) {
        const int mid = good + (bad - good) / 2;
        if (held(mid)) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    r.largest = good;
    r.firstOver = bad;
    return r;
}

bool p95Exceeds(int overBudget, int planned) {
    if (planned <= 0) {
        return false;
    }
    const auto lo = static_cast<int>(std::floor(0.95 * static_cast<double>(planned - 1)));
    return overBudget >= planned - lo;
}

Status checkCapacityLimits(const CapacityLimits& limits) {
    if (!(limits.frameMs > 0.0) || !std::isfinite(limits.frameMs)) {
        return inputError(
            "--frame-ms must be a positive number of milliseconds (the frame "
            "budget a step's p95 must stay within), got " +
            std::to_string(limits.frameMs));
    }
    const int minBricks = 2 * kCapacityMinRows * kCapacityMinRows;
    if (limits.maxBricks < minBricks) {
        return inputError("--max-bricks " + std::to_string(limits.maxBricks) +
                          " is below the capacity search's smallest wall (" +
                          sizeName(2 * kCapacityMinRows, kCapacityMinRows) + " = " +
                          std::to_string(minBricks) + " bricks); give at least " +
                          std::to_string(minBricks));
    }
    if (limits.maxGrid < kCapacityMinGrid) {
        return inputError("--max-grid " + std::to_string(limits.maxGrid) +
                          " is below the capacity search's smallest water grid (" +
                          sizeName(kCapacityMinGrid, kCapacityMinGrid) + "); give at least " +
                          std::to_string(kCapacityMinGrid));
    }
    return {};
}

void runCapacityBench(const Options& opts, Recorder& recorder) {
    if (Status s = checkCapacityLimits(opts.capacity); !s) {
        std::printf("capacity: %s\n", s.error().message.c_str());
        return;
    }
    const double budget = opts.capacity.frameMs;
    const int settle = opts.quick ? kQuickSettleSteps : kSettleSteps;
    const int collapse = opts.quick ? kQuickCollapseSteps : kCollapseSteps;
    const int waterSteps = opts.quick ? kQuickWaterSteps : kWaterSteps;
    int maxRows = static_cast<int>(std::floor(std::sqrt(opts.capacity.maxBricks / 2.0)));
    int maxGrid = opts.capacity.maxGrid;
    if (opts.quick) {
        maxRows = std::min(maxRows, kQuickMaxRows);
        maxGrid = std::min(maxGrid, kQuickMaxGrid);
    }
    std::vector<std::shared_ptr<const exec::Executor>> executors = opts.capacityExecutors;
    if (executors.empty()) {
        executors.push_back(opts.executor);
    }

    std::printf(
        "\n== capacity: the largest scene whose step p95 stays within %.1f ms (wall clock) ==\n",
        budget);
    std::printf(
        "walls: 2h x h unit cubes, columns touching, awake, dt 1/60 s; %d steps to settle, the "
        "wall suite's shot (%.0f kg sphere at %.0f m/s), p95 of the next %d steps; up to %s "
        "(--max-bricks %d)\n",
        settle, static_cast<double>(rigid::ShotParams{}.massKg),
        static_cast<double>(rigid::length(rigid::ShotParams{}.velocity)), collapse,
        sizeName(2 * maxRows, maxRows).c_str(), opts.capacity.maxBricks);
    std::printf(
        "water: square Crank-Nicolson grids (default settings, CPU), a drop and rain, p95 of %d "
        "steps; up to %dx%d (--max-grid)\n",
        waterSteps, maxGrid, maxGrid);
    std::printf(
        "search: sizes x sqrt 2 until one is over budget, then bisection; a run stops once its "
        "p95 must be over budget (>= : its p95 with the steps not run counted as 0 ms)\n");
#if !WW_HAVE_BOX3D
    std::printf("%s\n", peerSkipLine("box3d").c_str());
#endif
    std::printf("%-8s %-13s %-12s %8s %9s %-12s  %s\n", "threads", "engine", "largest", "bricks",
                "p95 ms", "first over", "probes (size p95 ms)");

    for (const std::shared_ptr<const exec::Executor>& ex : executors) {
        const int threads = ex->threads();
        std::vector<WallEngine> engines;
        engines.push_back({"wavewall-cpu", [ex](const WallSize& s) { return makeOurWall(ex, s); }});
#if WW_HAVE_BOX3D
        engines.push_back({"box3d", [threads](const WallSize& s) {
                               return makeBox3dWall(peerWallSetup(s), threads);
                           }});
#endif
        std::vector<Record> group;
        std::vector<int> largestBricks;
        for (const WallEngine& e : engines) {
            const Search s = search(kCapacityMinRows, maxRows, budget, [&](int rows) {
                return wallCollapse(e, rows, settle, collapse, budget);
            });
            const int rows = s.result.largest;
            const int bricks = 2 * rows * rows;
            Record rec;
            rec.suite = "capacity";
            rec.name = "wall";
            rec.size = sizeName(2 * rows, rows);
            rec.backend = e.name;
            rec.medianMs = costOf(s.result, rows);
            rec.repeats = collapse;
            rec.metrics = {{"threads", threads},
                           {"bricks", bricks},
                           {"rows", rows},
                           {"frame_budget_ms", budget},
                           {"first_over_rows", s.result.firstOver},
                           {"at_max", s.result.firstOver == 0 ? 1.0 : 0.0},
                           {"probes", static_cast<double>(s.result.probes.size())}};
            std::printf("%-8d %-13s %-12s %8d %9.2f %-12s  %s\n", threads, e.name.c_str(),
                        rows > 0 ? rec.size.c_str() : "none", bricks, rec.medianMs,
                        s.result.firstOver > 0
                            ? sizeName(2 * s.result.firstOver, s.result.firstOver).c_str()
                            : "(max)",
                        probeList(s.result, s.stopped, true).c_str());
            std::fflush(stdout);
            group.push_back(std::move(rec));
            largestBricks.push_back(bricks);
        }
        if (group.size() > 1) {
            const double ours = largestBricks[0];
            const double box3d = largestBricks[1];
            const double ratio = ours > 0.0 ? box3d / ours : 0.0;
            group[0].metrics.push_back({"box3d_bricks", box3d});
            group[0].metrics.push_back({"box3d_over_ours_bricks", ratio});
            std::printf("%-8d box3d / wavewall, largest wall's bricks: %.2f\n", threads, ratio);
        }
        for (Record& rec : group) {
            recorder.add(std::move(rec));
        }

        const Search w = search(kCapacityMinGrid, maxGrid, budget,
                                [&](int n) { return waterRun(ex, n, waterSteps, budget); });
        const int n = w.result.largest;
        Record rec;
        rec.suite = "capacity";
        rec.name = "water";
        rec.size = sizeName(n, n);
        rec.backend = "cpu";
        rec.medianMs = costOf(w.result, n);
        rec.repeats = waterSteps;
        rec.metrics = {{"threads", threads},
                       {"cells", static_cast<double>(n) * n},
                       {"frame_budget_ms", budget},
                       {"first_over_grid", w.result.firstOver},
                       {"at_max", w.result.firstOver == 0 ? 1.0 : 0.0},
                       {"probes", static_cast<double>(w.result.probes.size())}};
        std::printf("%-8d %-13s %-12s %8s %9.2f %-12s  %s\n", threads, "water-cn-cpu",
                    n > 0 ? rec.size.c_str() : "none", "", rec.medianMs,
                    w.result.firstOver > 0
                        ? sizeName(w.result.firstOver, w.result.firstOver).c_str()
                        : "(max)",
                    probeList(w.result, w.stopped, false).c_str());
        std::fflush(stdout);
        recorder.add(std::move(rec));
    }
}

}  // namespace ww::bench
