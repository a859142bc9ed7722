// The CPU Jacobi pass's arithmetic, written once on the lane types of lanes.h: instantiated
// with FloatW for whole vectors and with Float1 for the tails, which is also the scalar
// reference. A row's (or a disc pair's) result is the same bits in a vector and in a tail, and
// on every vector width the build may target (tests: LcpCpu.*Tail*, LcpCpu.*Chunk*).
//
// Per row i of a pass (w = A x^t + b, invD = omega / A_ii):
//   r     = max_i | x_i - clamp(x_i - w_i, lo_i, hi_i) |
//   x'_i  = clamp(x_i - invD_i w_i, lo_i, hi_i), and with a Chebyshev weight != 1
//   x'_i  = clamp(weight (x'_i - x^{t-1}_i) + x^{t-1}_i, lo_i, hi_i)
// Per disc pair (f, g) of radius mu max(x_k, 0): the same with the joint projection onto the
// disc in place of the clamps. probe sums 0 (w + x): 0 unless some w or x is NaN or infinite.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "solver/lcp/lanes.h"

namespace ww::lcp::kernels {

using lanes::Float1;
using lanes::FloatW;

/// A pass's residual over some rows and its NaN/infinity probe.
struct RowsResult {
    float r = 0.0f;
    float probe = 0.0f;
};

/// Folds the lanes of a residual (max) and a probe (sum) into out.
template <typename F>
inline void fold(F r, F probe, RowsResult& out) {
    alignas(64) float rl[F::kWidth];
    alignas(64) float pl[F::kWidth];
    store(rl, r);
    store(pl, probe);
    for (int l = 0; l < F::kWidth; ++l) {
        out.r = std::max(out.r, rl[l]);
        out.probe += pl[l];
    }
}

/// The arrays of a run of rows, each pointer at the run's first row.
struct RowArrays {
    const float* x;   ///< x^t
    const float* aw;  ///< (A x^t) (b is added here)
    const float* b;
    const float* lo;
    const float* hi;
    const float* invD;  ///< step scales omega / A_ii
    float* next;        ///< x^{t-1} on entry (read with a Chebyshev weight != 1), x^{t+1} on return
};

/// One row per lane (x = x^t, w = A x^t + b, bounds l, h, step scale invD): its part of r and
/// the probe, and its projected step x^{t+1} before any Chebyshev weight.
template <typename F>
inline F rowStep(F x, F w, F l, F h, F invD, F& r, F& probe) {
    r = max(r, abs(x - lanes::clamp(x - w, l, h)));
    probe = probe + lanes::splat<F>(0.0f) * (w + x);
    return lanes::clamp(negMulAdd(invD, w, x), l, h);
}

/// A row's step with a Chebyshev weight wt != 1 and x^{t-1} = prev.
template <typename F>
inline F rowChebyshev(F wt, F step, F prev, F l, F h) {
    return lanes::clamp(mulAdd(wt, step - prev, prev), l, h);
}

/// Rows [i, i + F::kWidth) of a: their part of r and the probe, and x^{t+1}.
template <typename F>
inline void projectRowsAt(const RowArrays& a, std::ptrdiff_t i, F wt, bool accelerated, F& r,
                          F& probe) {
    using lanes::load;
    const F l = load<F>(a.lo + i);
    const F h = load<F>(a.hi + i);
    F step = rowStep(load<F>(a.x + i), load<F>(a.aw + i) + load<F>(a.b + i), l, h,
                     load<F>(a.invD + i), r, probe);
    if (accelerated) {
        step = rowChebyshev(wt, step, load<F>(a.next + i), l, h);
    }
    store(a.next + i, step);
}

/// Rows [0, count): whole vectors, then the tail one lane at a time.
inline RowsResult projectRows(const RowArrays& a, float weight, std::ptrdiff_t count) {
    RowsResult out;
    std::ptrdiff_t i = 0;
    const bool accelerated = weight != 1.0f;
    if constexpr (FloatW::kWidth > 1) {
        constexpr int kW = FloatW::kWidth;
        FloatW r = lanes::splat<FloatW>(0.0f);
        FloatW probe = r;
        const FloatW wt = lanes::splat<FloatW>(weight);
        for (; i + kW <= count; i += kW) {
            projectRowsAt(a, i, wt, accelerated, r, probe);
        }
        fold(r, probe, out);
    }
    Float1 r{0.0f};
    Float1 probe{0.0f};
    for (; i < count; ++i) {
        projectRowsAt(a, i, Float1{weight}, accelerated, r, probe);
    }
    fold(r, probe, out);
    return out;
}

/// (x1, x2) projected onto the disc of radius r (lcp_common.h's projectDisc, lane by lane).
template <typename F>
inline void projectDisc(F& x1, F& x2, F radius) {
    const F len = sqrt(mulAdd(x1, x1, x2 * x2));
    const auto outside = greater(len, radius);
    const F s = radius / len;
    x1 = select(outside, x1 * s, x1);
    x2 = select(outside, x2 * s, x2);
}

/// Disc pairs' part of r(x^t) (x = xf, xg; w + b = wf, wg) into r and probe.
template <typename F>
inline void pairResidual(F xf, F xg, F wf, F wg, F radius, F& r, F& probe) {
    F nf = xf - wf;
    F ng = xg - wg;
    projectDisc(nf, ng, radius);
    r = max(r, abs(xf - nf));
    r = max(r, abs(xg - ng));
    probe = probe + lanes::splat<F>(0.0f) * (wf + wg);
}

/// Disc pairs' projected step with step scales df, dg: into vf, vg.
template <typename F>
inline void pairStep(F xf, F xg, F wf, F wg, F df, F dg, F radius, F& vf, F& vg) {
    vf = negMulAdd(df, wf, xf);
    vg = negMulAdd(dg, wg, xg);
    projectDisc(vf, vg, radius);
}

/// Chebyshev on disc pairs' steps vf, vg with x^{t-1} = pf, pg.
template <typename F>
inline void pairChebyshev(F wt, F pf, F pg, F radius, F& vf, F& vg) {
    vf = mulAdd(wt, vf - pf, pf);
    vg = mulAdd(wt, vg - pg, pg);
    projectDisc(vf, vg, radius);
}

/// Where a row of a pass takes its bounds (rowBounds): the problem's lo and hi, pinned to the
/// row's current value (a disc pair's row, left to the pair pass), or (>= 0) the normal row
/// whose value scales the friction interval.
constexpr std::int32_t kFixedBounds = -1;
constexpr std::int32_t kPinnedRow = -2;

/// Bounds of rows [first + begin, first + count) at iterate cur (boundOf, mu, lo0, hi0, lo, hi
/// offset to row `first`; cur indexed by row): the scalar reference of rowBounds.
inline void rowBoundsScalar(const float* cur, const std::int32_t* boundOf, const float* mu,
                            const float* lo0, const float* hi0, float* lo, float* hi,
                            std::ptrdiff_t first, std::ptrdiff_t begin, std::ptrdiff_t count) {
    for (std::ptrdiff_t i = begin; i < count; ++i) {
        const std::int32_t k = boundOf[i];
        if (k >= 0) {
            const float m = cur[k] < 0.0f ? 0.0f : cur[k];  // max(0, x_k), NaN kept
            lo[i] = -(mu[i] * m);
            hi[i] = mu[i] * m;
        } else if (k == kPinnedRow) {
            lo[i] = hi[i] = cur[first + i];
        } else {
            lo[i] = lo0[i];
            hi[i] = hi0[i];
        }
    }
}

/// rowBoundsScalar over rows [0, count), eight at a time where the CPU has AVX2 (a gather of
/// the normals' x and blends: the scalar's values bit for bit).
inline void rowBounds(const float* cur, const std::int32_t* boundOf, const float* mu,
                      const float* lo0, const float* hi0, float* lo, float* hi,
                      std::ptrdiff_t first, std::ptrdiff_t count) {
    std::ptrdiff_t i = 0;
#if defined(__AVX2__) && defined(__FMA__)
    const __m256 zero = _mm256_setzero_ps();
    const __m256i pinned = _mm256_set1_epi32(kPinnedRow);
    const __m256i none = _mm256_set1_epi32(-1);
    const __m256i laneIds = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (; i + 8 <= count; i += 8) {
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(boundOf + i));
        const __m256i friction = _mm256_cmpgt_epi32(k, none);
        const __m256i isPinned = _mm256_cmpeq_epi32(k, pinned);
        // Rows without a normal gather their own x (any valid index would do).
        const __m256i self =
            _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first + i)), laneIds);
        const __m256i index = _mm256_blendv_epi8(self, k, friction);
        // A block without friction rows (a wall's normals and pinned pair rows) needs no x_k.
        const __m256 xk =
            _mm256_testz_si256(friction, friction) != 0 ? zero : _mm256_i32gather_ps(cur, index, 4);
        // max(0, x_k) as the scalar's: x_k when NaN (the second operand wins).
        const __m256 bound = _mm256_mul_ps(_mm256_loadu_ps(mu + i), _mm256_max_ps(zero, xk));
        const __m256 fric = _mm256_castsi256_ps(friction);
        const __m256 pin = _mm256_castsi256_ps(isPinned);
        const __m256 x = _mm256_loadu_ps(cur + first + i);
        const __m256 negBound = _mm256_xor_ps(bound, _mm256_set1_ps(-0.0f));  // -bound exactly
        const __m256 l = _mm256_blendv_ps(_mm256_loadu_ps(lo0 + i), negBound, fric);
        const __m256 h = _mm256_blendv_ps(_mm256_loadu_ps(hi0 + i), bound, fric);
        _mm256_storeu_ps(lo + i, _mm256_blendv_ps(l, x, pin));
        _mm256_storeu_ps(hi + i, _mm256_blendv_ps(h, x, pin));
    }
#endif
    rowBoundsScalar(cur, boundOf, mu, lo0, hi0, lo, hi, first, i, count);
}

#if defined(__AVX2__) && defined(__FMA__)
using lanes::storeThree;
using lanes::strideThree;
#endif

}  // namespace ww::lcp::kernels
