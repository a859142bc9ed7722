// CPU backend of the LCP solver: projected Jacobi and projected Gauss-Seidel.
//
// Jacobi (Moravanszky 2003, section 5, with omega = -omega_paper and D = diag(A)):
//   w^t     = A x^t + b                                   (one SIMD matVec, all threads)
//   r(x^t)  = max_i | x_i^t - clamp(x_i^t - w_i^t, lo_i, hi_i) |   (free: w^t is at hand)
//   x^{t+1} = clamp(x^t - omega D^-1 w^t, lo(x^t), hi(x^t))
//   (optionally Chebyshev-accelerated: x^{t+1} = clamp(w_t (x^{t+1} - x^{t-1}) + x^{t-1}, ..))
// Friction rows take lo = -mu max(x_k^t, 0), hi = mu max(x_k^t, 0) from the current iterate;
// a disc pair (f, g) instead steps with omega / max(A_ff, A_gg) for both rows and is projected
// jointly onto ||(x_f, x_g)|| <= mu max(x_k^t, 0) (lcp_solver.h). The SIMD pass handles the
// single rows; the pairs (a pair may straddle two threads' chunks) follow in a scalar pass.
// Gauss-Seidel updates row i in place with the newest values of x (as ODE quickstep and
// Bullet do), a disc pair as one block at its first row: both rows from the same x, then the
// joint projection with the newest x_k (updating f before g would move the fixed point off the
// solution, as unequal scales do); its residual needs an extra matVec, so it is computed only
// when asked for.
// Stopping: a fixed count (0 = 2n), or r <= tolerance checked every checkEvery iterations.
// Divergence: a non-finite w or x, or r above divergenceGrowth times the smallest r seen.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "solver/core/timer.h"
#include "solver/exec/executor.h"
#include "solver/lcp/lcp_common.h"
#include "solver/lcp/lcp_cpu_kernels.h"
#include "solver/lcp/lcp_cpu_plan.h"
#include "solver/linalg/dense.h"

namespace ww::lcp {

namespace {

using cpu::kBoundRows;
using cpu::kContactConstFloats;
using cpu::kContactGroup;
using cpu::kGatherChunkBodies;
using cpu::kMatrixFreeChunkRows;
using cpu::Workspace;
using kernels::RowsResult;

// The step scale of row i (omega / A_ii), shared by a disc pair (omega / max(A_ff, A_gg)).
float stepScale(const LcpProblem& p, const Workspace& ws, float omega, std::size_t i) {
    float d = p.diagonal(static_cast<int>(i));
    if (!ws.partner.empty() && ws.partner[i] >= 0) {
        d = std::max(d, p.diagonal(ws.partner[i]));
    }
    return omega / d;
}

// src[0, n) into each of dst, in fixed chunks on the executor's threads (ex == nullptr: on
// this one): a big block's iterate is ~0.5 MB, copied at the start and end of every solve.
void copyRows(const float* src, std::size_t n, std::initializer_list<float*> dst,
              const exec::Executor* ex) {
    constexpr std::ptrdiff_t kChunk = 16384;
    exec::forChunks(
        ex, exec::chunkCount(static_cast<std::ptrdiff_t>(n), kChunk),
        [&](std::ptrdiff_t c) {
            const auto first = static_cast<std::size_t>(c * kChunk);
            const std::size_t last = std::min(n, first + static_cast<std::size_t>(kChunk));
            for (float* d : dst) {
                std::copy(src + first, src + last, d + first);
            }
        },
        static_cast<std::ptrdiff_t>(n * dst.size()));
}

// Bounds of every row at iterate x; friction rows take them from their normal's value.
void currentBounds(const LcpProblem& p, const float* x, float* lo, float* hi) {
    std::memcpy(lo, p.lo.data(), p.lo.size() * sizeof(float));
    std::memcpy(hi, p.hi.data(), p.hi.size() * sizeof(float));
    if (!p.hasFriction()) {
        return;
    }
    for (int i = 0; i < p.n; ++i) {
        const int k = p.frictionNormal[i];
        if (k >= 0) {
            const float bound = p.mu[i] * std::max(x[k], 0.0f);
            lo[i] = -bound;
            hi[i] = bound;
        }
    }
}

// Residual of x given w = A x (b added here); NaN/Inf in w or x make it infinite.
float residualFromW(const LcpProblem& p, const float* x, const float* w, const float* lo,
                    const float* hi) {
    float r = 0.0f;
    float probe = 0.0f;
    for (int i = 0; i < p.n; ++i) {
        const float wi = w[i] + p.b[i];
        const float ri = std::abs(x[i] - std::clamp(x[i] - wi, lo[i], hi[i]));
        r = std::max(r, ri);
        probe += 0.0f * (wi + ri);  // NaN when anything is NaN or infinite
    }
    return std::isfinite(probe) ? r : kInfinity;
}

// Pins the disc pairs' rows to [x_i, x_i], so that the row-wise residual and step leave them
// (residual 0, x'_i = x_i) for the pair pass.
void pinPairRows(const Workspace& ws, const float* x, float* lo, float* hi) {
    for (const FrictionPair& q : ws.pairs) {
        for (int i : {q.first, q.second}) {
            lo[i] = hi[i] = x[i];
        }
    }
}

// The disc pairs' part of the natural-map residual, given w = A x (b added here).
float pairResidual(const LcpProblem& p, const Workspace& ws, const float* x, const float* w) {
    float r = 0.0f;
    float probe = 0.0f;
    for (const FrictionPair& q : ws.pairs) {
        const float wf = w[q.first] + p.b[static_cast<std::size_t>(q.first)];
        const float wg = w[q.second] + p.b[static_cast<std::size_t>(q.second)];
        float vf = x[q.first] - wf;
        float vg = x[q.second] - wg;
        projectDisc(vf, vg, q.mu * std::max(x[q.normal], 0.0f));
        r = std::max({r, std::abs(x[q.first] - vf), std::abs(x[q.second] - vg)});
        probe += 0.0f * (wf + wg + r);
    }
    return std::isfinite(probe) ? r : kInfinity;
}

// u = W J^T x (RowOperator::gatherBodies) over the executor's threads, or on this one; in
// contact form the contacts' impulses first (RowOperator::impulsesOf).
void gatherBodies(const RowOperator& op, const float* x, Workspace& ws, const exec::Executor* ex) {
    const std::ptrdiff_t bodies = op.bodies();
    const float* impulses = op.impulsesOf(x, ws.impulses, ex);
    if (ex == nullptr) {
        op.gatherBodies(x, ws.u.data(), 0, op.bodies(), impulses);
        return;
    }
    ex->parallelFor(
        exec::chunkCount(bodies, kGatherChunkBodies),
        [&](std::ptrdiff_t c) {
            const auto b = c * kGatherChunkBodies;
            op.gatherBodies(x, ws.u.data(), static_cast<int>(b),
                            static_cast<int>(std::min(b + kGatherChunkBodies, bodies)), impulses);
        },
        static_cast<std::ptrdiff_t>(op.macs() / 2), &ws.gatherAffinity);
}

// w = A x for either form of A.
void productOf(const LcpProblem& p, const float* x, Workspace& ws, const exec::Executor* ex) {
    if (p.matrixFree()) {
        gatherBodies(p.op, x, ws, ex);
        const std::ptrdiff_t n = p.n;
        const auto rows = [&](std::ptrdiff_t c) {
            const auto b = c * kMatrixFreeChunkRows;
            p.op.applyRows(x, ws.u.data(), ws.w.data(), static_cast<int>(b),
                           static_cast<int>(std::min(b + kMatrixFreeChunkRows, n)));
        };
        if (ex != nullptr) {
            ex->parallelFor(exec::chunkCount(n, kMatrixFreeChunkRows), rows,
                            static_cast<std::ptrdiff_t>(p.op.macs() / 2));
        } else {
            for (std::ptrdiff_t c = 0; c < exec::chunkCount(n, kMatrixFreeChunkRows); ++c) {
                rows(c);
            }
        }
        return;
    }
    if (ex != nullptr) {
        linalg::matVec(*ex, p.a.data(), p.n, p.n, x, ws.w.data());
    } else {
        linalg::matVec(p.a.data(), p.n, p.n, x, ws.w.data());
    }
}

float residualOf(const LcpProblem& p, const float* x, Workspace& ws, const exec::Executor* ex) {
    productOf(p, x, ws, ex);
    currentBounds(p, x, ws.lo.data(), ws.hi.data());
    pinPairRows(ws, x, ws.lo.data(), ws.hi.data());
    return std::max(residualFromW(p, x, ws.w.data(), ws.lo.data(), ws.hi.data()),
                    pairResidual(p, ws, x, ws.w.data()));
}

// Tracks convergence and divergence at the checked iterates; returns true to stop.
struct Monitor {
    const LcpOptions& o;
    float floor;
    float minResidual = kInfinity;
    bool diverged = false;
    bool converged = false;

