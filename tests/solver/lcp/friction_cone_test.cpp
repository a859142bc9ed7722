// The two friction cones (LcpProblem::cone) against problems with a known answer, on the CPU
// (Jacobi, Gauss-Seidel; dense and matrix-free) and the GPU (both dense paths, matrix-free).
//
// Problems: a random contact operator A = J W J^T + cfm I (test::rowOperatorProblem: a normal
// and two tangent rows per contact, random bodies) and a chosen answer x* with its complementary
// w*, then b = w* - A x* (in double, from the float A the solver sees). Per contact, in turn:
//   stick     x_n > 0, w_n = 0; tangents strictly inside the cone, w_t = 0;
//   slide     x_n > 0, w_n = 0; box: one tangent at +-mu x_n with w of the opposite sign, the
//             other inside (w = 0); disc: x_t = mu x_n d, w_t = -s d (|d| = 1, s > 0);
//   separate  x_n = 0, w_n > 0; x_t = 0 (radius 0), w_t anything;
//   corner    box: both tangents at their edges (a sqrt(2) mu x_n slip: outside the disc);
//             disc: another slide.
// mu in [0.3, 0.8]. A box answer with a slide or a corner is no disc answer and the other way
// round, so each problem tells the cones apart (BoxAndDiscAreDifferentProblems shows it).
// cfm is the mean diagonal of J W J^T: x-dependent bounds can give a problem several answers,
// and with ODE-like cfm (1e-2 of the mean diagonal) the solvers often found another exact
// answer than x* (with 0.1: 1 seed in 25, with 0.3: 2 solves in 1440; with 1: none in 1440,
// n = 9 to 999), which would make x* no check.
//
// The checker is the natural map written here in double from the problem's arrays alone:
// w = A x + b; box: r_i = |x_i - clamp(x_i - w_i, lo_i, hi_i)| with a friction row's bounds
// +-mu max(x_n, 0); disc: a contact's tangent pair projected jointly onto the disc of radius
// mu max(x_n, 0). It is zero exactly at an answer of that cone.
//
// Tolerances: the solvers stop at a float natural-map residual of 1e-5; the checker's double
// w differs from the solver's float one by the rounding of A x + b (a few ulps of
// sum_j |A_ij x_j| + |b_i|, below 1e-6 here), so the answer must pass the checker at 2e-5.
// Its distance from x* was at most 5.7e-6 (|x*|_inf ~ 2) over those 1440 solves; 1e-4 |x*|_inf
// is asserted, where another answer (or the other cone's) lies 1e-2 and more away.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "lcp_generators.h"
#include "lcp_gpu_support.h"
#include "row_operator_generators.h"
#include "solver/lcp/lcp_solver.h"
#include "support/executor.h"

