// Benchmark records shared by every suite of `wavewall bench`: each measurement is a median
// over repeats, with the baselines (another backend, a well-known library, a bandwidth
// bound) measured in the same run, so ratios mean something on any machine.
#pragma once

#include <time.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/bench/stats.h"
#include "solver/core/timer.h"
#include "solver/exec/executor.h"

namespace ww::bench {

struct Baseline {
    std::string name;  ///< e.g. "eigen", "openblas-1t", "cpu", "triad-bound"
    double medianMs = 0.0;
};

struct Record {
    std::string suite;    ///< ops | lcp | cg | wall | water | splash | capacity
    std::string name;     ///< what was measured, e.g. "jacobi-iteration"
    std::string size;     ///< e.g. "1000x1000", "256x256"
    std::string backend;  ///< cpu | gpu | a library name
    double medianMs = 0.0;
    int repeats = 0;
    std::vector<Baseline> baselines;
    std::vector<std::pair<std::string, double>> metrics;  ///< e.g. {"GB/s", 9.1}
};

/// The capacity suite's limits (`--frame-ms`, `--max-bricks`, `--max-grid`; capacity_bench.h).
struct CapacityLimits {
    double frameMs = 16.7;  ///< the frame budget a step's p95 must stay within, ms
    int maxBricks = 20000;  ///< the largest wall the search tries (cols x rows)
    int maxGrid = 4096;     ///< the largest water grid side the search tries
};

/// A wall of cols x rows unit cubes.
struct WallSize {
    int cols = 10;
    int rows = 6;
};

/// The walls the wall suite's engine comparison runs when no --walls is given.
inline const std::vector<WallSize> kDefaultPeerWalls = {{10, 6}, {20, 20}, {40, 25}};

struct Options {
    int repeats = 5;     ///< timed repetitions per measurement (median reported)
    bool gpu = false;    ///< a GPU context is current and GPU rows should be measured
    bool quick = false;  ///< smaller sizes, for smoke tests of the bench command itself
    /// Runs this library's CPU work; the libraries measured against get its thread count.
    std::shared_ptr<const exec::Executor> executor;
    /// The capacity suite's thread counts, one executor each (empty: `executor` alone).
    std::vector<std::shared_ptr<const exec::Executor>> capacityExecutors;
    CapacityLimits capacity;
    /// The walls of the wall suite's engine comparison (`--walls`); --quick runs the first.
    std::vector<WallSize> peerWalls = kDefaultPeerWalls;
    /// `--wall-iterations`: LCP iteration caps our engine also runs the peer walls with, beside
    /// its default (the speed a shallower solve buys, and the overlap it costs).
    std::vector<int> peerWallIterations;
    /// `--wall-local-steps`: when positive, our engine also runs the peer walls with Jacobi's
    /// local step scales at this omega, at its default cap and at each peerWallIterations cap.
    float peerWallLocalSteps = 0.0f;
};

class Recorder {
  public:
    void add(Record r) { m_records.push_back(std::move(r)); }
    const std::vector<Record>& records() const { return m_records; }

  private:
    std::vector<Record> m_records;
};

/// A table cell: `value` in printf's `format` (e.g. "%.2f") when it was measured, else "-" (a
/// GPU column without a GPU), so that a column never shows a 0 nobody measured.
inline std::string cell(double value, bool measured, const char* format) {
    if (!measured) {
        return "-";
    }
    char text[48];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

/// CPU time of the whole process (all threads, ms): on a machine shared with other jobs the
/// wall-clock time of a step includes waiting for a core; the CPU time it consumed does not,
/// and on an idle 2-core machine the step takes at most that long.
inline double processCpuMs() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

/// Median wall-clock milliseconds of `repeats` calls of f after one warm-up call.
/// f must include its own GPU synchronization when it times GPU work.
template <typename F>
double medianMs(int repeats, F&& f) {
    f();
    std::vector<double> t;
    t.reserve(static_cast<std::size_t>(repeats));
    for (int i = 0; i < repeats; ++i) {
        Stopwatch sw;
        f();
        t.push_back(sw.elapsedMs());
    }
    return median(std::move(t));
}

/// Warm-up of warmMedianMs: calls of f for at least this long. After an idle pause (the LCP
/// suite sleeps 250 ms so that OpenBLAS's spinning workers let go of the cores) a two-thread
/// loop ran at 5.4 us per 400-row Jacobi pass for its first ~3 ms and at 3.9 us after ~10 ms
/// (the cores and the sleeping worker waking): medianMs's one short warm-up call charged that
/// to whichever contender came first after the pause.
inline constexpr double kWarmUpMs = 20.0;

/// medianMs after kWarmUpMs of warm-up calls (at least one). For short calls measured against
/// each other after a pause; f must not keep state that the warm-up calls would advance.
template <typename F>
double warmMedianMs(int repeats, F&& f) {
    const Stopwatch warm;
    while (warm.elapsedMs() < kWarmUpMs) {
        f();
    }
    return medianMs(repeats, f);
}

}  // namespace ww::bench