    bool check(float r) {
        if (!std::isfinite(r)) {
            diverged = true;
            return true;
        }
        if (o.tolerance > 0.0f && r <= o.tolerance) {
            converged = true;
            return true;
        }
        if (r > o.divergenceGrowth * std::max(minResidual, floor) && r > o.tolerance) {
            diverged = true;
            return true;
        }
        minResidual = std::min(minResidual, r);
        return false;
    }
};

void finish(const LcpProblem& p, std::span<float> x, const float* iterate, const Monitor& m,
            Workspace& ws, const exec::Executor* ex, LcpReport& rep) {
    const auto n = static_cast<std::size_t>(p.n);
    if (m.diverged) {
        rep.status = LcpStatus::kDiverged;
        std::copy_n(ws.good.data(), n, x.data());
        rep.residual = residualOf(p, x.data(), ws, ex);
        return;
    }
    copyRows(iterate, n, {x.data()}, ex);
    rep.status = m.converged ? LcpStatus::kConverged : LcpStatus::kIterationLimit;
}

// Pairs per chunk of the pair pass: a fixed size, so that which thread runs which chunk never
// changes a result.
constexpr std::ptrdiff_t kPairChunk = 512;

#if defined(__AVX2__) && defined(__FMA__)
// The pair stage's update of pairs [begin, end) 8 at a time with the kernels' pair arithmetic (the
// same as onePair's, so that a pair's result does not depend on where it falls); returns where
// the scalar loop continues (the last end - begin mod 8 pairs).
std::ptrdiff_t pairPassAvx2(const LcpProblem& p, const float* cur, float* next, const Workspace& ws,
                            float weight, bool wantResidual, std::ptrdiff_t begin,
                            std::ptrdiff_t end, RowsResult& out) {
    using F = lanes::Float8;
    const F zero = lanes::splat<F>(0.0f);
    const F wt = lanes::splat<F>(weight);
    F r = zero;
    F probe = zero;
    std::ptrdiff_t k = begin;
    alignas(32) float outF[8], outG[8];
    for (; k + 8 <= end; k += 8) {
        const auto load = [&](const std::vector<std::int32_t>& v) {
            return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v.data() + k));
        };
        // Eight consecutive contacts' row triples are loaded and split; other pairs gathered.
        const bool triples = ws.tripleAt[static_cast<std::size_t>(k)] != 0;
        const std::int32_t base = ws.pairNormal[static_cast<std::size_t>(k)];
        const __m256i f = load(ws.pairFirst);
        const __m256i g = load(ws.pairSecond);
        const auto rowsOf = [&](const float* v, __m256i rows, auto stream) {
            return F{triples ? kernels::strideThree<decltype(stream)::value>(v + base)
                             : _mm256_i32gather_ps(v, rows, 4)};
        };
        using Normal = std::integral_constant<int, 0>;
        using First = std::integral_constant<int, 1>;
        using Second = std::integral_constant<int, 2>;
        const F radius = lanes::load<F>(ws.pairMu.data() + k) *
                         max(zero, rowsOf(cur, load(ws.pairNormal), Normal{}));
        const F xf = rowsOf(cur, f, First{});
        const F xg = rowsOf(cur, g, Second{});
        const F wf = rowsOf(ws.w.data(), f, First{}) + rowsOf(p.b.data(), f, First{});
        const F wg = rowsOf(ws.w.data(), g, Second{}) + rowsOf(p.b.data(), g, Second{});
        if (wantResidual) {
            kernels::pairResidual(xf, xg, wf, wg, radius, r, probe);
        }
        F vf, vg;
        kernels::pairStep(xf, xg, wf, wg, rowsOf(ws.invDiag.data(), f, First{}),
                          rowsOf(ws.invDiag.data(), g, Second{}), radius, vf, vg);
        if (weight != 1.0f) {
            kernels::pairChebyshev(wt, rowsOf(ws.prev.data(), f, First{}),
                                   rowsOf(ws.prev.data(), g, Second{}), radius, vf, vg);
        }
        _mm256_store_ps(outF, vf.v);
        _mm256_store_ps(outG, vg.v);
        if (triples) {
            for (int l = 0; l < 8; ++l) {
                next[base + 3 * l + 1] = outF[l];
                next[base + 3 * l + 2] = outG[l];
            }
        } else {
            for (int l = 0; l < 8; ++l) {
                next[ws.pairFirst[static_cast<std::size_t>(k + l)]] = outF[l];
                next[ws.pairSecond[static_cast<std::size_t>(k + l)]] = outG[l];
            }
        }
    }
    kernels::fold(r, probe, out);
    return k;
}
#endif