namespace ww::lcp {
namespace {

const char* coneName(FrictionCone cone) {
    return cone == FrictionCone::kBox ? "box" : "disc";
}

struct ContactRows {
    int normal = 0, t1 = 0, t2 = 0;
};

struct KnownProblem {
    LcpProblem p;           ///< dense or matrix-free, with p.cone set
    std::vector<double> a;  ///< the A the solver sees, n*n, in double
    std::vector<ContactRows> contacts;
    std::vector<double> xStar;  ///< the constructed answer
    double maxScaled = 0.0;     ///< lambda_max(D^-1 A)
};

// The generator's contacts from its rows: each normal row and, in row order, the two rows
// naming it (written here, not taken from the solver's pairing).
std::vector<ContactRows> contactsOf(const LcpProblem& p) {
    std::vector<ContactRows> out;
    std::vector<int> at(static_cast<std::size_t>(p.n), -1);
    for (int i = 0; i < p.n; ++i) {
        if (p.frictionNormal[static_cast<std::size_t>(i)] < 0) {
            at[static_cast<std::size_t>(i)] = static_cast<int>(out.size());
            out.push_back({i, -1, -1});
        }
    }
    for (int i = 0; i < p.n; ++i) {
        const int k = p.frictionNormal[static_cast<std::size_t>(i)];
        if (k >= 0) {
            ContactRows& c = out[static_cast<std::size_t>(at[static_cast<std::size_t>(k)])];
            (c.t1 < 0 ? c.t1 : c.t2) = i;
        }
    }
    return out;
}

KnownProblem knownProblem(int contacts, unsigned seed, FrictionCone cone, bool matrixFree,
                          bool grouped = false) {
    test::RowOperatorShape shape;
    shape.contacts = contacts;
    shape.friction = true;
    shape.grouped = grouped;
    shape.cfmScale = 1.0f;
    const LcpProblem mf = test::rowOperatorProblem(shape, seed);
    const LcpProblem dense = test::densified(mf);
    KnownProblem k{matrixFree ? mf : dense, {dense.a.begin(), dense.a.end()}, {}, {}, 0.0};
    {
        const int n = dense.n;
        Eigen::MatrixXd s(n, n);  // D^-1/2 A D^-1/2, similar to D^-1 A
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                s(i, j) = k.a[static_cast<std::size_t>(i) * n + j] /
                          std::sqrt(k.a[static_cast<std::size_t>(i) * n + i] *
                                    k.a[static_cast<std::size_t>(j) * n + j]);
            }
        }
        k.maxScaled = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(s, Eigen::EigenvaluesOnly)
                          .eigenvalues()
                          .maxCoeff();
    }
    LcpProblem& p = k.p;
    p.cone = cone;
    k.contacts = contactsOf(p);
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<double> w(n, 0.0);
    k.xStar.assign(n, 0.0);
    std::mt19937 rng(seed ^ 0x5bd1e995u);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const auto sign = [&] { return u(rng) < 0.5 ? -1.0 : 1.0; };
    for (std::size_t c = 0; c < k.contacts.size(); ++c) {
        const auto [kn, kf, kg] = k.contacts[c];
        const auto in = static_cast<std::size_t>(kn), f = static_cast<std::size_t>(kf),
                   g = static_cast<std::size_t>(kg);
        const double mu = 0.3 + 0.5 * u(rng);
        p.mu[f] = p.mu[g] = static_cast<float>(mu);
        const int state = static_cast<int>(c % 4);  // stick, slide, separate, corner
        if (state == 2) {
            w[in] = 0.2 + u(rng);
            w[f] = 2.0 * u(rng) - 1.0;
            w[g] = 2.0 * u(rng) - 1.0;
            continue;
        }
        const double xn = 0.5 + 1.5 * u(rng);
        const double r = mu * xn;
        k.xStar[in] = xn;
        if (state == 0) {
            // Strictly inside either cone: |x_t| <= 0.7 r on each axis and 0.7 r in length.
            const double len = 0.7 * r * u(rng), angle = 6.283185307179586 * u(rng);
            k.xStar[f] = len * std::cos(angle);
            k.xStar[g] = len * std::sin(angle);
        } else if (cone == FrictionCone::kDisc) {
            const double angle = 6.283185307179586 * u(rng), s = 0.2 + u(rng);
            k.xStar[f] = r * std::cos(angle);
            k.xStar[g] = r * std::sin(angle);
            w[f] = -s * std::cos(angle);
            w[g] = -s * std::sin(angle);
        } else {
            const bool swap = u(rng) < 0.5;
            const std::size_t edge = swap ? g : f, other = swap ? f : g;
            const double se = sign();
            k.xStar[edge] = se * r;
            w[edge] = -se * (0.2 + u(rng));
            if (state == 3) {
                const double so = sign();
                k.xStar[other] = so * r;
                w[other] = -so * (0.2 + u(rng));
            } else {
                k.xStar[other] = 0.7 * r * (2.0 * u(rng) - 1.0);
            }
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        double ax = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            ax += k.a[i * n + j] * k.xStar[j];
        }
        p.b[i] = static_cast<float>(w[i] - ax);
    }
    return k;
}

struct Violation {
    double residual = 0.0;
    int row = -1;
};

// The natural map of `cone` at x, in double (see the header comment): the largest row residual
// and its row.
Violation coneResidual(const KnownProblem& k, std::span<const float> x, FrictionCone cone) {
    const LcpProblem& p = k.p;
    const auto n = static_cast<std::size_t>(p.n);
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) {
        double s = p.b[i];
        for (std::size_t j = 0; j < n; ++j) {
            s += k.a[i * n + j] * static_cast<double>(x[j]);
        }
        w[i] = s;
    }
    Violation v;
    const auto note = [&](double r, std::size_t row) {
        if (!(r <= v.residual)) {  // a NaN counts as the worst
            v.residual = std::isnan(r) ? std::numeric_limits<double>::infinity() : r;
            v.row = static_cast<int>(row);
        }
    };
    for (const ContactRows& c : k.contacts) {
        const auto in = static_cast<std::size_t>(c.normal), f = static_cast<std::size_t>(c.t1),
                   g = static_cast<std::size_t>(c.t2);
        const double xn = x[in];
        note(std::abs(xn - std::max(xn - w[in], 0.0)), in);
        const double radius = p.mu[f] * std::max(xn, 0.0);
        if (cone == FrictionCone::kBox) {
            for (std::size_t t : {f, g}) {
                note(std::abs(x[t] - std::clamp(x[t] - w[t], -radius, radius)), t);
            }
        } else {
            double v1 = x[f] - w[f], v2 = x[g] - w[g];
            const double len = std::hypot(v1, v2);
            if (len > radius) {
                v1 *= radius / len;
                v2 *= radius / len;
            }
            note(std::abs(x[f] - v1), f);
            note(std::abs(x[g] - v2), g);
        }
    }
    return v;
}

