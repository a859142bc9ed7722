// CPU kernels of the dense operation set (see dense.h for the equations). Elementwise loops
// are written so that -O3 vectorizes them without -ffast-math (no reassociated reductions);
// matVec uses AVX-512 (else AVX2+FMA) intrinsics on 4 rows at a time so that each load of x
// feeds four rows, and prefetches the next four rows as it goes: a row of a 1000-wide matrix
// is about a page, and the hardware prefetcher starts over at every page, so without it each
// group of rows began with cache misses (n = 1000, two threads: 22.3-22.8 us a Jacobi pass
// against 21.3-22.0 with it, A read from L3).
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>

#include "solver/linalg/dense.h"

#if defined(__AVX2__) && defined(__FMA__)
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 flags _mm512_reduce_add_ps's internal _mm512_undefined as maybe-uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define WW_LINALG_AVX2 1
#endif

namespace ww::linalg {

namespace {

using Index = std::ptrdiff_t;

#if defined(WW_LINALG_AVX2)
/// Prefetches one cache line of each of four rows, rowBytes apart, from address `at`.
inline void prefetchRows(std::uintptr_t at, std::uintptr_t rowBytes) {
    for (std::uintptr_t r = 0; r < 4; ++r) {
        _mm_prefetch(reinterpret_cast<const char*>(at + r * rowBytes), _MM_HINT_T0);
    }
}
#endif

#if defined(__AVX512F__)
// 4 rows x 16 columns per step; the tail is a masked load, so no scalar remainder loop.
void matVecRows(const float* a, Index cols, const float* x, float* y, Index r0, Index r1) {
    const Index full = cols & ~Index{15};
    const auto tailMask = static_cast<__mmask16>((1u << (cols - full)) - 1u);
    const auto rowBytes = sizeof(float) * static_cast<std::uintptr_t>(cols);
    Index i = r0;
    for (; i + 4 <= r1; i += 4) {
        const float* a0 = a + i * cols;
        const float* a1 = a0 + cols;
        const float* a2 = a1 + cols;
        const float* a3 = a2 + cols;
        __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
        __m512 s2 = _mm512_setzero_ps(), s3 = _mm512_setzero_ps();
        // The next four rows, fetched while these are summed. Addresses as integers: past the
        // last row they lie outside the matrix (a prefetch never faults), where pointer
        // arithmetic would be undefined.
        const auto next = reinterpret_cast<std::uintptr_t>(a3) + rowBytes;
        for (Index j = 0; j < full; j += 16) {
            prefetchRows(next + sizeof(float) * static_cast<std::uintptr_t>(j), rowBytes);
            const __m512 xv = _mm512_loadu_ps(x + j);
            s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a0 + j), xv, s0);
            s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a1 + j), xv, s1);
            s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a2 + j), xv, s2);
            s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a3 + j), xv, s3);
        }
        if (tailMask != 0) {
            const __m512 xv = _mm512_maskz_loadu_ps(tailMask, x + full);
            s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tailMask, a0 + full), xv, s0);
            s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tailMask, a1 + full), xv, s1);
            s2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tailMask, a2 + full), xv, s2);
            s3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tailMask, a3 + full), xv, s3);
        }
        y[i] = _mm512_reduce_add_ps(s0);
        y[i + 1] = _mm512_reduce_add_ps(s1);
        y[i + 2] = _mm512_reduce_add_ps(s2);
        y[i + 3] = _mm512_reduce_add_ps(s3);
    }
    for (; i < r1; ++i) {
        const float* ai = a + i * cols;
        __m512 s = _mm512_setzero_ps();
        for (Index j = 0; j < full; j += 16) {
            s = _mm512_fmadd_ps(_mm512_loadu_ps(ai + j), _mm512_loadu_ps(x + j), s);
        }
        if (tailMask != 0) {
            s = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tailMask, ai + full),
                                _mm512_maskz_loadu_ps(tailMask, x + full), s);
        }
        y[i] = _mm512_reduce_add_ps(s);
    }
}
#elif defined(WW_LINALG_AVX2)
inline float horizontalSum(__m256 v) {
    const __m128 lo = _mm256_castps256_ps128(v);
    const __m128 hi = _mm256_extractf128_ps(v, 1);
    __m128 s = _mm_add_ps(lo, hi);
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

void matVecRows(const float* a, Index cols, const float* x, float* y, Index r0, Index r1) {
    const auto rowBytes = sizeof(float) * static_cast<std::uintptr_t>(cols);
    Index i = r0;
    for (; i + 4 <= r1; i += 4) {
        const float* a0 = a + i * cols;
        const float* a1 = a0 + cols;
        const float* a2 = a1 + cols;
        const float* a3 = a2 + cols;
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
        __m256 s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
        __m256 t0 = _mm256_setzero_ps(), t1 = _mm256_setzero_ps();
        __m256 t2 = _mm256_setzero_ps(), t3 = _mm256_setzero_ps();
        Index j = 0;
        // The next four rows, fetched while these are summed. Addresses as integers: past the
        // last row they lie outside the matrix (a prefetch never faults), where pointer
        // arithmetic would be undefined.
        const auto next = reinterpret_cast<std::uintptr_t>(a3) + rowBytes;
        // Two independent accumulators per row hide the FMA latency.
        for (; j + 16 <= cols; j += 16) {
            prefetchRows(next + sizeof(float) * static_cast<std::uintptr_t>(j), rowBytes);
            const __m256 xa = _mm256_loadu_ps(x + j);
            const __m256 xb = _mm256_loadu_ps(x + j + 8);
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + j), xa, s0);
            s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + j), xa, s1);
            s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + j), xa, s2);
            s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + j), xa, s3);
            t0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + j + 8), xb, t0);
            t1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + j + 8), xb, t1);
            t2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + j + 8), xb, t2);
            t3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + j + 8), xb, t3);
        }
        for (; j + 8 <= cols; j += 8) {
            const __m256 xa = _mm256_loadu_ps(x + j);
            s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + j), xa, s0);
            s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + j), xa, s1);
            s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + j), xa, s2);
            s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + j), xa, s3);
        }
        float y0 = horizontalSum(_mm256_add_ps(s0, t0));
        float y1 = horizontalSum(_mm256_add_ps(s1, t1));
        float y2 = horizontalSum(_mm256_add_ps(s2, t2));
        float y3 = horizontalSum(_mm256_add_ps(s3, t3));
        for (; j < cols; ++j) {
            y0 += a0[j] * x[j];
            y1 += a1[j] * x[j];
            y2 += a2[j] * x[j];
            y3 += a3[j] * x[j];
        }
        y[i] = y0;
        y[i + 1] = y1;
        y[i + 2] = y2;
        y[i + 3] = y3;
    }
    for (; i < r1; ++i) {
        const float* ai = a + i * cols;
        __m256 s = _mm256_setzero_ps();
        Index j = 0;
        for (; j + 8 <= cols; j += 8) {
            s = _mm256_fmadd_ps(_mm256_loadu_ps(ai + j), _mm256_loadu_ps(x + j), s);
        }
        float yi = horizontalSum(s);
        for (; j < cols; ++j) {
            yi += ai[j] * x[j];
        }
        y[i] = yi;
    }
}
#else
void matVecRows(const float* a, Index cols, const float* x, float* y, Index r0, Index r1) {
    for (Index i = r0; i < r1; ++i) {
        y[i] = dot(std::span<const float>(a + i * cols, static_cast<std::size_t>(cols)),
                   std::span<const float>(x, static_cast<std::size_t>(cols)));
    }
}
#endif

