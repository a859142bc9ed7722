// Benchmark suites of `wavewall bench` for dense linear algebra and the LCP solvers. Each
// prints a table to stdout and adds bench::Records whose baselines were measured in the same
// run (Eigen, OpenBLAS with 1 and 2 threads, the time to stream A once, the other backend).
#pragma once

#include "app/bench/bench.h"

namespace ww::lcp {

/// --suite ops: the paper's Figure 3 at 1000 x 1000 (quick: 256) — copy, add, A x, A^T x,
/// A B, A^T B, conjugate gradients and projected Jacobi (fixed iteration counts) on GPU,
/// CPU and libraries.
void runOpsBench(const bench::Options& opts, bench::Recorder& recorder);

/// --suite lcp: time per Jacobi iteration and per full 2n solve at n = 400 and 1000 (quick:
/// 100 and 200), CPU vs GPU vs Jacobi loops on Eigen's A*x and OpenBLAS sgemv, effective
/// GB/s and the ratio to streaming A once; Gauss-Seidel; a batch of islands.
void runLcpBench(const bench::Options& opts, bench::Recorder& recorder);

}  // namespace ww::lcp
