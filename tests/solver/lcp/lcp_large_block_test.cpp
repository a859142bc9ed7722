// Matrix-free blocks of 5 000 to 40 000 rows shaped like contacts (a normal and two tangent
// rows a contact on one body pair, or on one body against the static world; random masses and
// inertias: row_operator_generators.h): the blocks whose product runs in triple groups over
// several of the solver's row chunks of 1008 rows, which the small random shapes of the other
// tests never reach. Every check is against references written here in double precision from
// the same J and M (never from the solver's K, nor from another of its paths):
//  - the product A x against J M^-1 J^T x + cfm x;
//  - a fixed number of projected Jacobi passes against the same passes (disc cone);
//  - the converged solve against a converged projected Gauss-Seidel (disc cone).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "lcp_generators.h"
#include "row_operator_generators.h"
#include "solver/lcp/lanczos.h"
#include "solver/lcp/lcp_cpu_plan.h"
#include "support/executor.h"

namespace ww::lcp {
namespace {

constexpr int kJ = RowOperator::kJacobianFloats;
constexpr int kU = RowOperator::kBodyFloats;
constexpr double kUnit = 0x1p-24;  // float's unit roundoff

// A random contact-shaped block of `contacts` contacts (3 rows each, disc friction pairs),
// cfm `cfmScale` of the mean diagonal: the layout World's matrix-free blocks have (rows in
// contact order, no body on both sides of a row), so the operator takes the triple groups.
// With contactForm, each body's W is given too, so the operator gathers in contact space.
LcpProblem contactBlock(int contacts, unsigned seed, float cfmScale, bool contactForm = false) {
    test::RowOperatorShape shape;
    shape.contacts = contacts;
    shape.friction = true;
    shape.mu = 0.5f;
    shape.cfmScale = cfmScale;
    shape.sameBody = false;
    shape.inverseMasses = contactForm;
    return test::rowOperatorProblem(shape, seed);
}

// J M^-1 J^T x + cfm x in double, from J (op.jacobian) and M (op.bodyMass, inverted here), and with
// mag the same sums of absolute values |J| |M^-1 J^T| |x| + cfm |x| (what float rounding of the
// product scales with).
class DoubleOperator {
  public:
    explicit DoubleOperator(const RowOperator& op) : m_op(op) {
        const auto bodies = static_cast<std::size_t>(op.bodies());
        m_invMass.resize(bodies);
        m_invInertia.resize(bodies);
        for (std::size_t b = 0; b < bodies; ++b) {
            const float* m = op.bodyMass(static_cast<int>(b)).data();
            Eigen::Matrix3d inertia;
            inertia << m[1], m[2], m[3], m[2], m[4], m[5], m[3], m[5], m[6];
            m_invMass[b] = 1.0 / m[0];
            m_invInertia[b] = inertia.inverse();
        }
        const int n = op.rows();
        m_diagonal.resize(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            double d = op.cfm();
            for (int side = 0; side < 2; ++side) {
                const std::int32_t b = body(i, side);
                if (b >= 0) {
                    const Vector6 jr = row(i, side);
                    d += jr.dot(inverseMass(b, jr));
                }
            }
            m_diagonal[static_cast<std::size_t>(i)] = d;
        }
    }

    using Vector6 = Eigen::Matrix<double, 6, 1>;

    std::int32_t body(int i, int side) const { return m_op.body(i, side); }
    Vector6 row(int i, int side) const {
        const float* jr = m_op.jacobian(i).data() + kU * side;
        Vector6 v;
        for (int c = 0; c < kU; ++c) {
            v(c) = jr[c];
        }
        return v;
    }
    /// M_b^-1 v.
    Vector6 inverseMass(std::int32_t b, const Vector6& v) const {
        const auto ub = static_cast<std::size_t>(b);
        Vector6 out;
        out.head<3>() = m_invMass[ub] * v.head<3>();
        out.tail<3>() = m_invInertia[ub] * v.tail<3>();
        return out;
    }
    /// A_ii in double.
    double diagonal(int i) const { return m_diagonal[static_cast<std::size_t>(i)]; }