// y[c0, c1) += s * row[c0, c1)
inline void axpyRange(float s, const float* row, float* y, Index c0, Index c1) {
    for (Index j = c0; j < c1; ++j) {
        y[j] += s * row[j];
    }
}

// y[c0, c1) += s0 r0 + s1 r1 + s2 r2 + s3 r3: one load and store of y per four rows.
inline void axpy4Range(const float* s, const float* r0, const float* r1, const float* r2,
                       const float* r3, float* y, Index c0, Index c1) {
    for (Index j = c0; j < c1; ++j) {
        y[j] += s[0] * r0[j] + s[1] * r1[j] + s[2] * r2[j] + s[3] * r3[j];
    }
}

}  // namespace

void copy(std::span<const float> a, std::span<float> y) {
    assert(a.size() == y.size());
    std::copy(a.begin(), a.end(), y.begin());
}

void add(std::span<const float> a, std::span<const float> b, std::span<float> y) {
    assert(a.size() == y.size() && b.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = a[i] + b[i];
    }
}

void accumulate(std::span<const float> a, std::span<float> y) {
    assert(a.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] += a[i];
    }
}

void scale(std::span<const float> a, float c, std::span<float> y) {
    assert(a.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = c * a[i];
    }
}

void maxScalar(std::span<const float> a, float c, std::span<float> y) {
    assert(a.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = std::max(a[i], c);
    }
}

