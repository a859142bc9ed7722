// CPU projected Jacobi and Gauss-Seidel against the double-precision pivoting reference on
// random SPD and contact-like (J M^-1 J^T) problems, friction, warm start, stopping rules,
// history and divergence reporting.
//
// Tolerance on x: for A SPD with eigenvalues in [mu, L], the natural-map residual bounds the
// error (Pang, "Error bounds in mathematical programming", 1997):
//     ||x - x*||_2 <= (1 + L) / mu * ||r(x)||_2 <= (1 + L) / mu * sqrt(n) * ||r(x)||_inf,
// so each test checks x against the reference with that bound evaluated at the double
// residual of the returned x (plus 1e-6 for float rounding of x itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "lcp_generators.h"
#include "solver/lcp/lcp_reference.h"
#include "solver/linalg/dense.h"
#include "support/executor.h"
#include "support/lcp_stall.h"

namespace ww::lcp {
namespace {

double errorBound(const LcpProblem& p, const test::Spectrum& s, double residual) {
    return (1.0 + s.maxEig) / s.minEig * std::sqrt(static_cast<double>(p.n)) * residual + 1e-6;
}

// omega = 2 / (lambda_min + lambda_max) of D^-1 A: the optimal Jacobi relaxation for a
// linear system, safely inside the convergent range (0, 2 / lambda_max).
float goodOmega(const test::Spectrum& s) {
    return static_cast<float>(2.0 / (s.minScaled + s.maxScaled));
}

// goodOmega, but at most 1.9 / lambda_max. The optimum puts omega lambda_max at
// 2 kappa / (kappa + 1), within 2 / (kappa + 1) of the convergent range's end: on an
// ill-conditioned contact problem (kappa = 156 for contact n 17, sub-seed 3833158805:
// omega lambda_max = 1.987) the top mode then decays by only 1.3 % a pass, and float rounding
// of A x holds the iterates in a cycle at residual 3.7e-5 through any number of passes (ten
// times the stall floor of support/lcp_stall.h). At 1.9 / lambda_max that mode decays by 10 %
// a pass, the slow end (1 - omega lambda_min) is at most 5 % slower, and the same problem
// converges in 384 passes. Problems with kappa <= 19 keep the optimum.
float cappedOmega(const test::Spectrum& s) {
    return std::min(goodOmega(s), static_cast<float>(1.9 / s.maxScaled));
}

void expectMatchesReference(LcpSolver& solver, const LcpProblem& p, LcpMethod method,
                            const std::string& what) {
    const auto s = test::spectrum(p);
    LcpOptions o;
    o.method = method;
    o.omega = method == LcpMethod::kJacobi ? cappedOmega(s) : 1.0f;
    // Float roundoff of A x + b puts a floor of a few 1e-6 under the residual for these
    // O(1) problems (observed up to 4e-6), so 1e-5 is reachable for every seed.
    o.tolerance = 1e-5f;
    o.maxIterations = 20000;
    std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
    const auto rep = solver.solve(p, x, o);
    ASSERT_TRUE(rep.error.empty()) << what << ": " << rep.error;
    // Converged, or stalled where float stops moving (support/lcp_stall.h): Gauss-Seidel on
    // fresh contact n 40, sub-seed 533169802 (seed 2023169745) holds its residual at 1.53e-5
    // through the 20000 passes, under its float floor of 3.5e-5.
    const double floor =
        std::max(static_cast<double>(o.tolerance), test::stallFloor(p, x, o.omega));
    EXPECT_TRUE(rep.status == LcpStatus::kConverged || rep.residual <= floor)
        << what << ": residual " << rep.residual << ", float floor " << floor;
    const double r = naturalResidual(p, x);
    // The float residual the solver saw and the double one differ by float rounding of
    // A x + b (about n * eps * |A| |x|); 1e-5 more covers n = 500 with |A x| ~ 10.
    EXPECT_LE(r, floor + 1e-5) << what;
    auto ref = reference::solveBounded(p);
    ASSERT_TRUE(ref.has_value()) << what;
    EXPECT_LE(test::maxAbsDiff(x, *ref), errorBound(p, s, std::max(r, 1e-7))) << what;
}

TEST(LcpCpu, JacobiMatchesReferenceOnSpdProblems) {
    auto solver = makeCpuLcpSolver(test::executor());
    for (int n : {1, 2, 3, 7, 16, 50, 128, 500}) {
        expectMatchesReference(*solver, test::spdProblem(n, 100u + static_cast<unsigned>(n)),
                               LcpMethod::kJacobi, "spd n " + std::to_string(n));
    }
}

TEST(LcpCpu, JacobiMatchesReferenceOnContactProblems) {
    auto solver = makeCpuLcpSolver(test::executor());
    for (int contacts : {1, 4, 20, 120}) {
        expectMatchesReference(*solver, test::contactProblem(contacts, 7u, false),
                               LcpMethod::kJacobi, "contacts " + std::to_string(contacts));
    }
}

TEST(LcpCpu, GaussSeidelMatchesReference) {
    auto solver = makeCpuLcpSolver(test::executor());
    for (int n : {1, 5, 64, 300}) {
        expectMatchesReference(*solver, test::spdProblem(n, 200u + static_cast<unsigned>(n)),
                               LcpMethod::kGaussSeidel, "spd n " + std::to_string(n));
    }
    expectMatchesReference(*solver, test::contactProblem(40, 9u, false), LcpMethod::kGaussSeidel,
                           "contacts 40");
}

TEST(LcpCpu, PropertyFreshRandomProblems) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto solver = makeCpuLcpSolver(test::executor());
    for (int k = 0; k < 6; ++k) {
        const int n = 1 + static_cast<int>(rng() % 80u);
        const unsigned s = static_cast<unsigned>(rng());
        const bool contact = (k & 1) != 0;
        const auto p = contact ? test::contactProblem(n, s, false) : test::spdProblem(n, s);
        const auto method = (k & 2) != 0 ? LcpMethod::kGaussSeidel : LcpMethod::kJacobi;
        expectMatchesReference(*solver, p, method,
                               std::string(contact ? "contact" : "spd") + " n " +
                                   std::to_string(n) + " sub-seed " + std::to_string(s));
    }
}

TEST(LcpCpu, BoxBoundsMatchReference) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    auto solver = makeCpuLcpSolver(test::executor());
    for (int n : {3, 40, 150}) {
        auto p = test::spdProblem(n, static_cast<unsigned>(rng()));
        for (int i = 0; i < n; ++i) {
            // Mixed: plain rows, finite boxes that bind, negative lower bounds.
            const auto ui = static_cast<std::size_t>(i);
            p.lo[ui] = i % 3 == 0 ? 0.0f : -u(rng);
            p.hi[ui] = i % 3 == 1 ? kInfinity : 0.1f + 0.5f * u(rng);
            p.b[ui] *= 3.0f;
        }
        expectMatchesReference(*solver, p, LcpMethod::kJacobi, "box n " + std::to_string(n));
        expectMatchesReference(*solver, p, LcpMethod::kGaussSeidel,
                               "box gs n " + std::to_string(n));
    }
}