    /// w = A x (and mag, if asked for).
    void apply(std::span<const double> x, std::vector<double>& w,
               std::vector<double>* mag = nullptr) const {
        const int n = m_op.rows();
        std::vector<Vector6> u(static_cast<std::size_t>(m_op.bodies()), Vector6::Zero());
        std::vector<Vector6> uAbs(u.size(), Vector6::Zero());
        for (int i = 0; i < n; ++i) {
            for (int side = 0; side < 2; ++side) {
                const std::int32_t b = body(i, side);
                if (b >= 0) {
                    const Vector6 k = inverseMass(b, row(i, side));
                    u[static_cast<std::size_t>(b)] += k * x[static_cast<std::size_t>(i)];
                    uAbs[static_cast<std::size_t>(b)] +=
                        k.cwiseAbs() * std::abs(x[static_cast<std::size_t>(i)]);
                }
            }
        }
        w.assign(static_cast<std::size_t>(n), 0.0);
        if (mag != nullptr) {
            mag->assign(static_cast<std::size_t>(n), 0.0);
        }
        for (int i = 0; i < n; ++i) {
            const auto ui = static_cast<std::size_t>(i);
            double wi = m_op.cfm() * x[ui];
            double mi = std::abs(wi);
            for (int side = 0; side < 2; ++side) {
                const std::int32_t b = body(i, side);
                if (b >= 0) {
                    const Vector6 jr = row(i, side);
                    wi += jr.dot(u[static_cast<std::size_t>(b)]);
                    mi += jr.cwiseAbs().dot(uAbs[static_cast<std::size_t>(b)]);
                }
            }
            w[ui] = wi;
            if (mag != nullptr) {
                (*mag)[ui] = mi;
            }
        }
    }

