// CPU vector kernels of the CG iteration, float32, vectorized, split over the cores for
// large n. Reductions are deterministic: each fixed block of kBlock elements is summed in
// float (SIMD lanes in a fixed pattern), the block sums are added in double in block order,
// so a result does not depend on the number of threads.
#pragma once

#include <cstddef>
#include <vector>

namespace ww::cg::detail {

inline constexpr std::size_t kBlock = 4096;
/// Below this many elements a kernel runs on one core (thread start-up would cost more).
inline constexpr std::size_t kParallelMin = std::size_t{1} << 15;

/// Threads for the parallel kernels: all cores, unless the machine is already busy (the
/// 1-minute load average exceeds the core count by more than a half), where fork-join with a
/// barrier per pass runs 10-100x slower than one thread because a worker waits for a
/// descheduled peer. WAVEWALL_THREADS=N overrides. Re-evaluated at most twice a second.
/// Results do not depend on it (the reductions are thread-count independent).
int workerThreads();
/// Fixes the thread count (0: automatic, as above).
void setWorkerThreads(int threads);

/// Runs blockSum(i0, i1) -> float over the blocks of [0, n) (in parallel when n is large)
/// and returns the sum of the block results in block order, in double.
template <typename BlockSum>
double blockedSum(std::size_t n, BlockSum&& blockSum) {
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    thread_local std::vector<double> partial;
    if (partial.size() < blocks) {
        partial.resize(blocks);
    }
    double* out = partial.data();
    const long nb = static_cast<long>(blocks);
#pragma omp parallel for schedule(static) if (n >= kParallelMin) num_threads(workerThreads())
    for (long k = 0; k < nb; ++k) {
        const std::size_t i0 = static_cast<std::size_t>(k) * kBlock;
        const std::size_t i1 = i0 + kBlock < n ? i0 + kBlock : n;
        out[k] = static_cast<double>(blockSum(i0, i1));
    }
    double s = 0.0;
    for (std::size_t k = 0; k < blocks; ++k) {
        s += out[k];
    }
    return s;
}

/// a . b
double dot(const float* a, const float* b, std::size_t n);
/// p <- r + beta p
void direction(const float* r, float* p, float beta, std::size_t n);
/// x <- x + alpha p, r <- r - alpha q; returns r . r (one pass over four vectors).
double updateSolution(float* x, float* r, const float* p, const float* q, float alpha,
                      std::size_t n);
/// r <- b - r (turns r = A x into the residual); returns r . r.
double residualFrom(const float* b, float* r, std::size_t n);

}  // namespace ww::cg::detail
