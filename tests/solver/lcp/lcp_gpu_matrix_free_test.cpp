// The GPU backend on matrix-free problems (A = J W J^T + cfm I, row_operator.h): iterates
// against the CPU dense solver on the same A (denseFromRowOperator), converged solutions
// against the pivoting reference, a large island against a double-precision Jacobi written
// here, batches mixing dense and matrix-free blocks against solving each alone, the dispatch
// and readback counts, and malformed operators. Inputs from row_operator_generators.h with a
// fresh seed per run (WAVEWALL_TEST_SEED replays one).
//
// GPU matrix-free vs CPU dense tolerance: both run the same iteration in float, but the dense
// A_ij are J K products rounded once and summed over the row, where the GPU sums K x per body
// and then J . u, so each iterate differs by a few ulps of |J||K||x| (n <= 300: a few 1e-6
// relative). Plain Jacobi contracts that away; projected Chebyshev with friction need not: while
// the active set settles, a rounding-level change can move a friction bound and the residual
// histories of two float runs part by up to ~2e-3 relative before they meet again (seed
// 2951598716, contacts 40, under the sanitizer build's different CPU code). So the bound is
// max(1e-4 (1 + max|x|), 8 s) where s is the CPU solver's own gap to two rounding twins: the
// dense solve with each A_ij moved by up to 2^-21 relative (a few ulps), and the CPU's
// matrix-free solve (the GPU's summation order, whose intermediate sums K x can be far larger
// than A x: seed 3172986836, one contact, residuals of 10.7 differ by 2.5e-3 where the dense
// twin moved 1.5e-5). The GPU must agree with the CPU as closely as the CPU agrees with itself
// under rounding. Most cases never leave the 1e-4 floor; a wrong coefficient or a skipped
// projection moves iterates by O(1). Chebyshev's restart rule is a threshold on residuals, so
// rounding may restart one run and not the other: histories are compared up to there
// (sharedScheduleEnd).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "lcp_generators.h"
#include "lcp_gpu_support.h"
#include "row_operator_generators.h"
#include "row_operator_probe.h"
#include "solver/gpu/shader_library.h"
#include "solver/lcp/lcp_common.h"
#include "solver/lcp/lcp_gpu_layout.h"
#include "solver/lcp/lcp_reference.h"
#include "support/executor.h"
#include "support/gpu_fixture.h"

namespace ww::lcp {
namespace {

float goodOmega(const test::Spectrum& s) {
    return static_cast<float>(2.0 / (s.minScaled + s.maxScaled));
}

float chebyshevRho(const test::Spectrum& s) {
    return static_cast<float>((s.maxScaled - s.minScaled) / (s.maxScaled + s.minScaled));
}

void expectClose(std::span<const float> a, std::span<const float> b, const std::string& what,
                 float sensitivity = 0.0f) {
    ASSERT_EQ(a.size(), b.size()) << what;
    float scale = 1.0f;
    for (float v : a) {
        scale = std::max(scale, 1.0f + std::abs(v));
    }
    const float bound = std::max(1e-4f * scale, 8.0f * sensitivity);
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_NEAR(a[i], b[i], bound)
            << what << " i " << i << " (rounding sensitivity " << sensitivity << ")";
    }
}

float maxGap(std::span<const float> a, std::span<const float> b) {
    float gap = 0.0f;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        gap = std::max(gap, std::abs(a[i] - b[i]));
    }
    return gap;
}

// The dense problem with every A_ij scaled by 1 + d, |d| <= 2^-21 (a few float ulps), symmetric.
LcpProblem roundingPerturbed(const LcpProblem& dense, unsigned seed) {
    LcpProblem q = dense;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    const auto n = static_cast<std::size_t>(q.n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i; j < n; ++j) {
            const float v = q.a[i * n + j] * (1.0f + d(rng) * 0x1p-21f);
            q.a[i * n + j] = v;
            q.a[j * n + i] = v;
        }
    }
    return q;
}

