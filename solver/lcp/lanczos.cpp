// Lanczos estimate of lambda_max(D^-1 A) through a RowOperator (see lanczos.h).
#include "solver/lcp/lanczos.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>

namespace ww::lcp {

namespace {

// The chunks of the solver's matrix-free passes (lcp_cpu.cpp): small body chunks so that the
// threads share the gather evenly, row chunks of a few pages.
constexpr std::ptrdiff_t kBodyChunk = 32;
constexpr std::ptrdiff_t kRowChunk = 1008;  // whole triple groups, as kMatrixFreeChunkRows
static_assert(kRowChunk % (3 * RowOperator::kTripleGroup) == 0);

// A deterministic start in [0.5, 1.5] from the row index (an integer hash: a sine per row
// cost a serial tenth of a millisecond on a 10 000-row island).
float startComponent(std::size_t i) {
    auto x = static_cast<std::uint32_t>(i) * 0x9e3779b9u;
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return 1.0f + 0.5f * (static_cast<float>(x >> 8) / 8388608.0f - 1.0f);
}

// The steps in row space (D^-1 A in the D inner product), from the hash start by row: for
// operators without masses, and with cfm (its I term has no body-space form).
float rowSpaceLambdaMax(const RowOperator& op, int iterations, LanczosScratch& s,
                        const exec::Executor* ex) {
    const int n = op.rows();
    if (n == 0 || iterations <= 0) {
        return 0.0f;
    }
    const auto rows = static_cast<std::size_t>(n);
    for (auto* v : {&s.rowQ, &s.rowNext, &s.rowPrev, &s.rowDiag, &s.rowAq}) {
        v->resize(rows);
    }
    s.u.resize(static_cast<std::size_t>(RowOperator::kBodyFloats) *
               static_cast<std::size_t>(std::max(op.bodies(), 0)));

    const std::ptrdiff_t bodyChunks = exec::chunkCount(op.bodies(), kBodyChunk);
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
                s.rowDiag[i] = op.diagonal(static_cast<int>(i));
                s.rowNext[i] = startComponent(i);
                s.rowPrev[i] = 0.0f;
                sum += double(s.rowNext[i]) * s.rowNext[i] * s.rowDiag[i];
            }
            return sum;
        },
        std::plus<double>{});
    if (!(vdv > 0.0)) {
        return 0.0f;
    }
    // s.rowNext holds beta_k q_k+1 (unnormalised); scale = 1 / beta_k.
    double scale = 1.0 / std::sqrt(vdv);

    struct Sums {
        double qaq = 0.0, qdq = 0.0;
    };
    const float* impulses = nullptr;
    const auto gather = [&](std::ptrdiff_t c) {
        const auto first = static_cast<int>(c * kBodyChunk);
        const int last = std::min(first + static_cast<int>(kBodyChunk), op.bodies());
        op.gatherBodies(s.rowNext.data(), s.u.data(), first, last, impulses);
    };
    // q_k = next * scale, (D^-1 A q_k) into aq, and q_k^T A q_k, q_k^T D q_k.
    const auto applyA = [&](std::ptrdiff_t c) {
        const auto [first, last] = rowRange(c);
        op.applyRows(s.rowNext.data(), s.u.data(), s.rowAq.data(), static_cast<int>(first),
                     static_cast<int>(last));
        Sums out;
        const auto f = static_cast<float>(scale);
        for (std::size_t i = first; i < last; ++i) {
            const float q = s.rowNext[i] * f;
            const float aq = s.rowAq[i] * f;
            s.rowQ[i] = q;
            out.qaq += double(q) * aq;
            out.qdq += double(q) * q * s.rowDiag[i];
            s.rowAq[i] = s.rowDiag[i] > 0.0f ? aq / s.rowDiag[i] : 0.0f;
        }
        return out;
    };
    const auto addSums = [](Sums a, const Sums& b) { return Sums{a.qaq + b.qaq, a.qdq + b.qdq}; };
    // beta_k q_k+1 = D^-1 A q_k - alpha_k q_k - beta_k-1 q_k-1 into next (q_k into prev), and
    // its D norm.
    const auto orthogonalise = [&](double alpha, double betaPrev) {
        return reduceChunks(
            rowChunks, 0.0,
            [&](std::ptrdiff_t c) {
                const auto [first, last] = rowRange(c);
                double wdw = 0.0;
                for (std::size_t i = first; i < last; ++i) {
                    const auto w = static_cast<float>(s.rowAq[i] - alpha * s.rowQ[i] -
                                                      betaPrev * s.rowPrev[i]);
                    s.rowPrev[i] = s.rowQ[i];
                    s.rowNext[i] = w;
                    wdw += double(w) * w * s.rowDiag[i];
                }
                return wdw;
            },
            std::plus<double>{});
    };
    const auto product = [&](int) -> std::optional<double> {
        impulses = op.impulsesOf(s.rowNext.data(), s.impulses, ex);
        forChunks(bodyChunks, gather);
        const Sums sums = reduceChunks(rowChunks, Sums{}, applyA, addSums);
        if (!(sums.qdq > 0.0)) {
            return std::nullopt;
        }
        return sums.qaq / sums.qdq;
    };
    LanczosStop stop;
    stop.maxSteps = iterations;
    return static_cast<float>(lanczosRecurrence(stop, s.alpha, s.beta, product, orthogonalise,
                                                [&](double beta) { scale = 1.0 / beta; }));
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

