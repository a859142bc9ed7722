// The CPU Jacobi pass's kernels (solver/lcp/lcp_cpu_kernels.h) on fresh random rows: the
// vector path is the one-lane reference bit for bit, wherever a row falls (vector or tail), and
// both are the closed form of the projected step in double to float rounding.
#include "solver/lcp/lcp_cpu_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "support/seed.h"

namespace ww::lcp {
namespace {

using kernels::RowArrays;
using lanes::Float1;

struct Rows {
    std::vector<float> x, aw, b, lo, hi, invD, prev;
};

Rows randomRows(std::mt19937& rng, std::size_t n) {
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    std::uniform_int_distribution<int> kind(0, 3);
    Rows r;
    for (auto* v : {&r.x, &r.aw, &r.b, &r.lo, &r.hi, &r.invD, &r.prev}) {
        v->resize(n);
    }
    for (std::size_t i = 0; i < n; ++i) {
        r.x[i] = u(rng);
        r.aw[i] = u(rng);
        r.b[i] = u(rng);
        r.invD[i] = 0.1f + std::fabs(u(rng));
        r.prev[i] = u(rng);
        // Normal rows [0, inf), friction-like boxes, free rows, and pinned rows [x, x].
        switch (kind(rng)) {
            case 0:
                r.lo[i] = 0.0f;
                r.hi[i] = std::numeric_limits<float>::infinity();
                break;
            case 1: {
                const float m = std::fabs(u(rng));
                r.lo[i] = -m;
                r.hi[i] = m;
                break;
            }
            case 2:
                r.lo[i] = -std::numeric_limits<float>::infinity();
                r.hi[i] = std::numeric_limits<float>::infinity();
                break;
            default:
                r.lo[i] = r.hi[i] = r.x[i];
        }
    }
    return r;
}

// x^{t+1} and r of rows [0, n) one row at a time through the one-lane kernel.
kernels::RowsResult oneLane(const Rows& r, std::vector<float>& next, float weight) {
    next = r.prev;
    const RowArrays a{r.x.data(),  r.aw.data(),   r.b.data(), r.lo.data(),
                      r.hi.data(), r.invD.data(), next.data()};
    kernels::RowsResult out;
    for (std::size_t i = 0; i < r.x.size(); ++i) {
        Float1 res{0.0f};
        Float1 probe{0.0f};
        kernels::projectRowsAt(a, static_cast<std::ptrdiff_t>(i), Float1{weight}, weight != 1.0f,
                               res, probe);
        kernels::fold(res, probe, out);
    }
    return out;
}

// projectRows over fresh random rows of fresh random counts (vectors and tails of every
// length) equals the one-lane kernel row by row, bits included, with and without a Chebyshev
// weight; and each row's step is clamp(x - invD (aw + b), lo, hi) computed in double, to a few
// float roundings (|error| <= 4 eps (|x| + |invD w|)), and r the closed form's too.
TEST(LcpCpuKernels, ProjectRowsIsTheOneLaneReferenceBitForBit) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t n = 1 + rng() % 100u;
        const Rows r = randomRows(rng, n);
        for (const float weight : {1.0f, 1.0f + static_cast<float>(rng() % 1000u) / 1000.0f}) {
            SCOPED_TRACE("n " + std::to_string(n) + " weight " + std::to_string(weight));
            std::vector<float> ref;
            const kernels::RowsResult refOut = oneLane(r, ref, weight);
            std::vector<float> next = r.prev;
            const RowArrays a{r.x.data(),  r.aw.data(),   r.b.data(), r.lo.data(),
                              r.hi.data(), r.invD.data(), next.data()};
            const kernels::RowsResult out =
                kernels::projectRows(a, weight, static_cast<std::ptrdiff_t>(n));
            EXPECT_EQ(out.r, refOut.r);
            EXPECT_EQ(out.probe, 0.0f);
            double rClosed = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                ASSERT_EQ(next[i], ref[i]) << "row " << i << " of " << n;
                const double w = static_cast<double>(r.aw[i]) + r.b[i];
                const double x = r.x[i];
                double step = std::clamp(x - r.invD[i] * w, static_cast<double>(r.lo[i]),
                                         static_cast<double>(r.hi[i]));
                double scale = std::fabs(x) + std::fabs(r.invD[i] * w);
                if (weight != 1.0f) {
                    step = std::clamp(weight * (step - r.prev[i]) + r.prev[i],
                                      static_cast<double>(r.lo[i]), static_cast<double>(r.hi[i]));
                    scale = weight * (scale + 2.0 * std::fabs(r.prev[i])) + std::fabs(r.prev[i]);
                }
                EXPECT_NEAR(next[i], step, 4.0 * std::numeric_limits<float>::epsilon() * scale)
                    << "row " << i;
                rClosed =
                    std::max(rClosed, std::fabs(x - std::clamp(x - w, static_cast<double>(r.lo[i]),
                                                               static_cast<double>(r.hi[i]))));
            }
            EXPECT_NEAR(out.r, rClosed, 1e-5 * (1.0 + rClosed));
        }
    }
}