// Projected Jacobi in double on the matrix-free A (the iteration of lcp_solver.h: per-row
// scales omega / A_ii, disc pairs with omega / max(A_ff, A_gg) projected jointly, bounds from
// the current iterate), for problems too large to pose dense.
std::vector<double> jacobiDouble(const LcpProblem& p, std::span<const float> x0, float omega,
                                 int iterations) {
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<double> x(x0.begin(), x0.end()), next(n), w;
    std::vector<int> partner(n, -1);
    for (const FrictionPair& q : frictionPairs(p)) {
        partner[static_cast<std::size_t>(q.first)] = q.second;
        partner[static_cast<std::size_t>(q.second)] = q.first;
    }
    for (int t = 0; t < iterations; ++t) {
        // A x through J and K in double (applyRowOperatorDouble takes x in float: split x into
        // its float part and the rest so that the product stays double-accurate).
        std::vector<float> hiPart(n), loPart(n);
        for (std::size_t i = 0; i < n; ++i) {
            hiPart[i] = static_cast<float>(x[i]);
            loPart[i] = static_cast<float>(x[i] - hiPart[i]);
        }
        std::vector<double> wLo;
        applyRowOperatorDouble(p.op, hiPart, w);
        applyRowOperatorDouble(p.op, loPart, wLo);
        for (std::size_t i = 0; i < n; ++i) {
            w[i] += wLo[i] + p.b[i];
        }
        for (std::size_t i = 0; i < n; ++i) {
            const int k = p.hasFriction() ? p.frictionNormal[i] : -1;
            const double radius =
                k >= 0 ? p.mu[i] * std::max(x[static_cast<std::size_t>(k)], 0.0) : 0.0;
            if (partner[i] >= 0) {
                const auto g = static_cast<std::size_t>(partner[i]);
                if (g < i) {
                    continue;
                }
                const double s = omega / std::max<double>(p.op.diagonal(static_cast<int>(i)),
                                                          p.op.diagonal(partner[i]));
                double vf = x[i] - s * w[i];
                double vg = x[g] - s * w[g];
                const double len = std::hypot(vf, vg);
                if (len > radius) {
                    vf *= radius / len;
                    vg *= radius / len;
                }
                next[i] = vf;
                next[g] = vg;
                continue;
            }
            const double lo = k >= 0 ? -radius : p.lo[i];
            const double hi = k >= 0 ? radius : p.hi[i];
            next[i] = std::clamp(x[i] - omega / p.op.diagonal(static_cast<int>(i)) * w[i], lo, hi);
        }
        std::swap(x, next);
    }
    return x;
}

using LcpGpuMatrixFree = GpuLcpTest;

// (1) Iterate by iterate (history) and the final x after a fixed count, against the CPU dense
// solver on A = denseFromRowOperator(op) with the same options: frictionless, disc pairs
// adjacent and grouped apart, with and without Chebyshev.
TEST_F(LcpGpuMatrixFree, IteratesMatchCpuDense) {
    unsigned k = 0;
    for (int contacts : {1, 7, 40, 100}) {
        for (int variant = 0; variant < 3; ++variant) {
            test::RowOperatorShape shape;
            shape.contacts = contacts;
            shape.friction = variant > 0;
            shape.grouped = variant == 2;
            const unsigned seed = m_seed + 31u * k++;
            const auto p = test::rowOperatorProblem(shape, seed);
            const auto dense = test::densified(p);
            const auto perturbed = roundingPerturbed(dense, seed ^ 0x9e3779b9u);
            const auto s = test::spectrum(dense);
            for (bool accelerate : {false, true}) {
                LcpOptions o;
                o.omega = goodOmega(s);
                o.chebyshevRho = accelerate ? chebyshevRho(s) : 0.0f;
                o.maxIterations = 60;
                o.recordHistory = true;
                const std::string what =
                    "contacts " + std::to_string(contacts) + " variant " + std::to_string(variant) +
                    (accelerate ? " chebyshev" : "") + " seed " + std::to_string(seed);
                std::vector<float> xc(static_cast<std::size_t>(p.n), 0.1f), xg = xc, xp = xc,
                                                                            xm = xc;
                const auto rc = m_cpu->solve(dense, xc, o);
                const auto rp = m_cpu->solve(perturbed, xp, o);
                const auto rm = m_cpu->solve(p, xm, o);  // the matrix-free product on the CPU
                const auto rg = m_gpu->solve(p, xg, o);
                ASSERT_TRUE(rg.error.empty()) << rg.error;
                EXPECT_EQ(rg.iterations, rc.iterations) << what;
                EXPECT_EQ(rg.status, rc.status) << what;
                for (const LcpReport* r : {&rg, &rp, &rm}) {
                    ASSERT_EQ(r->history.size(), rc.history.size()) << what;
                }
                // Where rounding decides the restart rule differently the schedules part:
                // compare the histories up to there, and x when they never part.
                const std::size_t shared = sharedScheduleEnd(rc.history, rg.history);
                const auto head = [](const std::vector<float>& h, std::size_t count) {
                    return std::span<const float>(h).first(count);
                };
                // The CPU's own rounding sensitivity: its gap to its two rounding twins (A
                // perturbed, the matrix-free product), each measured where the twin still
                // shares the CPU's schedule; x's gap only from twins that never part.
                float historySensitivity = 0.0f, xSensitivity = 0.0f;
                bool xKnown = false;
                for (const auto& [twin, twinX] : {std::pair{&rp, &xp}, std::pair{&rm, &xm}}) {
                    const std::size_t common =
                        std::min(shared, sharedScheduleEnd(rc.history, twin->history));
                    historySensitivity =
                        std::max(historySensitivity,
                                 maxGap(head(rc.history, common), head(twin->history, common)));
                    if (common == rc.history.size()) {
                        xSensitivity = std::max(xSensitivity, maxGap(xc, *twinX));
                        xKnown = true;
                    }
                }
                expectClose(head(rc.history, shared), head(rg.history, shared), what + " history",
                            historySensitivity);
                if (shared < rc.history.size()) {
                    continue;
                }
                expectClose(xc, xg, what, xKnown ? xSensitivity : historySensitivity);
                EXPECT_NEAR(rg.residual, rc.residual,
                            std::max(1e-4f * (1.0f + rc.residual), 8.0f * historySensitivity))
                    << what;
            }
        }
    }
}

