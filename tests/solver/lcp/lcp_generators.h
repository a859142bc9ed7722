// Random LCP generators shared by the LCP tests and benchmarks' sanity checks:
//  - spdProblem:     A = B B^T / n + c I with B standard normal (eigenvalues of B B^T / n lie
//                    in [0, 4] by Marchenko-Pastur, so cond(A) <= (4 + c) / c), b ~ N(0, 1).
//  - contactProblem: A = J M^-1 J^T + eps I for random bodies (mass, diagonal inertia) and
//                    contacts between random pairs, one normal row (lo = 0) and two friction
//                    rows per contact when friction is on; b has approaching normals.
// Also the spectral quantities the tests derive tolerances and omega from (Eigen, double).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "solver/lcp/lcp_solver.h"
#include "support/seed.h"

namespace ww::test {

// Seeds: test::freshSeed (support/seed.h); WAVEWALL_TEST_SEED=<seed> replays a failing run.

inline lcp::LcpProblem spdProblem(int n, unsigned seed, float c = 0.5f) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> g(0.0, 1.0);
    Eigen::MatrixXd bm(n, n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            bm(i, j) = g(rng);
        }
    }
    Eigen::MatrixXd a = bm * bm.transpose() / n + c * Eigen::MatrixXd::Identity(n, n);
    auto p = lcp::LcpProblem::plain(n);
    for (int i = 0; i < n; ++i) {
        p.b[static_cast<std::size_t>(i)] = static_cast<float>(g(rng));
        for (int j = 0; j < n; ++j) {
            p.a[static_cast<std::size_t>(i) * n + j] = static_cast<float>(a(i, j));
        }
    }
    return p;
}

/// Contact-like problem with `contacts` contacts (n = contacts or 3 * contacts rows).
inline lcp::LcpProblem contactProblem(int contacts, unsigned seed, bool friction, float mu = 0.6f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int bodies = std::max(2, contacts / 2 + 1);
    const int rowsPer = friction ? 3 : 1;
    const int n = contacts * rowsPer;
    std::vector<double> invMass(static_cast<std::size_t>(bodies) * 6);
    for (auto& v : invMass) {
        v = 1.0 / (0.5 + 1.5 * (u(rng) + 1.0));
    }
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(n, bodies * 6);
    std::uniform_int_distribution<int> pick(0, bodies - 1);
    for (int c = 0; c < contacts; ++c) {
        const int b0 = pick(rng);
        int b1 = pick(rng);
        if (b1 == b0) {
            b1 = (b0 + 1) % bodies;
        }
        for (int r = 0; r < rowsPer; ++r) {
            const int row = c * rowsPer + r;
            // direction and lever arm: the linear part d, the angular part (p x d).
            Eigen::Vector3d d(u(rng), u(rng), u(rng));
            d.normalize();
            Eigen::Vector3d arm(u(rng), u(rng), u(rng));
            Eigen::Vector3d ang = arm.cross(d);
            j.block(row, b0 * 6, 1, 3) = d.transpose();
            j.block(row, b0 * 6 + 3, 1, 3) = ang.transpose();
            j.block(row, b1 * 6, 1, 3) = -d.transpose();
            j.block(row, b1 * 6 + 3, 1, 3) = -ang.transpose();
        }
    }
    Eigen::VectorXd minv(bodies * 6);
    for (int k = 0; k < bodies * 6; ++k) {
        minv(k) = invMass[static_cast<std::size_t>(k)];
    }
    Eigen::MatrixXd a = j * minv.asDiagonal() * j.transpose();
    const double eps = 1e-2 * a.diagonal().mean();  // constraint-force mixing, as in ODE
    a += eps * Eigen::MatrixXd::Identity(n, n);
    auto p = lcp::LcpProblem::plain(n);
    if (friction) {
        p.frictionNormal.assign(static_cast<std::size_t>(n), -1);
        p.mu.assign(static_cast<std::size_t>(n), 0.0f);
    }
    for (int c = 0; c < contacts; ++c) {
        const auto normal = static_cast<std::size_t>(c * rowsPer);
        p.b[normal] = static_cast<float>(-0.2 - (u(rng) + 1.0));  // approaching
        for (int r = 1; r < rowsPer; ++r) {
            const auto f = normal + static_cast<std::size_t>(r);
            p.b[f] = static_cast<float>(u(rng));
            p.lo[f] = -lcp::kInfinity;
            p.frictionNormal[f] = static_cast<int>(normal);
            p.mu[f] = mu;
        }
    }
    for (int r = 0; r < n; ++r) {
        for (int k = 0; k < n; ++k) {
            p.a[static_cast<std::size_t>(r) * n + k] = static_cast<float>(a(r, k));
        }
    }
    return p;
}