// Pair k of one Jacobi pass (ws.w = A x^t on entry, rows pinned by pinPairRows), one lane of
// the kernels' pair arithmetic:
//   v = Proj_disc(x_pair - s w_pair), s = omega / max(A_ff, A_gg) (ws.invDiag), and with a
//   Chebyshev weight != 1, x'_pair = Proj_disc(weight (v - x^{t-1}_pair) + x^{t-1}_pair).
// With wantResidual its part of r(x^t) goes into out (a NaN or infinite w or x reaches
// out.probe); otherwise nothing does.
void onePair(const LcpProblem& p, const float* cur, float* next, const Workspace& ws, float weight,
             bool wantResidual, std::size_t k, RowsResult& out) {
    using F = lanes::Float1;
    const FrictionPair& q = ws.pairs[k];
    const auto f = static_cast<std::size_t>(q.first);
    const auto g = static_cast<std::size_t>(q.second);
    const F radius = F{q.mu} * max(F{0.0f}, F{cur[q.normal]});
    const F xf{cur[f]};
    const F xg{cur[g]};
    const F wf = F{ws.w[f]} + F{p.b[f]};
    const F wg = F{ws.w[g]} + F{p.b[g]};
    if (wantResidual) {
        F r{0.0f};
        F probe{0.0f};
        kernels::pairResidual(xf, xg, wf, wg, radius, r, probe);
        kernels::fold(r, probe, out);
    }
    F vf, vg;
    kernels::pairStep(xf, xg, wf, wg, F{ws.invDiag[f]}, F{ws.invDiag[g]}, radius, vf, vg);
    if (weight != 1.0f) {
        kernels::pairChebyshev(F{weight}, F{ws.prev[f]}, F{ws.prev[g]}, radius, vf, vg);
    }
    next[f] = vf.v;
    next[g] = vg.v;
}

// The pairs [begin, end) of one Jacobi pass (onePair; eight at a time where the CPU has AVX2,
// with the same operations per pair).
RowsResult pairRange(const LcpProblem& p, const float* cur, float* next, const Workspace& ws,
                     float weight, bool wantResidual, std::ptrdiff_t begin, std::ptrdiff_t end) {
    RowsResult out;
    std::ptrdiff_t k = begin;
#if defined(__AVX2__) && defined(__FMA__)
    k = pairPassAvx2(p, cur, next, ws, weight, wantResidual, k, end, out);
#endif
    for (; k < end; ++k) {
        onePair(p, cur, next, ws, weight, wantResidual, static_cast<std::size_t>(k), out);
    }
    return out;
}

// The row-wise part of a Jacobi pass over rows [b, e), w = A x^t there: x^{t-1} kept for the
// pair pass, then the bounds (a friction row's from its normal's current value) kBoundRows
// rows at a time into buffers that stay in this core's L1, and the projection.
RowsResult projectRowRange(const LcpProblem& p, const float* cur, float* next, Workspace& ws,
                           float weight, std::ptrdiff_t b, std::ptrdiff_t e) {
    if (weight != 1.0f && !ws.prev.empty()) {
        std::copy(next + b, next + e, ws.prev.data() + b);  // x^{t-1}, for the pair pass
    }
    const auto arrays = [&](std::ptrdiff_t s, const float* lo, const float* hi) {
        return kernels::RowArrays{cur + s, ws.w.data() + s,       p.b.data() + s, lo,
                                  hi,      ws.invDiag.data() + s, next + s};
    };
    if (!p.hasFriction()) {
        return kernels::projectRows(arrays(b, p.lo.data() + b, p.hi.data() + b), weight, e - b);
    }
    RowsResult out;
    for (std::ptrdiff_t s = b; s < e; s += kBoundRows) {
        const std::ptrdiff_t count = std::min(kBoundRows, e - s);
        alignas(64) float lo[kBoundRows];
        alignas(64) float hi[kBoundRows];
        kernels::rowBounds(cur, ws.boundOf.data() + s, p.mu.data() + s, p.lo.data() + s,
                           p.hi.data() + s, lo, hi, s, count);
        const RowsResult q = kernels::projectRows(arrays(s, lo, hi), weight, count);
        out.r = std::max(out.r, q.r);
        out.probe += q.probe;
    }
    return out;
}