// A NaN in w or x of one row at a fresh random place reaches the probe, in a vector or in the
// tail; the other rows' steps are unchanged.
TEST(LcpCpuKernels, ANaNAnywhereReachesTheProbe) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (int trial = 0; trial < 20; ++trial) {
        const std::size_t n = 1 + rng() % 70u;
        Rows r = randomRows(rng, n);
        const std::size_t bad = rng() % n;
        (rng() % 2u == 0 ? r.aw : r.x)[bad] = std::numeric_limits<float>::quiet_NaN();
        std::vector<float> next = r.prev;
        const RowArrays a{r.x.data(),  r.aw.data(),   r.b.data(), r.lo.data(),
                          r.hi.data(), r.invD.data(), next.data()};
        const kernels::RowsResult out =
            kernels::projectRows(a, 1.0f, static_cast<std::ptrdiff_t>(n));
        EXPECT_TRUE(std::isnan(out.probe)) << "NaN at row " << bad << " of " << n;
    }
}

// The disc-pair kernels: eight lanes (where the build has AVX2 and FMA) equal one lane, bits
// included, on fresh random pairs inside and outside their discs; and the one-lane projection
// is the closed form in double (v scaled onto the circle of radius mu max(x_k, 0) when
// outside) to float rounding.
TEST(LcpCpuKernels, PairKernelsAreTheOneLaneReferenceAndTheClosedForm) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    constexpr int kPairs = 64;
    float xf[kPairs], xg[kPairs], wf[kPairs], wg[kPairs], df[kPairs], dg[kPairs], rad[kPairs];
    float pf[kPairs], pg[kPairs];
    for (int k = 0; k < kPairs; ++k) {
        xf[k] = u(rng);
        xg[k] = u(rng);
        wf[k] = u(rng);
        wg[k] = u(rng);
        df[k] = 0.1f + std::fabs(u(rng));
        dg[k] = 0.1f + std::fabs(u(rng));
        rad[k] = k % 5 == 0 ? 0.0f : std::fabs(u(rng));  // some discs of radius 0
        pf[k] = u(rng);
        pg[k] = u(rng);
    }
    const float weight = 1.0f + static_cast<float>(rng() % 1000u) / 1000.0f;
    [[maybe_unused]] float vf1[kPairs], vg1[kPairs], r1[kPairs];  // read with AVX2 below
    for (int k = 0; k < kPairs; ++k) {
        Float1 vf, vg, r{0.0f}, probe{0.0f};
        kernels::pairResidual(Float1{xf[k]}, Float1{xg[k]}, Float1{wf[k]}, Float1{wg[k]},
                              Float1{rad[k]}, r, probe);
        kernels::pairStep(Float1{xf[k]}, Float1{xg[k]}, Float1{wf[k]}, Float1{wg[k]}, Float1{df[k]},
                          Float1{dg[k]}, Float1{rad[k]}, vf, vg);
        // The closed form of the unaccelerated step, in double.
        double a = static_cast<double>(xf[k]) - static_cast<double>(df[k]) * wf[k];
        double c = static_cast<double>(xg[k]) - static_cast<double>(dg[k]) * wg[k];
        const double len = std::hypot(a, c);
        if (len > rad[k]) {
            a *= rad[k] / len;
            c *= rad[k] / len;
        }
        const double tol = 8.0 * std::numeric_limits<float>::epsilon() * (1.0 + len);
        EXPECT_NEAR(vf.v, a, tol) << "pair " << k;
        EXPECT_NEAR(vg.v, c, tol) << "pair " << k;
        kernels::pairChebyshev(Float1{weight}, Float1{pf[k]}, Float1{pg[k]}, Float1{rad[k]}, vf,
                               vg);
        EXPECT_LE(std::hypot(static_cast<double>(vf.v), static_cast<double>(vg.v)),
                  rad[k] * (1.0 + 1e-6) + 1e-30)
            << "pair " << k << " leaves its disc";
        vf1[k] = vf.v;
        vg1[k] = vg.v;
        r1[k] = r.v;
    }
#if defined(__AVX2__) && defined(__FMA__)
    using lanes::Float8;
    using lanes::load;
    for (int k = 0; k < kPairs; k += 8) {
        Float8 vf, vg;
        Float8 r = lanes::splat<Float8>(0.0f);
        Float8 probe = r;
        kernels::pairResidual(load<Float8>(xf + k), load<Float8>(xg + k), load<Float8>(wf + k),
                              load<Float8>(wg + k), load<Float8>(rad + k), r, probe);
        kernels::pairStep(load<Float8>(xf + k), load<Float8>(xg + k), load<Float8>(wf + k),
                          load<Float8>(wg + k), load<Float8>(df + k), load<Float8>(dg + k),
                          load<Float8>(rad + k), vf, vg);
        kernels::pairChebyshev(lanes::splat<Float8>(weight), load<Float8>(pf + k),
                               load<Float8>(pg + k), load<Float8>(rad + k), vf, vg);
        alignas(32) float of[8], og[8], orr[8];
        store(of, vf);
        store(og, vg);
        store(orr, r);
        for (int l = 0; l < 8; ++l) {
            ASSERT_EQ(of[l], vf1[k + l]) << "pair " << k + l;
            ASSERT_EQ(og[l], vg1[k + l]) << "pair " << k + l;
            ASSERT_EQ(orr[l], r1[k + l]) << "pair " << k + l;
        }
    }
#endif  // without AVX2 and FMA the build has one lane only: the closed form above is the check
}

}  // namespace
}  // namespace ww::lcp
