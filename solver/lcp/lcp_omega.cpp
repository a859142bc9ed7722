// omega from the matrix: Gershgorin and D-weighted Rayleigh quotients (see lcp_omega.h).
#include "solver/lcp/lcp_omega.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ww::lcp {

namespace {

// A symmetric to float rounding: |A_ij - A_ji| <= 1e-5 (|A_ij| + |A_ji|) + 1e-5 sqrt(A_ii A_jj).
// The second term allows for cancellation: an assembled A = J M^-1 J^T computes A_ij and A_ji
// as different float sums whose difference is a few ulps of the rows' scale, not of A_ij.
bool isSymmetric(const LcpProblem& p) {
    if (p.matrixFree()) {
        return true;  // J W J^T + cfm I with symmetric W, by construction
    }
    const auto n = static_cast<std::size_t>(p.n);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const float a = p.a[i * n + j];
            const float b = p.a[j * n + i];
            const float scale = std::sqrt(std::abs(p.a[i * n + i] * p.a[j * n + j]));
            if (std::abs(a - b) > 1e-5f * (std::abs(a) + std::abs(b) + scale)) {
                return false;
            }
        }
    }
    return true;
}

}  // namespace

double gershgorinBound(const LcpProblem& p) {
    if (p.matrixFree()) {
        // Row sums would need every pair of rows sharing a body (O(sum of degree^2)): no
        // cheap bound; the Rayleigh estimate alone sets omega.
        return std::numeric_limits<double>::infinity();
    }
    const auto n = static_cast<std::size_t>(p.n);
    double g = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const float* row = p.a.data() + i * n;
        double sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            sum += std::abs(static_cast<double>(row[j]));
        }
        if (row[i] > 0.0f) {
            g = std::max(g, sum / row[i]);
        }
    }
    return g;
}

std::vector<double> rayleighLambdaMax(const LcpProblem& p, int iterations) {
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<double> rho;
    if (n == 0) {
        return rho;
    }
    std::vector<double> v(n), av(n);
    for (std::size_t i = 0; i < n; ++i) {
        // A deterministic start with components along every eigenvector in practice.
        v[i] = 1.0 + 0.5 * std::sin(static_cast<double>(i));
    }
    std::vector<float> vf;
    for (int k = 0; k < iterations; ++k) {
        double vav = 0.0, vdv = 0.0;
        if (p.matrixFree()) {
            vf.assign(v.begin(), v.end());
            applyRowOperatorDouble(p.op, vf, av);
            for (std::size_t i = 0; i < n; ++i) {
                vav += v[i] * av[i];
                vdv += v[i] * v[i] * p.diagonal(static_cast<int>(i));
            }
        }
        for (std::size_t i = 0; i < n && !p.matrixFree(); ++i) {
            const float* row = p.a.data() + i * n;
            double s = 0.0;
            for (std::size_t j = 0; j < n; ++j) {
                s += static_cast<double>(row[j]) * v[j];
            }
            av[i] = s;
            vav += v[i] * s;
            vdv += v[i] * v[i] * row[i];
        }
        if (!(vdv > 0.0)) {
            break;
        }
        rho.push_back(vav / vdv);
        double norm = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double d = p.diagonal(static_cast<int>(i));
            v[i] = d > 0.0 ? av[i] / d : 0.0;
            norm += v[i] * v[i];
        }
        if (!(norm > 0.0) || !std::isfinite(norm)) {
            break;
        }
        const double scale = 1.0 / std::sqrt(norm);
        for (double& x : v) {
            x *= scale;
        }
    }
    return rho;
}

OmegaEstimate autoOmega(const LcpProblem& p, LcpMethod method, int iterations) {
    OmegaEstimate e;
    e.omega = defaultOmega(method);
    if (method != LcpMethod::kJacobi || p.n == 0) {
        return e;
    }
    e.gershgorin = gershgorinBound(p);
    e.symmetric = isSymmetric(p);
    e.lambda = e.gershgorin;
    if (e.symmetric) {
        const std::vector<double> rho = rayleighLambdaMax(p, iterations);
        e.iterations = static_cast<int>(rho.size());
        if (!rho.empty() && rho.back() > 0.0) {
            e.rayleigh = rho.back();
            e.lambda = std::min(kRayleighMargin * e.rayleigh, e.gershgorin);
        }
    }
    if (e.lambda > 0.0 && std::isfinite(e.lambda)) {
        e.omega = static_cast<float>(kAutoOmegaSafety * 2.0 / e.lambda);
    }
    return e;
}

}  // namespace ww::lcp