  private:
    const RowOperator& m_op;
    std::vector<double> m_invMass;
    std::vector<Eigen::Matrix3d> m_invInertia;
    std::vector<double> m_diagonal;
};

// (x_f, x_g) projected onto the disc of radius r.
void projectDisc(double& f, double& g, double r) {
    const double len = std::hypot(f, g);
    if (len > r) {
        const double s = len > 0.0 ? r / len : 0.0;
        f *= s;
        g *= s;
    }
}

// `passes` projected Jacobi passes in double from x (lcp_solver.h, contact rows 3c, 3c + 1,
// 3c + 2 with the pair (3c + 1, 3c + 2) on the normal 3c): the normal steps by omega / A_nn,
// the pair by omega / max(A_ff, A_gg) and is projected onto the disc of radius
// mu max(x_n^t, 0) of the iterate the pass starts from.
void jacobiPasses(const LcpProblem& p, const DoubleOperator& a, double omega, int passes,
                  std::vector<double>& x) {
    const int contacts = p.n / 3;
    std::vector<double> w, next(x.size());
    for (int t = 0; t < passes; ++t) {
        a.apply(x, w);
        for (int c = 0; c < contacts; ++c) {
            const auto n = static_cast<std::size_t>(3 * c);
            const std::size_t f = n + 1, g = n + 2;
            next[n] =
                std::max(0.0, x[n] - omega / a.diagonal(static_cast<int>(n)) * (w[n] + p.b[n]));
            const double s =
                omega / std::max(a.diagonal(static_cast<int>(f)), a.diagonal(static_cast<int>(g)));
            next[f] = x[f] - s * (w[f] + p.b[f]);
            next[g] = x[g] - s * (w[g] + p.b[g]);
            projectDisc(next[f], next[g], p.mu[f] * std::max(x[n], 0.0));
        }
        x.swap(next);
    }
}

// The natural-map residual max |x - Proj(x - (A x + b))| in double (disc per pair).
double naturalResidualDouble(const LcpProblem& p, const DoubleOperator& a,
                             std::span<const double> x) {
    std::vector<double> w;
    a.apply(x, w);
    double r = 0.0;
    for (int c = 0; c < p.n / 3; ++c) {
        const auto n = static_cast<std::size_t>(3 * c);
        const std::size_t f = n + 1, g = n + 2;
        r = std::max(r, std::abs(x[n] - std::max(0.0, x[n] - w[n] - p.b[n])));
        double vf = x[f] - w[f] - p.b[f];
        double vg = x[g] - w[g] - p.b[g];
        projectDisc(vf, vg, p.mu[f] * std::max(x[n], 0.0));
        r = std::max({r, std::abs(x[f] - vf), std::abs(x[g] - vg)});
    }
    return r;
}

// Projected Gauss-Seidel in double (the sequential-impulse form: u = M^-1 J^T x kept current),
// a contact's normal, then its pair as one block projected with the new normal value, until
// the natural-map residual is at most `tolerance` (checked every 10 sweeps). Returns the
// residual reached.
double gaussSeidel(const LcpProblem& p, const DoubleOperator& a, double tolerance, int maxSweeps,
                   std::vector<double>& x) {
    using Vector6 = DoubleOperator::Vector6;
    const RowOperator& op = p.op;
    std::vector<Vector6> u(static_cast<std::size_t>(op.bodies()), Vector6::Zero());
    std::vector<Vector6> k(2 * static_cast<std::size_t>(p.n), Vector6::Zero());
    for (int i = 0; i < p.n; ++i) {
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = a.body(i, side);
            if (b >= 0) {
                k[2 * static_cast<std::size_t>(i) + side] = a.inverseMass(b, a.row(i, side));
                u[static_cast<std::size_t>(b)] +=
                    k[2 * static_cast<std::size_t>(i) + side] * x[static_cast<std::size_t>(i)];
            }
        }
    }
    const auto wOf = [&](int i) {
        double w = op.cfm() * x[static_cast<std::size_t>(i)] + p.b[static_cast<std::size_t>(i)];
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = a.body(i, side);
            if (b >= 0) {
                w += a.row(i, side).dot(u[static_cast<std::size_t>(b)]);
            }
        }
        return w;
    };
    const auto move = [&](int i, double value) {
        const double dx = value - x[static_cast<std::size_t>(i)];
        x[static_cast<std::size_t>(i)] = value;
        for (int side = 0; side < 2; ++side) {
            const std::int32_t b = a.body(i, side);
            if (b >= 0) {
                u[static_cast<std::size_t>(b)] += k[2 * static_cast<std::size_t>(i) + side] * dx;
            }
        }
    };
    double r = naturalResidualDouble(p, a, x);
    for (int sweep = 1; sweep <= maxSweeps && r > tolerance; ++sweep) {
        for (int c = 0; c < p.n / 3; ++c) {
            const int n = 3 * c, f = n + 1, g = n + 2;
            move(n, std::max(0.0, x[static_cast<std::size_t>(n)] - wOf(n) / a.diagonal(n)));
            const double s = 1.0 / std::max(a.diagonal(f), a.diagonal(g));
            double vf = x[static_cast<std::size_t>(f)] - s * wOf(f);
            double vg = x[static_cast<std::size_t>(g)] - s * wOf(g);
            projectDisc(
                vf, vg,
                p.mu[static_cast<std::size_t>(f)] * std::max(x[static_cast<std::size_t>(n)], 0.0));
            move(f, vf);
            move(g, vg);
        }
        if (sweep % 10 == 0) {
            r = naturalResidualDouble(p, a, x);
        }
    }
    return r;
}

// v as text with three significant digits (for RecordProperty: std::to_string would print
// the small gaps as 0.000000).
std::string threeDigits(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", v);
    return text;
}

// max_i |x_i - reference_i| and the row where it is.
std::pair<double, std::size_t> largestGap(std::span<const float> x,
                                          std::span<const double> reference) {
    std::pair<double, std::size_t> out{0.0, 0};
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::abs(x[i] - reference[i]) > out.first) {
            out = {std::abs(x[i] - reference[i]), i};
        }
    }
    return out;
}

// The largest number of row sides on one body (the longest sum of a body's u).
int maxEntriesPerBody(const RowOperator& op) {
    int most = 0;
    for (int b = 0; b < op.bodies(); ++b) {
        most = std::max(most, op.bodyStart()[static_cast<std::size_t>(b) + 1] -
                                  op.bodyStart()[static_cast<std::size_t>(b)]);
    }
    return most;
}