void mad(std::span<const float> a, float c, std::span<float> y) {
    assert(a.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] += c * a[i];
    }
}

void madTo(std::span<const float> a, std::span<const float> b, float c, std::span<float> y) {
    assert(a.size() == y.size() && b.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = a[i] + c * b[i];
    }
}

void madElem(std::span<const float> a, std::span<const float> b, std::span<float> y) {
    assert(a.size() == y.size() && b.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] += a[i] * b[i];
    }
}

void madad(std::span<const float> a, std::span<const float> b, std::span<const float> c,
           std::span<const float> d, std::span<float> y) {
    assert(a.size() == y.size() && b.size() == y.size() && c.size() == y.size() &&
           d.size() == y.size());
    for (std::size_t i = 0; i < y.size(); ++i) {
        y[i] = a[i] + (b[i] + c[i]) * d[i];
    }
}

float dot(std::span<const float> a, std::span<const float> b) {
    assert(a.size() == b.size());
    constexpr std::size_t kLanes = 16;
    float lanes[kLanes] = {};
    const std::size_t n = a.size();
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        for (std::size_t l = 0; l < kLanes; ++l) {
            lanes[l] += a[i + l] * b[i + l];
        }
    }
    float s = 0.0f;
    for (; i < n; ++i) {
        s += a[i] * b[i];
    }
    for (float v : lanes) {
        s += v;
    }
    return s;
}

float norm2(std::span<const float> a) {
    return dot(a, a);
}

void matVec(const float* a, int rows, int cols, const float* x, float* y) {
    matVecRows(a, cols, x, y, 0, rows);
}

void matVec(const exec::Executor& ex, const float* a, int rows, int cols, const float* x,
            float* y) {
    ex.parallelFor(
        exec::chunkCount(rows, kMatVecChunkRows),
        [&](Index c) {
            const Index b = c * kMatVecChunkRows;
            matVecRows(a, cols, x, y, b, std::min<Index>(b + kMatVecChunkRows, rows));
        },
        Index{rows} * cols);
}

void matVec(const exec::Executor& ex, const Matrix& a, std::span<const float> x,
            std::span<float> y) {
    assert(x.size() == static_cast<std::size_t>(a.cols));
    assert(y.size() == static_cast<std::size_t>(a.rows));
    matVec(ex, a.data.data(), a.rows, a.cols, x.data(), y.data());
}

void matTVec(const exec::Executor& ex, const Matrix& a, std::span<const float> x,
             std::span<float> y) {
    assert(x.size() == static_cast<std::size_t>(a.rows));
    assert(y.size() == static_cast<std::size_t>(a.cols));
    std::fill(y.begin(), y.end(), 0.0f);
    const Index cols = a.cols;
    // Each chunk owns a column range of y and streams every row over it (128 columns: a
    // 512-byte strip of each row, whole cache lines).
    constexpr Index kChunkCols = 128;
    ex.parallelFor(
        exec::chunkCount(cols, kChunkCols),
        [&](Index chunk) {
            const Index c0 = chunk * kChunkCols;
            const Index c1 = std::min(c0 + kChunkCols, cols);
            Index i = 0;
            for (; i + 4 <= a.rows; i += 4) {
                const float* r0 = a.row(static_cast<int>(i));
                axpy4Range(x.data() + i, r0, r0 + cols, r0 + 2 * cols, r0 + 3 * cols, y.data(), c0,
                           c1);
            }
            for (; i < a.rows; ++i) {
                axpyRange(x[i], a.row(static_cast<int>(i)), y.data(), c0, c1);
            }
        },
        Index{a.rows} * cols);
}