#if defined(__AVX2__) && defined(__FMA__)
// Contacts [begin, end) of a pass over contact rows (Workspace::contactRows) eight at a time:
// each normal row with the kernels' row arithmetic, each pair with their pair arithmetic, x^{t-1}
// read from next before the contacts' x^{t+1} overwrite it. The pairs' rows add to r and the
// probe what a pinned row adds (|x - clamp(x - w, x, x)| and 0 (w + x)). Returns where the rest
// continues: the contacts after the last whole group of Workspace::contactConsts.
std::ptrdiff_t contactPassAvx2(const float* cur, float* next, const Workspace& ws, float weight,
                               bool wantResidual, bool wByField, const RowOperator* impulsesOf,
                               float* impulses, std::ptrdiff_t begin, std::ptrdiff_t end,
                               RowsResult& out) {
    using F = lanes::Float8;
    using kernels::strideThree;
    const F zero = lanes::splat<F>(0.0f);
    const F wt = lanes::splat<F>(weight);
    F r = zero;
    F probe = zero;
    std::ptrdiff_t k = begin;
    // The solve's constants by groups of eight contacts (Workspace::contactConsts): plain loads
    // where the row-major arrays take three loads and a shuffle each. Contacts outside whole
    // groups (and a range that does not start at one: never in the pass's row chunks, which
    // hold whole groups) take contactRange's scalar loops.
    const auto groups = static_cast<std::ptrdiff_t>(ws.contactConsts.size() / kContactConstFloats);
    const std::ptrdiff_t groupedEnd =
        begin % 8 == 0 ? std::min<std::ptrdiff_t>(end, 8 * groups) : begin;
    for (; k + 8 <= groupedEnd; k += 8) {
        const std::ptrdiff_t base = 3 * k;
        const float* xr = cur + base;
        const float* wr = ws.w.data() + base;
        const float* cg =
            ws.contactConsts.data() + kContactConstFloats * static_cast<std::size_t>(k / 8);
        const auto at = [cg](int field) { return F{_mm256_loadu_ps(cg + 8 * field)}; };
        const F xn{strideThree<0>(xr)};
        const F xf{strideThree<1>(xr)};
        const F xg{strideThree<2>(xr)};
        // w by field (RowOperator::applyGroupsByField) or in row order.
        const F wn = F{wByField ? _mm256_loadu_ps(wr) : strideThree<0>(wr)} + at(0);
        const F wf = F{wByField ? _mm256_loadu_ps(wr + 8) : strideThree<1>(wr)} + at(1);
        const F wg = F{wByField ? _mm256_loadu_ps(wr + 16) : strideThree<2>(wr)} + at(2);
        const F l = at(6);
        const F h = at(7);
        F vn = kernels::rowStep(xn, wn, l, h, at(3), r, probe);
        kernels::rowStep(xf, wf, xf, xf, zero, r, probe);  // pinned: r and probe only
        kernels::rowStep(xg, wg, xg, xg, zero, r, probe);
        const F radius = lanes::load<F>(ws.pairMu.data() + k) * max(zero, xn);
        if (wantResidual) {
            kernels::pairResidual(xf, xg, wf, wg, radius, r, probe);
        }
        F vf, vg;
        kernels::pairStep(xf, xg, wf, wg, at(4), at(5), radius, vf, vg);
        if (weight != 1.0f) {
            const float* pr = next + base;  // x^{t-1}
            vn = kernels::rowChebyshev(wt, vn, F{strideThree<0>(pr)}, l, h);
            kernels::pairChebyshev(wt, F{strideThree<1>(pr)}, F{strideThree<2>(pr)}, radius, vf,
                                   vg);
        }
        kernels::storeThree(next + base, vn.v, vf.v, vg.v);
        if (impulsesOf != nullptr) {
            impulsesOf->groupImpulses(static_cast<std::size_t>(k / 8), vn.v, vf.v, vg.v, impulses);
        }
    }
    kernels::fold(r, probe, out);
    return k;
}
#endif

// Contacts [begin, end) of a pass over contact rows (Workspace::contactRows), w = A x^t on
// their rows: the rows' and the pairs' updates of projectRowRange and pairRange, eight
// contacts at a time where the CPU has AVX2. With `impulses` (a contact-form operator) the
// contacts' impulses of x^{t+1} too (RowOperator::contactImpulses, the same bits), which the
// next pass's gather reads: from the registers that hold x^{t+1} where eight are done at once.
RowsResult contactRange(const LcpProblem& p, const float* cur, float* next, Workspace& ws,
                        float weight, bool wantResidual, bool wByField, float* impulses,
                        std::ptrdiff_t begin, std::ptrdiff_t end) {
    RowsResult out;
    std::ptrdiff_t k = begin;
#if defined(__AVX2__) && defined(__FMA__)
    k = contactPassAvx2(cur, next, ws, weight, wantResidual, wByField,
                        impulses != nullptr ? &p.op : nullptr, impulses, k, end, out);
#else
    (void)wByField;
#endif
    if (k < end) {
        const RowsResult q = projectRowRange(p, cur, next, ws, weight, 3 * k, 3 * end);
        const RowsResult pq = pairRange(p, cur, next, ws, weight, wantResidual, k, end);
        out.r = std::max({out.r, q.r, pq.r});
        out.probe += q.probe + pq.probe;
        if (impulses != nullptr) {
            p.op.contactImpulses(next, impulses, static_cast<int>(k), static_cast<int>(end));
        }
    }
    return out;
}

// The Jacobi solve's loops as stages of one Executor::runStages, so that its threads are
// handed the work once a solve instead of two or three times a pass (each hand-off and join
// costs a few microseconds, as much as a small island's pass). A pass is, in order:
//   kImpulses  (contact form) each contact's impulses of x^t, RowOperator::contactImpulses;
//              with contact rows only before the first pass: each pass's kRows writes the
//              impulses of the x^{t+1} it computes (contactRange), for the next pass's gather;
//   kGather    (matrix-free) u = W J^T x^t by chunks of bodies: every row's update reads it;
//   kRows      each chunk of rows computes its part of w = A x^t + b, the residual of x^t on
//              those rows and their x^{t+1} (contactRange for contact rows, else
//              projectRowRange, then the chunk's own disc pairs: Workspace::chunkPairBegin), so
//              the product and the projection share the rows while they are in that core's
//              cache; with `keep`, each chunk also copies its rows of x^t there;
//   kPairs     the disc pairs as a pass of their own, where they do not run with their rows.
// Between passes one thread (the one that finished the pass's last chunk) combines the
// chunks' residual partials in chunk order and runs the iteration's tests. r is a max and the
// probe is only tested for finiteness, so neither depends on which thread ran which chunk.
// With acceleration (weight != 1), next holds x^{t-1} at a pass's start and x^{t+1} at its
// end. Without wantResidual the disc pairs' part of r is skipped (a second disc projection
// per pair, ~9 % of a matrix-free wall pass): r is then the other rows' part only, and only
// NaN/infinity is certain to show.
enum class PassStage { kImpulses, kGather, kRows, kPairs };

