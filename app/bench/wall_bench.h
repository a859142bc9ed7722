// The `wall` benchmark suite (`wavewall bench --suite wall`): per-step time of Moravanszky's
// 60-cube wall split into collide / assemble / solve / integrate, at rest and during a
// collapse (a projectile), dense vs islands, CPU vs GPU (and CPU Gauss-Seidel as the
// baseline measured in the same run), with the LCP size n and the contact count; and the
// paper's own setting (one dense matrix, omega 0.1, 2n Jacobi iterations, each frame timed
// whole) as a ratio against its 2 s per frame (2003 GPU): the paper's frictionless LCP (the
// normal rows only) beside today's LCP with friction rows. Then the same walls, columns
// touching, in Bullet and ODE beside ours (wall_peers.h).
#pragma once

#include "app/bench/bench.h"
#include "solver/lcp/lcp_solver.h"

namespace ww::rigid {

/// Prints a table and adds one record per measurement. With opts.gpu a GPU context must be
/// current. opts.quick shortens the trajectories (smoke test of the suite).
void runWallBench(const bench::Options& opts, bench::Recorder& recorder);

/// The LCP the paper poses (x >= 0, w = Ax + b >= 0, x^T w = 0: no friction rows) from a
/// block assembled with friction: the rows and columns of A and the entries of b of its
/// normal rows (frictionNormal < 0), in their order. For a block assembled with friction 0
/// (friction rows pinned at 0) it has the same solutions on the normal rows.
lcp::LcpProblem paperNormalOnlyProblem(const lcp::LcpProblem& full);

}  // namespace ww::rigid
