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

// ---- Row triples (a contact's three rows, consecutive) by stream ----

#if defined(__AVX2__) && defined(__FMA__)
/// Lane l of the result: v[3 l + s] of the 24 floats v[0 .. 24) (stream s of row triples).
template <int S>
inline __m256 strideThree(const float* v) {
    // Position p of a, b, c holds v[p], v[8 + p], v[16 + p]: exactly one is of stream S.
    constexpr auto pick = [](int base) {
        int mask = 0;
        for (int p = 0; p < 8; ++p) {
            mask |= (base + p) % 3 == S ? 1 << p : 0;
        }
        return mask;
    };
    const __m256 t =
        _mm256_blend_ps(_mm256_blend_ps(_mm256_loadu_ps(v), _mm256_loadu_ps(v + 8), pick(8)),
                        _mm256_loadu_ps(v + 16), pick(16));
    return _mm256_permutevar8x32_ps(
        t, _mm256_setr_epi32(S, (3 + S) % 8, (6 + S) % 8, (9 + S) % 8, (12 + S) % 8, (15 + S) % 8,
                             (18 + S) % 8, (21 + S) % 8));
}

/// strideThree's inverse: v[3 l + s] = a_s lane l for the 24 floats v[0 .. 24).
inline void storeThree(float* v, __m256 a0, __m256 a1, __m256 a2) {
    // Lane l of stream s goes to position (3 l + s) mod 8 of the vector holding row 3 l + s.
    const __m256 t0 = _mm256_permutevar8x32_ps(a0, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    const __m256 t1 = _mm256_permutevar8x32_ps(a1, _mm256_setr_epi32(5, 0, 3, 6, 1, 4, 7, 2));
    const __m256 t2 = _mm256_permutevar8x32_ps(a2, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
    _mm256_storeu_ps(v, _mm256_blend_ps(_mm256_blend_ps(t0, t1, 0x92), t2, 0x24));
    _mm256_storeu_ps(v + 8, _mm256_blend_ps(_mm256_blend_ps(t0, t1, 0x24), t2, 0x49));
    _mm256_storeu_ps(v + 16, _mm256_blend_ps(_mm256_blend_ps(t0, t1, 0x49), t2, 0x92));
}
/// The three streams of the 24 floats at v: out[s] = strideThree<s>(v).
inline void splitThree(const float* v, __m256 (&out)[3]) {
    out[0] = strideThree<0>(v);
    out[1] = strideThree<1>(v);
    out[2] = strideThree<2>(v);
}
#endif

}  // namespace ww::lcp::lanes