double distanceToKnown(const KnownProblem& k, std::span<const float> x, double& scale) {
    double d = 0.0;
    scale = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        d = std::max(d, std::abs(x[i] - k.xStar[i]));
        scale = std::max(scale, std::abs(k.xStar[i]));
    }
    return d;
}

// Friction makes the bounds x-dependent (no omega is guaranteed to converge); as in
// lcp_cpu_test.cpp: Jacobi at 1 / lambda_max(D^-1 A), Gauss-Seidel under-relaxed to 0.9.
LcpOptions optionsFor(const KnownProblem& k, LcpMethod method) {
    LcpOptions o;
    o.method = method;
    o.omega = method == LcpMethod::kJacobi ? static_cast<float>(1.0 / k.maxScaled) : 0.9f;
    o.tolerance = 1e-5f;
    o.maxIterations = 40000;
    return o;
}

// The answer solves the problem of `cone` and is the constructed one.
void expectKnownAnswer(const KnownProblem& k, std::span<const float> x, const LcpReport& rep,
                       const std::string& what) {
    ASSERT_TRUE(rep.error.empty()) << what << ": " << rep.error;
    EXPECT_EQ(rep.status, LcpStatus::kConverged)
        << what << ": residual " << rep.residual << " after " << rep.iterations;
    const Violation v = coneResidual(k, x, k.p.cone);
    EXPECT_LE(v.residual, 2e-5) << what << ": " << coneName(k.p.cone) << " residual at row "
                                << v.row;
    double scale = 0.0;
    const double d = distanceToKnown(k, x, scale);
    EXPECT_LE(d, 1e-4 * scale) << what << ": |x - x*| (|x*| " << scale << ")";
}

std::string describe(const KnownProblem& k, const char* how, unsigned seed) {
    return std::string(coneName(k.p.cone)) + " " + how + " n " + std::to_string(k.p.n) + " seed " +
           std::to_string(seed);
}

class FrictionConeCpu : public ::testing::TestWithParam<FrictionCone> {
  protected:
    std::unique_ptr<LcpSolver> m_cpu = makeCpuLcpSolver(test::executor());
    const unsigned m_seed = test::freshSeed();
    ::testing::ScopedTrace m_trace{__FILE__, __LINE__, "fresh seed " + std::to_string(m_seed)};
};

// Dense, n = 9, 99, 399, 999 (3 to 333 contacts), Jacobi and Gauss-Seidel.
TEST_P(FrictionConeCpu, DenseAnswersMatchTheKnownOnes) {
    for (int contacts : {3, 33, 133, 333}) {
        const unsigned seed = m_seed + static_cast<unsigned>(contacts);
        const KnownProblem k = knownProblem(contacts, seed, GetParam(), false, contacts == 33);
        for (LcpMethod method : {LcpMethod::kJacobi, LcpMethod::kGaussSeidel}) {
            const LcpOptions o = optionsFor(k, method);
            std::vector<float> x(static_cast<std::size_t>(k.p.n), 0.0f);
            const LcpReport rep = m_cpu->solve(k.p, x, o);
            expectKnownAnswer(k, x, rep, describe(k, toString(method), seed));
        }
    }
}