// Chunks of 8 rows of C for the matrix-matrix products.
constexpr Index kMatMatChunkRows = 8;

void matMat(const exec::Executor& ex, const Matrix& a, const Matrix& b, Matrix& c) {
    assert(a.cols == b.rows);
    c = Matrix(a.rows, b.cols);
    const Index n = b.cols;
    constexpr Index kBlock = 128;  // 128 rows of B (512 KB at n = 1000) stay in L2
    ex.parallelFor(exec::chunkCount(a.rows, kMatMatChunkRows), [&](Index chunk) {
        const Index i0 = chunk * kMatMatChunkRows;
        const Index i1 = std::min<Index>(i0 + kMatMatChunkRows, a.rows);
        for (Index k0 = 0; k0 < a.cols; k0 += kBlock) {
            const Index k1 = std::min<Index>(k0 + kBlock, a.cols);
            for (Index i = i0; i < i1; ++i) {
                float* ci = c.data.data() + i * n;
                const float* ai = a.row(static_cast<int>(i));
                Index k = k0;
                for (; k + 4 <= k1; k += 4) {
                    const float* bk = b.row(static_cast<int>(k));
                    axpy4Range(ai + k, bk, bk + n, bk + 2 * n, bk + 3 * n, ci, 0, n);
                }
                for (; k < k1; ++k) {
                    axpyRange(ai[k], b.row(static_cast<int>(k)), ci, 0, n);
                }
            }
        }
    });
}

void matTMat(const exec::Executor& ex, const Matrix& a, const Matrix& b, Matrix& c) {
    assert(a.rows == b.rows);
    c = Matrix(a.cols, b.cols);
    const Index n = b.cols;
    constexpr Index kBlock = 128;
    ex.parallelFor(exec::chunkCount(a.cols, kMatMatChunkRows), [&](Index chunk) {
        const Index i0 = chunk * kMatMatChunkRows;
        const Index i1 = std::min<Index>(i0 + kMatMatChunkRows, a.cols);
        for (Index k0 = 0; k0 < a.rows; k0 += kBlock) {
            const Index k1 = std::min<Index>(k0 + kBlock, a.rows);
            for (Index i = i0; i < i1; ++i) {
                float* ci = c.data.data() + i * n;
                Index k = k0;
                for (; k + 4 <= k1; k += 4) {
                    const float* ak = a.row(static_cast<int>(k)) + i;
                    const float coef[4] = {ak[0], ak[a.cols], ak[2 * a.cols], ak[3 * a.cols]};
                    const float* bk = b.row(static_cast<int>(k));
                    axpy4Range(coef, bk, bk + n, bk + 2 * n, bk + 3 * n, ci, 0, n);
                }
                for (; k < k1; ++k) {
                    axpyRange(a(static_cast<int>(k), static_cast<int>(i)),
                              b.row(static_cast<int>(k)), ci, 0, n);
                }
            }
        }
    });
}

void matVecScalar(const float* a, int rows, int cols, const float* x, float* y) {
    for (int i = 0; i < rows; ++i) {
        float s = 0.0f;
        const float* ai = a + static_cast<std::size_t>(i) * cols;
        for (int j = 0; j < cols; ++j) {
            s += ai[j] * x[j];
        }
        y[i] = s;
    }
}

std::string checkMatVec(int rows, int cols, std::size_t xSize, std::size_t ySize) {
    if (xSize != static_cast<std::size_t>(cols) || ySize != static_cast<std::size_t>(rows)) {
        return "dimension mismatch: A is " + std::to_string(rows) + "x" + std::to_string(cols) +
               ", x has " + std::to_string(xSize) + " entries and y has " + std::to_string(ySize);
    }
    return {};
}

}  // namespace ww::linalg