/// Largest ||(x_f, x_g)|| - mu max(x_k, 0) over the pairs of friction rows that name the same
/// normal row k (<= 0 when x lies in the disc cone); -inf without pairs. The pairs are taken
/// from frictionNormal directly, independently of the solver's own pairing.
inline double discConeExcess(const lcp::LcpProblem& p, std::span<const float> x) {
    double excess = -std::numeric_limits<double>::infinity();
    for (int f = 0; f < p.n && p.hasFriction(); ++f) {
        const int k = p.frictionNormal[static_cast<std::size_t>(f)];
        for (int g = f + 1; g < p.n && k >= 0; ++g) {
            if (p.frictionNormal[static_cast<std::size_t>(g)] == k) {
                const double len = std::hypot(double{x[static_cast<std::size_t>(f)]},
                                              double{x[static_cast<std::size_t>(g)]});
                const double radius = p.mu[static_cast<std::size_t>(f)] *
                                      std::max(double{x[static_cast<std::size_t>(k)]}, 0.0);
                excess = std::max(excess, len - radius);
            }
        }
    }
    return excess;
}

/// One contact sliding in direction `angle` (rad) of its friction plane: A = diag(aN, aT, aT)
/// and b such that x_n = xn and the unconstrained friction x_t = slip (cos, sin)(angle) with
/// slip > mu xn. Closed form of the disc cone: x_t = mu xn (cos, sin)(angle); the box cone
/// clamps each component to ±mu xn instead (sqrt(2) mu xn long at 45 degrees).
struct SlipCase {
    lcp::LcpProblem p;
    std::vector<double> disc, box;  ///< the solutions of either cone
};

inline SlipCase slipProblem(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const double aN = 0.5 + 1.5 * u(rng), aT = 0.5 + 1.5 * u(rng), xn = 0.5 + 1.5 * u(rng);
    const double mu = 0.3 + 0.6 * u(rng);
    const double angle = 2.0 * 3.14159265358979 * u(rng);
    const double slip = (2.0 + 2.0 * u(rng)) * mu * xn;
    SlipCase c{lcp::LcpProblem::plain(3), {}, {}};
    auto& p = c.p;
    p.a = {static_cast<float>(aN), 0, 0, 0, static_cast<float>(aT), 0, 0, 0,
           static_cast<float>(aT)};
    p.b = {static_cast<float>(-aN * xn), static_cast<float>(-aT * slip * std::cos(angle)),
           static_cast<float>(-aT * slip * std::sin(angle))};
    p.lo = {0.0f, -lcp::kInfinity, -lcp::kInfinity};
    p.frictionNormal = {-1, 0, 0};
    p.mu = {0.0f, static_cast<float>(mu), static_cast<float>(mu)};
    c.disc = {xn, mu * xn * std::cos(angle), mu * xn * std::sin(angle)};
    const double bound = mu * xn;
    c.box = {xn, std::clamp(slip * std::cos(angle), -bound, bound),
             std::clamp(slip * std::sin(angle), -bound, bound)};
    return c;
}

struct Spectrum {
    double minEig = 0, maxEig = 0;  ///< of A
    double maxScaled = 0;           ///< lambda_max(D^-1 A)
    double minScaled = 0;           ///< lambda_min(D^-1 A)
};

inline Spectrum spectrum(const lcp::LcpProblem& p) {
    const int n = p.n;
    Eigen::MatrixXd a(n, n), s(n, n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            a(i, j) = p.a[static_cast<std::size_t>(i) * n + j];
        }
    }
    Eigen::VectorXd d = a.diagonal().cwiseSqrt().cwiseInverse();
    s = d.asDiagonal() * a * d.asDiagonal();  // similar to D^-1 A, symmetric
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ea(a, Eigen::EigenvaluesOnly);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(s, Eigen::EigenvaluesOnly);
    return {ea.eigenvalues().minCoeff(), ea.eigenvalues().maxCoeff(), es.eigenvalues().maxCoeff(),
            es.eigenvalues().minCoeff()};
}

inline std::vector<double> toDouble(std::span<const float> v) {
    return {v.begin(), v.end()};
}

inline double maxAbsDiff(std::span<const float> x, const std::vector<double>& y) {
    double m = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        m = std::max(m, std::abs(x[i] - y[i]));
    }
    return m;
}

inline std::vector<double> toDoubleMatrix(const lcp::LcpProblem& p) {
    return {p.a.begin(), p.a.end()};
}

inline std::vector<double> toDoubleB(const lcp::LcpProblem& p) {
    return {p.b.begin(), p.b.end()};
}

}  // namespace ww::test
