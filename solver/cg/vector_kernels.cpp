// CPU vector kernels of the CG iteration (see vector_kernels.h).
#include "solver/cg/vector_kernels.h"

namespace ww::cg::detail {

double dot(const float* a, const float* b, std::size_t n) {
    return blockedSum(n, [=](std::size_t i0, std::size_t i1) {
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (std::size_t i = i0; i < i1; ++i) {
            s += a[i] * b[i];
        }
        return s;
    });
}

void direction(const float* r, float* p, float beta, std::size_t n) {
    const long nl = static_cast<long>(n);
#pragma omp parallel for simd schedule(static) if (n >= kParallelMin)
    for (long i = 0; i < nl; ++i) {
        p[i] = r[i] + beta * p[i];
    }
}

double updateSolution(float* x, float* r, const float* p, const float* q, float alpha,
                      std::size_t n) {
    return blockedSum(n, [=](std::size_t i0, std::size_t i1) {
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (std::size_t i = i0; i < i1; ++i) {
            x[i] += alpha * p[i];
            const float ri = r[i] - alpha * q[i];
            r[i] = ri;
            s += ri * ri;
        }
        return s;
    });
}

double residualFrom(const float* b, float* r, std::size_t n) {
    return blockedSum(n, [=](std::size_t i0, std::size_t i1) {
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (std::size_t i = i0; i < i1; ++i) {
            const float ri = b[i] - r[i];
            r[i] = ri;
            s += ri * ri;
        }
        return s;
    });
}

}  // namespace ww::cg::detail