// The product of blocks from 5 000 to 40 000 rows (one of each end, 5 001 and 39 999 rows, not
// multiples of a triple group's 24, so the scalar tail runs too, and one of a fresh random size
// between) on fresh random x, against J M^-1 J^T x + cfm x in double. Float rounding bound
// (Higham: a sum of m products is within m u of the sum of their absolute values): u_b sums at
// most E terms (E row sides on the body), a row's J . u 13, and K = W J^T is within ~16 u of
// M^-1 J^T (K rounded from the generator's double W J^T; M rounded to float and inverted here,
// its inertia's condition <= 8): so |w - w_double| <= (E + 13 + 16) u mag, mag = |J| |M^-1 J^T|
// |x| + cfm |x|. Measured: at most 0.07 of that bound over 270 fresh blocks; a product missing
// one side of a row is off by ~mag.
TEST(LcpLargeBlock, ProductMatchesJMInverseJTransposeInDouble) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    for (const int contacts : {1667, std::uniform_int_distribution<int>(1700, 13300)(rng), 13333}) {
        SCOPED_TRACE("contacts " + std::to_string(contacts));
        const LcpProblem p = contactBlock(contacts, static_cast<unsigned>(rng()), 0.05f);
        const RowOperator& op = p.op;
        ASSERT_TRUE(op.triples());
        ASSERT_TRUE(op.tripleRuns());
        ASSERT_EQ(op.validate(p.n), "");
        const auto n = static_cast<std::size_t>(p.n);
        std::vector<float> x(n);
        std::uniform_real_distribution<float> value(-1.0f, 1.0f);
        for (float& v : x) {
            v = value(rng);
        }
        std::vector<float> u(static_cast<std::size_t>(kU * op.bodies())), w(n);
        op.apply(x.data(), u.data(), w.data());
        const DoubleOperator a(op);
        std::vector<double> wd, mag;
        a.apply(std::vector<double>(x.begin(), x.end()), wd, &mag);
        const double bound = (maxEntriesPerBody(op) + 13 + 16) * kUnit;
        double worst = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_LE(std::abs(w[i] - wd[i]), bound * mag[i])
                << "row " << i << " of " << n << ": " << w[i] << " vs " << wd[i];
            worst = std::max(worst, std::abs(w[i] - wd[i]) / (bound * mag[i]));
        }
        RecordProperty("worstOfBound" + std::to_string(contacts), threeDigits(worst));
    }
}

// A fixed number of projected Jacobi passes on fresh blocks of 5 000 to 40 000 rows, from a
// fresh random start inside the cone (so that normals and pairs both clamp and slide), match
// the same passes in double: both forms of the pass (the contact rows together, and the rows
// then the pairs), on the executor's three threads, where each row chunk of 1008 rows takes
// its own step scales. omega is 1 / lambda_max(D^-1 A) (a 60-step Lanczos estimate, times
// 1.03), half the linear limit, so the passes do not amplify the differences.
// Tolerance: the float passes differ from the double ones by rounding only; the gap measured
// was at most 1.9e-7 max|x| over 180 fresh blocks (both pass forms alike), so 1e-5 max|x| is
// 50x that, while a row chunk that steps by half, or a product missing side B of its rows, is
// off by more than 0.2 max|x|. Each block also in contact form (its gathers from the contacts'
// impulses).
TEST(LcpLargeBlock, FixedJacobiPassesMatchTheSamePassesInDouble) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto solver = makeCpuLcpSolver(test::executor());
    constexpr int kPasses = 12;
    for (const int contacts : {std::uniform_int_distribution<int>(1667, 4000)(rng),
                               std::uniform_int_distribution<int>(4000, 13333)(rng)}) {
        for (const bool form : {false, true}) {
            SCOPED_TRACE("contacts " + std::to_string(contacts) + (form ? ", contact form" : ""));
            const LcpProblem p = contactBlock(contacts, static_cast<unsigned>(rng()), 0.05f, form);
            ASSERT_TRUE(isSplitBlock(p));
            ASSERT_EQ(p.op.contactForm(), form);
            const auto n = static_cast<std::size_t>(p.n);
            std::vector<float> x0(n);
            std::uniform_real_distribution<float> unit(0.0f, 1.0f);
            for (std::size_t c = 0; c < n / 3; ++c) {
                const float xn = 2.0f * unit(rng);
                const float radius = p.mu[3 * c + 1] * xn * 1.2f * unit(rng);
                const float angle = 6.2831853f * unit(rng);
                x0[3 * c] = xn;
                x0[3 * c + 1] = radius * std::cos(angle);
                x0[3 * c + 2] = radius * std::sin(angle);
            }
            LanczosScratch scratch;
            const double lambda = 1.03 * lanczosLambdaMax(p.op, 60, scratch);
            LcpOptions o;
            o.omega = static_cast<float>(1.0 / lambda);
            o.tolerance = 0.0f;
            o.maxIterations = kPasses;
            const DoubleOperator a(p.op);
            std::vector<double> reference(x0.begin(), x0.end());
            jacobiPasses(p, a, o.omega, kPasses, reference);
            double largest = 0.0;
            for (const double v : reference) {
                largest = std::max(largest, std::abs(v));
            }
            for (const bool contactPasses : {true, false}) {
                SCOPED_TRACE(contactPasses ? "contact passes" : "rows, then pairs");
                o.contactPasses = contactPasses;
                std::vector<float> x = x0;
                const LcpReport rep = solver->solve(p, x, o);
                ASSERT_TRUE(rep.error.empty()) << rep.error;
                ASSERT_EQ(rep.iterations, kPasses);
                const auto [gap, at] = largestGap(x, reference);
                RecordProperty(
                    std::string("passGap") + (contactPasses ? "C" : "R") + std::to_string(contacts),
                    threeDigits(gap / largest));
                EXPECT_LE(gap, 1e-5 * largest)
                    << "row " << at << " (row chunk " << at / 1008 << ") of " << n << ": " << x[at]
                    << " vs " << reference[at] << ", max |x| " << largest;
            }
        }
    }
}