std::vector<double> tridiagonalTopEigenvector(const std::vector<double>& alpha,
                                              const std::vector<double>& beta, double theta) {
    const std::size_t k = alpha.size();
    // From e_1: every eigenvector of an unreduced tridiagonal has a nonzero first component
    // (Lanczos's beta are > 0), so e_1 has a part along the one sought.
    std::vector<double> z(k, 0.0);
    if (k == 0) {
        return z;
    }
    z[0] = 1.0;
    if (k == 1) {
        return z;
    }
    const auto offDiag = [&](std::size_t i) { return i < beta.size() ? beta[i] : 0.0; };
    const double shift = theta + 1e-9 * std::max(std::abs(theta), 1e-300);
    // T - shift I = L D L^T, L unit lower bidiagonal (l), D negative (d).
    std::vector<double> d(k), l(k, 0.0);
    d[0] = alpha[0] - shift;
    for (std::size_t i = 0; i + 1 < k; ++i) {
        d[i] = std::min(d[i], -std::numeric_limits<double>::min());
        l[i] = offDiag(i) / d[i];
        d[i + 1] = alpha[i + 1] - shift - l[i] * offDiag(i);
    }
    d[k - 1] = std::min(d[k - 1], -std::numeric_limits<double>::min());
    for (int pass = 0; pass < 3; ++pass) {
        for (std::size_t i = 1; i < k; ++i) {  // L y = z
            z[i] -= l[i - 1] * z[i - 1];
        }
        for (std::size_t i = 0; i < k; ++i) {  // D w = y
            z[i] /= d[i];
        }
        for (std::size_t i = k - 1; i > 0; --i) {  // L^T z = w
            z[i - 1] -= l[i - 1] * z[i];
        }
        double norm = 0.0;
        for (double v : z) {
            norm += v * v;
        }
        norm = std::sqrt(norm);
        for (double& v : z) {
            v /= norm;
        }
    }
    return z;
}

