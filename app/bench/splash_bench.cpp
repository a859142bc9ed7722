// The `splash` benchmark suite (see splash_bench.h).
#include "app/bench/splash_bench.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "solver/splash/splash_scenes.h"

namespace ww::splash {
namespace {

/// What each run is: the coupled scene, its wall stepped without the water, its pool stepped
/// without the bodies.
enum class Run { kCoupled, kWallAlone, kWaterAlone };

const char* runName(Run r) {
    return r == Run::kCoupled ? "collapse" : r == Run::kWallAlone ? "wall-alone" : "water-alone";
}

/// The phases of a coupled step, in the order of the step (the record's metric names).
constexpr std::array<const char*, 7> kPhases = {"collide",  "assemble",  "lcp_solve",  "integrate",
                                                "coupling", "water_rhs", "water_solve"};

struct Trajectory {
    std::vector<double> stepMs, cpuMs;
    std::array<std::vector<double>, kPhases.size()> phaseMs;
    double driftMax = 0.0;    ///< max |W^n - W0| / W0 over the timed steps
    double driftFinal = 0.0;  ///< after the last step
    int lcpNMax = 0;
    double lcpIterationsMean = 0.0, cgIterationsMean = 0.0;
};

SplashParams benchParams(const SplashBenchCase& c, const bench::Options& opts) {
    SplashParams p;
    p.executor = opts.executor;
    p.world.sleep = false;
    p.wave.nx = c.cells;
    p.wave.ny = c.cells;
    p.wave.poolSizeM = c.poolM;
    // The splash scene's defaults (app/scenes/splash/splash_scene.h).
    p.wave.damping = 0.1f;
    p.world.lcp.maxIterations = 100;
    return p;
}

rigid::WallParams benchWall(const SplashBenchCase& c) {
    rigid::WallParams wall;
    wall.cols = c.cols;
    wall.rows = c.rows;
    return cubicBricks(wall, 0.5f, 500.0f);  // the scene's defaults (docs/splash.md)
}

/// Builds the scene, steps `settle` steps untimed, shoots the wall, then times `steps` steps
/// of `run`.
Trajectory measure(const SplashBenchCase& c, const bench::Options& opts, Run run, int settle,
                   int steps) {
    Trajectory t;
    const rigid::WallParams wall = benchWall(c);
    Result<SplashWorld> made = makeSplashWallWorld(benchParams(c, opts), wall);
    if (!made) {
        std::printf("  (%s %s: %s)\n", c.size().c_str(), runName(run),
                    made.error().message.c_str());
        return t;
    }
    SplashWorld w = std::move(made).value();
    const auto advance = [&]() {
        std::array<double, kPhases.size()> ph{};
        double total = 0.0;
        if (run == Run::kCoupled) {
            const SplashStats& s = w.step();
            ph = {s.rigid.collideMs, s.rigid.assembleMs, s.rigid.solveMs, s.rigid.integrateMs,
                  s.couplingMs,      s.water.rhsMs,      s.water.solveMs};
            total = s.totalMs;
            t.driftMax = std::max(t.driftMax, std::abs(s.volumeDriftRel));
            t.lcpNMax = std::max(t.lcpNMax, s.rigid.lcpNMax);
            t.lcpIterationsMean += s.rigid.iterationsMean;
            t.cgIterationsMean += s.water.cgIterations;
        } else if (run == Run::kWallAlone) {
            const rigid::StepStats& s = w.world().step();
            ph = {s.collideMs, s.assembleMs, s.solveMs, s.integrateMs, 0.0, 0.0, 0.0};
            total = s.totalMs;
            t.lcpNMax = std::max(t.lcpNMax, s.lcpNMax);
            t.lcpIterationsMean += s.iterationsMean;
        } else {
            const wave::StepStats s = w.water().step();
            ph = {0.0, 0.0, 0.0, 0.0, 0.0, s.rhsMs, s.solveMs};
            total = s.totalMs;
            t.cgIterationsMean += s.cgIterations;
        }
        return std::make_pair(total, ph);
    };
    for (int s = 0; s < settle; ++s) {
        (void)advance();
    }
    if (run != Run::kWaterAlone) {
        rigid::shootSphere(w.world(), shotAtWall(wall));
    }
    t.driftMax = 0.0;
    t.lcpNMax = 0;
    t.lcpIterationsMean = t.cgIterationsMean = 0.0;
    for (int s = 0; s < steps; ++s) {
        const double cpu0 = bench::processCpuMs();
        const auto [total, ph] = advance();
        t.cpuMs.push_back(bench::processCpuMs() - cpu0);
        t.stepMs.push_back(total);
        for (std::size_t k = 0; k < kPhases.size(); ++k) {
            t.phaseMs[k].push_back(ph[k]);
        }
    }
    if (steps > 0) {
        t.lcpIterationsMean /= steps;
        t.cgIterationsMean /= steps;
    }
    if (run == Run::kCoupled && w.initialWaterVolume() > 0.0) {
        t.driftFinal = (w.waterVolume() - w.initialWaterVolume()) / w.initialWaterVolume();
        t.driftMax = std::max(t.driftMax, std::abs(t.driftFinal));
    }
    return t;
}

/// `runs` runs of measure (the same deterministic trajectory each time), their steps pooled:
/// the percentiles are over runs x steps samples, so one hiccup of a shared machine moves the
/// p95 of a 60-step run less. Drift, n and iteration counts are the runs' (equal) values.
Trajectory measurePooled(const SplashBenchCase& c, const bench::Options& opts, Run run, int settle,
                         int steps, int runs) {
    Trajectory all = measure(c, opts, run, settle, steps);
    for (int r = 1; r < runs; ++r) {
        const Trajectory t = measure(c, opts, run, settle, steps);
        all.stepMs.insert(all.stepMs.end(), t.stepMs.begin(), t.stepMs.end());
        all.cpuMs.insert(all.cpuMs.end(), t.cpuMs.begin(), t.cpuMs.end());
        for (std::size_t k = 0; k < kPhases.size(); ++k) {
            all.phaseMs[k].insert(all.phaseMs[k].end(), t.phaseMs[k].begin(), t.phaseMs[k].end());
        }
    }
    return all;
}

bench::Record toRecord(const SplashBenchCase& c, Run run, const Trajectory& t) {
    bench::Record r;
    r.suite = "splash";
    r.name = runName(run);
    r.size = c.size();
    r.backend = "cpu";
    r.medianMs = bench::median(t.stepMs);
    r.repeats = static_cast<int>(t.stepMs.size());
    r.metrics = {{"p95_ms", bench::quantile(t.stepMs, 0.95)},
                 {"max_ms", bench::quantile(t.stepMs, 1.0)},
                 {"cpu_time_p50_ms", bench::quantile(t.cpuMs, 0.5)},
                 {"cpu_time_p95_ms", bench::quantile(t.cpuMs, 0.95)}};
    for (std::size_t k = 0; k < kPhases.size(); ++k) {
        const std::string p = kPhases[k];
        r.metrics.emplace_back(p + "_ms", bench::quantile(t.phaseMs[k], 0.5));
        r.metrics.emplace_back(p + "_p95_ms", bench::quantile(t.phaseMs[k], 0.95));
        r.metrics.emplace_back(p + "_max_ms", bench::quantile(t.phaseMs[k], 1.0));
    }
    if (run != Run::kWaterAlone) {
        r.metrics.emplace_back("lcp_n_max", t.lcpNMax);
        r.metrics.emplace_back("lcp_iterations_mean", t.lcpIterationsMean);
    }
    if (run != Run::kWallAlone) {
        r.metrics.emplace_back("cg_iterations_mean", t.cgIterationsMean);
    }
    if (run == Run::kCoupled) {
        r.metrics.emplace_back("volume_drift_rel_max", t.driftMax);
        r.metrics.emplace_back("volume_drift_rel_final", t.driftFinal);
        r.metrics.emplace_back("target_p95_ms", c.targetP95Ms);
    }
    return r;
}

double metric(const bench::Record& r, const std::string& key) {
    for (const auto& [k, v] : r.metrics) {
        if (k == key) {
            return v;
        }
    }
    return 0.0;
}

void printRows(const bench::Record& r) {
    struct Stat {
        const char* label;
        const char* suffix;  // of the phase metrics
        const char* step;    // the step's metric ("" = the median)
    };
    for (const Stat& s : {Stat{"p50", "_ms", ""}, Stat{"p95", "_p95_ms", "p95_ms"},
                          Stat{"max", "_max_ms", "max_ms"}}) {
        const bool first = s.step[0] == '\0';
        std::printf("%-12s %-11s %-4s %8.2f", first ? r.size.c_str() : "",
                    first ? r.name.c_str() : "", s.label, first ? r.medianMs : metric(r, s.step));
        for (const char* p : kPhases) {
            std::printf(" %9.2f", metric(r, std::string(p) + s.suffix));
        }
        std::printf("\n");
    }
}

}  // namespace

std::string SplashBenchCase::size() const {
    return std::to_string(cols) + "x" + std::to_string(rows) + "-" + std::to_string(cells) + "^2";
}

std::vector<SplashBenchCase> splashBenchCases() {
    return {SplashBenchCase{10, 6, 256, 10.0f, 8.0}, SplashBenchCase{20, 20, 512, 12.0f, 16.0}};
}

void runSplashBench(const bench::Options& opts, bench::Recorder& recorder) {
    std::printf(
        "\n== splash: the wall shot into the water (docs/splash.md), CPU, dt 1/60 s, default "
        "settings (bricks 0.5 m of 500 kg/m^3, depth 0.6 m, damping 0.1/s, 100 LCP iterations, "
        "sleeping off) ==\n");
    std::printf(
        "collapse: the coupled step; wall-alone: the same wall shot the same way without water; "
        "water-alone: the same pool without bodies (ms per step)\n");
    std::printf("%-12s %-11s %-4s %8s", "size", "run", "stat", "step");
    for (const char* p : kPhases) {
        std::printf(" %9s", p);
    }
    std::printf("\n");
    for (const SplashBenchCase& c : splashBenchCases()) {
        // The 20x20 wall costs ~25x the 10x6 per step: it is timed over fewer steps.
        const bool small = c.cols * c.rows <= 60;
        const int settle = opts.quick ? 2 : (small ? 60 : 10);
        const int steps = opts.quick ? 5 : (small ? 180 : 60);
        // --repeat (at most two with --quick, which only checks the suite works).
        const int runs = std::clamp(opts.repeats, 1, opts.quick ? 2 : opts.repeats);
        const auto pooled = [&](Run run) {
            return toRecord(c, run, measurePooled(c, opts, run, settle, steps, runs));
        };
        bench::Record coupled = pooled(Run::kCoupled);
        const bench::Record wall = pooled(Run::kWallAlone);
        const bench::Record water = pooled(Run::kWaterAlone);
        const double parts = wall.medianMs + water.medianMs;
        coupled.baselines = {
            {"wall-alone", wall.medianMs}, {"water-alone", water.medianMs}, {"wall+water", parts}};
        const double p95 = metric(coupled, "p95_ms");
        coupled.metrics.emplace_back("over_wall_plus_water",
                                     parts > 0 ? coupled.medianMs / parts : 0);
        coupled.metrics.emplace_back(
            "coupling_share",
            coupled.medianMs > 0 ? metric(coupled, "coupling_ms") / coupled.medianMs : 0);
        coupled.metrics.emplace_back("meets_target", p95 <= c.targetP95Ms ? 1.0 : 0.0);
        for (const bench::Record* r : {&std::as_const(coupled), &wall, &water}) {
            printRows(*r);
        }
        std::printf(
            "%s: %d runs of %d steps after %d untimed (shot after them), pooled; collapse p95 "
            "%.2f ms against the "
            "target %.0f ms: %s; collapse p50 / (wall-alone + water-alone) p50 = %.2f; coupling "
            "%.0f%% of the p50 step; LCP n max %.0f; water volume drift max %.2e, final %.2e "
            "(relative)\n",
            c.size().c_str(), runs, steps, settle, p95, c.targetP95Ms,
            p95 <= c.targetP95Ms ? "met" : "not met", metric(coupled, "over_wall_plus_water"),
            100.0 * metric(coupled, "coupling_share"), metric(coupled, "lcp_n_max"),
            metric(coupled, "volume_drift_rel_max"), metric(coupled, "volume_drift_rel_final"));
        std::fflush(stdout);
        recorder.add(coupled);
        recorder.add(wall);
        recorder.add(water);
    }
}

}  // namespace ww::splash