// With friction the bounds depend on x. Box cone (FrictionCone::kBox, the pyramid: each
// tangent row on its own, |x_t| <= mu max(x_n, 0)): freezing the bounds at the solver's answer
// gives a box LCP with a unique solution (A SPD) that the answer must also solve, so the Lemke
// reference of that frozen problem checks it. Disc cone: the answer must lie in the cone and
// its double-precision natural residual (with the disc projection, zero exactly at a
// solution) must be as small as the box cone's.
void expectFrictionSolved(LcpMethod method, unsigned seed, FrictionCone cone) {
    auto solver = makeCpuLcpSolver(test::executor());
    for (int contacts : {1, 6, 40}) {
        auto p = test::contactProblem(contacts, seed + static_cast<unsigned>(contacts), true);
        p.cone = cone;
        const std::string what = std::string(toString(method)) + " contacts " +
                                 std::to_string(contacts) + " seed " + std::to_string(seed);
        const auto s = test::spectrum(p);
        LcpOptions o;
        o.method = method;
        // x-dependent bounds make the problem non-monotone, so no omega is guaranteed to
        // converge; 1 / lambda_max(D^-1 A) (half the linear-system limit) is robust over
        // thousands of fresh seeds, where 2 / (lambda_min + lambda_max) cycles on some.
        // Gauss-Seidel under-relaxed to 0.9: at 1 it cycled on fresh seed 1661332035 (box cone,
        // 40 contacts: residual 0.37 after 40000 sweeps; 1 of ~240 seeds tried), which
        // converges at 0.9, as did 200 further fresh seeds.
        o.omega = method == LcpMethod::kJacobi ? static_cast<float>(1.0 / s.maxScaled) : 0.9f;
        // Friction couples rows through their bounds; float roundoff stalls the residual
        // higher than for fixed bounds (observed up to 1.2e-5 over hundreds of fresh seeds
        // with |b| <= 2), hence 3e-5.
        o.tolerance = 3e-5f;
        o.maxIterations = 40000;
        std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
        const auto rep = solver->solve(p, x, o);
        // Some random friction problems have forces of O(100): their float residual stalls
        // at ~1e-6 of the row magnitudes max_i sum_j |A_ij x_j| + |b_i| instead, which is
        // as converged as float32 allows.
        double scale = 1.0;
        for (int i = 0; i < p.n; ++i) {
            double row = std::abs(p.b[static_cast<std::size_t>(i)]);
            for (int j = 0; j < p.n; ++j) {
                row += std::abs(p.a[static_cast<std::size_t>(i) * p.n + j] *
                                x[static_cast<std::size_t>(j)]);
            }
            scale = std::max(scale, row);
        }
        const double floor = std::max(1e-4, 4e-6 * scale);
        ASSERT_TRUE(rep.status == LcpStatus::kConverged || rep.residual <= floor)
            << what << " residual " << rep.residual << " scale " << scale;
        // The double residual differs from the float one the solver saw by float rounding of
        // A x + b, which the floor covers.
        EXPECT_LE(naturalResidual(p, x), floor) << what;
        if (cone == FrictionCone::kDisc) {
            // Each Jacobi pair is projected with the previous iterate's x_n, so the answer may
            // leave the disc from the final one by the residual, as the box rows below may.
            EXPECT_LE(test::discConeExcess(p, x), floor) << what;
            continue;
        }
        auto frozen = p;
        frozen.frictionNormal.clear();
        frozen.mu.clear();
        for (int i = 0; i < p.n; ++i) {
            const auto ui = static_cast<std::size_t>(i);
            const int k = p.frictionNormal[ui];
            if (k >= 0) {
                const float bound = p.mu[ui] * std::max(x[static_cast<std::size_t>(k)], 0.0f);
                frozen.lo[ui] = -bound;
                frozen.hi[ui] = bound;
                // x_f was clamped with the previous iterate's normal force, so it may exceed
                // the bound from the final one by at most the residual (bounded above).
                EXPECT_LE(std::abs(x[ui]), bound + floor) << what << " row " << i;
            }
        }
        auto ref = reference::solveBounded(frozen);
        ASSERT_TRUE(ref.has_value()) << what;
        const double r = std::max(naturalResidual(frozen, x), 1e-7);
        EXPECT_LE(test::maxAbsDiff(x, *ref), errorBound(frozen, s, r)) << what;
        // That bound grows with n and the condition of A (0.05 to 0.7 absolute at 40 contacts)
        // while the gap the solvers leave is far smaller. Relative to the solution's size: over
        // 6000 fresh problems (1, 6 and 40 contacts, both methods) the gap was at most
        // 4.5e-4 ||x*||_inf (1.5e-3 absolute); 2e-3 ||x*||_inf is 4x that, and 100x below the
        // absolute bound at 40 contacts. Small solutions keep an absolute part of a few times
        // the stopping floor: a one-contact problem with |x*| = 0.086 (seed 2596107847) ended
        // 3.2e-4 from it, within the residual bound but over 2e-3 |x*|.
        double xStar = 0.0;
        for (double v : *ref) {
            xStar = std::max(xStar, std::abs(v));
        }
        EXPECT_LE(test::maxAbsDiff(x, *ref), 2e-3 * xStar + 5.0 * floor)
            << what << " |x*| " << xStar;
    }
}

