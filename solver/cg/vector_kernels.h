// CPU vector kernels of the CG iteration, float32, vectorized, split over the executor's
// threads in chunks of kBlock elements. Reductions are deterministic: each block is summed in
// float (SIMD lanes in a fixed pattern), the block sums are added in double in block order,
// so a result does not depend on the number of threads.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "solver/exec/executor.h"

namespace ww::cg::detail {

inline constexpr std::size_t kBlock = 4096;

/// Runs blockSum(i0, i1) -> float over the blocks of [0, n) on the executor and returns the
/// sum of the block results in block order, in double.
template <typename BlockSum>
double blockedSum(const exec::Executor& ex, std::size_t n, BlockSum&& blockSum) {
    return ex.reduce(
        exec::chunkCount(static_cast<std::ptrdiff_t>(n), static_cast<std::ptrdiff_t>(kBlock)), 0.0,
        [&](std::ptrdiff_t k) {
            const std::size_t i0 = static_cast<std::size_t>(k) * kBlock;
            const std::size_t i1 = i0 + kBlock < n ? i0 + kBlock : n;
            return static_cast<double>(blockSum(i0, i1));
        },
        [](double acc, double v) { return acc + v; }, static_cast<std::ptrdiff_t>(n));
}

/// Runs rowFn(j) -> double for the rows [0, rows) of a grid with `rowLength` entries per row,
/// in chunks of rows of about kBlock elements, and returns the sum of the row results in row
/// order.
template <typename RowFn>
double sumRows(const exec::Executor& ex, int rows, std::size_t rowLength, RowFn&& rowFn) {
    thread_local std::vector<double> partial;
    std::vector<double> own;
    // A second, nested call on this thread (from inside a chunk) must not reuse the buffer.
    thread_local int depth = 0;
    std::vector<double>& sums = depth == 0 ? partial : own;
    sums.resize(static_cast<std::size_t>(rows));
    ++depth;
    const std::ptrdiff_t chunkRows =
        std::max<std::ptrdiff_t>(1, static_cast<std::ptrdiff_t>(kBlock / rowLength));
    ex.parallelFor(
        exec::chunkCount(rows, chunkRows),
        [&](std::ptrdiff_t c) {
            const std::ptrdiff_t j1 = std::min<std::ptrdiff_t>(c * chunkRows + chunkRows, rows);
            for (std::ptrdiff_t j = c * chunkRows; j < j1; ++j) {
                sums[static_cast<std::size_t>(j)] = rowFn(static_cast<int>(j));
            }
        },
        static_cast<std::ptrdiff_t>(rows * rowLength));
    --depth;
    double s = 0.0;
    for (int j = 0; j < rows; ++j) {
        s += sums[static_cast<std::size_t>(j)];
    }
    return s;
}

/// a . b
double dot(const exec::Executor& ex, const float* a, const float* b, std::size_t n);
/// p <- r + beta p
void direction(const exec::Executor& ex, const float* r, float* p, float beta, std::size_t n);
/// x <- x + alpha p, r <- r - alpha q; returns r . r (one pass over four vectors).
double updateSolution(const exec::Executor& ex, float* x, float* r, const float* p, const float* q,
                      float alpha, std::size_t n);
/// r <- b - r (turns r = A x into the residual); returns r . r.
double residualFrom(const exec::Executor& ex, const float* b, float* r, std::size_t n);

}  // namespace ww::cg::detail