// (2) Converged frictionless solutions against Lemke in double. The GPU stops at a float
// residual <= 1e-5; the double residual differs from it by the float rounding of A x + b
// (~1e-6 here), hence 2e-5. The error bound from the natural map (lcp_cpu_test.cpp):
// ||x - x*||_2 <= (1 + L) / mu ||r||_2 with L, mu the extreme eigenvalues of A.
TEST_F(LcpGpuMatrixFree, ConvergedSolutionsMatchLemke) {
    for (int contacts : {5, 30, 80}) {
        test::RowOperatorShape shape;
        shape.contacts = contacts;
        shape.cfmScale = 0.05f;  // keeps lambda_min(A) away from 0: a meaningful error bound
        const unsigned seed = m_seed + static_cast<unsigned>(contacts);
        const auto p = test::rowOperatorProblem(shape, seed);
        const auto s = test::spectrum(test::densified(p));
        LcpOptions o;
        o.omega = goodOmega(s);
        o.chebyshevRho = chebyshevRho(s);
        o.tolerance = 1e-5f;
        o.checkEvery = 4;
        o.maxIterations = 20000;
        std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
        const auto rep = m_gpu->solve(p, x, o);
        const std::string what =
            "contacts " + std::to_string(contacts) + " seed " + std::to_string(seed);
        ASSERT_TRUE(rep.error.empty()) << rep.error;
        ASSERT_EQ(rep.status, LcpStatus::kConverged) << what << " residual " << rep.residual;
        EXPECT_LE(naturalResidual(p, x), 2e-5) << what;
        // Accelerated, the solve stops at the first pass that meets the tolerance, checked or
        // not (testsIterate): capped one pass earlier, the same solve does not converge.
        ASSERT_GT(rep.iterations, 0) << what;
        LcpOptions shorter = o;
        shorter.maxIterations = rep.iterations - 1;
        std::vector<float> y(x.size(), 0.0f);
        EXPECT_NE(m_gpu->solve(p, y, shorter).status, LcpStatus::kConverged) << what;
        const auto ref = reference::solveBounded(p);
        ASSERT_TRUE(ref.has_value()) << what;
        const double bound = (1 + s.maxEig) / s.minEig * std::sqrt(double(p.n)) * 2e-5 + 1e-6;
        EXPECT_LE(test::maxAbsDiff(x, *ref), bound) << what;
    }
}

