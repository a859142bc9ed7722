// The `wall` benchmark suite (`wavewall bench --suite wall`): per-step time of Moravanszky's
// 60-cube wall split into collide / assemble / solve / integrate, at rest and during a
// collapse (a projectile), dense vs islands, CPU vs GPU (and CPU Gauss-Seidel as the
// baseline measured in the same run), with the LCP size n and the contact count; and the
// paper's own setting (one dense matrix, omega 0.1, 2n Jacobi iterations) as a ratio
// against its 2 s per frame (2003 GPU). Then the same walls, columns touching, in Bullet and
// ODE beside ours (wall_peers.h).
#pragma once

#include "app/bench/bench.h"

namespace ww::rigid {

/// Prints a table and adds one record per measurement. With opts.gpu a GPU context must be
/// current. opts.quick shortens the trajectories (smoke test of the suite).
void runWallBench(const bench::Options& opts, bench::Recorder& recorder);

}  // namespace ww::rigid