/// Contacts per chunk of the kImpulses stage: whole groups of eight.
constexpr std::ptrdiff_t kImpulseChunkContacts = 512;

void solveJacobi(const LcpProblem& p, std::span<float> x, const LcpOptions& o, Workspace& ws,
                 const exec::Executor* ex, LcpReport& rep) {
    const auto n = static_cast<std::size_t>(p.n);
    const int maxIt = iterationCount(p, o);
    const int every = std::max(1, o.checkEvery);
    ws.contactRows = ws.contactRowsPossible && o.contactPasses;
    // x^0 into cur, good and next (x^{-1} = x^0 for the accelerated step).
    copyRows(x.data(), n, {ws.cur.data(), ws.good.data(), ws.next.data()}, ex);
    // With contact rows, the arrays a pass reads but never changes (b, the step scales, the
    // normal rows' bounds) also by groups of eight contacts (Workspace::contactConsts).
    const std::size_t constGroups = ws.contactRows ? n / (3 * kContactGroup) : 0;
    ws.contactConsts.resize(kContactConstFloats * constGroups);
    // With contact rows and the operator's kept diagonals, stepScale's values read straight
    // from them: row 3k's own, and the disc pair's (3k + 1, 3k + 2) larger one.
    const std::span<const float> kept =
        ws.contactRows && p.matrixFree() ? p.op.keptDiagonals() : std::span<const float>();
    const auto scales = [&](std::ptrdiff_t c) {
        const auto first = static_cast<std::size_t>(c * kMatrixFreeChunkRows);
        const std::size_t last = std::min(n, first + kMatrixFreeChunkRows);
        if (!kept.empty()) {  // chunks hold whole contacts
            for (std::size_t i = first; i < last; i += 3) {
                ws.invDiag[i] = o.omega / kept[i];
                ws.invDiag[i + 1] = o.omega / std::max(kept[i + 1], kept[i + 2]);
                ws.invDiag[i + 2] = o.omega / std::max(kept[i + 2], kept[i + 1]);
            }
        } else {
            for (std::size_t i = first; i < last; ++i) {
                ws.invDiag[i] = stepScale(p, ws, o.omega, i);
            }
        }
        // The groups whose rows lie in this chunk (chunks hold whole groups).
        for (std::size_t g = first / (3 * kContactGroup);
             g < constGroups && 3 * kContactGroup * (g + 1) <= last; ++g) {
            float* out = ws.contactConsts.data() + kContactConstFloats * g;
            const std::size_t row0 = 3 * kContactGroup * g;
#if defined(__AVX2__) && defined(__FMA__)
            using kernels::strideThree;
            const float* b = p.b.data() + row0;
            const float* scale = ws.invDiag.data() + row0;
            const __m256 fields[8] = {strideThree<0>(b),
                                      strideThree<1>(b),
                                      strideThree<2>(b),
                                      strideThree<0>(scale),
                                      strideThree<1>(scale),
                                      strideThree<2>(scale),
                                      strideThree<0>(p.lo.data() + row0),
                                      strideThree<0>(p.hi.data() + row0)};
            for (std::size_t f = 0; f < 8; ++f) {
                _mm256_storeu_ps(out + f * kContactGroup, fields[f]);
            }
#else
            for (std::size_t lane = 0; lane < kContactGroup; ++lane) {
                const std::size_t row = row0 + 3 * lane;
                for (std::size_t s = 0; s < 3; ++s) {
                    out[s * kContactGroup + lane] = p.b[row + s];
                    out[(3 + s) * kContactGroup + lane] = ws.invDiag[row + s];
                }
                out[6 * kContactGroup + lane] = p.lo[row];
                out[7 * kContactGroup + lane] = p.hi[row];
            }
#endif
        }
    };
    const std::ptrdiff_t scaleChunks =
        exec::chunkCount(static_cast<std::ptrdiff_t>(n), kMatrixFreeChunkRows);
    if (ex != nullptr && p.matrixFree()) {
        // A matrix-free diagonal costs a row's two J . K products: ~30 operations.
        ex->parallelFor(scaleChunks, scales, 30 * static_cast<std::ptrdiff_t>(n));
    } else {
        for (std::ptrdiff_t c = 0; c < scaleChunks; ++c) {
            scales(c);
        }
    }
    Monitor mon{o, divergenceFloor(p, ex)};
    float* cur = ws.cur.data();
    float* next = ws.next.data();
    int t = 0;
    chebyshevWeights(o, maxIt, ws.weights);
    int start = 0;  // Chebyshev schedule start (chebyshevStart)
    float rPrev1 = kInfinity, rPrev2 = kInfinity;

    // The pass's loops (PassStage) and what they share with the plan between them.
    const bool matrixFree = p.matrixFree();
    const RowOperator& op = p.op;
    const bool contactForm = matrixFree && op.contactForm();
    // A contact-form operator hands the contact pass its whole groups' w by field (the pass's
    // own layout: no merge into row order and split again); the rows after them in row order.
    // The row chunks begin at whole groups.
    constexpr std::ptrdiff_t kGroupRows = 3 * RowOperator::kTripleGroup;
    static_assert(kMatrixFreeChunkRows % kGroupRows == 0 &&
                  kContactGroup == RowOperator::kTripleGroup);
#if defined(__AVX2__) && defined(__FMA__)
    const bool wByField = contactForm && ws.contactRows;
#else
    const bool wByField = false;
#endif
    const auto rowsN = static_cast<std::ptrdiff_t>(n);
    const std::ptrdiff_t wholeGroups = rowsN / kGroupRows;
    const auto work = static_cast<std::ptrdiff_t>(p.productMacs());
    // On one thread each stage is one chunk (the same bits: rows, bodies and contacts are
    // updated independently, r is a max and the probe only tested for finiteness).
    const bool alone = ex == nullptr || ex->runsAlone(work);
    const std::ptrdiff_t contacts = contactForm ? op.rows() / 3 : 0;
    const std::ptrdiff_t bodies = matrixFree ? op.bodies() : 0;
    const std::ptrdiff_t kRows =
        alone ? std::max<std::ptrdiff_t>(rowsN, 1)
              : (matrixFree ? kMatrixFreeChunkRows : linalg::kMatVecChunkRows);
    const std::ptrdiff_t kImpulses =
        alone ? std::max<std::ptrdiff_t>(contacts, 1) : kImpulseChunkContacts;
    const std::ptrdiff_t kBodies = alone ? std::max<std::ptrdiff_t>(bodies, 1) : kGatherChunkBodies;
    const std::ptrdiff_t impulseChunks = exec::chunkCount(contacts, kImpulses);
    const std::ptrdiff_t gatherChunks = exec::chunkCount(bodies, kBodies);
    const std::ptrdiff_t rowChunks = exec::chunkCount(rowsN, kRows);
    const auto pairCount = static_cast<std::ptrdiff_t>(ws.pairs.size());
    // Each row chunk's own disc pairs right after its rows (Workspace::chunkPairBegin): their
    // w, x^t and x^{t-1} are all in that chunk (their plan is for kMatrixFreeChunkRows chunks).
    const bool pairsInChunks = !alone && !ws.chunkPairBegin.empty() && !ws.contactRows;
    const bool pairStage = pairCount > 0 && !ws.contactRows && !pairsInChunks;
    const std::ptrdiff_t kPairs = alone ? std::max<std::ptrdiff_t>(pairCount, 1) : kPairChunk;
    const std::ptrdiff_t pairChunks = pairStage ? exec::chunkCount(pairCount, kPairs) : 0;
    if (contactForm) {
        ws.impulses.resize(op.impulseFloats());
    }
    // Contact rows in contact form write the impulses of x^{t+1} as they compute it: the next
    // pass then needs no kImpulses stage (only the first pass, for x^0, does).
    float* passImpulses = contactForm && ws.contactRows ? ws.impulses.data() : nullptr;
    bool impulsesOfCur = false;
    ws.chunkPartials.resize(static_cast<std::size_t>(std::max(rowChunks, pairChunks)));

    PassStage stage = PassStage::kRows;
    float weight = 1.0f;
    bool wantResidual = true;
    float* keep = nullptr;
    RowsResult passTotal;  // the rows' part of the pass's r and probe, before the pairs stage
    bool begun = false;
    // The first stage of pass t, its settings from the iterations before.
    const auto beginPass = [&]() -> std::ptrdiff_t {
        weight = 1.0f;
        if (!ws.weights.empty()) {
            start = chebyshevStart(t, start, rPrev1, rPrev2);
            weight = ws.weights[static_cast<std::size_t>(t - start)];
        }
        // The residual is needed at the checked iterates, for the history and for Chebyshev's
        // restart rule (which compares consecutive residuals).
        const bool checked = t == maxIt || t % every == 0;
        wantResidual = o.recordHistory || !ws.weights.empty() || checked;
        // A checked iterate that passes the check becomes the good one: the pass copies it.
        keep = checked && t < maxIt ? ws.kept.data() : nullptr;
        if (impulseChunks > 0 && !impulsesOfCur) {
            stage = PassStage::kImpulses;
            return impulseChunks;
        }
        if (gatherChunks > 0) {
            stage = PassStage::kGather;
            return gatherChunks;
        }
        stage = PassStage::kRows;
        return rowChunks;
    };
    const auto combined = [&](std::ptrdiff_t chunks) {
        RowsResult total;
        for (std::ptrdiff_t c = 0; c < chunks; ++c) {
            const RowsResult& q = ws.chunkPartials[static_cast<std::size_t>(c)];
            total.r = std::max(total.r, q.r);
            total.probe += q.probe;
        }
        return total;
    };
    // After pass t: its residual r(x^t), the tests, then pass t + 1 or the end (true).
    const auto endPass = [&](RowsResult total) {
        const float r = std::isfinite(total.probe) ? total.r : kInfinity;
        rPrev2 = rPrev1;
        rPrev1 = r;
        if (o.recordHistory) {
            rep.history.push_back(r);
        }
        rep.residual = r;
        // The last pass (t == maxIt) only measures the residual of the final iterate. An
        // accelerated pass computed r anyway: it stops the solve wherever r meets the tolerance.
        if (testsIterate(t, every, maxIt, r, o.tolerance, !ws.weights.empty())) {
            if (mon.check(r) || t == maxIt) {
                return true;
            }
            std::swap(ws.good, ws.kept);  // x^t, copied by the pass (a checked iterate)
        }
        std::swap(cur, next);
        impulsesOfCur = passImpulses != nullptr;
        ++t;
        return t > maxIt;
    };
    const auto plan = [&]() -> std::ptrdiff_t {
        if (!begun) {
            begun = true;
            return beginPass();
        }
        switch (stage) {
            case PassStage::kImpulses:
                if (gatherChunks > 0) {
                    stage = PassStage::kGather;
                    return gatherChunks;
                }
                stage = PassStage::kRows;
                return rowChunks;
            case PassStage::kGather:
                stage = PassStage::kRows;
                return rowChunks;
            case PassStage::kRows: {
                passTotal = combined(rowChunks);
                if (pairsInChunks) {
                    for (const std::int32_t k : ws.strayPairs) {
                        onePair(p, cur, next, ws, weight, wantResidual, static_cast<std::size_t>(k),
                                passTotal);
                    }
                }
                if (pairStage) {
                    stage = PassStage::kPairs;
                    return pairChunks;
                }
                return endPass(passTotal) ? 0 : beginPass();
            }
            case PassStage::kPairs: {
                RowsResult total = combined(pairChunks);
                total.r = std::max(passTotal.r, total.r);
                total.probe += passTotal.probe;
                return endPass(total) ? 0 : beginPass();
            }
        }
        return 0;
    };
    const auto chunk = [&](std::ptrdiff_t c, int) {
        switch (stage) {
            case PassStage::kImpulses: {
                const std::ptrdiff_t first = c * kImpulses;
                op.contactImpulses(cur, ws.impulses.data(), static_cast<int>(first),
                                   static_cast<int>(std::min(first + kImpulses, contacts)));
                return;
            }
            case PassStage::kGather: {
                const std::ptrdiff_t b = c * kBodies;
                op.gatherBodies(cur, ws.u.data(), static_cast<int>(b),
                                static_cast<int>(std::min(b + kBodies, bodies)),
                                contactForm ? ws.impulses.data() : nullptr);
                return;
            }
            case PassStage::kRows: {
                const std::ptrdiff_t b = c * kRows;
                const std::ptrdiff_t e = std::min(b + kRows, rowsN);
                if (wByField) {
                    const std::ptrdiff_t g0 = std::min(wholeGroups, b / kGroupRows);
                    const std::ptrdiff_t g1 = std::min(wholeGroups, e / kGroupRows);
                    op.applyGroupsByField(cur, ws.u.data(), ws.w.data(), static_cast<int>(g0),
                                          static_cast<int>(g1));
                    op.applyRows(cur, ws.u.data(), ws.w.data(),
                                 static_cast<int>(std::max(b, kGroupRows * g1)),
                                 static_cast<int>(e));
                } else if (matrixFree) {
                    op.applyRows(cur, ws.u.data(), ws.w.data(), static_cast<int>(b),
                                 static_cast<int>(e));
                } else {
                    linalg::matVec(p.a.data() + b * rowsN, static_cast<int>(e - b),
                                   static_cast<int>(rowsN), cur, ws.w.data() + b);
                }
                if (keep != nullptr) {
                    std::copy(cur + b, cur + e, keep + b);
                }
                RowsResult q = ws.contactRows ? contactRange(p, cur, next, ws, weight, wantResidual,
                                                             wByField, passImpulses, b / 3, e / 3)
                                              : projectRowRange(p, cur, next, ws, weight, b, e);
                if (pairsInChunks) {
                    const auto uc = static_cast<std::size_t>(c);
                    const RowsResult pq = pairRange(p, cur, next, ws, weight, wantResidual,
                                                    ws.chunkPairBegin[uc], ws.chunkPairEnd[uc]);
                    q.r = std::max(q.r, pq.r);
                    q.probe += pq.probe;
                }
                ws.chunkPartials[static_cast<std::size_t>(c)] = q;
                return;
            }
            case PassStage::kPairs:
                ws.chunkPartials[static_cast<std::size_t>(c)] =
                    pairRange(p, cur, next, ws, weight, wantResidual, c * kPairs,
                              std::min((c + 1) * kPairs, pairCount));
                return;
        }
    };
    exec::runStages(ex, plan, chunk, work);
    rep.iterations = t;
    finish(p, x, cur, mon, ws, ex, rep);
}