// Islands larger than any workgroup: 3 000 and 30 000 rows with disc pairs, 20 iterations,
// against projected Jacobi in double. Float rounding of ~25 products per row and iteration
// leaves a relative gap of ~1e-6 per step that the contraction does not amplify, so the
// 1e-4 (1 + max|x|) tolerance of the dense comparison holds with room.
TEST_F(LcpGpuMatrixFree, LargeIslandsMatchDoubleJacobi) {
    for (int contacts : {1000, 10000}) {
        test::RowOperatorShape shape;
        shape.contacts = contacts;
        shape.friction = true;
        shape.grouped = contacts == 1000;
        const unsigned seed = m_seed + static_cast<unsigned>(contacts);
        const auto p = test::rowOperatorProblem(shape, seed);
        LcpOptions o;
        o.omega = 0.3f;  // contact rows couple a few others: well inside the convergent range
        o.maxIterations = 20;
        std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
        const auto rep = m_gpu->solve(p, x, o);
        ASSERT_TRUE(rep.error.empty()) << rep.error;
        EXPECT_EQ(rep.iterations, 20);
        EXPECT_EQ(rep.status, LcpStatus::kIterationLimit);
        const std::vector<float> zero(x.size(), 0.0f);
        const auto ref = jacobiDouble(p, zero, o.omega, o.maxIterations);
        std::vector<float> reff(ref.begin(), ref.end());
        expectClose(reff, x, "rows " + std::to_string(p.n) + " seed " + std::to_string(seed));
        // The reported residual is r(x^20), measured on the GPU in float.
        EXPECT_NEAR(rep.residual, naturalResidual(p, x), 1e-4 * (1.0 + rep.residual));
    }
}

// (3) A batch as the world sends it: dense islands and matrix-free islands of many sizes (one
// of 1200 rows, beyond the 1024 rows one workgroup of the dense path takes) interleaved, each
// block's own 2n iterations. Every block's iterations, status, residual and x equal solving it
// alone: the blocks do not interact, and every row's arithmetic is the same in both runs.
TEST_F(LcpGpuMatrixFree, MixedBatchEqualsEachBlockAlone) {
    std::vector<LcpProblem> blocks;
    unsigned k = 0;
    for (int contacts : {3, 50, 1, 400, 12, 90}) {
        test::RowOperatorShape shape;
        shape.contacts = contacts;
        shape.friction = contacts % 2 == 0;
        blocks.push_back(test::rowOperatorProblem(shape, m_seed + 97u * k++));
        if (contacts == 50) {
            blocks.push_back(test::spdProblem(40, m_seed + 97u * k++));
        }
        if (contacts == 400) {
            blocks.push_back(test::contactProblem(100, m_seed + 97u * k++, true));
        }
        if (contacts == 12) {
            blocks.push_back(test::contactProblem(8, m_seed + 97u * k++, true));
        }
    }
    std::size_t total = 0;
    for (const auto& b : blocks) {
        total += static_cast<std::size_t>(b.n);
    }
    LcpOptions o;
    o.omega = 0.25f;
    o.chebyshevRho = 0.5f;
    o.tolerance = 1e-4f;  // some blocks stop early, each at its own check point
    o.recordHistory = true;
    std::vector<float> x(total);
    std::mt19937 rng(m_seed);
    std::uniform_real_distribution<float> guess(0.0f, 0.5f);
    for (float& v : x) {
        v = guess(rng);
    }
    const std::vector<float> x0 = x;
    const auto batch = m_gpu->solveBatch(blocks, x, o);
    ASSERT_EQ(batch.size(), blocks.size());
    std::size_t off = 0;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto n = static_cast<std::size_t>(blocks[b].n);
        std::vector<float> alone(x0.begin() + static_cast<std::ptrdiff_t>(off),
                                 x0.begin() + static_cast<std::ptrdiff_t>(off + n));
        const auto rep = m_gpu->solve(blocks[b], alone, o);
        const std::string what = "block " + std::to_string(b) + " (" +
                                 (blocks[b].matrixFree() ? "matrix-free" : "dense") + ", n " +
                                 std::to_string(n) + ")";
        ASSERT_TRUE(batch[b].error.empty()) << what << ": " << batch[b].error;
        EXPECT_EQ(batch[b].iterations, rep.iterations) << what;
        EXPECT_EQ(batch[b].status, rep.status) << what;
        EXPECT_EQ(batch[b].residual, rep.residual) << what;
        EXPECT_EQ(batch[b].history, rep.history) << what;
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(x[off + i], alone[i]) << what << " i " << i;
        }
        off += n;
    }
}