LanczosResult lanczosLambdaMax(const RowOperator& op, const LanczosOptions& o, LanczosScratch& s,
                               const exec::Executor* ex) {
    const int iterations = o.maxSteps;
    const int n = op.rows();
    if (n == 0 || iterations <= 0 || op.bodies() <= 0) {
        return {};
    }
    constexpr int kU = RowOperator::kBodyFloats;
    if (op.cfm() > 0.0f || !op.hasBodyMasses()) {
        s.ritz.clear();
        return {rowSpaceLambdaMax(op, iterations, s, ex), iterations};
    }
    const auto rows = static_cast<std::size_t>(n);
    const std::size_t floats = kU * static_cast<std::size_t>(op.bodies());
    s.zeros.resize(rows, 0.0f);  // never written: applyRows's cfm term then adds nothing
    s.invDiag.resize(rows);
    s.y.resize(rows);
    for (auto* v : {&s.qf, &s.u}) {
        v->resize(floats);
    }
    for (auto* v : {&s.q, &s.prev, &s.next}) {
        v->resize(floats);
    }
    const bool ritz = o.ritzVector;
    if (ritz) {
        s.basis.resize(floats * static_cast<std::size_t>(iterations));
    }
    const std::ptrdiff_t contacts = op.contactForm() ? n / 3 : 0;
    if (contacts > 0) {
        s.impulses.resize(op.impulseFloats());
    }

    const std::ptrdiff_t bodyChunks = exec::chunkCount(op.bodies(), kBodyChunk);
    const std::ptrdiff_t rowChunks = exec::chunkCount(n, kRowChunk);
    // Two sums a body chunk, combined in chunk order by the plan.
    s.chunkSums.resize(2 * static_cast<std::size_t>(bodyChunks));
    const auto rowRange = [n](std::ptrdiff_t chunk) {
        const auto first = static_cast<int>(chunk * kRowChunk);
        const auto last = static_cast<int>(
            std::min<std::ptrdiff_t>((chunk + 1) * kRowChunk, static_cast<std::ptrdiff_t>(n)));
        return std::pair{first, last};
    };
    const auto bodyRange = [&op](std::ptrdiff_t chunk) {
        const auto first = static_cast<int>(chunk * kBodyChunk);
        return std::pair{first, std::min(first + static_cast<int>(kBodyChunk), op.bodies())};
    };
    // <a, c>_M over body b's six components.
    const auto massDot = [&op](const double* a, const double* c, int b) {
        const float* m = op.bodyMass(static_cast<int>(b)).data();
        const std::size_t at = kU * static_cast<std::size_t>(b);
        const double* ab = a + at;
        const double* cb = c + at;
        const double lin = ab[0] * cb[0] + ab[1] * cb[1] + ab[2] * cb[2];
        const double ix = m[1] * cb[3] + m[2] * cb[4] + m[3] * cb[5];
        const double iy = m[2] * cb[3] + m[4] * cb[4] + m[5] * cb[5];
        const double iz = m[3] * cb[3] + m[5] * cb[4] + m[6] * cb[5];
        return m[0] * lin + ab[3] * ix + ab[4] * iy + ab[5] * iz;
    };
    // Over body chunk c: each(i) for every component i of a body, then |v|_M^2 of the body's
    // part of v, summed into the chunk's first sum.
    const auto massNormAfter = [&](std::ptrdiff_t c, const std::vector<double>& v,
                                   const auto& each) {
        const auto [first, last] = bodyRange(c);
        double sum = 0.0;
        for (int b = first; b < last; ++b) {
            for (int k = 0; k < kU; ++k) {
                each(kU * static_cast<std::size_t>(b) + k);
            }
            sum += massDot(v.data(), v.data(), b);
        }
        s.chunkSums[2 * static_cast<std::size_t>(c)] = sum;
    };
    // The body chunks' first (second) sums in chunk order.
    const auto chunkTotal = [&](std::size_t which) {
        double total = 0.0;
        for (std::ptrdiff_t c = 0; c < bodyChunks; ++c) {
            total += s.chunkSums[2 * static_cast<std::size_t>(c) + which];
        }
        return total;
    };

    // The whole estimate is one Executor::runStages: set-up, then per Lanczos step the product
    // (kRows: y = D^-1 J qf, and the contacts' impulses of y in contact form; kGather:
    // u = W J^T y, q_k = next * scale, B q_k = u * scale into next, and <q_k, B q_k>_M) and
    // the orthogonalisation (beta_k q_k+1 = B q_k - alpha_k q_k - beta_k-1 q_k-1 into next and
    // qf, q_k into prev, and its M norm), then the Ritz vector. The plan combines each stage's
    // chunk sums in chunk order and runs LanczosSteps's bookkeeping between the stages, so
    // the threads are handed the work once, and the bits do not depend on their count.
    enum class Stage {
        kInvDiag,        // 1 / A_ii per row
        kStartNorms,     // the hash start into next, the given one into q, and their M norms
        kStart,          // their mix into next and qf (unnormalised), and its M norm
        kRows,           // a Lanczos step's product: y = D^-1 J qf (and in contact form
                         // the impulses of y, the chunk's rows being whole contacts),
        kGather,         // B q_k and alpha_k
        kOrthogonalise,  // beta_k q_k+1 into next and qf, q_k into prev, and its M norm
        kRitz,           // y = sum_k z_k q_k into q, and its M norm
        kRitzScale,      // y scaled to unit M norm into s.ritz
    };
    const bool given = o.start.size() == floats;
    Stage stage = Stage::kInvDiag;
    bool begun = false;
    bool started = true;  // false: the start vector has no norm
    double hashWeight = 1.0, givenWeight = 0.0;
    double scale = 1.0;  // 1 / beta_k: next holds beta_k q_k+1 (unnormalised, qf its float copy)
    double orthAlpha = 0.0, orthBeta = 0.0;  // alpha_k and beta_k-1 of the orthogonalisation
    std::vector<double> z;                   // T's eigenvector for theta (the Ritz vector's)
    double unit = 0.0;
    LanczosStop stop;
    stop.maxSteps = iterations;
    stop.minSteps = o.minSteps;
    stop.stopRise = o.stopRise;
    LanczosSteps steps(stop, s.alpha, s.beta);
    double theta = 0.0;

    const auto beginProduct = [&]() -> std::ptrdiff_t {
        stage = Stage::kRows;
        return rowChunks;
    };
    const auto finish = [&]() -> std::ptrdiff_t {
        theta = steps.result();
        if (!ritz) {
            return 0;
        }
        z = tridiagonalTopEigenvector(s.alpha, s.beta, theta);
        s.ritz.resize(floats);
        stage = Stage::kRitz;
        return bodyChunks;
    };
    const auto plan = [&]() -> std::ptrdiff_t {
        if (!begun) {
            begun = true;
            return rowChunks;
        }
        switch (stage) {
            case Stage::kInvDiag:
                stage = Stage::kStartNorms;
                return bodyChunks;
            case Stage::kStartNorms: {
                const double hash = chunkTotal(0);
                const double norm = chunkTotal(1);
                const bool warm = given && norm > 0.0 && std::isfinite(norm);
                hashWeight = warm ? o.startMix / std::sqrt(hash) : 1.0;
                givenWeight = warm ? 1.0 / std::sqrt(norm) : 0.0;
                stage = Stage::kStart;
                return bodyChunks;
            }
            case Stage::kStart: {
                const double vmv = chunkTotal(0);
                if (!(vmv > 0.0)) {
                    started = false;
                    return 0;
                }
                scale = 1.0 / std::sqrt(vmv);
                return beginProduct();
            }
            case Stage::kRows:
                stage = Stage::kGather;
                return bodyChunks;
            case Stage::kGather:
                if (steps.afterProduct(chunkTotal(0))) {
                    orthAlpha = steps.alpha();
                    orthBeta = steps.betaPrevious();
                    stage = Stage::kOrthogonalise;
                    return bodyChunks;
                }
                return finish();
            case Stage::kOrthogonalise:
                if (const std::optional<double> b = steps.afterOrthogonalise(chunkTotal(0))) {
                    scale = 1.0 / *b;
                    return beginProduct();
                }
                return finish();
            case Stage::kRitz: {
                const double yMy = chunkTotal(0);
                unit = yMy > 0.0 ? 1.0 / std::sqrt(yMy) : 0.0;
                stage = Stage::kRitzScale;
                return bodyChunks;
            }
            case Stage::kRitzScale:
                return 0;
        }
        return 0;
    };
    const auto chunk = [&](std::ptrdiff_t c, int) {
        switch (stage) {
            case Stage::kInvDiag: {
                const auto [first, last] = rowRange(c);
                for (int i = first; i < last; ++i) {
                    const float d = op.diagonal(i);
                    s.invDiag[static_cast<std::size_t>(i)] = d > 0.0f ? 1.0f / d : 0.0f;
                }
                return;
            }
            case Stage::kStartNorms: {
                const auto [first, last] = bodyRange(c);
                double hash = 0.0, norm = 0.0;
                for (int b = first; b < last; ++b) {
                    for (int k = 0; k < kU; ++k) {
                        const std::size_t i = kU * static_cast<std::size_t>(b) + k;
                        s.next[i] = startComponent(i);
                        s.q[i] = given ? static_cast<double>(o.start[i]) : 0.0;
                        s.prev[i] = 0.0;
                    }
                    hash += massDot(s.next.data(), s.next.data(), b);
                    norm += given ? massDot(s.q.data(), s.q.data(), b) : 0.0;
                }
                s.chunkSums[2 * static_cast<std::size_t>(c)] = hash;
                s.chunkSums[2 * static_cast<std::size_t>(c) + 1] = norm;
                return;
            }
            case Stage::kStart:
                massNormAfter(c, s.next, [&](std::size_t i) {
                    s.next[i] = hashWeight * s.next[i] + givenWeight * s.q[i];
                    s.qf[i] = static_cast<float>(s.next[i]);
                });
                return;
            case Stage::kRows: {
                const auto [first, last] = rowRange(c);
                op.applyRows(s.zeros.data(), s.qf.data(), s.y.data(), first, last);
                for (int i = first; i < last; ++i) {
                    s.y[static_cast<std::size_t>(i)] *= s.invDiag[static_cast<std::size_t>(i)];
                }
                if (contacts > 0) {  // the chunk's contacts' impulses of y (whole contacts)
                    op.contactImpulses(s.y.data(), s.impulses.data(), first / 3, last / 3);
                }
                return;
            }
            case Stage::kGather: {
                const auto [first, last] = bodyRange(c);
                op.gatherBodies(s.y.data(), s.u.data(), first, last,
                                contacts > 0 ? s.impulses.data() : nullptr);
                // q_k's column of the basis: k is the number of products taken before it.
                float* basis =
                    ritz ? s.basis.data() + floats * static_cast<std::size_t>(steps.steps())
                         : nullptr;
                double sum = 0.0;
                for (int b = first; b < last; ++b) {
                    for (int k = 0; k < kU; ++k) {
                        const std::size_t i = kU * static_cast<std::size_t>(b) + k;
                        s.q[i] = s.next[i] * scale;
                        s.next[i] = static_cast<double>(s.u[i]) * scale;
                        if (basis != nullptr) {
                            basis[i] = static_cast<float>(s.q[i]);
                        }
                    }
                    sum += massDot(s.q.data(), s.next.data(), b);
                }
                s.chunkSums[2 * static_cast<std::size_t>(c)] = sum;
                return;
            }
            case Stage::kOrthogonalise:
                massNormAfter(c, s.next, [&](std::size_t i) {
                    const double w = s.next[i] - orthAlpha * s.q[i] - orthBeta * s.prev[i];
                    s.prev[i] = s.q[i];
                    s.next[i] = w;
                    s.qf[i] = static_cast<float>(w);
                });
                return;
            case Stage::kRitz: {
                const int taken = steps.steps();
                massNormAfter(c, s.q, [&](std::size_t i) {
                    double y = 0.0;
                    for (int t = 0; t < taken; ++t) {
                        y += z[static_cast<std::size_t>(t)] *
                             s.basis[floats * static_cast<std::size_t>(t) + i];
                    }
                    s.q[i] = y;
                });
                return;
            }
            case Stage::kRitzScale: {
                const auto [first, last] = bodyRange(c);
                for (std::size_t i = kU * static_cast<std::size_t>(first);
                     i < kU * static_cast<std::size_t>(last); ++i) {
                    s.ritz[i] = static_cast<float>(s.q[i] * unit);
                }
                return;
            }
        }
    };
    exec::runStages(ex, plan, chunk, static_cast<std::ptrdiff_t>(op.macs() / 2));
    if (!started) {
        return {};
    }
    return {static_cast<float>(theta), steps.steps()};
}

float lanczosLambdaMax(const RowOperator& op, int iterations, LanczosScratch& s,
                       const exec::Executor* ex) {
    LanczosOptions o;
    o.maxSteps = iterations;
    o.minSteps = iterations;
    return lanczosLambdaMax(op, o, s, ex).lambda;
}

}  // namespace ww::lcp
