// Lemke's method and active-set enumeration in double precision (see lcp_reference.h).
#include "solver/lcp/lcp_reference.h"

#include <cmath>
#include <cstddef>

namespace ww::lcp::reference {

namespace {

using Index = std::size_t;

// Solves the k x k system g y = h in place (partial pivoting); false if singular.
bool gaussSolve(std::vector<double>& g, std::vector<double>& h, Index k) {
    for (Index c = 0; c < k; ++c) {
        Index piv = c;
        for (Index r = c + 1; r < k; ++r) {
            if (std::abs(g[r * k + c]) > std::abs(g[piv * k + c])) {
                piv = r;
            }
        }
        if (std::abs(g[piv * k + c]) < 1e-13) {
            return false;
        }
        if (piv != c) {
            for (Index j = 0; j < k; ++j) {
                std::swap(g[c * k + j], g[piv * k + j]);
            }
            std::swap(h[c], h[piv]);
        }
        for (Index r = c + 1; r < k; ++r) {
            const double f = g[r * k + c] / g[c * k + c];
            for (Index j = c; j < k; ++j) {
                g[r * k + j] -= f * g[c * k + j];
            }
            h[r] -= f * h[c];
        }
    }
    for (Index c = k; c-- > 0;) {
        double s = h[c];
        for (Index j = c + 1; j < k; ++j) {
            s -= g[c * k + j] * h[j];
        }
        h[c] = s / g[c * k + c];
    }
    return true;
}

}  // namespace

std::optional<std::vector<double>> lemke(int n, const std::vector<double>& m,
                                         const std::vector<double>& q, int maxPivots) {
    const auto un = static_cast<Index>(n);
    std::vector<double> z(un, 0.0);
    Index rowMin = 0;
    for (Index i = 0; i < un; ++i) {
        if (q[i] < q[rowMin]) {
            rowMin = i;
        }
    }
    if (n == 0 || q[rowMin] >= 0.0) {
        return z;
    }
    // Tableau columns: w_0..w_{n-1}, z_0..z_{n-1}, z0 (artificial), rhs, for
    //   w - M z - e z0 = q.
    const Index cols = 2 * un + 2;
    const Index art = 2 * un;
    const Index rhs = 2 * un + 1;
    std::vector<double> t(un * cols, 0.0);
    std::vector<Index> basis(un);
    for (Index i = 0; i < un; ++i) {
        t[i * cols + i] = 1.0;
        for (Index j = 0; j < un; ++j) {
            t[i * cols + un + j] = -m[i * un + j];
        }
        t[i * cols + art] = -1.0;
        t[i * cols + rhs] = q[i];
        basis[i] = i;
    }
    auto pivot = [&](Index r, Index c) {
        const double p = t[r * cols + c];
        for (Index j = 0; j < cols; ++j) {
            t[r * cols + j] /= p;
        }
        for (Index i = 0; i < un; ++i) {
            const double f = t[i * cols + c];
            if (i != r && f != 0.0) {
                for (Index j = 0; j < cols; ++j) {
                    t[i * cols + j] -= f * t[r * cols + j];
                }
            }
        }
        const Index leaving = basis[r];
        basis[r] = c;
        return leaving;
    };
    Index leaving = pivot(rowMin, art);
    const int limit = maxPivots > 0 ? maxPivots : 50 * n + 100;
    for (int it = 0; it < limit; ++it) {
        const Index entering = leaving < un ? leaving + un : leaving - un;
        Index best = un;
        double bestRatio = 0.0;
        for (Index i = 0; i < un; ++i) {
            const double a = t[i * cols + entering];
            if (a > 1e-12) {
                const double ratio = t[i * cols + rhs] / a;
                // Ties prefer the artificial variable so that the method ends as soon as it can.
                if (best == un || ratio < bestRatio - 1e-12 ||
                    (ratio <= bestRatio + 1e-12 && basis[i] == art)) {
                    best = i;
                    bestRatio = ratio;
                }
            }
        }
        if (best == un) {
            return std::nullopt;
        }
        leaving = pivot(best, entering);
        if (leaving == art) {
            for (Index i = 0; i < un; ++i) {
                if (basis[i] >= un && basis[i] < art) {
                    z[basis[i] - un] = std::max(0.0, t[i * cols + rhs]);
                }
            }
            return z;
        }
    }
    return std::nullopt;
}

std::optional<std::vector<double>> enumerate(int n, const std::vector<double>& m,
                                             const std::vector<double>& q) {
    if (n > 14) {
        return std::nullopt;
    }
    const auto un = static_cast<Index>(n);
    double scale = 1.0;
    for (double v : q) {
        scale = std::max(scale, std::abs(v));
    }
    const double tol = 1e-9 * scale;
    for (Index mask = 0; mask < (Index{1} << un); ++mask) {
        std::vector<Index> s;
        for (Index i = 0; i < un; ++i) {
            if (mask & (Index{1} << i)) {
                s.push_back(i);
            }
        }
        const Index k = s.size();
        std::vector<double> g(k * k), h(k);
        for (Index a = 0; a < k; ++a) {
            h[a] = -q[s[a]];
            for (Index c = 0; c < k; ++c) {
                g[a * k + c] = m[s[a] * un + s[c]];
            }
        }
        if (!gaussSolve(g, h, k)) {
            continue;
        }
        std::vector<double> z(un, 0.0);
        bool ok = true;
        for (Index a = 0; a < k && ok; ++a) {
            ok = h[a] >= -tol;
            z[s[a]] = std::max(0.0, h[a]);
        }
        for (Index i = 0; i < un && ok; ++i) {
            double w = q[i];
            for (Index j = 0; j < un; ++j) {
                w += m[i * un + j] * z[j];
            }
            ok = w >= -tol;
        }
        if (ok) {
            return z;
        }
    }
    return std::nullopt;
}

std::optional<std::vector<double>> solveBounded(const LcpProblem& p) {
    if (p.hasFriction()) {
        return std::nullopt;
    }
    const auto n = static_cast<Index>(p.n);
    // A row whose box is one point (lo == hi: a friction row of a separating contact, bounded by
    // mu max(x_n, 0) = 0) is fixed there and left out of the transformed LCP: its zero-width
    // box would give it a degenerate row (q = hi - lo = 0), on which Lemke's ratio test can end
    // on a ray (a 40-contact frozen friction problem with 18 such rows did). Its column still
    // shifts the other rows' q by A_ij lo_j, as every column does.
    std::vector<Index> vars, upper;  // the rows left in; those of them with a finite hi
    for (Index i = 0; i < n; ++i) {
        if (!std::isfinite(p.lo[i])) {
            return std::nullopt;
        }
        if (p.hi[i] == p.lo[i]) {
            continue;
        }
        if (std::isfinite(p.hi[i])) {
            upper.push_back(vars.size());
        }
        vars.push_back(i);
    }
    const Index nv = vars.size();
    const Index size = nv + upper.size();
    const std::vector<float> dense = p.matrixFree() ? denseFromRowOperator(p.op) : p.a;
    std::vector<double> m(size * size, 0.0), q(size, 0.0);
    for (Index a = 0; a < nv; ++a) {
        const Index i = vars[a];
        q[a] = p.b[i];
        for (Index j = 0; j < n; ++j) {
            q[a] += static_cast<double>(dense[i * n + j]) * p.lo[j];
        }
        for (Index c = 0; c < nv; ++c) {
            m[a * size + c] = dense[i * n + vars[c]];
        }
    }
    for (Index k = 0; k < upper.size(); ++k) {
        const Index a = upper[k];
        const Index i = vars[a];
        m[a * size + nv + k] = 1.0;
        m[(nv + k) * size + a] = -1.0;
        q[nv + k] = static_cast<double>(p.hi[i]) - p.lo[i];
    }
    auto z = lemke(static_cast<int>(size), m, q);
    if (!z) {
        return std::nullopt;
    }
    std::vector<double> x(n);
    for (Index i = 0; i < n; ++i) {
        x[i] = p.lo[i];
    }
    for (Index a = 0; a < nv; ++a) {
        x[vars[a]] += (*z)[a];
    }
    return x;
}

}  // namespace ww::lcp::reference