// w_i = (A x)_i + b_i with the newest x: a dot product with row i of a dense A; matrix-free,
// J_i . u + cfm x_i with u = W J^T x kept current by movedRow (the sequential-impulse form).
float gaussSeidelW(const LcpProblem& p, const float* cur, const Workspace& ws, std::size_t i) {
    if (!p.matrixFree()) {
        const auto n = static_cast<std::size_t>(p.n);
        return linalg::dot({p.a.data() + i * n, n}, {cur, n}) + p.b[i];
    }
    const RowOperator& op = p.op;
    constexpr int kU = RowOperator::kBodyFloats;
    const float* ji = op.jacobian(static_cast<int>(i)).data();
    float w = op.cfm() * cur[i] + p.b[i];
    for (int side = 0; side < 2; ++side) {
        const std::int32_t body = op.body(static_cast<int>(i), side);
        if (body >= 0) {
            const float* u = ws.u.data() + static_cast<std::size_t>(kU) * body;
            for (int c = 0; c < kU; ++c) {
                w += ji[kU * side + c] * u[c];
            }
        }
    }
    return w;
}

// Matrix-free: x_i moved by dx, so u = W J^T x moves by K_i dx on the row's bodies.
void movedRow(const LcpProblem& p, Workspace& ws, std::size_t i, float dx) {
    if (!p.matrixFree() || dx == 0.0f) {
        return;
    }
    const RowOperator& op = p.op;
    constexpr int kU = RowOperator::kBodyFloats;
    const float* ki = op.weighted(static_cast<int>(i)).data();
    for (int side = 0; side < 2; ++side) {
        const std::int32_t body = op.body(static_cast<int>(i), side);
        if (body >= 0) {
            float* u = ws.u.data() + static_cast<std::size_t>(kU) * body;
            for (int c = 0; c < kU; ++c) {
                u[c] += ki[kU * side + c] * dx;
            }
        }
    }
}