// (4) Two dispatches per iteration for the whole batch (gather, rows) plus the final check and
// the collection, whatever the number of blocks; two readbacks (three with the history),
// whatever the iteration count.
TEST_F(LcpGpuMatrixFree, DispatchesPerIterationAndReadbacksIndependentOfIterations) {
    std::vector<LcpProblem> blocks;
    for (unsigned k = 0; k < 5; ++k) {
        test::RowOperatorShape shape;
        shape.contacts = 4 + 20 * static_cast<int>(k);
        shape.friction = k % 2 == 1;
        blocks.push_back(test::rowOperatorProblem(shape, m_seed + k));
    }
    std::size_t total = 0;
    for (const auto& b : blocks) {
        total += static_cast<std::size_t>(b.n);
    }
    for (int iterations : {10, 200}) {
        for (bool history : {false, true}) {
            LcpOptions o;
            o.omega = 0.25f;
            o.maxIterations = iterations;
            o.recordHistory = history;
            std::vector<float> x(total, 0.0f);
            const auto reps = m_gpu->solveBatch(blocks, x, o);
            for (const auto& rep : reps) {
                ASSERT_TRUE(rep.error.empty()) << rep.error;
                EXPECT_EQ(rep.dispatches, gpu_layout::mfDispatches(iterations));
                EXPECT_EQ(rep.dispatches, 2 * iterations + 4);
                EXPECT_EQ(rep.readbacks, history ? 3 : 2);
                EXPECT_EQ(rep.iterations, iterations);
                EXPECT_EQ(rep.history.size(), history ? std::size_t(iterations) + 1 : 0u);
                EXPECT_GE(rep.solveMs, 0.0);
                EXPECT_GE(rep.uploadMs, 0.0);
            }
        }
    }
}

// The stopping rules on the GPU: divergence (omega far beyond 2 / lambda_max(D^-1 A) with
// free rows) leaves the last checked finite iterate and its residual; a block that diverges
// does not stop the others of its batch.
TEST_F(LcpGpuMatrixFree, DivergenceIsPerBlock) {
    test::RowOperatorShape shape;
    shape.contacts = 60;
    auto wild = test::rowOperatorProblem(shape, m_seed);
    std::fill(wild.lo.begin(), wild.lo.end(), -kInfinity);  // free rows: a linear iteration
    const auto tame = test::rowOperatorProblem(shape, m_seed + 1u);
    const auto s = test::spectrum(test::densified(wild));
    LcpOptions o;
    o.omega = static_cast<float>(3.0 / s.maxScaled);  // error grows ~2x per step
    o.maxIterations = 2000;
    o.checkEvery = 4;
    std::vector<float> x(static_cast<std::size_t>(wild.n + tame.n), 0.0f);
    const std::vector<LcpProblem> blocks = {wild, tame};
    const auto reps = m_gpu->solveBatch(blocks, x, o);
    EXPECT_EQ(reps[0].status, LcpStatus::kDiverged);
    EXPECT_LT(reps[0].iterations, o.maxIterations);
    EXPECT_TRUE(std::isfinite(reps[0].residual));
    for (float v : x) {
        ASSERT_TRUE(std::isfinite(v));
    }
    std::vector<float> xw(static_cast<std::size_t>(wild.n), 0.0f);
    EXPECT_EQ(m_cpu->solve(test::densified(wild), xw, o).status, LcpStatus::kDiverged);
    // The tame block, at a convergent omega, is unaffected: it runs its own stopping rule.
    o.omega = goodOmega(test::spectrum(test::densified(tame)));
    std::vector<float> xt(static_cast<std::size_t>(tame.n), 0.0f), xb(x.size(), 0.0f);
    const auto alone = m_gpu->solve(tame, xt, o);
    const auto both = m_gpu->solveBatch(blocks, xb, o);
    EXPECT_EQ(both[1].status, alone.status);
    EXPECT_EQ(both[1].iterations, alone.iterations);
}