// A Jacobi solve runs its passes as stages of one Executor::runStages (impulses, gather, rows,
// pairs; the tests between passes on whichever thread finished last): on 1, 2, 3 and 8
// threads it gives the same bits, iterate and residual history, on fresh blocks in both
// forms and both pass layouts, accelerated (Chebyshev restarts read each pass's residual),
// and on a dense problem whose disc pairs take a stage of their own. A stage that began before
// the one before it ended, a chunk run twice or skipped, or a plan that read the partials
// before they were all written would change them.
TEST(LcpLargeBlock, JacobiSolvesAreTheSameBitsOnOneToEightThreads) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::vector<std::pair<std::string, LcpProblem>> problems;
    const int contacts = std::uniform_int_distribution<int>(1500, 5000)(rng);
    problems.emplace_back("matrix-free",
                          contactBlock(contacts, static_cast<unsigned>(rng()), 0.05f));
    problems.emplace_back("contact form",
                          contactBlock(contacts, static_cast<unsigned>(rng()), 0.05f, true));
    problems.emplace_back("dense",
                          test::contactProblem(std::uniform_int_distribution<int>(70, 120)(rng),
                                               static_cast<unsigned>(rng()), true));
    problems.back().second.cone = FrictionCone::kDisc;
    for (auto& [name, p] : problems) {
        ASSERT_TRUE(isSplitBlock(p)) << name;
        const auto n = static_cast<std::size_t>(p.n);
        std::vector<float> x0(n);
        std::uniform_real_distribution<float> unit(0.0f, 0.3f);
        for (std::size_t i = 0; i < n; ++i) {
            x0[i] = p.hasFriction() && p.frictionNormal[i] >= 0 ? 0.0f : unit(rng);
        }
        LcpOptions o;
        o.omega = 0.1f;  // below 2 / lambda_max(D^-1 A) for these blocks (~12 at most)
        o.chebyshevRho = 0.9f;
        o.tolerance = 1e-9f;  // not met: every pass runs and checks
        o.checkEvery = 4;
        o.maxIterations = 22;
        o.recordHistory = true;
        for (const bool contactPasses : {true, false}) {
            o.contactPasses = contactPasses;
            std::vector<float> first;
            std::vector<float> firstHistory;
            for (const int threads : {1, 2, 3, 8}) {
                SCOPED_TRACE(name + (contactPasses ? ", contact passes, " : ", rows then pairs, ") +
                             std::to_string(threads) + " threads");
                auto solver = makeCpuLcpSolver(std::make_shared<exec::Executor>(threads));
                std::vector<float> x = x0;
                const LcpReport rep = solver->solve(p, x, o);
                ASSERT_TRUE(rep.error.empty()) << rep.error;
                ASSERT_EQ(rep.iterations, o.maxIterations);
                ASSERT_EQ(rep.history.size(), static_cast<std::size_t>(o.maxIterations) + 1);
                if (threads == 1) {
                    first = x;
                    firstHistory = rep.history;
                    continue;
                }
                for (std::size_t i = 0; i < n; ++i) {
                    ASSERT_EQ(std::bit_cast<std::uint32_t>(x[i]),
                              std::bit_cast<std::uint32_t>(first[i]))
                        << "row " << i << " of " << n << ": " << x[i] << " vs " << first[i];
                }
                for (std::size_t t = 0; t < rep.history.size(); ++t) {
                    ASSERT_EQ(std::bit_cast<std::uint32_t>(rep.history[t]),
                              std::bit_cast<std::uint32_t>(firstHistory[t]))
                        << "pass " << t;
                }
            }
        }
    }
}