// One Gauss-Seidel block update of the disc pair (f, g): both w from the current x, a step of
// omega / max(A_ff, A_gg), then the projection with the newest x_k. Returns 0, or NaN when w
// is not finite.
float gaussSeidelPair(const LcpProblem& p, std::size_t f, std::size_t g, float omega, float* cur,
                      Workspace& ws) {
    const float wf = gaussSeidelW(p, cur, ws, f);
    const float wg = gaussSeidelW(p, cur, ws, g);
    const float s = stepScale(p, ws, omega, f);
    float vf = cur[f] - s * wf;
    float vg = cur[g] - s * wg;
    const auto k = static_cast<std::size_t>(p.frictionNormal[f]);
    projectDisc(vf, vg, p.mu[f] * std::max(cur[k], 0.0f));
    movedRow(p, ws, f, vf - cur[f]);
    movedRow(p, ws, g, vg - cur[g]);
    cur[f] = vf;
    cur[g] = vg;
    return 0.0f * (wf + wg);
}

void solveGaussSeidel(const LcpProblem& p, std::span<float> x, const LcpOptions& o, Workspace& ws,
                      const exec::Executor* ex, LcpReport& rep) {
    const auto n = static_cast<std::size_t>(p.n);
    const int maxIt = iterationCount(p, o);
    const int every = std::max(1, o.checkEvery);
    const bool measureEach = o.recordHistory;
    float* cur = ws.cur.data();
    std::copy_n(x.data(), n, cur);
    std::copy_n(x.data(), n, ws.good.data());
    Monitor mon{o, divergenceFloor(p, ex)};
    int t = 0;
    for (; t <= maxIt; ++t) {
        const bool checkNow = t == maxIt || t % every == 0;
        if (measureEach || checkNow) {
            const float r = residualOf(p, cur, ws, ex);
            if (o.recordHistory) {
                rep.history.push_back(r);
            }
            rep.residual = r;
            if (checkNow) {
                if (mon.check(r) || t == maxIt) {
                    break;
                }
                std::copy_n(cur, n, ws.good.data());
            }
        }
        float probe = 0.0f;
        if (p.matrixFree()) {
            gatherBodies(p.op, cur, ws, nullptr);  // u = W J^T x, exact each sweep
        }
        for (std::size_t i = 0; i < n; ++i) {
            const int partner = ws.partner.empty() ? -1 : ws.partner[i];
            if (partner >= 0) {
                if (static_cast<std::size_t>(partner) > i) {
                    probe +=
                        gaussSeidelPair(p, i, static_cast<std::size_t>(partner), o.omega, cur, ws);
                }
                continue;  // the second row of a pair was updated with its first
            }
            const float wi = gaussSeidelW(p, cur, ws, i);
            float lo = p.lo[i];
            float hi = p.hi[i];
            if (p.hasFriction() && p.frictionNormal[i] >= 0) {
                hi = p.mu[i] * std::max(cur[p.frictionNormal[i]], 0.0f);
                lo = -hi;
            }
            const float xi =
                std::clamp(cur[i] - o.omega * wi / p.diagonal(static_cast<int>(i)), lo, hi);
            movedRow(p, ws, i, xi - cur[i]);
            cur[i] = xi;
            probe += 0.0f * wi;
        }
        if (!std::isfinite(probe)) {
            mon.diverged = true;
            break;
        }
    }
    rep.iterations = std::min(t, maxIt);
    finish(p, x, cur, mon, ws, ex, rep);
}