// (5) Malformed operators: a clear error for the block, x untouched, nothing run; in a batch,
// every block reports it (as for dense input errors).
TEST_F(LcpGpuMatrixFree, MalformedOperatorsAreRejected) {
    test::RowOperatorShape shape;
    shape.contacts = 12;
    shape.friction = true;
    const auto good = test::rowOperatorProblem(shape, m_seed);
    struct Case {
        const char* name;
        void (*breakIt)(LcpProblem&);
        const char* expect;
    };
    using Probe = RowOperatorProbe;
    const Case cases[] = {
        {"body changed after buildBodyIndex",
         [](LcpProblem& p) { p.op.setBodies(0, p.op.body(0, 0) == 0 ? 1 : 0, p.op.body(0, 1)); },
         "stale"},
        {"body out of range",
         [](LcpProblem& p) { p.op.setBodies(0, p.op.body(0, 0), p.op.bodies()); }, "outside"},
        {"negative body", [](LcpProblem& p) { p.op.setBodies(1, -2, p.op.body(1, 1)); }, "outside"},
        {"bodyStart decreasing",
         [](LcpProblem& p) { Probe::bodyStart(p.op)[1] = Probe::bodyStart(p.op).back() + 5; },
         "stale"},
        {"rows of a body out of order",
         [](LcpProblem& p) {
             for (int b = 0; b < p.op.bodies(); ++b) {
                 if (Probe::bodyStart(p.op)[b + 1] - Probe::bodyStart(p.op)[b] >= 2) {
                     std::swap(Probe::bodyEntries(p.op)[Probe::bodyStart(p.op)[b]],
                               Probe::bodyEntries(p.op)[Probe::bodyStart(p.op)[b] + 1]);
                     return;
                 }
             }
         },
         "out of order"},
        {"an entry listed twice",
         [](LcpProblem& p) {
             for (int b = 0; b < p.op.bodies(); ++b) {
                 if (Probe::bodyStart(p.op)[b + 1] - Probe::bodyStart(p.op)[b] >= 2) {
                     Probe::bodyEntries(p.op)[Probe::bodyStart(p.op)[b] + 1] =
                         Probe::bodyEntries(p.op)[Probe::bodyStart(p.op)[b]];
                     return;
                 }
             }
         },
         "out of order"},
        {"rows added after buildBodyIndex",
         [](LcpProblem& p) {
             p.n += 1;
             p.op.resize(p.n, p.op.bodies());
             p.op.setBodies(p.n - 1, 0, -1);
             p.b.push_back(-1.0f);
             p.lo.push_back(0.0f);
             p.hi.push_back(kInfinity);
             p.frictionNormal.push_back(-1);
             p.mu.push_back(0.0f);
         },
         ""},
        {"K missing a row",
         [](LcpProblem& p) { Probe::k(p.op).resize(Probe::k(p.op).size() - 12); }, "rows"},
#if defined(__AVX2__) && defined(__FMA__)  // elsewhere no operator is built without rows
        {"contact form built without rows (RowOperator::finishContactForm)",
         [](LcpProblem& p) {
             test::RowOperatorShape form;
             form.contacts = 20;
             form.friction = true;
             form.sameBody = false;
             form.inverseMasses = true;
             p = test::rowOperatorProblem(form, 11u);
             if (!test::dropContactFormRows(p)) {
                 p.n = -1;  // not of the contact form: refused anyway, and the message shows it
             }
         },
         "without them"},
#endif
    };
    for (const Case& c : cases) {
        LcpProblem bad = good;
        c.breakIt(bad);
        std::vector<float> x(static_cast<std::size_t>(bad.n), 0.25f);
        const auto rep = m_gpu->solve(bad, x, {});
        EXPECT_FALSE(rep.error.empty()) << c.name;
        EXPECT_NE(rep.error.find(c.expect), std::string::npos) << c.name << ": " << rep.error;
        EXPECT_EQ(rep.status, LcpStatus::kDiverged) << c.name;
        for (float v : x) {
            ASSERT_EQ(v, 0.25f) << c.name;
        }
        const std::vector<LcpProblem> blocks = {test::spdProblem(5, m_seed), bad};
        std::vector<float> xb(static_cast<std::size_t>(5 + bad.n), 0.25f);
        const auto reps = m_gpu->solveBatch(blocks, xb, {});
        ASSERT_EQ(reps.size(), 2u);
        for (const auto& r : reps) {
            EXPECT_NE(r.error.find("block 1"), std::string::npos) << c.name << ": " << r.error;
        }
        for (float v : xb) {
            ASSERT_EQ(v, 0.25f) << c.name;
        }
    }
}

}  // namespace
}  // namespace ww::lcp
