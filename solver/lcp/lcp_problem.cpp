// LcpProblem helpers and the natural-map residual (double precision), see lcp_solver.h:
//   r(x) = || x - clamp(x - (A x + b), lo(x), hi(x)) ||_inf,
// with friction bounds lo_f = -mu_f max(x_k, 0), hi_f = mu_f max(x_k, 0) for normal row k.
#include <algorithm>
#include <cmath>
#include <string>

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

std::string LcpProblem::validate() const {
    if (n < 0) {
        return "negative size n = " + std::to_string(n);
    }
    const auto sn = static_cast<std::size_t>(n);
    if (a.size() != sn * sn) {
        return "A has " + std::to_string(a.size()) +
               " entries, expected n*n = " + std::to_string(sn * sn);
    }
    if (b.size() != sn || lo.size() != sn || hi.size() != sn) {
        return "b, lo and hi must have n = " + std::to_string(n) + " entries";
    }
    for (int i = 0; i < n; ++i) {
        const float d = a[static_cast<std::size_t>(i) * sn + i];
        if (!(d > 0.0f) || !std::isfinite(d)) {
            return "diagonal entry A(" + std::to_string(i) + "," + std::to_string(i) +
                   ") = " + std::to_string(d) + " must be positive and finite";
        }
        if (!(lo[i] <= hi[i])) {
            return "row " + std::to_string(i) + ": lo > hi";
        }
    }
    if (!frictionNormal.empty()) {
        if (frictionNormal.size() != sn || mu.size() != sn) {
            return "frictionNormal and mu must have n entries when friction is used";
        }
        for (int i = 0; i < n; ++i) {
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
        }
    }
    return {};
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

float divergenceFloor(const LcpProblem& p) {
    float bmax = 0.0f;
    for (float v : p.b) {
        bmax = std::max(bmax, std::abs(v));
    }
    return 1.0e-4f * (1.0f + bmax);
}

std::string checkInput(const LcpProblem& p, std::size_t xSize, const LcpOptions& o) {
    std::string e = p.validate();
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
    double r = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        double w = p.b[i];
        for (std::size_t j = 0; j < n; ++j) {
            w += static_cast<double>(p.a[i * n + j]) * x[j];
        }
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