LcpReport solveOne(const LcpProblem& p, std::span<float> x, const LcpOptions& o, Workspace& ws,
                   const exec::Executor* ex) {
    Stopwatch sw;
    LcpReport rep;
    rep.error = checkInput(p, x.size(), o, ex);
    if (rep.error.empty() && o.method != LcpMethod::kJacobi && p.matrixFree() && !p.op.hasRows()) {
        rep.error =
            "Gauss-Seidel reads the operator's J and K rows, and this one was built in the "
            "contact form without them: assemble it with its rows";
    }
    if (!rep.error.empty()) {
        rep.status = LcpStatus::kDiverged;
        rep.residual = kInfinity;
        return rep;
    }
    ws.reserve(p, ex);
    if (p.n > 0) {
        if (o.method == LcpMethod::kJacobi) {
            solveJacobi(p, x, o, ws, ex, rep);
        } else {
            solveGaussSeidel(p, x, o, ws, ex, rep);
        }
    } else {
        rep.status = LcpStatus::kConverged;
    }
    rep.solveMs = sw.elapsedMs();
    return rep;
}

class CpuLcpSolver final : public LcpSolver {
  public:
    explicit CpuLcpSolver(std::shared_ptr<const exec::Executor> ex)
        : m_ex(std::move(ex)), m_ws(static_cast<std::size_t>(m_ex->threads())) {}

    const char* backendName() const override { return "cpu"; }
    std::string unsupported(const LcpOptions&) const override { return {}; }

    LcpReport solve(const LcpProblem& p, std::span<float> x, const LcpOptions& o) override {
        return solveOne(p, x, o, isSplitBlock(p) ? m_splitWs : m_ws[0], m_ex.get());
    }

    std::vector<LcpReport> solveBatch(std::span<const LcpProblem> blocks, std::span<float> x,
                                      const LcpOptions& o) override {
        std::vector<std::size_t> offsets(blocks.size() + 1, 0);
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            offsets[k + 1] = offsets[k] + static_cast<std::size_t>(std::max(blocks[k].n, 0));
        }
        std::vector<LcpReport> reports(blocks.size());
        if (offsets.back() != x.size()) {
            for (auto& r : reports) {
                r.status = LcpStatus::kDiverged;
                r.error = "x has " + std::to_string(x.size()) + " entries, the blocks " +
                          std::to_string(offsets.back());
            }
            return reports;
        }
        auto xOf = [&](std::size_t k) {
            return x.subspan(offsets[k], offsets[k + 1] - offsets[k]);
        };
        // A block large enough to split its rows (kSplitBlockWork) is solved on all threads,
        // one such block at a time: one island of 720 rows took 25 us per iteration on one core
        // where the split over two takes 12. The other islands are independent: each is solved
        // single-threaded by whichever thread takes it, with that thread's scratch. Either way
        // a block's iterates do not depend on the thread count.
        std::vector<std::size_t> small;
        small.reserve(blocks.size());
        for (std::size_t k = 0; k < blocks.size(); ++k) {
            if (isSplitBlock(blocks[k])) {
                reports[k] = solveOne(blocks[k], xOf(k), o, m_splitWs, m_ex.get());
            } else {
                small.push_back(k);
            }
        }
        m_ex->forEachChunk(
            static_cast<std::ptrdiff_t>(small.size()), [&](std::ptrdiff_t i, int worker) {
                const std::size_t k = small[static_cast<std::size_t>(i)];
                reports[k] =
                    solveOne(blocks[k], xOf(k), o, m_ws[static_cast<std::size_t>(worker)], nullptr);
            });
        return reports;
    }

  private:
    std::shared_ptr<const exec::Executor> m_ex;
    std::vector<Workspace> m_ws;  ///< one per executor thread
    /// The scratch of blocks solved on all threads (isSplitBlock). Kept apart from the
    /// threads' own so that a collapse's big island and the small islands that the calling
    /// thread takes after it do not resize one workspace down and up every step (its float
    /// vectors zero-filled again on the calling thread, while the others wait: ~1.4 % of a
    /// 40 x 25 collapse step's samples at two threads), and so that the big island's loop
    /// affinities stay its own.
    Workspace m_splitWs;
};

}  // namespace

bool isSplitBlock(const LcpProblem& p) {
    return p.productMacs() >= static_cast<double>(kSplitBlockWork);
}

std::unique_ptr<LcpSolver> makeCpuLcpSolver(std::shared_ptr<const exec::Executor> executor) {
    return std::make_unique<CpuLcpSolver>(std::move(executor));
}

}  // namespace ww::lcp