TEST(LcpCpu, FrictionJacobi) {
    expectFrictionSolved(LcpMethod::kJacobi, 11u, FrictionCone::kBox);
}
TEST(LcpCpu, FrictionGaussSeidel) {
    expectFrictionSolved(LcpMethod::kGaussSeidel, 12u, FrictionCone::kBox);
}
// Seed 3045117113 freezes 18 friction rows of separating contacts to [0, 0] (40 contacts),
// which the reference leaves out of its pivoting (Lemke ended on a ray with them in).
TEST(LcpCpu, FrictionFreshSeed) {
    for (const unsigned seed : {3045117113u, test::freshSeed()}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        expectFrictionSolved(LcpMethod::kJacobi, seed, FrictionCone::kBox);
        expectFrictionSolved(LcpMethod::kGaussSeidel, seed + 7u, FrictionCone::kBox);
    }
}
TEST(LcpCpu, DiscFrictionJacobi) {
    expectFrictionSolved(LcpMethod::kJacobi, 11u, FrictionCone::kDisc);
}
TEST(LcpCpu, DiscFrictionGaussSeidel) {
    expectFrictionSolved(LcpMethod::kGaussSeidel, 12u, FrictionCone::kDisc);
}
TEST(LcpCpu, DiscFrictionFreshSeed) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    expectFrictionSolved(LcpMethod::kJacobi, seed, FrictionCone::kDisc);
    expectFrictionSolved(LcpMethod::kGaussSeidel, seed + 1u, FrictionCone::kDisc);
}