// A solve that follows another on the same solver (its workspace: iterates, the contact form's
// impulses, the pass's chunk placement) is the same bits as a fresh solver's, after an odd and
// an even pass count (which leave the last iterate in either buffer).
TEST(LcpLargeBlock, ASecondSolveDoesNotReadTheImpulsesTheFirstLeft) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const LcpProblem p = contactBlock(2000 + static_cast<int>(rng() % 1000u),
                                      static_cast<unsigned>(rng()), 0.05f, true);
    ASSERT_TRUE(p.op.contactForm());
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const auto start = [&] {
        std::vector<float> x(static_cast<std::size_t>(p.n));
        for (float& v : x) {
            v = unit(rng);
        }
        return x;
    };
    LcpOptions o;
    o.omega = 0.1f;
    o.tolerance = 0.0f;
    for (const int passes : {11, 12}) {
        SCOPED_TRACE(std::to_string(passes) + " iterations");
        o.maxIterations = passes;
        auto used = makeCpuLcpSolver(test::executor());
        auto fresh = makeCpuLcpSolver(test::executor());
        std::vector<float> first = start();
        ASSERT_TRUE(used->solve(p, first, o).error.empty());
        const std::vector<float> x1 = start();
        std::vector<float> again = x1;
        std::vector<float> once = x1;
        ASSERT_TRUE(used->solve(p, again, o).error.empty());
        ASSERT_TRUE(fresh->solve(p, once, o).error.empty());
        for (std::size_t i = 0; i < again.size(); ++i) {
            ASSERT_EQ(again[i], once[i]) << "row " << i;
        }
    }
}

