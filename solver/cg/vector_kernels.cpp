// CPU vector kernels of the CG iteration (see vector_kernels.h).
#include "solver/cg/vector_kernels.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>

namespace ww::cg::detail {

namespace {
std::atomic<int> g_forcedThreads{-1};  // -1: not yet read from the environment
}

void setWorkerThreads(int threads) {
    g_forcedThreads.store(threads > 0 ? threads : 0);
}

int workerThreads() {
    int forced = g_forcedThreads.load(std::memory_order_relaxed);
    if (forced < 0) {
        const char* env = std::getenv("WAVEWALL_THREADS");
        forced = env != nullptr ? std::max(0, std::atoi(env)) : 0;
        g_forcedThreads.store(forced);
    }
    if (forced > 0) {
        return forced;
    }
    using Clock = std::chrono::steady_clock;
    static std::atomic<long long> nextCheck{0};
    static std::atomic<int> threads{0};
    const long long now = Clock::now().time_since_epoch().count();
    if (threads.load(std::memory_order_relaxed) == 0 ||
        now >= nextCheck.load(std::memory_order_relaxed)) {
        const int procs = omp_get_num_procs();
        double load = 0.0;
        const bool busy = getloadavg(&load, 1) == 1 && load > procs + 0.5;
        threads.store(busy ? 1 : omp_get_max_threads(), std::memory_order_relaxed);
        nextCheck.store(
            now +
                std::chrono::duration_cast<Clock::duration>(std::chrono::milliseconds(500)).count(),
            std::memory_order_relaxed);
    }
    return threads.load(std::memory_order_relaxed);
}

double dot(const float* a, const float* b, std::size_t n) {
    return blockedSum(n, [=](std::size_t i0, std::size_t i1) {
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

void direction(const float* r, float* p, float beta, std::size_t n) {
    const long nl = static_cast<long>(n);
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin) num_threads(workerThreads())
    for (long i = 0; i < nl; ++i) {
        p[i] = r[i] + beta * p[i];
    }
}

double updateSolution(float* x, float* r, const float* p, const float* q, float alpha,
                      std::size_t n) {
    return blockedSum(n, [=](std::size_t i0, std::size_t i1) {
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

double residualFrom(const float* b, float* r, std::size_t n) {
    return blockedSum(n, [=](std::size_t i0, std::size_t i1) {
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
