// The `splash` benchmark suite (`wavewall bench --suite splash`): the splash scene's collapse
// (docs/splash.md) on the CPU backend, default settings (assets/splash.json; sleeping off), for
// the 10x6 wall in the 256^2 pool and the 20x20 wall in the 512^2 pool: per-step p50 / p95 /
// max split into collide, assemble, LCP solve, integrate, coupling, water rhs and water solve,
// and the water volume's drift. In the same run the same wall without water (shot the same
// way) and the same pool without bodies are timed, so the cost of the coupling is their ratio
// to the coupled step; each size is reported against its target p95.
#pragma once

#include <string>
#include <vector>

#include "app/bench/bench.h"

namespace ww::splash {

/// One size of the suite: the wall, the grid, the pool and the target p95 of a coupled step.
struct SplashBenchCase {
    int cols = 10, rows = 6;
    int cells = 256;  ///< the grid is cells x cells
    float poolM = 10.0f;
    double targetP95Ms = 8.0;
    /// "10x6-256^2": the record's size.
    std::string size() const;
};

/// The suite's sizes: 10x6 in the 256^2 pool (10 m, target 8 ms) and 20x20 in the 512^2 pool
/// (12 m, so that the 10 m wall does not touch the pool's edge; target 16 ms).
std::vector<SplashBenchCase> splashBenchCases();

/// Prints the table and adds three records per size ("collapse" coupled, "wall-alone",
/// "water-alone"); opts.quick shortens the trajectories (a smoke test of the suite).
void runSplashBench(const bench::Options& opts, bench::Recorder& recorder);

}  // namespace ww::splash
