// LcpProblem helpers and the natural-map residual (double precision), see lcp_solver.h:
//   r(x) = || x - clamp(x - (A x + b), lo(x), hi(x)) ||_inf,
// with friction bounds lo_f = -mu_f max(x_k, 0), hi_f = mu_f max(x_k, 0) for normal row k, and
// for a disc pair (f, g) the joint projection onto ||(x_f, x_g)|| <= mu max(x_k, 0).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "solver/lcp/lcp_common.h"

namespace ww::lcp {

LcpProblem LcpProblem::plain(int n) {
    LcpProblem p;
    p.n = n;
    const auto sn = static_cast<std::size_t>(n);
    p.a.assign(sn * sn, 0.0f);
    p.b.assign(sn, 0.0f);
    p.lo.assign(sn, 0.0f);
    p.hi.assign(sn, kInfinity);
    return p;
}

std::string LcpProblem::validate(const exec::Executor* ex) const {
    if (n < 0) {
        return "negative size n = " + std::to_string(n);
    }
    const auto sn = static_cast<std::size_t>(n);
    if (matrixFree()) {
        if (!a.empty()) {
            return "A is given both dense and matrix-free; leave one of them empty";
        }
        if (std::string e = op.validate(n, ex); !e.empty()) {
            return e;
        }
    } else if (a.size() != sn * sn) {
        return "A has " + std::to_string(a.size()) +
               " entries, expected n*n = " + std::to_string(sn * sn);
    }
    if (b.size() != sn || lo.size() != sn || hi.size() != sn) {
        return "b, lo and hi must have n = " + std::to_string(n) + " entries";
    }
    // The first row with a bad diagonal or bounds, over fixed chunks of rows (a matrix-free
    // diagonal is two J . K products a row: worth the threads on a large island).
    constexpr std::ptrdiff_t kChunk = 1024;
    const std::span<const float> kept =
        matrixFree() ? op.keptDiagonals() : std::span<const float>();
    const auto rowOk = [&](int i) {
        const float d = kept.empty() ? diagonal(i) : kept[static_cast<std::size_t>(i)];
        return d > 0.0f && std::isfinite(d) &&
               lo[static_cast<std::size_t>(i)] <= hi[static_cast<std::size_t>(i)];
    };
    const auto firstBad = [&](std::ptrdiff_t c) {
        const int last = static_cast<int>(std::min<std::ptrdiff_t>((c + 1) * kChunk, n));
        if (!kept.empty()) {
            // The whole chunk tested without a branch a row (vectorized), searched only if one
            // fails. 0 < d <= FLT_MAX is d > 0 and finite; NaNs compare false.
            // Integer flags, OR-reduced (GCC does not vectorize a bool's &=).
            int off = 0;
            for (auto i = static_cast<std::size_t>(c * kChunk); i < static_cast<std::size_t>(last);
                 ++i) {
                off |= (static_cast<int>(kept[i] > 0.0f) &
                        static_cast<int>(kept[i] <= std::numeric_limits<float>::max()) &
                        static_cast<int>(lo[i] <= hi[i])) ^
                       1;
            }
            if (off == 0) {
                return n;
            }
        }
        for (int i = static_cast<int>(c * kChunk); i < last; ++i) {
            if (!rowOk(i)) {
                return i;
            }
        }
        return n;
    };
    const std::ptrdiff_t chunks = exec::chunkCount(n, kChunk);
    const auto earliest = [](int x, int y) { return std::min(x, y); };
    int bad = n;
    if (ex != nullptr && matrixFree()) {
        bad = ex->reduce(chunks, n, firstBad, earliest, 30 * static_cast<std::ptrdiff_t>(n));
    } else {
        for (std::ptrdiff_t c = 0; c < chunks && bad == n; ++c) {
            bad = firstBad(c);
        }
    }
    if (bad < n) {
        const float d = diagonal(bad);
        if (!(d > 0.0f) || !std::isfinite(d)) {
            return "diagonal entry A(" + std::to_string(bad) + "," + std::to_string(bad) +
                   ") = " + std::to_string(d) + " must be positive and finite";
        }
        return "row " + std::to_string(bad) + ": lo > hi";
    }
    if (!frictionNormal.empty()) {
        if (frictionNormal.size() != sn || mu.size() != sn) {
            return "frictionNormal and mu must have n entries when friction is used";
        }
        // Each row's own checks, in fixed chunks (the earliest bad row is reported, as a serial
        // scan would); the same pass notes whether every friction row follows its normal by
        // one or two rows (a contact's three rows), where the disc check below is local.
        const auto rowError = [&](int i) -> std::string {
            const int k = frictionNormal[i];
            if (k < -1 || k >= n || k == i) {
                return "row " + std::to_string(i) + ": friction normal index " + std::to_string(k) +
                       " out of range";
            }
            if (k >= 0 && frictionNormal[k] >= 0) {
                return "row " + std::to_string(i) + ": its normal row " + std::to_string(k) +
                       " is itself a friction row";
            }
            if (k >= 0 && !(mu[i] >= 0.0f)) {
                return "row " + std::to_string(i) + ": friction coefficient must be >= 0";
            }
            return {};
        };
        // The common form first, without a branch a row (vectorized): each row a normal (-1)
        // or a friction row one or two rows after its normal, mu >= 0, and a disc pair's two
        // rows of one mu. Only when some chunk is not of that form do the scans below find the
        // first bad row (or that the problem is valid all the same: a box cone's rows of one
        // normal may differ in mu, and a friction row may name a normal further away).
        const auto commonForm = [&](std::ptrdiff_t c) {
            const int first = static_cast<int>(c * kChunk);
            const int last = static_cast<int>(std::min<std::ptrdiff_t>((c + 1) * kChunk, n));
            bool ok = true;
            for (int i = first; i < std::min(last, 2); ++i) {  // rows 0 and 1: no row i - 2
                const int k = frictionNormal[i];
                ok = ok &&
                     (k == -1 || (i == 1 && k == 0 && frictionNormal[0] == -1 && mu[1] >= 0.0f));
            }
            // Integer flags, OR-reduced (GCC does not vectorize a bool's &=).
            int off = 0;
            for (int i = std::max(first, 2); i < last; ++i) {
                const int k = frictionNormal[i];
                const int k1 = frictionNormal[i - 1];
                const int k2 = frictionNormal[i - 2];
                const int muOk = static_cast<int>(mu[i] >= 0.0f);
                const int afterOne = static_cast<int>(k == i - 1) & static_cast<int>(k1 < 0) & muOk;
                const int afterTwo =
                    static_cast<int>(k == i - 2) & static_cast<int>(k2 < 0) & muOk &
                    (static_cast<int>(k1 != k) | static_cast<int>(mu[i - 1] == mu[i]));
                off |= (static_cast<int>(k == -1) | afterOne | afterTwo) ^ 1;
            }
            return ok && off == 0;
        };
        if (exec::reduceChunks(
                ex, chunks, true, commonForm, [](bool x, bool y) { return x && y; },
                static_cast<std::ptrdiff_t>(n))) {
            return {};
        }
        struct Scan {
            int bad;
            bool local;
        };
        const Scan scan = exec::reduceChunks(
            ex, chunks, Scan{n, true},
            [&](std::ptrdiff_t c) {
                Scan s{n, true};
                const int last = static_cast<int>(std::min<std::ptrdiff_t>((c + 1) * kChunk, n));
                for (int i = static_cast<int>(c * kChunk); i < last; ++i) {
                    const int k = frictionNormal[i];
                    const bool ok = k == -1 || (k >= 0 && k < n && k != i &&
                                                frictionNormal[k] < 0 && mu[i] >= 0.0f);
                    if (!ok) {
                        s.bad = i;
                        return s;
                    }
                    s.local = s.local && (k < 0 || k == i - 1 || k == i - 2);
                }
                return s;
            },
            [](Scan x, const Scan& y) {
                return Scan{std::min(x.bad, y.bad), x.local && y.local};
            },
            static_cast<std::ptrdiff_t>(n));
        if (scan.bad < n) {
            return rowError(scan.bad);
        }
        if (cone == FrictionCone::kDisc && scan.local) {
            // At most rows k + 1 and k + 2 name normal k: only their mu can disagree.
            const int mismatch = exec::reduceChunks(
                ex, chunks, n,
                [&](std::ptrdiff_t c) {
                    const int last =
                        static_cast<int>(std::min<std::ptrdiff_t>((c + 1) * kChunk, n));
                    for (int i = static_cast<int>(c * kChunk); i < last; ++i) {
                        const int k = frictionNormal[i];
                        if (k >= 0 && k == i - 2 && frictionNormal[i - 1] == k &&
                            mu[i - 1] != mu[i]) {
                            return i;
                        }
                    }
                    return n;
                },
                earliest, static_cast<std::ptrdiff_t>(n));
            if (mismatch < n) {
                const int k = frictionNormal[mismatch];
                return "rows " + std::to_string(mismatch - 1) + " and " + std::to_string(mismatch) +
                       " share normal row " + std::to_string(k) +
                       " but have different mu; the disc cone needs one mu per pair (use "
                       "the box cone otherwise)";
            }
        } else if (cone == FrictionCone::kDisc) {
            // Rows naming each normal: the first one seen, and how many.
            std::vector<int> firstRow(sn, -1), count(sn, 0);
            for (int i = 0; i < n; ++i) {
                const int k = frictionNormal[i];
                if (k < 0) {
                    continue;
                }
                if (++count[k] > 2) {
                    return "normal row " + std::to_string(k) +
                           " has more than two friction rows; the disc cone pairs two (use the "
                           "box cone for more)";
                }
                if (firstRow[k] < 0) {
                    firstRow[k] = i;
                } else if (mu[firstRow[k]] != mu[i]) {
                    return "rows " + std::to_string(firstRow[k]) + " and " + std::to_string(i) +
                           " share normal row " + std::to_string(k) +
                           " but have different mu; the disc cone needs one mu per pair (use "
                           "the box cone otherwise)";
                }
            }
        }
    }
    return {};
}

std::vector<FrictionPair> frictionPairs(const LcpProblem& p) {
    std::vector<FrictionPair> pairs;
    if (!p.hasFriction() || p.cone != FrictionCone::kDisc) {
        return pairs;
    }
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<int> firstRow(n, -1), pairOf(n, -1);
    for (int i = 0; i < p.n; ++i) {
        const int k = p.frictionNormal[static_cast<std::size_t>(i)];
        if (k < 0) {
            continue;
        }
        const auto uk = static_cast<std::size_t>(k);
        if (firstRow[uk] < 0) {
            firstRow[uk] = i;
        } else {
            pairOf[static_cast<std::size_t>(firstRow[uk])] = i;
        }
    }
    for (int i = 0; i < p.n; ++i) {
        const int g = pairOf[static_cast<std::size_t>(i)];
        if (g >= 0) {
            const auto ui = static_cast<std::size_t>(i);
            pairs.push_back({i, g, p.frictionNormal[ui], p.mu[ui]});
        }
    }
    return pairs;
}

const char* toString(LcpMethod m) {
    return m == LcpMethod::kJacobi ? "jacobi" : "gauss-seidel";
}

const char* toString(LcpStatus s) {
    switch (s) {
        case LcpStatus::kConverged:
            return "converged";
        case LcpStatus::kIterationLimit:
            return "iteration-limit";
        case LcpStatus::kDiverged:
            return "diverged";
    }
    return "?";
}

float divergenceFloor(const LcpProblem& p, const exec::Executor* ex) {
    // max |b_i| in fixed chunks (a max: the same on any thread count).
    constexpr std::ptrdiff_t kChunk = 16384;
    const auto n = static_cast<std::ptrdiff_t>(p.b.size());
    const float bmax = exec::reduceChunks(
        ex, exec::chunkCount(n, kChunk), 0.0f,
        [&](std::ptrdiff_t c) {
            float m = 0.0f;
            for (std::ptrdiff_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
                m = std::max(m, std::abs(p.b[static_cast<std::size_t>(i)]));
            }
            return m;
        },
        [](float a, float b) { return std::max(a, b); }, n);
    return 1.0e-4f * (1.0f + bmax);
}

std::string checkInput(const LcpProblem& p, std::size_t xSize, const LcpOptions& o,
                       const exec::Executor* ex) {
    std::string e = p.validate(ex);
    if (e.empty() && xSize != static_cast<std::size_t>(p.n)) {
        e = "x has " + std::to_string(xSize) + " entries, the problem " + std::to_string(p.n);
    }
    if (e.empty() && !(o.omega > 0.0f)) {
        e = "omega must be positive";
    }
    if (e.empty() && !(o.chebyshevRho >= 0.0f && o.chebyshevRho < 1.0f)) {
        e = "chebyshevRho must be in [0, 1) (0 turns the acceleration off)";
    }
    return e;
}

double naturalResidual(const LcpProblem& p, std::span<const float> x) {
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<double> ws(n);
    if (p.matrixFree()) {
        applyRowOperatorDouble(p.op, x, ws);
        for (std::size_t i = 0; i < n; ++i) {
            ws[i] += p.b[i];
        }
    } else {
        for (std::size_t i = 0; i < n; ++i) {
            double w = p.b[i];
            for (std::size_t j = 0; j < n; ++j) {
                w += static_cast<double>(p.a[i * n + j]) * x[j];
            }
            ws[i] = w;
        }
    }
    const auto pairs = frictionPairs(p);
    std::vector<bool> paired(n, false);
    double r = 0.0;
    for (const FrictionPair& q : pairs) {
        const auto f = static_cast<std::size_t>(q.first);
        const auto g = static_cast<std::size_t>(q.second);
        paired[f] = paired[g] = true;
        const double radius = q.mu * std::max<double>(x[static_cast<std::size_t>(q.normal)], 0.0);
        double v1 = x[f] - ws[f];
        double v2 = x[g] - ws[g];
        const double len = std::sqrt(v1 * v1 + v2 * v2);
        if (len > radius) {
            v1 *= radius / len;
            v2 *= radius / len;
        }
        const double rq = std::max(std::abs(x[f] - v1), std::abs(x[g] - v2));
        if (!std::isfinite(rq) || !std::isfinite(ws[f]) || !std::isfinite(ws[g])) {
            return std::numeric_limits<double>::infinity();
        }
        r = std::max(r, rq);
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (paired[i]) {
            continue;
        }
        const double w = ws[i];
        double lo = p.lo[i];
        double hi = p.hi[i];
        if (p.hasFriction() && p.frictionNormal[i] >= 0) {
            const double bound = p.mu[i] * std::max<double>(x[p.frictionNormal[i]], 0.0);
            lo = -bound;
            hi = bound;
        }
        const double proj = std::clamp(x[i] - w, lo, hi);
        const double ri = std::abs(x[i] - proj);
        if (!std::isfinite(ri) || !std::isfinite(w)) {
            return std::numeric_limits<double>::infinity();
        }
        r = std::max(r, ri);
    }
    return r;
}

}  // namespace ww::lcp