// Matrix-free, with the contacts' rows adjacent (the contact passes) and grouped.
TEST_P(FrictionConeCpu, MatrixFreeAnswersMatchTheKnownOnes) {
    for (bool grouped : {false, true}) {
        const unsigned seed = m_seed + (grouped ? 7u : 0u);
        const KnownProblem k = knownProblem(133, seed, GetParam(), true, grouped);
        for (LcpMethod method : {LcpMethod::kJacobi, LcpMethod::kGaussSeidel}) {
            const LcpOptions o = optionsFor(k, method);
            std::vector<float> x(static_cast<std::size_t>(k.p.n), 0.0f);
            const LcpReport rep = m_cpu->solve(k.p, x, o);
            expectKnownAnswer(k, x, rep,
                              describe(k, toString(method), seed) + (grouped ? " grouped" : ""));
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Cones, FrictionConeCpu,
                         ::testing::Values(FrictionCone::kBox, FrictionCone::kDisc),
                         [](const auto& param) { return std::string(coneName(param.param)); });

// A box problem solved as a disc one (and the other way round) ends far from the answer: the
// cones are different problems here, and the solver and naturalResidual follow LcpProblem::cone.
TEST(FrictionCone, BoxAndDiscAreDifferentProblems) {
    auto cpu = makeCpuLcpSolver(test::executor());
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    for (FrictionCone cone : {FrictionCone::kBox, FrictionCone::kDisc}) {
        KnownProblem k = knownProblem(33, seed, cone, false);
        const FrictionCone other =
            cone == FrictionCone::kBox ? FrictionCone::kDisc : FrictionCone::kBox;
        k.p.cone = other;
        std::vector<float> x(static_cast<std::size_t>(k.p.n), 0.0f);
        const LcpReport rep = cpu->solve(k.p, x, optionsFor(k, LcpMethod::kGaussSeidel));
        EXPECT_EQ(rep.status, LcpStatus::kConverged) << coneName(other);
        // Solved, in the other cone's sense (the solver's residual and the checker's agree) ...
        EXPECT_LE(coneResidual(k, x, other).residual, 2e-5) << coneName(other);
        EXPECT_LE(naturalResidual(k.p, x), 2e-5) << coneName(other);
        // ... and far from an answer of the cone the problem was built for: 8 slides and
        // corners of O(0.1 - 1) each.
        EXPECT_GT(coneResidual(k, x, cone).residual, 1e-2) << coneName(cone);
        k.p.cone = cone;
        EXPECT_GT(naturalResidual(k.p, x), 1e-2) << coneName(cone);
    }
}

// The GPU: both dense paths (one dispatch, one dispatch per iteration) and the matrix-free
// path, each cone, against the same known answers, and the CPU's answer to the same problem.
using FrictionConeGpu = GpuLcpTest;

TEST_F(FrictionConeGpu, DensePathsMatchTheKnownAnswers) {
    for (FrictionCone cone : {FrictionCone::kBox, FrictionCone::kDisc}) {
        for (int contacts : {3, 33, 133}) {
            const unsigned seed = m_seed + static_cast<unsigned>(contacts);
            const KnownProblem k = knownProblem(contacts, seed, cone, false, contacts == 33);
            LcpOptions o = optionsFor(k, LcpMethod::kJacobi);
            std::vector<float> xc(static_cast<std::size_t>(k.p.n), 0.0f);
            m_cpu->solve(k.p, xc, o);
            for (bool single : {true, false}) {
                o.gpuSingleDispatch = single;
                std::vector<float> x(static_cast<std::size_t>(k.p.n), 0.0f);
                const LcpReport rep = m_gpu->solve(k.p, x, o);
                const std::string what =
                    describe(k, single ? "gpu single dispatch" : "gpu per iteration", seed);
                expectKnownAnswer(k, x, rep, what);
                // Both within 1e-4 |x*| of x*, so within 2e-4 |x*| of each other.
                double scale = 0.0;
                distanceToKnown(k, x, scale);
                EXPECT_LE(test::maxAbsDiff(x, test::toDouble(xc)), 2e-4 * scale) << what;
            }
        }
    }
}

TEST_F(FrictionConeGpu, MatrixFreePathMatchesTheKnownAnswers) {
    for (FrictionCone cone : {FrictionCone::kBox, FrictionCone::kDisc}) {
        const KnownProblem k = knownProblem(133, m_seed, cone, true, cone == FrictionCone::kDisc);
        const LcpOptions o = optionsFor(k, LcpMethod::kJacobi);
        std::vector<float> x(static_cast<std::size_t>(k.p.n), 0.0f);
        const LcpReport rep = m_gpu->solve(k.p, x, o);
        expectKnownAnswer(k, x, rep, describe(k, "gpu matrix-free", m_seed));
    }
}

}  // namespace
}  // namespace ww::lcp