// The converged solve of a fresh block of 5 000 to 15 000 rows against projected Gauss-Seidel in
// double run to a residual of 1e-10 (disc cone). Jacobi at omega 1 / lambda_max (as above) to
// the float tolerance 3e-5 (float rounding of A x + b stalls the residual of these blocks near
// 1.1e-5, as for the friction problems of lcp_cpu_test.cpp); the answer's double residual stays
// within 4e-6 of the row magnitudes of that (as there). With cfm 0.05 of the mean diagonal A is
// well conditioned; the gap to the reference was at most 2.0e-5 max|x*| over 90 fresh blocks
// (1100-2200 iterations), so 2e-4 max|x*| is 10x that, while an operator missing side B of its
// rows solves another problem (a gap of O(max|x*|)).
TEST(LcpLargeBlock, ConvergedSolveMatchesGaussSeidelInDouble) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const int contacts = std::uniform_int_distribution<int>(1667, 5000)(rng);
    SCOPED_TRACE("contacts " + std::to_string(contacts));
    const LcpProblem p = contactBlock(contacts, static_cast<unsigned>(rng()), 0.05f);
    ASSERT_TRUE(isSplitBlock(p));
    const auto n = static_cast<std::size_t>(p.n);
    const DoubleOperator a(p.op);
    std::vector<double> reference(n, 0.0);
    ASSERT_LE(gaussSeidel(p, a, 1e-10, 20000, reference), 1e-10);
    double largest = 0.0;
    for (const double v : reference) {
        largest = std::max(largest, std::abs(v));
    }
    auto solver = makeCpuLcpSolver(test::executor());
    LanczosScratch scratch;
    LcpOptions o;
    o.omega = static_cast<float>(1.0 / (1.03 * lanczosLambdaMax(p.op, 60, scratch)));
    o.tolerance = 3e-5f;
    o.maxIterations = 40000;
    std::vector<float> x(n, 0.0f);
    const LcpReport rep = solver->solve(p, x, o);
    ASSERT_TRUE(rep.error.empty()) << rep.error;
    std::vector<double> wd, mag;
    a.apply(std::vector<double>(x.begin(), x.end()), wd, &mag);
    double scale = 1.0;
    for (std::size_t i = 0; i < n; ++i) {
        scale = std::max(scale, mag[i] + std::abs(p.b[i]));
    }
    const double floor = std::max(1e-4, 4e-6 * scale);
    ASSERT_TRUE(rep.status == LcpStatus::kConverged || rep.residual <= floor)
        << "residual " << rep.residual << " after " << rep.iterations << " iterations";
    EXPECT_LE(naturalResidualDouble(p, a, std::vector<double>(x.begin(), x.end())), floor);
    const auto [gap, at] = largestGap(x, reference);
    RecordProperty("gapOverLargest", threeDigits(gap / largest));
    RecordProperty("iterations", rep.iterations);
    EXPECT_LE(gap, 2e-4 * largest)
        << "row " << at << " of " << n << ": " << x[at] << " vs " << reference[at] << ", max |x*| "
        << largest << ", " << rep.iterations << " iterations";
}

// A diverging solve returns the last iterate that passed a residual check (LcpReport: "the last
// good iterate"). The Jacobi pass copies each checked iterate as its row chunks go, and the check
// keeps that copy: on a block of several row chunks solved on the executor, the answer equals bit
// for bit the same iteration stopped at that check. Free rows (no bounds) and omega three times
// 1 / lambda_max make the plain iteration diverge in its top mode. Fails when the copy is kept
// before the check (the diverging iterate comes back) or skips a chunk (stale rows).
TEST(LcpLargeBlock, DivergedSolveReturnsItsLastCheckedIterate) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const int contacts = std::uniform_int_distribution<int>(1667, 5000)(rng);
    LcpProblem p = contactBlock(contacts, static_cast<unsigned>(rng()), 0.0f);
    for (std::size_t i = 0; i < p.lo.size(); ++i) {
        p.lo[i] = -kInfinity;
        p.hi[i] = kInfinity;
        p.mu[i] = 0.0f;
        p.frictionNormal[i] = -1;
    }
    p.cone = FrictionCone::kBox;
    ASSERT_TRUE(isSplitBlock(p));
    ASSERT_GT(p.n, 2 * 1008);  // several row chunks
    LanczosScratch scratch;
    LcpOptions o;
    o.omega = static_cast<float>(3.0 / lanczosLambdaMax(p.op, 60, scratch));
    o.tolerance = 1e-7f;
    o.checkEvery = 8;
    o.maxIterations = 100000;
    auto solver = makeCpuLcpSolver(test::executor());
    std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
    const LcpReport rep = solver->solve(p, x, o);
    ASSERT_EQ(rep.status, LcpStatus::kDiverged);
    ASSERT_GE(rep.iterations, 2 * o.checkEvery);  // a check passed after the start
    ASSERT_EQ(rep.iterations % o.checkEvery, 0);
    // The same iterates stopped at the check before the one that saw the divergence.
    LcpOptions upTo = o;
    upTo.tolerance = 0.0f;
    upTo.maxIterations = rep.iterations - o.checkEvery;
    std::vector<float> good(x.size(), 0.0f);
    const LcpReport stopped = solver->solve(p, good, upTo);
    ASSERT_EQ(stopped.status, LcpStatus::kIterationLimit);
    std::size_t differing = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        differing += std::bit_cast<std::uint32_t>(x[i]) != std::bit_cast<std::uint32_t>(good[i]);
    }
    EXPECT_EQ(differing, 0u) << "of " << x.size() << " rows, after " << rep.iterations
                             << " iterations";
}

