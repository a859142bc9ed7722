// A few floats handled as one value, for the CPU solver's kernels (lcp_cpu_kernels.h): each
// kernel is written once on these and instantiated for the widest vector the build targets
// (FloatW: 16 lanes with AVX-512, 8 with AVX2, else 1) and for one lane (Float1: the tails and
// the scalar reference). Every operation is the same IEEE operation in every lane, fused
// multiply-adds included wherever the build has FMA (Float1 calls std::fma then), so a row's
// result does not depend on whether it falls in a vector or in a tail, nor on the vector width.
//
// min and max are x86's: min(a, b) = a < b ? a : b, so a NaN in either operand gives b (clamp
// below keeps a NaN value NaN, which is how the solver notices divergence).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

namespace ww::lcp::lanes {

// ---- One lane: the scalar reference ----

struct Float1 {
    static constexpr int kWidth = 1;
    float v;
};
struct Mask1 {
    bool v;
};

inline Float1 load(const float* p, Float1) {
    return {*p};
}
inline void store(float* p, Float1 a) {
    *p = a.v;
}
inline Float1 splat(float s, Float1) {
    return {s};
}
inline Float1 operator+(Float1 a, Float1 b) {
    return {a.v + b.v};
}
inline Float1 operator-(Float1 a, Float1 b) {
    return {a.v - b.v};
}
inline Float1 operator*(Float1 a, Float1 b) {
    return {a.v * b.v};
}
inline Float1 operator/(Float1 a, Float1 b) {
    return {a.v / b.v};
}
/// a b + c, rounded once where the build has FMA.
inline Float1 mulAdd(Float1 a, Float1 b, Float1 c) {
#if defined(__FMA__)
    return {std::fma(a.v, b.v, c.v)};
#else
    return {a.v * b.v + c.v};
#endif
}
/// c - a b, rounded once where the build has FMA.
inline Float1 negMulAdd(Float1 a, Float1 b, Float1 c) {
#if defined(__FMA__)
    return {std::fma(-a.v, b.v, c.v)};
#else
    return {c.v - a.v * b.v};
#endif
}
inline Float1 min(Float1 a, Float1 b) {
    return {a.v < b.v ? a.v : b.v};
}
inline Float1 max(Float1 a, Float1 b) {
    return {a.v > b.v ? a.v : b.v};
}
inline Float1 abs(Float1 a) {
    return {std::fabs(a.v)};
}
inline Float1 sqrt(Float1 a) {
    return {std::sqrt(a.v)};
}
/// a > b (false when either is NaN).
inline Mask1 greater(Float1 a, Float1 b) {
    return {a.v > b.v};
}
/// m ? a : b.
inline Float1 select(Mask1 m, Float1 a, Float1 b) {
    return {m.v ? a.v : b.v};
}

#if defined(__AVX2__) && defined(__FMA__)
// ---- Eight lanes (AVX2 with FMA) ----

struct Float8 {
    static constexpr int kWidth = 8;
    __m256 v;
};
struct Mask8 {
    __m256 v;
};

inline Float8 load(const float* p, Float8) {
    return {_mm256_loadu_ps(p)};
}
inline void store(float* p, Float8 a) {
    _mm256_storeu_ps(p, a.v);
}
inline Float8 splat(float s, Float8) {
    return {_mm256_set1_ps(s)};
}
inline Float8 operator+(Float8 a, Float8 b) {
    return {_mm256_add_ps(a.v, b.v)};
}
inline Float8 operator-(Float8 a, Float8 b) {
    return {_mm256_sub_ps(a.v, b.v)};
}
inline Float8 operator*(Float8 a, Float8 b) {
    return {_mm256_mul_ps(a.v, b.v)};
}
inline Float8 operator/(Float8 a, Float8 b) {
    return {_mm256_div_ps(a.v, b.v)};
}
inline Float8 mulAdd(Float8 a, Float8 b, Float8 c) {
    return {_mm256_fmadd_ps(a.v, b.v, c.v)};
}
inline Float8 negMulAdd(Float8 a, Float8 b, Float8 c) {
    return {_mm256_fnmadd_ps(a.v, b.v, c.v)};
}
inline Float8 min(Float8 a, Float8 b) {
    return {_mm256_min_ps(a.v, b.v)};
}
inline Float8 max(Float8 a, Float8 b) {
    return {_mm256_max_ps(a.v, b.v)};
}
inline Float8 abs(Float8 a) {
    return {_mm256_and_ps(_mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff)), a.v)};
}
inline Float8 sqrt(Float8 a) {
    return {_mm256_sqrt_ps(a.v)};
}
inline Mask8 greater(Float8 a, Float8 b) {
    return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OQ)};
}
inline Float8 select(Mask8 m, Float8 a, Float8 b) {
    return {_mm256_blendv_ps(b.v, a.v, m.v)};
}
#endif

#if defined(__AVX512F__)
// ---- Sixteen lanes (AVX-512) ----

struct Float16 {
    static constexpr int kWidth = 16;
    __m512 v;
};
struct Mask16 {
    __mmask16 v;
};

inline Float16 load(const float* p, Float16) {
    return {_mm512_loadu_ps(p)};
}
inline void store(float* p, Float16 a) {
    _mm512_storeu_ps(p, a.v);
}
inline Float16 splat(float s, Float16) {
    return {_mm512_set1_ps(s)};
}
inline Float16 operator+(Float16 a, Float16 b) {
    return {_mm512_add_ps(a.v, b.v)};
}
inline Float16 operator-(Float16 a, Float16 b) {
    return {_mm512_sub_ps(a.v, b.v)};
}
inline Float16 operator*(Float16 a, Float16 b) {
    return {_mm512_mul_ps(a.v, b.v)};
}
inline Float16 operator/(Float16 a, Float16 b) {
    return {_mm512_div_ps(a.v, b.v)};
}
inline Float16 mulAdd(Float16 a, Float16 b, Float16 c) {
    return {_mm512_fmadd_ps(a.v, b.v, c.v)};
}
inline Float16 negMulAdd(Float16 a, Float16 b, Float16 c) {
    return {_mm512_fnmadd_ps(a.v, b.v, c.v)};
}
inline Float16 min(Float16 a, Float16 b) {
    return {_mm512_min_ps(a.v, b.v)};
}
inline Float16 max(Float16 a, Float16 b) {
    return {_mm512_max_ps(a.v, b.v)};
}
inline Float16 abs(Float16 a) {
    return {_mm512_abs_ps(a.v)};
}
inline Float16 sqrt(Float16 a) {
    return {_mm512_sqrt_ps(a.v)};
}
inline Mask16 greater(Float16 a, Float16 b) {
    return {_mm512_cmp_ps_mask(a.v, b.v, _CMP_GT_OQ)};
}
inline Float16 select(Mask16 m, Float16 a, Float16 b) {
    return {_mm512_mask_blend_ps(m.v, b.v, a.v)};
}
#endif

// ---- Built on the operations above, for every width ----

template <typename F>
inline F load(const float* p) {
    return load(p, F{});
}
template <typename F>
inline F splat(float s) {
    return splat(s, F{});
}
/// clamp(v, l, h) as min(h, max(l, v)): a NaN v stays NaN (the second operand wins).
template <typename F>
inline F clamp(F v, F l, F h) {
    return min(h, max(l, v));
}

/// The widest lane type of this build.
#if defined(__AVX512F__)
using FloatW = Float16;
#elif defined(__AVX2__) && defined(__FMA__)
using FloatW = Float8;
#else
using FloatW = Float1;
#endif

}  // namespace ww::lcp::lanes