// One contact sliding in a random direction (test::slipProblem): the disc cone returns the
// closed form mu x_n (cos, sin) of the slip direction, the box cone the clamped components
// (longer than mu x_n off the axes). Both methods, plain and Chebyshev-accelerated Jacobi.
// The answers are O(1) floats computed in a few operations: 1e-5 is ~100 ulps.
TEST(LcpCpu, DiscConeMatchesClosedFormOfADiagonalSlip) {
    auto solver = makeCpuLcpSolver(test::executor());
    const unsigned fresh = test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(fresh));
    for (unsigned k = 0; k < 20; ++k) {
        auto c = test::slipProblem(fresh + k);
        for (FrictionCone cone : {FrictionCone::kDisc, FrictionCone::kBox}) {
            c.p.cone = cone;
            for (int variant = 0; variant < 3; ++variant) {
                LcpOptions o;
                o.method = variant == 2 ? LcpMethod::kGaussSeidel : LcpMethod::kJacobi;
                o.omega = variant == 2 ? 1.0f : 0.7f;
                o.chebyshevRho = variant == 1 ? 0.3f : 0.0f;
                o.tolerance = 1e-6f;
                o.checkEvery = 1;
                o.maxIterations = 500;
                std::vector<float> x(3, 0.0f);
                const auto rep = solver->solve(c.p, x, o);
                const std::string what = std::string(cone == FrictionCone::kDisc ? "disc" : "box") +
                                         " variant " + std::to_string(variant) + " case " +
                                         std::to_string(k);
                EXPECT_EQ(rep.status, LcpStatus::kConverged) << what;
                EXPECT_LE(test::maxAbsDiff(x, cone == FrictionCone::kDisc ? c.disc : c.box), 1e-5)
                    << what;
            }
        }
    }
}