// Contact triples shifted by two leading frictionless rows: normals at rows 3k + 2, so one
// contact's normal (row 1007) ends a row chunk of the pass while its friction pair (1008, 1009)
// opens the next. That pair runs with the second chunk; a vector group of eight triples starting
// at it would load its rows from the normal on, a row the first chunk writes (w, and prev with
// Chebyshev weights) at the same time. The plan gathers such a group instead: every group it
// marks as triples reads only rows of its own chunk. Fails when the plan marks groups by the
// triples alone.
TEST(LcpLargeBlock, PairGroupsReadOnlyRowsOfTheirOwnChunk) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    const int contacts = std::uniform_int_distribution<int>(1400, 3000)(rng);
    const LcpProblem block = contactBlock(contacts, static_cast<unsigned>(rng()), 1e-2f);
    constexpr int kLead = 2;
    LcpProblem p;
    p.n = block.n + kLead;
    const auto sn = static_cast<std::size_t>(p.n);
    p.op.resize(p.n, block.op.bodies());
    p.op.setCfm(block.op.cfm());
    p.b.assign(sn, -1.0f);
    p.lo.assign(sn, 0.0f);
    p.hi.assign(sn, kInfinity);
    p.frictionNormal.assign(sn, -1);
    p.mu.assign(sn, 0.0f);
    const auto copyRow = [&](int to, int from) {
        p.op.setBodies(to, block.op.body(from, 0), block.op.body(from, 1));
        std::ranges::copy(block.op.jacobian(from), p.op.jacobian(to).begin());
        std::ranges::copy(block.op.weighted(from), p.op.weighted(to).begin());
    };
    for (int i = 0; i < kLead; ++i) {
        copyRow(i, 3 * i);  // a normal row of its own, no friction
    }
    for (int i = 0; i < block.n; ++i) {
        const auto to = static_cast<std::size_t>(i + kLead);
        const auto from = static_cast<std::size_t>(i);
        copyRow(i + kLead, i);
        p.b[to] = block.b[from];
        p.lo[to] = block.lo[from];
        p.hi[to] = block.hi[from];
        p.mu[to] = block.mu[from];
        p.frictionNormal[to] =
            block.frictionNormal[from] < 0 ? -1 : block.frictionNormal[from] + kLead;
    }
    p.op.allocateBodyMasses();
    for (int b = 0; b < p.op.bodies(); ++b) {
        std::ranges::copy(block.op.bodyMass(b), p.op.bodyMass(b).begin());
    }
    p.op.buildBodyIndex();
    ASSERT_EQ(p.validate(), "");
    cpu::Workspace ws;
    ws.reserve(p);
    // The premises: pairs run with their row chunks, and a chunk's first pair has its normal in
    // the chunk before.
    ASSERT_FALSE(ws.chunkPairBegin.empty());
    ASSERT_FALSE(ws.contactRows);
    int groups = 0;
    int straddling = 0;
    for (std::size_t c = 0; c < ws.chunkPairBegin.size(); ++c) {
        const auto chunkStart = static_cast<std::int32_t>(c * cpu::kMatrixFreeChunkRows);
        const auto first = static_cast<std::size_t>(ws.chunkPairBegin[c]);
        const auto end = static_cast<std::size_t>(ws.chunkPairEnd[c]);
        straddling += first < end && ws.pairNormal[first] < chunkStart ? 1 : 0;
        // The pair pass's groups: eight pairs at a time from the chunk's first.
        for (std::size_t k = first; k + 8 <= end; k += 8) {
            if (ws.tripleAt[k] != 0) {
                ++groups;
                EXPECT_GE(ws.pairNormal[k], chunkStart) << "chunk " << c << ", pairs " << k << "-"
                                                        << k + 7 << " of " << ws.pairs.size();
            }
        }
    }
    EXPECT_GT(straddling, 0);
    EXPECT_GT(groups, 0);
}

}  // namespace
}  // namespace ww::lcp
