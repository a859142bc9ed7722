// The `capacity` benchmark suite (`wavewall bench --suite capacity`), as Box2D's samples measure
// one: the largest scene that still runs within a frame budget (CapacityLimits::frameMs, 16.7 ms
// by default), per thread count.
//
// Walls: 2h x h unit cubes in exactly touching columns (h rows, twice as wide), built, stepped
// for 1 s at 60 Hz to settle, shot with the wall suite's projectile (rigid::ShotParams{}) and
// stepped for a 2 s collapse window; its cost is the p95 of those collapse steps (wall clock,
// ms). Our rigid::World (default WorldParams, CPU backend) and, where the build has it, Box3D
// (wall_peers.h) on the same thread count. Water: the largest square Crank-Nicolson grid (default
// WaveParams, CPU backend) whose step p95 over 60 steps with a drop and rain (the water suite's
// setting) stays within the budget.
//
// The search (largestWithinBudget) grows the size geometrically (x sqrt 2: walls 20x10, 28x14,
// 40x20, 56x28, ...) until one is over budget, then bisects between the last size that held and
// the first that did not; each size is measured once. A run stops as soon as its p95 is certain
// to be over the budget (p95Exceeds), so a wall far over the budget costs little more than one
// within it.
#pragma once

#include <functional>
#include <vector>

#include "app/bench/bench.h"
#include "solver/core/result.h"

namespace ww::bench {

/// One size the search measured and its cost.
struct CapacityProbe {
    int size = 0;
    double costMs = 0.0;
};

struct CapacityResult {
    int largest = 0;    ///< the largest size whose cost held (<= budget); 0 when minSize did not
    int firstOver = 0;  ///< the smallest size measured over budget; 0 when none was
    std::vector<CapacityProbe> probes;  ///< in the order measured
};

/// The largest size s in [minSize, maxSize] with costMs(s) <= budgetMs, for a cost that grows
/// with s: s <- max(s + 1, round(s * growth)) from minSize (capped at maxSize) until a size is
/// over budget, then bisection between the last size that held and the first that did not.
/// Each size is measured once. Requires 1 <= minSize <= maxSize and growth > 1.
CapacityResult largestWithinBudget(int minSize, int maxSize, double growth, double budgetMs,
                                   const std::function<double(int)>& costMs);

/// Whether `overBudget` samples out of a run of `planned` already put the run's p95 (quantile
/// type 7, stats.h) over the budget, whatever the samples still to come: the p95 lies between
/// the order statistics floor(0.95 (planned - 1)) and the one above it, so it is over once
/// planned - floor(0.95 (planned - 1)) samples are.
bool p95Exceeds(int overBudget, int planned);

/// The limits' errors (exit 2): a frame budget that is not a positive finite number, a
/// --max-bricks below the smallest wall of the search (20x10) or a --max-grid below its
/// smallest grid (64).
Status checkCapacityLimits(const CapacityLimits& limits);

/// The search's smallest wall rows (h: 2h x h bricks) and water grid side.
inline constexpr int kCapacityMinRows = 10;
inline constexpr int kCapacityMinGrid = 64;

/// Prints the tables and adds one record per search (suite "capacity", name "wall" or
/// "water", size = the largest that held, backend = the engine). opts.quick: short runs and
/// small bounds (a smoke test of the suite).
void runCapacityBench(const Options& opts, Recorder& recorder);

}  // namespace ww::bench