// The input checks run in chunks of rows on the executor's threads and must report what a
// serial scan reports: the first bad row. 700 contacts (2100 rows, three chunks), two faults
// of a kind at random contacts: the message names the earlier one, on the threads as on the
// calling thread, for unequal mu in a pair (the contact layout's local check), a normal row
// that is a friction row, and a third friction row on a normal far away (the general check).
TEST(LcpProblem, ChecksOnThreadsReportTheFirstBadRowAsASerialScan) {
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("fresh seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    constexpr int kContacts = 700;
    std::uniform_int_distribution<int> contact(0, kContacts - 1);
    const LcpProblem clean = test::contactProblem(kContacts, seed, true);
    const auto ex = test::executor();
    ASSERT_EQ(clean.validate(), "");
    ASSERT_EQ(clean.validate(ex.get()), "");
    const auto twoContacts = [&] {
        int a = contact(rng), b = contact(rng);
        while (b == a) {
            b = contact(rng);
        }
        return std::pair{std::min(a, b), std::max(a, b)};
    };
    const auto expectFirst = [&](const LcpProblem& p, const std::string& expected) {
        EXPECT_EQ(p.validate(), expected);
        EXPECT_EQ(p.validate(ex.get()), expected);
    };
    {
        const auto [first, second] = twoContacts();
        LcpProblem p = clean;
        for (const int c : {first, second}) {
            p.mu[static_cast<std::size_t>(3 * c + 2)] *= 0.5f;
        }
        expectFirst(p, "rows " + std::to_string(3 * first + 1) + " and " +
                           std::to_string(3 * first + 2) + " share normal row " +
                           std::to_string(3 * first) +
                           " but have different mu; the disc cone needs one mu per pair (use the "
                           "box cone otherwise)");
    }
    {
        const auto [first, second] = twoContacts();
        LcpProblem p = clean;
        for (const int c : {first, second}) {
            p.frictionNormal[static_cast<std::size_t>(3 * c + 1)] = 3 * c + 2;
        }
        expectFirst(p, "row " + std::to_string(3 * first + 1) + ": its normal row " +
                           std::to_string(3 * first + 2) + " is itself a friction row");
    }
    {
        const auto [from, to] = twoContacts();
        LcpProblem p = clean;
        p.frictionNormal[static_cast<std::size_t>(3 * from + 2)] = 3 * to;
        p.mu[static_cast<std::size_t>(3 * from + 2)] = p.mu[static_cast<std::size_t>(3 * to + 1)];
        expectFirst(p, "normal row " + std::to_string(3 * to) +
                           " has more than two friction rows; the disc cone pairs two (use the "
                           "box cone for more)");
    }
    // Faults within a contact's layout, which the vectorized check of the common form must
    // pass on to the scans: a friction row's mu negative or NaN (both rows of the pair, so
    // that the pair's mu agree), a normal row naming the friction row two above it (with no
    // row after it naming that normal, which would give it away), and a friction row naming
    // itself.
    for (const float badMu : {-0.25f, std::numeric_limits<float>::quiet_NaN()}) {
        const auto [first, second] = twoContacts();
        LcpProblem p = clean;
        for (const int c : {first, second}) {
            p.mu[static_cast<std::size_t>(3 * c + 1)] = badMu;
            p.mu[static_cast<std::size_t>(3 * c + 2)] = badMu;
        }
        expectFirst(p,
                    "row " + std::to_string(3 * first + 1) + ": friction coefficient must be >= 0");
    }
    {
        const auto [first, second] = twoContacts();
        LcpProblem p = clean;
        for (const int c : {first, second}) {
            if (c > 0) {
                p.frictionNormal[static_cast<std::size_t>(3 * c)] = 3 * c - 2;
            }
        }
        const int bad = first > 0 ? first : second;
        expectFirst(p, "row " + std::to_string(3 * bad) + ": its normal row " +
                           std::to_string(3 * bad - 2) + " is itself a friction row");
    }
    {
        // Contact c + 1's normal names contact c's first friction row and its own friction
        // rows become normals: only that row is wrong.
        const int c = std::uniform_int_distribution<int>(0, kContacts - 2)(rng);
        LcpProblem p = clean;
        p.frictionNormal[static_cast<std::size_t>(3 * c + 3)] = 3 * c + 1;
        p.frictionNormal[static_cast<std::size_t>(3 * c + 4)] = -1;
        p.frictionNormal[static_cast<std::size_t>(3 * c + 5)] = -1;
        expectFirst(p, "row " + std::to_string(3 * c + 3) + ": its normal row " +
                           std::to_string(3 * c + 1) + " is itself a friction row");
    }
    {
        const auto [first, second] = twoContacts();
        LcpProblem p = clean;
        for (const int c : {first, second}) {
            p.frictionNormal[static_cast<std::size_t>(3 * c + 2)] = 3 * c + 2;
        }
        expectFirst(p, "row " + std::to_string(3 * first + 2) + ": friction normal index " +
                           std::to_string(3 * first + 2) + " out of range");
    }
}

// Friction rows the disc cannot pair are rejected with the reason.
TEST(LcpCpu, DiscConeRejectsThreeRowsOnANormalAndUnequalMu) {
    auto p = test::contactProblem(2, 5u, true);  // rows: n0 t t n1 t t
    auto solver = makeCpuLcpSolver(test::executor());
    std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
    p.frictionNormal[3] = 0;  // n1 becomes a third friction row of n0
    p.frictionNormal[4] = p.frictionNormal[5] = -1;
    p.mu[3] = p.mu[1];
    auto rep = solver->solve(p, x, LcpOptions{});
    EXPECT_NE(rep.error.find("more than two friction rows"), std::string::npos) << rep.error;
    p.cone = FrictionCone::kBox;
    EXPECT_TRUE(p.validate().empty()) << p.validate();
    auto q = test::contactProblem(2, 6u, true);
    q.mu[2] = q.mu[1] * 0.5f;
    rep = solver->solve(q, x, LcpOptions{});
    EXPECT_NE(rep.error.find("different mu"), std::string::npos) << rep.error;
}

TEST(LcpCpu, WarmStartCutsIterations) {
    auto solver = makeCpuLcpSolver(test::executor());
    for (auto method : {LcpMethod::kJacobi, LcpMethod::kGaussSeidel}) {
        auto p = test::contactProblem(30, 21u, true);
        const auto s = test::spectrum(p);
        LcpOptions o;
        o.method = method;
        o.omega = method == LcpMethod::kJacobi ? goodOmega(s) : 1.0f;
        o.tolerance = 1e-5f;
        o.maxIterations = 40000;
        o.checkEvery = 1;
        std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
        ASSERT_EQ(solver->solve(p, x, o).status, LcpStatus::kConverged);
        // Next "frame": the same contacts with slightly different velocities.
        for (auto& v : p.b) {
            v *= 1.001f;
        }
        std::vector<float> cold(x.size(), 0.0f);
        const auto coldRep = solver->solve(p, cold, o);
        const auto warmRep = solver->solve(p, x, o);
        EXPECT_EQ(warmRep.status, LcpStatus::kConverged);
        EXPECT_LT(warmRep.iterations * 2, coldRep.iterations) << toString(method);
    }
}

// Chebyshev acceleration (LcpOptions::chebyshevRho) with rho the spectral radius of plain
// Jacobi at cappedOmega: (k - 1) / (k + 1), k the condition number of D^-1 A, at the optimal
// omega; 1 - omega lambda_min where the cap holds (at the optimum plain Jacobi cycled above the
// tolerance on fresh seed 2204050654, kappa 96, omega lambda_max = 1.979). On
// contact-like problems (J M^-1 J^T + eps I, ill-conditioned, with and without friction) it
// must converge to the same tolerance, match the pivoting reference (frictionless), never take
// much longer than plain Jacobi (restarts when the projection breaks the schedule), and over
// the fixed seeds take well under the plain count (measured over 80 problems: 0.52 of it).
struct IterationTotals {
    int plain = 0;
    int fast = 0;
};

IterationTotals expectChebyshevConverges(unsigned seed) {
    auto solver = makeCpuLcpSolver(test::executor());
    IterationTotals totals;
    for (bool friction : {false, true}) {
        const auto p = test::contactProblem(20, seed, friction);
        const auto s = test::spectrum(p);
        const double k = s.maxScaled / s.minScaled;
        LcpOptions o;
        o.omega = cappedOmega(s);
        o.tolerance = 1e-5f;
        o.checkEvery = 1;
        o.maxIterations = 100000;
        std::vector<float> plain(static_cast<std::size_t>(p.n), 0.0f), fast = plain;
        const auto rp = solver->solve(p, plain, o);
        // The spectral radius of the linear iteration I - omega D^-1 A: (k - 1) / (k + 1) at
        // goodOmega, 1 - omega lambda_min where cappedOmega caps it.
        o.chebyshevRho =
            static_cast<float>(std::max(1.0 - o.omega * s.minScaled, o.omega * s.maxScaled - 1.0));
        const auto rf = solver->solve(p, fast, o);
        const std::string what = std::string(friction ? "friction" : "frictionless") + " seed " +
                                 std::to_string(seed) + " kappa " + std::to_string(k);
        // Plain projected Jacobi is guaranteed to converge here only without friction: the
        // disc cone's bounds, taken from the normal rows, couple the rows unsymmetrically. With
        // friction, fresh seed 1506139077 (kappa 615) did not reach 1e-5 in 100000 plain
        // iterations in the sanitizer build (the Release build's float code converged), so
        // there the plain run is only a baseline: its count, or its cap, bounds Chebyshev's.
        if (friction) {
            EXPECT_NE(rp.status, LcpStatus::kDiverged) << what;
        } else {
            EXPECT_EQ(rp.status, LcpStatus::kConverged) << what;
        }
        // Converged, or stalled where float stops moving (support/lcp_stall.h): with friction,
        // fresh seed 4028991969 (kappa 1115, omega lambda_max = 1.998) holds Chebyshev's
        // iterates at residual 1.9e-5 through the 100000 passes, under its float floor 1.1e-4.
        const double floor = test::stallFloor(p, fast, o.omega);
        EXPECT_TRUE(rf.status == LcpStatus::kConverged || rf.residual <= floor)
            << what << ": residual " << rf.residual << ", float floor " << floor;
        EXPECT_LE(rf.iterations, 3 * rp.iterations / 2 + 10) << what;
        // The double residual differs from the float one the solver stopped at by float
        // rounding of A x + b and, with friction, of the bounds taken from x: the floors of
        // expectMatchesReference (2e-5) and expectFrictionSolved (1e-4).
        EXPECT_LE(naturalResidual(p, fast), friction ? 1e-4 : 2e-5) << what;
        if (!friction) {
            auto ref = reference::solveBounded(p);
            EXPECT_TRUE(ref.has_value()) << what;
            if (ref) {
                EXPECT_LE(test::maxAbsDiff(fast, *ref),
                          errorBound(p, s, std::max(naturalResidual(p, fast), 1e-7)))
                    << what;
            }
        }
        totals.plain += rp.iterations;
        totals.fast += rf.iterations;
    }
    return totals;
}

TEST(LcpCpu, ChebyshevAccelerationConvergesInFewerIterations) {
    IterationTotals fixed;
    for (unsigned seed : {31u, 32u, 33u}) {
        const auto t = expectChebyshevConverges(seed);
        fixed.plain += t.plain;
        fixed.fast += t.fast;
    }
    EXPECT_LT(4 * fixed.fast, 3 * fixed.plain) << fixed.fast << " vs " << fixed.plain;
    const unsigned seed = test::freshSeed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    (void)expectChebyshevConverges(seed);
}

TEST(LcpCpu, ChebyshevRhoOutsideZeroToOneIsRejected) {
    auto solver = makeCpuLcpSolver(test::executor());
    const auto p = test::spdProblem(5, 3u);
    std::vector<float> x(5, 0.0f);
    for (float rho : {-0.1f, 1.0f, 2.0f}) {
        LcpOptions o;
        o.chebyshevRho = rho;
        const auto rep = solver->solve(p, x, o);
        EXPECT_NE(rep.error.find("chebyshevRho"), std::string::npos) << rho;
        EXPECT_EQ(rep.status, LcpStatus::kDiverged);
    }
}

TEST(LcpCpu, StoppingRules) {
    auto solver = makeCpuLcpSolver(test::executor());
    const auto p = test::spdProblem(60, 5u);
    const float omega = goodOmega(test::spectrum(p));
    std::vector<float> x(60, 0.0f);
    for (auto method : {LcpMethod::kJacobi, LcpMethod::kGaussSeidel}) {
        LcpOptions o;
        o.method = method;
        o.omega = method == LcpMethod::kJacobi ? omega : 1.0f;
        o.maxIterations = 17;
        std::fill(x.begin(), x.end(), 0.0f);
        auto rep = solver->solve(p, x, o);
        EXPECT_EQ(rep.iterations, 17);
        EXPECT_EQ(rep.status, LcpStatus::kIterationLimit);
        EXPECT_NEAR(rep.residual, naturalResidual(p, x), 1e-5);
        o.maxIterations = 0;  // 2n
        std::fill(x.begin(), x.end(), 0.0f);
        rep = solver->solve(p, x, o);
        EXPECT_EQ(rep.iterations, 120);
        o.tolerance = 1e-4f;
        o.checkEvery = 4;
        o.maxIterations = 5000;
        std::fill(x.begin(), x.end(), 0.0f);
        rep = solver->solve(p, x, o);
        EXPECT_EQ(rep.status, LcpStatus::kConverged);
        EXPECT_EQ(rep.iterations % 4, 0);
        EXPECT_LE(rep.residual, 1e-4f);
        EXPECT_LE(naturalResidual(p, x), 1.1e-4);
        EXPECT_GT(rep.iterations, 0);
    }
}

// Accelerated Jacobi computes every pass's residual (the restart rule reads it), so it stops at
// the first iterate that meets the tolerance whatever checkEvery is (testsIterate); plain
// Jacobi and Gauss-Seidel stop at the first checked one. The history, recorded alongside,
// names that iterate. Fresh contact problems with friction, checkEvery 10.
TEST(LcpCpu, AcceleratedJacobiStopsAtTheFirstIterateUnderTheTolerance) {
    auto solver = makeCpuLcpSolver(test::executor());
    const unsigned seed = test::freshSeed();
    int offCheck = 0;
    for (unsigned k = 0; k < 6; ++k) {
        const auto p = test::contactProblem(20, seed + k, true);
        const auto s = test::spectrum(p);
        for (bool accelerated : {true, false}) {
            LcpOptions o;
            o.omega = cappedOmega(s);
            o.chebyshevRho = accelerated ? static_cast<float>(std::max(1.0 - o.omega * s.minScaled,
                                                                       o.omega * s.maxScaled - 1.0))
                                         : 0.0f;
            o.tolerance = 1e-3f;
            o.checkEvery = 10;
            o.maxIterations = 20000;
            o.recordHistory = true;
            std::vector<float> x(static_cast<std::size_t>(p.n), 0.0f);
            const auto rep = solver->solve(p, x, o);
            const std::string what =
                "seed " + std::to_string(seed + k) + (accelerated ? " accelerated" : " plain");
            ASSERT_EQ(rep.status, LcpStatus::kConverged) << what;
            ASSERT_EQ(rep.history.size(), static_cast<std::size_t>(rep.iterations) + 1) << what;
            int first = -1;  // the first iterate the rule tests that meets the tolerance
            for (int t = 0; t <= rep.iterations && first < 0; ++t) {
                const bool tested = accelerated || t % o.checkEvery == 0;
                first = tested && rep.history[static_cast<std::size_t>(t)] <= o.tolerance ? t : -1;
            }
            EXPECT_EQ(rep.iterations, first) << what;
            offCheck += accelerated && rep.iterations % o.checkEvery != 0 ? 1 : 0;
        }
    }
    EXPECT_GT(offCheck, 0) << "every accelerated solve met the tolerance at a checked iterate";
}

TEST(LcpCpu, HistoryRecordsEveryIterate) {
    auto solver = makeCpuLcpSolver(test::executor());
    const auto p = test::spdProblem(40, 8u);
    std::vector<float> x(40, 0.5f);
    const double guessResidual = naturalResidual(p, x);
    for (auto method : {LcpMethod::kJacobi, LcpMethod::kGaussSeidel}) {
        std::fill(x.begin(), x.end(), 0.5f);
        LcpOptions o;
        o.method = method;
        o.omega = method == LcpMethod::kJacobi ? goodOmega(test::spectrum(p)) : 1.0f;
        o.maxIterations = 50;
        o.recordHistory = true;
        const auto rep = solver->solve(p, x, o);
        ASSERT_EQ(rep.history.size(), 51u);
        EXPECT_NEAR(rep.history.front(), guessResidual, 1e-5 * (1 + guessResidual));
        EXPECT_NEAR(rep.history.back(), naturalResidual(p, x), 1e-5);
        EXPECT_LT(rep.history.back(), 0.01f * rep.history.front()) << toString(method);
    }
}

TEST(LcpCpu, OmegaBeyondConvergentRangeIsReportedAsDivergence) {
    auto solver = makeCpuLcpSolver(test::executor());
    // Free rows: the projection never clamps, so the iteration is linear and diverges
    // exactly when omega > 2 / lambda_max(D^-1 A) (Jacobi) or omega >= 2 (SOR).
    auto p = test::spdProblem(50, 31u);
    std::fill(p.lo.begin(), p.lo.end(), -kInfinity);
    const auto s = test::spectrum(p);
    for (auto method : {LcpMethod::kJacobi, LcpMethod::kGaussSeidel}) {
        LcpOptions o;
        o.method = method;
        o.omega = method == LcpMethod::kJacobi ? static_cast<float>(2.6 / s.maxScaled) : 2.6f;
        o.maxIterations = 100000;
        std::vector<float> x(50, 0.0f);
        const auto rep = solver->solve(p, x, o);
        EXPECT_EQ(rep.status, LcpStatus::kDiverged) << toString(method);
        EXPECT_LT(rep.iterations, 100000);
        for (float v : x) {
            EXPECT_TRUE(std::isfinite(v));
        }
        // The same problem converges inside the range: the verdict is about omega.
        o.omega = method == LcpMethod::kJacobi ? goodOmega(s) : 1.0f;
        o.tolerance = 1e-5f;
        std::fill(x.begin(), x.end(), 0.0f);
        EXPECT_EQ(solver->solve(p, x, o).status, LcpStatus::kConverged) << toString(method);
    }
}

TEST(LcpCpu, RejectsInvalidInput) {
    auto solver = makeCpuLcpSolver(test::executor());
    auto p = test::spdProblem(4, 1u);
    std::vector<float> x(3, 0.0f);
    auto rep = solver->solve(p, x, {});
    EXPECT_EQ(rep.status, LcpStatus::kDiverged);
    EXPECT_NE(rep.error.find("x has 3"), std::string::npos) << rep.error;
    x.assign(4, 1.0f);
    p.a[5] = -1.0f;  // diagonal (1,1)
    rep = solver->solve(p, x, {});
    EXPECT_NE(rep.error.find("diagonal"), std::string::npos) << rep.error;
    EXPECT_EQ(x[0], 1.0f);
}

TEST(LcpCpu, BatchEqualsSeparateSolves) {
    auto solver = makeCpuLcpSolver(test::executor());
    std::vector<LcpProblem> blocks;
    std::size_t total = 0;
    for (int k = 0; k < 9; ++k) {
        blocks.push_back(k % 2 == 0
                             ? test::spdProblem(1 + 7 * k, 40u + static_cast<unsigned>(k))
                             : test::contactProblem(2 + k, 50u + static_cast<unsigned>(k), true));
        total += static_cast<std::size_t>(blocks.back().n);
        if (k == 2 || k == 6) {
            // Blocks above the threading size are solved with their rows split over the cores.
            blocks.push_back(k == 2 ? test::spdProblem(300, 60u)
                                    : test::contactProblem(120, 61u, true));
            total += static_cast<std::size_t>(blocks.back().n);
        }
    }
    ASSERT_TRUE(isSplitBlock(blocks[3]));
    ASSERT_TRUE(isSplitBlock(blocks[8]));
    LcpOptions o;
    o.omega = 0.3f;
    o.maxIterations = 200;
    std::vector<float> xb(total, 0.0f);
    const auto reports = solver->solveBatch(blocks, xb, o);
    ASSERT_EQ(reports.size(), blocks.size());
    std::size_t off = 0;
    for (std::size_t k = 0; k < blocks.size(); ++k) {
        std::vector<float> x(static_cast<std::size_t>(blocks[k].n), 0.0f);
        const auto rep = solver->solve(blocks[k], x, o);
        EXPECT_EQ(rep.iterations, reports[k].iterations);
        for (std::size_t i = 0; i < x.size(); ++i) {
            // Same arithmetic in the same order (a row's sums do not depend on the worker).
            EXPECT_EQ(x[i], xb[off + i]) << "block " << k;
        }
        off += x.size();
    }
}

}  // namespace
}  // namespace ww::lcp
