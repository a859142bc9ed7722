// Lanczos estimate of lambda_max(D^-1 A) through a RowOperator (see lanczos.h).
#include "solver/lcp/lanczos.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>

namespace ww::lcp {

namespace {

// The chunks of the solver's matrix-free passes (lcp_cpu.cpp): small body chunks so that the
// threads share the gather evenly, row chunks of a few pages.
constexpr std::ptrdiff_t kBodyChunk = 32;
constexpr std::ptrdiff_t kRowChunk = 1008;  // whole triple groups, as kMatrixFreeChunkRows

// A deterministic start in [0.5, 1.5] from the row index (an integer hash: a sine per row
// cost a serial tenth of a millisecond on a 10 000-row island).
float startComponent(std::size_t i) {
    auto x = static_cast<std::uint32_t>(i) * 0x9e3779b9u;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return 1.0f + 0.5f * (static_cast<float>(x >> 8) / 8388608.0f - 1.0f);
}

}  // namespace

double largestTridiagonalEigenvalue(const std::vector<double>& alpha,
                                    const std::vector<double>& beta) {
    const std::size_t k = alpha.size();
    if (k == 0) {
        return 0.0;
    }
    const auto offDiag = [&](std::size_t i) { return i < beta.size() ? beta[i] : 0.0; };
    double lo = alpha[0], hi = alpha[0];
    for (std::size_t i = 0; i < k; ++i) {
        const double r = (i > 0 ? std::abs(offDiag(i - 1)) : 0.0) + std::abs(offDiag(i));
        lo = std::min(lo, alpha[i] - r);
        hi = std::max(hi, alpha[i] + r);
    }
    // How many eigenvalues lie below x: the negative pivots of T - x I (Sturm sequence).
    const auto below = [&](double x) {
        std::size_t count = 0;
        double d = 1.0;
        for (std::size_t i = 0; i < k; ++i) {
            const double b = i > 0 ? offDiag(i - 1) : 0.0;
            d = alpha[i] - x - (i > 0 ? b * b / d : 0.0);
            if (d == 0.0) {
                d = -std::numeric_limits<double>::min();
            }
            count += d < 0.0 ? 1 : 0;
        }
        return count;
    };
    const double tol = 1e-12 * std::max(std::abs(lo), std::abs(hi));
    while (hi - lo > tol) {
        const double mid = 0.5 * (lo + hi);
        if (mid <= lo || mid >= hi) {
            break;
        }
        (below(mid) >= k ? hi : lo) = mid;
    }
    return hi;
}

float lanczosLambdaMax(const RowOperator& op, int iterations, LanczosScratch& s,
                       const exec::Executor* ex) {
    const int n = op.rows();
    if (n == 0 || iterations <= 0) {
        return 0.0f;
    }
    const auto rows = static_cast<std::size_t>(n);
    for (auto* v : {&s.q, &s.next, &s.prev, &s.diag, &s.aq}) {
        v->resize(rows);
    }
    s.u.resize(static_cast<std::size_t>(RowOperator::kBodyFloats) *
               static_cast<std::size_t>(std::max(op.bodies, 0)));
    s.alpha.clear();
    s.beta.clear();

    const std::ptrdiff_t bodyChunks = exec::chunkCount(op.bodies, kBodyChunk);
    const std::ptrdiff_t rowChunks = exec::chunkCount(n, kRowChunk);
    const auto work = static_cast<std::ptrdiff_t>(op.macs() / 2);
    const auto forChunks = [&](std::ptrdiff_t count, const auto& f) {
        exec::forChunks(ex, count, f, work);
    };
    const auto reduceChunks = [&](std::ptrdiff_t count, auto zero, const auto& f, const auto& add) {
        return exec::reduceChunks(ex, count, zero, f, add, work);
    };
    const auto rowRange = [n](std::ptrdiff_t chunk) {
        const auto first = static_cast<std::size_t>(chunk * kRowChunk);
        const auto last = static_cast<std::size_t>(
            std::min<std::ptrdiff_t>((chunk + 1) * kRowChunk, static_cast<std::ptrdiff_t>(n)));
        return std::pair{first, last};
    };

    // The diagonal and the (unnormalised) start vector, with its D norm.
    const double vdv = reduceChunks(
        rowChunks, 0.0,
        [&](std::ptrdiff_t c) {
            const auto [first, last] = rowRange(c);
            double sum = 0.0;
            for (std::size_t i = first; i < last; ++i) {
                s.diag[i] = op.diagonal(static_cast<int>(i));
                s.next[i] = startComponent(i);
                s.prev[i] = 0.0f;
                sum += double(s.next[i]) * s.next[i] * s.diag[i];
            }
            return sum;
        },
        std::plus<double>{});
    if (!(vdv > 0.0)) {
        return 0.0f;
    }
    // s.next holds beta_k q_k+1 (unnormalised); scale = 1 / beta_k.
    double scale = 1.0 / std::sqrt(vdv);
    double alpha = 0.0, betaPrev = 0.0;

    struct Sums {
        double qaq = 0.0, qdq = 0.0;
    };
    const auto gather = [&](std::ptrdiff_t c) {
        const auto first = static_cast<int>(c * kBodyChunk);
        const int last = std::min(first + static_cast<int>(kBodyChunk), op.bodies);
        op.gatherBodies(s.next.data(), s.u.data(), first, last);
    };
    // q_k = next * scale, (D^-1 A q_k) into aq, and q_k^T A q_k, q_k^T D q_k.
    const auto applyA = [&](std::ptrdiff_t c) {
        const auto [first, last] = rowRange(c);
        op.applyRows(s.next.data(), s.u.data(), s.aq.data(), static_cast<int>(first),
                     static_cast<int>(last));
        Sums out;
        const auto f = static_cast<float>(scale);
        for (std::size_t i = first; i < last; ++i) {
            const float q = s.next[i] * f;
            const float aq = s.aq[i] * f;
            s.q[i] = q;
            out.qaq += double(q) * aq;
            out.qdq += double(q) * q * s.diag[i];
            s.aq[i] = s.diag[i] > 0.0f ? aq / s.diag[i] : 0.0f;
        }
        return out;
    };
    const auto addSums = [](Sums a, const Sums& b) { return Sums{a.qaq + b.qaq, a.qdq + b.qdq}; };
    // beta_k q_k+1 = D^-1 A q_k - alpha_k q_k - beta_k-1 q_k-1 into next (q_k into prev), and
    // its D norm.
    const auto orthogonalise = [&](std::ptrdiff_t c) {
        const auto [first, last] = rowRange(c);
        double wdw = 0.0;
        for (std::size_t i = first; i < last; ++i) {
            const auto w = static_cast<float>(s.aq[i] - alpha * s.q[i] - betaPrev * s.prev[i]);
            s.prev[i] = s.q[i];
            s.next[i] = w;
            wdw += double(w) * w * s.diag[i];
        }
        return wdw;
    };
    for (int it = 0; it < iterations; ++it) {
        forChunks(bodyChunks, gather);
        const Sums sums = reduceChunks(rowChunks, Sums{}, applyA, addSums);
        if (!(sums.qdq > 0.0)) {
            break;
        }
        alpha = sums.qaq / sums.qdq;
        s.alpha.push_back(alpha);
        if (it + 1 == iterations) {
            break;
        }
        const double beta =
            std::sqrt(reduceChunks(rowChunks, 0.0, orthogonalise, std::plus<double>{}));
        // An invariant subspace (beta ~ 0 relative to alpha): T_k's eigenvalues are exact.
        if (!(beta > 1e-7 * std::abs(alpha))) {
            break;
        }
        s.beta.push_back(beta);
        scale = 1.0 / beta;
        betaPrev = beta;
    }
    return static_cast<float>(largestTridiagonalEigenvalue(s.alpha, s.beta));
}

}  // namespace ww::lcp
