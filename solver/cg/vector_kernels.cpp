// CPU vector kernels of the CG iteration (see vector_kernels.h).
#include "solver/cg/vector_kernels.h"

#include <algorithm>

namespace ww::cg::detail {

double dot(const exec::Executor& ex, const float* a, const float* b, std::size_t n) {
    return blockedSum(ex, n, [=](std::size_t i0, std::size_t i1) {
        // Block-local pointers and an int index: with the closure's pointers and a size_t
        // index GCC 12 vectorizes these loops with gathers (5x slower).
        const float* pa = a + i0;
        const float* pb = b + i0;
        const int len = static_cast<int>(i1 - i0);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < len; ++i) {
            s += pa[i] * pb[i];
        }
        return s;
    });
}

void direction(const exec::Executor& ex, const float* r, float* p, float beta, std::size_t n) {
    ex.parallelFor(
        exec::chunkCount(static_cast<std::ptrdiff_t>(n), static_cast<std::ptrdiff_t>(kBlock)),
        [=](std::ptrdiff_t k) {
            const std::size_t i0 = static_cast<std::size_t>(k) * kBlock;
            const float* pr = r + i0;
            float* pp = p + i0;
            const int len = static_cast<int>(std::min(kBlock, n - i0));
            if (beta == 0.0f) {  // the first direction: p = r, whatever p held
                std::copy(pr, pr + len, pp);
                return;
            }
#pragma omp simd
            for (int i = 0; i < len; ++i) {
                pp[i] = pr[i] + beta * pp[i];
            }
        },
        static_cast<std::ptrdiff_t>(n));
}

double updateSolution(const exec::Executor& ex, float* x, float* r, const float* p, const float* q,
                      float alpha, std::size_t n) {
    return blockedSum(ex, n, [=](std::size_t i0, std::size_t i1) {
        float* px = x + i0;
        float* pr = r + i0;
        const float* pp = p + i0;
        const float* pq = q + i0;
        const int len = static_cast<int>(i1 - i0);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < len; ++i) {
            px[i] += alpha * pp[i];
            const float ri = pr[i] - alpha * pq[i];
            pr[i] = ri;
            s += ri * ri;
        }
        return s;
    });
}

double residualFrom(const exec::Executor& ex, const float* b, float* r, std::size_t n) {
    return blockedSum(ex, n, [=](std::size_t i0, std::size_t i1) {
        const float* pb = b + i0;
        float* pr = r + i0;
        const int len = static_cast<int>(i1 - i0);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int i = 0; i < len; ++i) {
            const float ri = pb[i] - pr[i];
            pr[i] = ri;
            s += ri * ri;
        }
        return s;
    });
}

}  // namespace ww::cg::detail
